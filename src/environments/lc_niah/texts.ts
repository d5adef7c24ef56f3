// The three texts NeMo Gym's lc_niah server compares (NVIDIA-NeMo/Gym 07d6b0d,
// resources_servers/lc_niah/app.py): the final answer (every output_text block of the assistant
// messages), the reasoning (every summary text of the reasoning items) and the prompt (the input
// string, or the texts of the input items' contents joined by newlines).
import type { ResponseObject } from "../../protocol/index.js";

export function reasoningText(response: Pick<ResponseObject, "output">): string {
  let text = "";
  for (const item of response.output as Array<Record<string, unknown>>) {
    if (item.type !== "reasoning" || !Array.isArray(item.summary)) continue;
    for (const part of item.summary as Array<Record<string, unknown>>) text += typeof part.text === "string" ? part.text : "";
  }
  return text;
}

export function inputText(createParams: { input?: unknown }): string {
  const input = createParams.input;
  if (typeof input === "string") return input;
  const parts: string[] = [];
  for (const item of Array.isArray(input) ? (input as Array<Record<string, unknown>>) : []) {
    const content = item?.content;
    if (typeof content === "string") parts.push(content);
    else if (Array.isArray(content)) {
      for (const block of content as Array<Record<string, unknown>>) {
        const text = block?.text;
        // Python keeps a block's text when it is truthy.
        if (typeof text === "string" && text !== "") parts.push(text);
      }
    }
  }
  return parts.join("\n");
}
