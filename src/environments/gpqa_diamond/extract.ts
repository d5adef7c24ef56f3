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

// ---- strict (Gymkit's own, off by default): NeMo Gym reads "\boxed{not B}" as B (the last standalone
// capital of the box) and grades only the last box, so a response boxing several letters, or a negated
// one, can be rewarded. Under `strict` every box must hold one letter (optionally "(B)", "B)", "B. text",
// "\text{B}", "**B**") and every box and "Answer:" line must name the same letter.

/** Each `\boxed{…}` content, braces balanced. */
function boxContents(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (;;) {
    const at = text.indexOf("\\boxed{", from);
    if (at < 0) return out;
    let depth = 1;
    let pos = at + "\\boxed{".length;
    const start = pos;
    while (pos < text.length && depth > 0) {
      if (text[pos] === "{") depth++;
      else if (text[pos] === "}") depth--;
      pos++;
    }
    out.push(text.slice(start, depth === 0 ? pos - 1 : pos));
    from = pos;
  }
}

/** The letter a box names under strict, or undefined when it holds anything else. */
export function strictBoxLetter(content: string): string | undefined {
  let c = content.trim();
  for (let i = 0; i < 3; i++) c = c.replace(/^\\(?:text|textbf|mathrm|mathbf)\s*\{(.*)\}$/s, "$1").replace(/^(\*\*|\$)(.*)\1$/s, "$2").trim();
  const m = /^\(?([A-Z])\)?(?:[.:)]\s+\S.*)?$/s.exec(c) ?? /^\(?([A-Z])\)?[.:)]?$/.exec(c);
  return m ? m[1] : undefined;
}

/** Under strict: the one letter every box and "Answer:" line names; undefined when a box is not a letter or they name several; null when there is no box and no "Answer:" line. */
export function strictGpqaLetter(text: string): string | undefined | null {
  const letters = new Set<string>();
  for (const content of boxContents(text)) {
    const letter = strictBoxLetter(content);
    if (letter === undefined) return undefined;
    letters.add(letter);
  }
  for (const m of pyFinditer(ANSWER_LINE, text)) letters.add(pyStrip(m[1]!).toUpperCase());
  if (letters.size === 0) return boxContents(text).length ? undefined : null;
  return letters.size === 1 ? [...letters][0] : undefined;
}
