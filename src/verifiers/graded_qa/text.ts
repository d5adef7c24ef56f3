// The answer text NeMo Gym's factual-QA servers (simpleqa, abstention, omniscience at 07d6b0d) read
// from a Response: the last assistant message that has any text, its parts' texts joined by "\n" and
// stripped as Python strips; and the removal of <think>/<thinking> reasoning blocks two of them apply.
import { pyStrip } from "../text/pystr.js";

/**
 * The last assistant message (searching from the end) whose content yields text: each content part
 * with a string `text` (a plain string content counts as one part), joined by "\n", Python-stripped.
 * Messages without any text are passed over; no such message → "".
 */
export function lastAssistantText(response: { output: readonly unknown[] }): string {
  for (let i = response.output.length - 1; i >= 0; i--) {
    const item = response.output[i] as Record<string, unknown> | null;
    if (!item || item.type !== "message" || item.role !== "assistant") continue;
    const content = item.content;
    let texts: string[] = [];
    if (Array.isArray(content)) {
      for (const part of content as Array<Record<string, unknown> | null>) {
        if (part && typeof part.text === "string") texts.push(part.text);
      }
    } else if (typeof content === "string") {
      texts = [content];
    }
    if (texts.length > 0) return pyStrip(texts.join("\n"));
  }
  return "";
}

/**
 * Drops every complete <think>…</think> and <thinking>…</thinking> block, then (for a reasoning
 * trace whose opening tag was part of the prompt) everything from the start up to the first
 * remaining </think>, then up to the first remaining </thinking>; Python-strips the rest.
 */
export function stripThinking(text: string): string {
  let out = text.replace(/<think>[\s\S]*?<\/think>/g, "").replace(/<thinking>[\s\S]*?<\/thinking>/g, "");
  out = out.replace(/^[\s\S]*?<\/think>/, "").replace(/^[\s\S]*?<\/thinking>/, "");
  return pyStrip(out);
}
