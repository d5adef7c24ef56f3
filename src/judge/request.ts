// Building a judge's request from the environment's `judge_responses_create_params` template: a deep
// copy with its `input` replaced, as NeMo Gym's servers do (`model_copy(deep=True)`, then `input = msgs`).
import type { ResponsesCreateParams } from "../protocol/index.js";

export interface JudgeMessage {
  role: "system" | "developer" | "user" | "assistant";
  content: string;
}

/** The template with its input replaced by these messages (NeMo Gym's EasyInputMessage shape). */
export function judgeMessages(template: ResponsesCreateParams, messages: readonly JudgeMessage[]): ResponsesCreateParams {
  const params = structuredClone(template);
  params.input = messages.map(({ role, content }) => ({ type: "message", role, content })) as ResponsesCreateParams["input"];
  return params;
}

/** A system and a user message (the common judge layout). */
export function judgeRequest(template: ResponsesCreateParams, system: string, user: string): ResponsesCreateParams {
  return judgeMessages(template, [
    { role: "system", content: system },
    { role: "user", content: user },
  ]);
}
