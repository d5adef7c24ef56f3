// What citation_if reads of a Responses-API response, as NeMo Gym's app.py does at commit 07d6b0d
// (extract_response_shape): the assistant messages' text blocks ("output_text" or "text"), non-empty
// ones joined by newlines and stripped, and how many function calls the response holds. Reasoning
// items and other roles' messages never reach the scorer.
import { pyStrip } from "../../verifiers/text/pystr.js";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export function extractResponseShape(response: unknown): { text: string; functionCallCount: number } {
  const parts: string[] = [];
  let functionCallCount = 0;
  const output = isObject(response) && Array.isArray(response.output) ? response.output : [];
  for (const item of output) {
    if (!isObject(item)) continue;
    if (item.type === "function_call") functionCallCount += 1;
    if (item.type !== "message" || item.role !== "assistant") continue;
    for (const block of Array.isArray(item.content) ? item.content : []) {
      if (isObject(block) && (block.type === "output_text" || block.type === "text") && typeof block.text === "string") parts.push(block.text);
    }
  }
  return { text: pyStrip(parts.filter((p) => p !== "").join("\n")), functionCallCount };
}
