// The answer abstention scores (NeMo Gym resources_servers/abstention/app.py, 07d6b0d): the last
// assistant text with reasoning blocks removed, then the content of its last \boxed{…} (nested braces
// balanced; an unclosed box is no box) or, without one, the whole text; and the SQuAD-style
// normalisation that decides whether that answer is the abstention token.
import { pySplit, pyStrip } from "../../verifiers/text/pystr.js";
import { pySub } from "../../verifiers/text/pyregex.js";
import { lastAssistantText, stripThinking } from "../../verifiers/graded_qa/text.js";

const BOX = "\\boxed{";

/** The content of the last `\boxed{`, up to its balancing brace; undefined without one or unbalanced. */
export function lastBoxed(text: string): string | undefined {
  const at = text.lastIndexOf(BOX);
  if (at < 0) return undefined;
  const start = at + BOX.length;
  let depth = 1;
  let i = start;
  while (i < text.length && depth > 0) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}") depth--;
    i++;
  }
  return depth === 0 ? text.slice(start, i - 1) : undefined;
}

/** Lower-cased, articles and punctuation removed, whitespace collapsed (Python's Unicode `re` rules). */
export function normalizeAnswer(s: string): string {
  let out = pyStrip(s.toLowerCase());
  out = pySub(String.raw`\b(a|an|the)\b`, () => " ", out);
  out = pySub(String.raw`[^\w\s]`, () => "", out);
  return pySplit(out).join(" ");
}

/** What the policy answered: the boxed content if any, else its whole (reasoning-free) text. */
export function abstentionAnswer(response: { output: readonly unknown[] }): string {
  const text = stripThinking(lastAssistantText(response));
  return lastBoxed(text) ?? text;
}
