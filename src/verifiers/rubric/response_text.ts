// The text rubric-judged environments read from a Response, as NeMo Gym's multichallenge and
// inverse_if servers read it (07d6b0d, `_extract_text_from_response`): both the policy's answer and
// each judge reply go through it. The last assistant message that has content wins; its text parts
// are joined with newlines and stripped; `<think>`/`<thinking>` blocks are removed, and so is
// everything up to an unpaired closing tag (a prompt that opened the thinking block itself).
import { pySub } from "../text/pyregex.js";
import { pyStrip } from "../text/pystr.js";

const THINKING: readonly string[] = ["<think>.*?</think>", "<thinking>.*?</thinking>", "^.*?</think>", "^.*?</thinking>"];

/** Removes thinking blocks, in NeMo Gym's order (paired blocks first, then an unpaired close). */
export function withoutThinking(text: string): string {
  let out = text;
  for (const pattern of THINKING) out = pySub(pattern, () => "", out, { dotAll: true });
  return out;
}

/** The final assistant message's text, thinking removed (empty string when there is none). */
export function finalAssistantText(response: { output: readonly unknown[] }, excludeThinking = true): string {
  for (let i = response.output.length - 1; i >= 0; i--) {
    const item = response.output[i] as Record<string, unknown> | null;
    if (item === null || typeof item !== "object" || item.type !== "message" || item.role !== "assistant") continue;
    let text: string;
    if (Array.isArray(item.content)) {
      const parts = (item.content as Array<Record<string, unknown> | null>)
        .map((part) => (part !== null && typeof part === "object" && typeof part.text === "string" ? part.text : undefined))
        .filter((t): t is string => t !== undefined);
      text = pyStrip(parts.join("\n"));
    } else if (typeof item.content === "string") {
      text = pyStrip(item.content);
    } else {
      continue;
    }
    return pyStrip(excludeThinking ? withoutThinking(text) : text);
  }
  return "";
}
