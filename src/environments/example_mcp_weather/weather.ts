// example_mcp_weather's pieces, as NVIDIA-NeMo/Gym 07d6b0d resources_servers/example_mcp_weather has
// them: the deterministic weather sentence, the assistant text /verify reads, and Python's
// str.casefold (the city and sentence are compared case-insensitively).
import { pyStrip } from "../../verifiers/text/pystr.js";

export const weatherSentence = (city: string) => `The weather in ${city} is sunny and 72 F.`;

/**
 * Python's `str.casefold`, character by character: upper-casing then lower-casing folds what
 * casefold folds beyond lower() (ß → ss, ﬁ → fi, ς → σ), without JavaScript's final-sigma context.
 */
export function pyCasefold(text: string): string {
  let out = "";
  for (const char of text) out += char.toUpperCase().toLowerCase();
  return out;
}

type Item = Record<string, unknown>;

/** Every text part of every assistant message, joined by newlines, then stripped. */
export function assistantText(output: readonly Item[]): string {
  const texts: string[] = [];
  for (const item of output) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    const content = item.content;
    if (Array.isArray(content)) {
      for (const part of content as Item[]) if (typeof part?.text === "string") texts.push(part.text);
    } else if (typeof content === "string") texts.push(content);
  }
  return pyStrip(texts.join("\n"));
}
