// The answer letter of a GPQA-Diamond response, found as NeMo Gym's gpqa_diamond server finds it
// (resources_servers/gpqa_diamond/app.py at commit 07d6b0d): the last `\boxed{…}` without nested
// braces first (its whole content when that is one upper-case character, else the last standalone
// capital in it), then the last "Answer: X" (markdown emphasis allowed around "Answer").
// Python `re` semantics (Unicode `\b`, IGNORECASE letter classes) come from pyregex.
import { pyFinditer } from "../../verifiers/text/pyregex.js";
import { pyIsUpper, pyLen, pyStrip } from "../../verifiers/text/pystr.js";

const BOXED = String.raw`\\boxed\{([^}]*)\}`;
const STANDALONE_CAPITAL = String.raw`\b([A-Z])\b`;
// Python's IGNORECASE also equates "ı" and "İ" with i/I (sre's extra case equivalences), which
// JavaScript's case folding does not: the two are added to the letter classes explicitly.
const ANSWER_LINE = String.raw`(?i)[\*\_]{0,2}Answer[\*\_]{0,2}\s*:[\s\*\_]{0,2}\s*([A-Zıİ])(?![a-zA-Z0-9ıİ])`;

/** The letter as written (not yet upper-cased or checked against the options), or undefined. */
export function extractGpqaLetter(text: string): string | undefined {
  const boxes = pyFinditer(BOXED, text, { dotAll: true });
  const lastBox = boxes.at(-1);
  if (lastBox) {
    const content = pyStrip(lastBox[1] ?? "");
    if (pyLen(content) === 1 && pyIsUpper(content)) return content;
    const capitals = pyFinditer(STANDALONE_CAPITAL, content, { dotAll: true });
    const last = capitals.at(-1);
    if (last) return pyStrip(last[1]!);
  }
  const answers = pyFinditer(ANSWER_LINE, text);
  const answer = answers.at(-1);
  return answer ? pyStrip(answer[1]!).toUpperCase() : undefined;
}
