// One grading question to the judge, the way NeMo Gym's factual-QA servers (simpleqa, omniscience,
// abstention at 07d6b0d) ask it: the filled prompt as the only user message, over Chat Completions
// when `use_chat_completions_for_judge` is set (for endpoints without the Responses API), else over
// Responses with the config's `judge_responses_create_params`. The answer is the judge's text; an
// empty one is a failed judging (NeMo Gym raises JudgeError), never a grade.
import { JudgeClient, JudgeFailure, judgeMessages, type JudgeClientOptions } from "../../judge/index.js";
import type { ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { pyStrip } from "../text/pystr.js";
import { lastAssistantText, stripThinking } from "./text.js";

export interface GraderConfig {
  judge_model_server: ServerRef;
  judge_responses_create_params: ResponsesCreateParams;
  /** Absent for servers that only speak Responses (abstention). */
  use_chat_completions_for_judge?: boolean;
}

export interface GraderOptions extends JudgeClientOptions {
  /** Remove <think> blocks from a Responses judge's text (abstention, omniscience); the chat path never does. */
  stripJudgeThinking?: boolean;
}

/**
 * The Chat Completions body NeMo Gym sends: the prompt, and the Responses sampling parameters mapped
 * with Python's `or` defaults (max_output_tokens → max_tokens or 64, temperature or 0.0, top_p or 1.0).
 */
export function chatGraderRequest(params: ResponsesCreateParams, prompt: string): Record<string, unknown> {
  return {
    messages: [{ role: "user", content: prompt }],
    max_tokens: params.max_output_tokens || 64,
    temperature: params.temperature || 0.0,
    top_p: params.top_p || 1.0,
  };
}

/** Asks the judge `ref` names to grade `prompt`; returns its non-empty text, or throws JudgeFailure. */
export async function askGrader(
  ctx: { urlOf(ref: ServerRef | string): string },
  config: GraderConfig,
  request: Record<string, unknown>,
  prompt: string,
  options: GraderOptions = {},
): Promise<string> {
  const { stripJudgeThinking = false, ...clientOptions } = options;
  const judge = JudgeClient.for(ctx, config.judge_model_server, request, clientOptions);
  let text: string;
  if (config.use_chat_completions_for_judge) {
    const call = await judge.chat(chatGraderRequest(config.judge_responses_create_params, prompt));
    text = call.text ? pyStrip(call.text) : "";
  } else {
    const call = await judge.responses(judgeMessages(config.judge_responses_create_params, [{ role: "user", content: prompt }]));
    const raw = lastAssistantText(call.response);
    text = stripJudgeThinking ? stripThinking(raw) : raw;
  }
  // NeMo Gym's JudgeError carries just this message.
  if (!text) throw new JudgeFailure("JudgeError", "empty judge response");
  return text;
}
