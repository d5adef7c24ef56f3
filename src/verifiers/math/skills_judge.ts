// The single-pass "NeMo Skills" judge that NeMo Gym's math_with_judge subclasses share (NVIDIA-NeMo/Gym
// 07d6b0d: resources_servers/physics_judge, ugphysics_judge, math_with_autograder): the symbolic check
// first (math-verify, in the worker pool), and only on a miss one judge call whose prompt comes from a
// NeMo Gym prompt YAML (`user` required, `system` optional, Python str.format placeholders). The call
// goes to the judge's /v1/responses, or, with `use_chat_completions_for_judge`, to its
// /v1/chat/completions, whose reply is then recorded as NeMo Gym records it: wrapped in a minimal
// Response. Each environment supplies its own verdict parser and what the judge is shown.
import { z } from "zod";
import { ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { asNemoGymCreateParams, asNemoGymResponse } from "../../protocol/nemo_gym_models.js";
import {
  finalJudgeText,
  judgeMessages,
  PromptTemplate,
  PromptTemplateError,
  readPromptYamlMapping,
  type JudgeClient,
  type JudgeMessage,
  type PromptSource,
} from "../../judge/index.js";
import { MathVerifierPool } from "./pool.js";

/** A NeMo Gym prompt config (nemo_gym/prompt.py PromptConfig): a user template, optionally a system one. */
export interface JudgePromptConfig {
  user: PromptTemplate;
  system: PromptTemplate | null;
}

/** Reads a prompt YAML as NeMo Gym's load_prompt_config validates it: `user` a string, `system` a string or absent/null. */
export function loadJudgePromptConfig(path: string, source: PromptSource): JudgePromptConfig {
  const fields = readPromptYamlMapping(path, source);
  if (typeof fields.user !== "string") throw new PromptTemplateError(`\`${source.key}\` (${path}): the prompt config needs a \`user\` template string`);
  if (fields.system !== undefined && fields.system !== null && typeof fields.system !== "string") {
    throw new PromptTemplateError(`\`${source.key}\` (${path}): \`system\` must be a template string`);
  }
  const where = `\`${source.key}\` (${path})`;
  return {
    user: new PromptTemplate(fields.user, `${where} user`),
    system: typeof fields.system === "string" ? new PromptTemplate(fields.system, `${where} system`) : null,
  };
}

/** NeMo Gym's fill_prompt: the system message when there is one, then the user message. */
export function fillJudgePrompt(config: JudgePromptConfig, values: Record<string, unknown>): JudgeMessage[] {
  const messages: JudgeMessage[] = [];
  if (config.system) messages.push({ role: "system", content: config.system.fill(values) });
  messages.push({ role: "user", content: config.user.fill(values) });
  return messages;
}

/** One judge call as NeMo Gym's JudgeEvaluation dumps it into `judge_evaluations`. */
export interface RecordedJudgeEvaluation {
  responses_create_params: unknown;
  response: unknown;
}

export interface SkillsJudgeCall {
  /**
   * The text to parse: the last output item's last part when it is output_text (Responses), or the
   * first choice's content (Chat Completions). Undefined when there is none (NeMo Gym: not correct).
   */
  text: string | undefined;
  evaluation: RecordedJudgeEvaluation;
}

/**
 * One judge call with these messages. The Responses request is the config's template with its input
 * replaced; the Chat Completions request carries the messages and the template's sampling settings
 * (max_tokens defaulting to 2048, temperature to 0.0, top_p to 1.0, as Python's `or` picks them).
 */
export async function askSkillsJudge(judge: JudgeClient, template: ResponsesCreateParams, messages: readonly JudgeMessage[], useChat: boolean): Promise<SkillsJudgeCall> {
  const params = judgeMessages(template, messages);
  if (!useChat) {
    const call = await judge.responses(params);
    return { text: finalJudgeText(call.response), evaluation: { responses_create_params: asNemoGymCreateParams(params), response: asNemoGymResponse(call.response) } };
  }
  const body = {
    messages: messages.map(({ role, content }) => ({ role, content })),
    max_tokens: template.max_output_tokens || 2048,
    temperature: template.temperature || 0.0,
    top_p: template.top_p || 1.0,
  };
  const call = await judge.chat(body);
  const content = call.text;
  const completion = call.completion;
  // The chat reply wrapped into a Response, so judge_evaluations keeps one shape.
  const response = {
    id: completion.id,
    created_at: completion.created,
    model: completion.model,
    object: "response",
    output: [{ id: "msg_chat", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: content ?? "", annotations: [] }] }],
    parallel_tool_calls: false,
    tool_choice: "none",
    tools: [],
  };
  return { text: content ? content : undefined, evaluation: { responses_create_params: asNemoGymCreateParams(params), response: asNemoGymResponse(response) } };
}

/**
 * The config fields these servers inherit from math_with_judge (LibraryJudgeMathResourcesServerConfig),
 * plus Gymkit's per-call judge deadline.
 */
export const mathJudgeConfigShape = {
  judge_model_server: ServerRef,
  judge_responses_create_params: ResponsesCreateParams,
  should_use_judge: z.boolean().default(true),
  library_verifier_timeout_seconds: z.number().positive().default(10.0),
  library_verifier_max_concurrency: z.number().int().positive().default(32),
  /** Deadline of one judge call, in seconds (a Gymkit extension; NeMo Gym uses its client default). */
  judge_timeout_seconds: z.number().positive().default(600),
};

/** The instance's math-verify worker pool, sized and timed as math_with_judge's config says. */
export function mathVerifierPoolOf(config: { library_verifier_max_concurrency: number; library_verifier_timeout_seconds: number }): MathVerifierPool {
  return new MathVerifierPool({ size: config.library_verifier_max_concurrency, timeoutMs: config.library_verifier_timeout_seconds * 1000 });
}

/**
 * The row fields a verify response with `extra="allow"` carries after its declared ones: every field
 * of the request but `responses_create_params`, `response`, and the response's own fields, in the
 * request's order (`declaredRequestFields` first, as the request model dumps them, then the rest).
 */
export function rowExtras(request: Record<string, unknown>, own: Record<string, unknown>, declaredRequestFields: readonly string[], defaults: Record<string, unknown> = {}): Record<string, unknown> {
  const extras: Record<string, unknown> = {};
  const skip = (key: string) => key === "responses_create_params" || key === "response" || key in own;
  for (const key of declaredRequestFields) if (!skip(key)) extras[key] = key in request ? request[key] : (defaults[key] ?? null);
  for (const [key, value] of Object.entries(request)) if (!skip(key) && !(key in extras)) extras[key] = value;
  return extras;
}
