// `/v1/chat/completions` forwarded to an engine that speaks Chat Completions (openai_model,
// vllm_model): the configured model replaces the caller's, the engine's reply goes back as is, and
// a prompt that does not fit comes back as an empty `length` completion, as on `/v1/responses`.
import type { ModelAdapter } from "./adapter.js";
import { isContextLengthError } from "./context_length.js";
import { engineError, type Engine } from "./engine.js";
import { emptyLengthChatCompletion } from "./response_object.js";

export interface ChatPassthroughOptions {
  /** Implementation id, for error messages. */
  label: string;
  /** The configured model, put on every forwarded body. */
  model: string;
  /** The engine's own additions to the body, after the model is set (e.g. vLLM's extra_body). */
  finish?: (body: Record<string, unknown>) => Record<string, unknown>;
}

export function chatPassthrough(engine: Engine, options: ChatPassthroughOptions): NonNullable<ModelAdapter["chatCompletions"]> {
  const finish = options.finish ?? ((body) => body);
  return async (body, context) => {
    const reply = await engine.post("/chat/completions", finish({ ...body, model: options.model }), context.rollout, context.signal);
    if (reply.ok) return reply.json;
    if (isContextLengthError(reply.status, reply.text)) return emptyLengthChatCompletion(options.model);
    throw engineError(options.label, reply);
  };
}
