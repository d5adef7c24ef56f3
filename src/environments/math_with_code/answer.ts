// math_with_code's answer rule, as NeMo Gym's math_with_code server has it at commit 07d6b0d: the
// text of the last `\boxed{…}` (braces balanced), compared with the row's `expected_result` after
// stripping one layer of `\(…\)`, `$…$` and `\text{…}` and collapsing whitespace, or as numbers
// within a relative 1e-6 when both sides read as Python floats. No symbolic equivalence.
import { pyFloat } from "../../verifiers/code/python_values.js";
import { pySplit, pyStrip } from "../../verifiers/text/pystr.js";

const BOXED = "\\boxed{";

/** The content of the last `\boxed{` whose braces close; null when none does or it is blank. */
export function lastBoxedAnswer(text: string): string | null {
  const at = text.lastIndexOf(BOXED);
  if (at < 0) return null;
  const start = at + BOXED.length;
  let depth = 1;
  let i = start;
  for (; i < text.length && depth > 0; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}") depth--;
  }
  // Only the last `\boxed{` counts: an unclosed one hides any earlier box.
  if (depth !== 0) return null;
  const inner = pyStrip(text.slice(start, i - 1));
  return inner === "" ? null : inner;
}

/** One layer of math delimiters off, in this order, then whitespace runs as single spaces. */
export function normalizeAnswer(value: string): string {
  let s = pyStrip(value);
  if (s.startsWith("\\(") && s.endsWith("\\)")) s = pyStrip(s.slice(2, -2));
  if (s.startsWith("$") && s.endsWith("$") && s.length > 1) s = pyStrip(s.slice(1, -1));
  if (s.startsWith("\\text{") && s.endsWith("}")) s = pyStrip(s.slice(6, -1));
  return pySplit(s).join(" ");
}

/** Equal after normalization, or both Python floats within 1e-6 relative to the expected value. */
export function answersMatch(actual: string | null, expected: string): boolean {
  if (actual === null) return false;
  const a = normalizeAnswer(actual);
  const e = normalizeAnswer(expected);
  if (a === e) return true;
  const fa = pyFloat({ k: "str", v: a });
  const fe = pyFloat({ k: "str", v: e });
  if (fa === null || fe === null) return false;
  // Python's max(1.0, nan) is 1.0; with a NaN on either side the difference is NaN and fails anyway.
  return Math.abs(fa - fe) < 1e-6 * Math.max(1.0, Math.abs(fe));
}
