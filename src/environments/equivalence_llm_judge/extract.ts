// What equivalence_llm_judge shows its judge, read the way NeMo Gym's server reads it
// (resources_servers/equivalence_llm_judge/app.py at commit 07d6b0d): the question is the text of the
// last user message of the request, the candidate is the text of the last assistant message of the
// response, and either may be narrowed by a Python regular expression (MULTILINE | DOTALL; the last
// match; its first group that is not blank, else the whole match; stripped).
import { pyFinditer } from "../../verifiers/text/pyregex.js";
import { pyStrip } from "../../verifiers/text/pystr.js";

/**
 * The part of `text` a Python pattern picks, or undefined when it matches nothing. A pattern Python
 * would refuse (re.error) matches nothing, as NeMo Gym catches that; so does one our translation
 * cannot express (a documented subset of Python's syntax, see pyregex.ts).
 */
export function pickWithPattern(text: string, pattern: string): string | undefined {
  let matches: RegExpExecArray[];
  try {
    matches = pyFinditer(pattern, text, { multiline: true, dotAll: true });
  } catch {
    return undefined;
  }
  const last = matches[matches.length - 1];
  if (!last) return undefined;
  for (let group = 1; group < last.length; group++) {
    const value = last[group];
    if (typeof value === "string" && pyStrip(value) !== "") return pyStrip(value);
  }
  return pyStrip(last[0]);
}

/**
 * The text after an optional pattern: the pattern's pick when it matches, else the whole text. A
 * pattern that is not a string (a row's `output_regex` can be anything) is a TypeError, as re.finditer
 * raises one.
 */
function narrowed(text: string, pattern: unknown): string {
  if (pattern === null || pattern === undefined || pattern === "") return text;
  if (typeof pattern !== "string") throw new TypeError("the extraction regex must be a string (template_metadata.output_regex?)");
  return pickWithPattern(text, pattern) ?? text;
}

/**
 * The candidate answer: the last assistant message's text parts joined by newlines and stripped,
 * narrowed by `pattern`; `failure` when that message is empty or there is none.
 */
export function lastAssistantText(output: readonly unknown[], pattern: unknown, failure: string): string {
  for (let i = output.length - 1; i >= 0; i--) {
    const item = output[i] as Record<string, unknown> | null;
    if (!item || typeof item !== "object" || item.type !== "message" || item.role !== "assistant") continue;
    const content = item.content;
    let text: string;
    if (Array.isArray(content)) {
      const parts = content.flatMap((part) => {
        const t = part !== null && typeof part === "object" ? (part as Record<string, unknown>).text : undefined;
        return typeof t === "string" ? [t] : [];
      });
      text = pyStrip(parts.join("\n"));
    } else if (typeof content === "string") {
      text = pyStrip(content);
    } else {
      break;
    }
    if (!text) return failure;
    return narrowed(text, pattern);
  }
  return failure;
}

/**
 * The question: the text of the last user message that has any (content parts joined by newlines),
 * stripped, narrowed by `pattern`. Empty when there is none (or the input is a plain string, which
 * NeMo Gym walks character by character and finds no user message in).
 */
export function lastUserText(input: unknown, pattern: string | null | undefined): string {
  let last: string | undefined;
  if (Array.isArray(input)) {
    for (const item of input as Array<Record<string, unknown> | null>) {
      if (!item || typeof item !== "object" || item.role !== "user") continue;
      const content = item.content;
      if (typeof content === "string") {
        last = content;
      } else if (Array.isArray(content)) {
        const texts = content.flatMap((block) => {
          const t = block !== null && typeof block === "object" ? (block as Record<string, unknown>).text : undefined;
          return typeof t === "string" ? [t] : [];
        });
        if (texts.length > 0) last = texts.join("\n");
      }
    }
  }
  const text = pyStrip(last ?? "");
  if (!text) return text;
  return narrowed(text, pattern);
}
