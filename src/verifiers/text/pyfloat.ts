// Python's `float(str)` for JavaScript strings, and `str.splitlines()`. NeMo Gym's rule verifiers
// compare answers through `float(text)` (raising ValueError on anything else), which accepts more than
// JavaScript's `Number`: Unicode decimal digits of any script ("١٢" is 12.0), Unicode whitespace
// around the number, underscores between digits, "inf"/"infinity"/"nan" in any case with a sign, and
// rejects what `Number` accepts ("", "0x10", "1e", "Infinity" is fine but " " is not).
import { isPySpace } from "./pystr.js";

const DIGIT = /\p{Nd}/u;
const DIGITS = "\\d(?:_?\\d)*";
const PY_FLOAT_TEXT = new RegExp(`^[+-]?(?:(?:(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?)|inf|infinity|nan)$`, "i");

/** The ASCII digit of a Unicode decimal digit (`unicodedata.decimal`): its place in its run of ten. */
function decimalValue(ch: string): number {
  let cp = ch.codePointAt(0)!;
  const start = cp;
  while (cp > 0 && DIGIT.test(String.fromCodePoint(cp - 1))) cp--;
  return (start - cp) % 10;
}

/**
 * `float(text)`, or undefined where Python raises ValueError. As CPython does, Unicode whitespace
 * becomes a space and Unicode decimal digits become ASCII digits first; any other non-ASCII
 * character makes the text invalid; then surrounding whitespace is stripped.
 */
export function pyFloatFromString(text: string): number | undefined {
  let ascii = "";
  for (const ch of text) {
    if (isPySpace(ch)) ascii += " ";
    else if (ch.codePointAt(0)! < 128) ascii += ch;
    else if (DIGIT.test(ch)) ascii += String(decimalValue(ch));
    else return undefined;
  }
  const s = ascii.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, "");
  if (!PY_FLOAT_TEXT.test(s)) return undefined;
  const lower = s.toLowerCase();
  const negative = lower.startsWith("-");
  const body = lower.replace(/^[+-]/, "");
  if (body === "inf" || body === "infinity") return negative ? -Infinity : Infinity;
  if (body === "nan") return NaN;
  return Number(s.replace(/_/g, ""));
}

/** Python's `str.splitlines()` (no keepends): every line boundary Python knows, `\r\n` as one. */
export function pySplitLines(text: string): string[] {
  // Python's boundaries include the ASCII separators \x1c-\x1e.
  // eslint-disable-next-line no-control-regex
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/u);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
