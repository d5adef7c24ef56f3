// Reading a judge's reply as text, the ways NeMo Gym's judged servers (07d6b0d) read it.
import type { ResponseObject } from "../protocol/index.js";

/**
 * The last output item's last content part, when the item is a message and the part is output_text
 * (math_with_judge, equivalence_llm_judge): anything else has no text.
 */
export function finalJudgeText(response: ResponseObject): string | undefined {
  const last = response.output[response.output.length - 1] as Record<string, unknown> | undefined;
  if (!last || last.type !== "message" || !Array.isArray(last.content)) return undefined;
  const part = last.content[last.content.length - 1] as Record<string, unknown> | undefined;
  return part?.type === "output_text" && typeof part.text === "string" ? part.text : undefined;
}

/**
 * Every output_text of every assistant message, joined (servers that read `response.output_text`
 * or concatenate the message parts). Empty string when there is none.
 */
export function allJudgeText(response: ResponseObject, separator = ""): string {
  const texts: string[] = [];
  for (const item of response.output as Array<Record<string, unknown>>) {
    if (item.type !== "message" || !Array.isArray(item.content)) continue;
    for (const part of item.content as Array<Record<string, unknown>>) {
      if (part.type === "output_text" && typeof part.text === "string") texts.push(part.text);
    }
  }
  return texts.join(separator);
}

/** A Chat Completions reply's first choice's message content; undefined when absent. */
export function chatJudgeText(completion: Record<string, unknown>): string | undefined {
  const choices = completion.choices;
  if (!Array.isArray(choices) || choices.length === 0) return undefined;
  const message = (choices[0] as Record<string, unknown>).message as Record<string, unknown> | undefined;
  return typeof message?.content === "string" ? message.content : undefined;
}
