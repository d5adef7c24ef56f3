// Building Responses objects the way OpenAI returns them: every field a strict client (the
// openai SDKs, NeMo Gym's pydantic `NeMoGymResponse`) requires is present, echoed from the request.
import { randomFillSync } from "node:crypto";
import { emptyUsage, type OutputItem, type ResponseObject, type ResponsesCreateParams, type Usage } from "../protocol/index.js";

/** Random bytes for ids, refilled 256 ids at a time. */
const idPool = Buffer.alloc(16 * 256);
let idOffset = idPool.length;

/**
 * OpenAI-style ids: a kind prefix and 32 hex chars (`resp_…`, `msg_…`, `fc_…`, `rs_…`), the hex of a
 * version-4 UUID as before. Hex of pooled random bytes: a third of the CPU of `randomUUID()` with its
 * dashes removed, and several ids are made per model call.
 */
export function newId(prefix: string): string {
  if (idOffset === idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  const at = idOffset;
  idOffset += 16;
  idPool[at + 6] = (idPool[at + 6]! & 0x0f) | 0x40;
  idPool[at + 8] = (idPool[at + 8]! & 0x3f) | 0x80;
  return `${prefix}_${idPool.toString("hex", at, at + 16)}`;
}

export interface ResponseFields {
  model: string;
  output: OutputItem[];
  incomplete?: boolean;
  usage: Usage;
  createdAt?: number;
}

/** Request fields a Responses object echoes, when the request set them. */
const ECHOED = ["text", "top_logprobs", "truncation", "max_tool_calls", "store", "user", "reasoning", "prompt_cache_key", "safety_identifier", "background"] as const;

export function buildResponse(params: ResponsesCreateParams, fields: ResponseFields): ResponseObject {
  const echoed: Record<string, unknown> = {};
  for (const key of ECHOED) if (params[key] !== undefined && params[key] !== null) echoed[key] = params[key];
  return {
    ...echoed,
    id: newId("resp"),
    object: "response",
    created_at: fields.createdAt ?? Math.floor(Date.now() / 1000),
    model: fields.model,
    output: fields.output,
    status: fields.incomplete ? "incomplete" : "completed",
    incomplete_details: fields.incomplete ? { reason: "max_output_tokens" } : null,
    error: null,
    instructions: params.instructions ?? null,
    max_output_tokens: params.max_output_tokens ?? null,
    metadata: params.metadata ?? null,
    parallel_tool_calls: params.parallel_tool_calls ?? true,
    temperature: params.temperature ?? null,
    tool_choice: params.tool_choice ?? "auto",
    tools: params.tools ?? [],
    top_p: params.top_p ?? null,
    usage: fields.usage,
  };
}

/**
 * What NeMo Gym answers when the prompt no longer fits the engine's context: not an error but an
 * empty, incomplete response, so the agent ends the rollout cleanly and it is still scored.
 */
export function emptyIncompleteResponse(params: ResponsesCreateParams, model: string): ResponseObject {
  return buildResponse(params, { model, output: [], incomplete: true, usage: emptyUsage() });
}

/** The Chat Completions counterpart, for the `/v1/chat/completions` passthrough. */
export function emptyLengthChatCompletion(model: string): Record<string, unknown> {
  return chatCompletionOf(model, null, "length");
}

/** A whole Chat Completions answer of one assistant message (for adapters that answer without an engine). */
export function textChatCompletion(model: string, text: string): Record<string, unknown> {
  return chatCompletionOf(model, text, "stop");
}

/** One assistant message as a Chat Completions answer that no engine produced (so no tokens counted). */
function chatCompletionOf(model: string, content: string | null, finishReason: "length" | "stop"): Record<string, unknown> {
  return {
    id: newId("chatcmpl"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finishReason, logprobs: null }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}
