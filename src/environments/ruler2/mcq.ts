// The multiple-choice route of NeMo Gym's ruler2 server (NVIDIA-NeMo/Gym 07d6b0d,
// resources_servers/ruler2/app.py, after NeMo-Skills' mcq evaluator with relaxed extraction): the
// letter comes from the last "The final answer is …" line, else the last \boxed{…}; a longer
// capture is cut to its last standalone capital letter; failing all that, the last "Answer: X".
import { pyFindall } from "../../verifiers/text/pyregex.js";
import { pyLen, pyStrip } from "../../verifiers/text/pystr.js";

/** Contents of the last `\boxed{…}` (braces balanced), or null. */
export function searchBoxed(text: string): string | null {
  const idx = text.lastIndexOf("\\boxed");
  if (idx < 0) return null;
  let open = 0;
  let right = -1;
  for (let i = idx; i < text.length; i++) {
    if (text[i] === "{") open++;
    else if (text[i] === "}") {
      open--;
      if (open === 0) {
        right = i;
        break;
      }
    }
  }
  if (right < 0) return null;
  const boxed = text.slice(idx, right + 1);
  const left = "\\boxed{";
  if (!boxed.startsWith(left) || !boxed.endsWith("}")) return null;
  return boxed.slice(left.length, -1);
}

const GLYPHS: Array<[string, string]> = [
  ["أ", " A"], ["ب", " B"], ["ج", " C"], ["د", " D"],
  ["অ", " A"], ["ব", " B"], ["ড", " C"], ["ঢ", " D"],
  ["Ａ", " A"], ["Ｂ", " B"], ["Ｃ", " C"], ["Ｄ", " D"],
];

/** Arabic, Bengali and full-width option letters mapped to A–D, then stripped. */
export function normalizeLetter(s: string): string {
  let out = s;
  for (const [glyph, letter] of GLYPHS) out = out.split(glyph).join(letter);
  return pyStrip(out);
}

const last = <T>(xs: T[]): T | undefined => xs[xs.length - 1];
const asText = (m: string | string[] | undefined) => (Array.isArray(m) ? m[0] : m);

export function extractMcqLetter(text: string): string | null {
  let extracted: string | null = asText(last(pyFindall("The final answer is (.+)$", text, { multiline: true }))) ?? null;
  if (extracted === null) extracted = searchBoxed(text);
  if (extracted !== null) extracted = normalizeLetter(extracted);
  let letter: string | null = null;
  if (extracted !== null) {
    if (pyLen(extracted) === 1) letter = extracted.toUpperCase();
    else if (pyLen(extracted) > 1) {
      const tail = pyFindall(String.raw`\b[A-Z]\b(?!.*\b[A-Z]\b)`, extracted, { dotAll: true });
      const t = asText(last(tail));
      if (t !== undefined) letter = pyStrip(t).toUpperCase();
    }
  }
  if (letter === null) {
    const m = asText(last(pyFindall(String.raw`(?i)[\*\_]{0,2}Answer[\*\_]{0,2}\s*:[\s\*\_]{0,2}\s*([A-Z])(?![a-zA-Z0-9])`, text)));
    if (m !== undefined) letter = pyStrip(m).toUpperCase();
  }
  return letter;
}
