// `vllm_model`: Responses API in front of vLLM or any OpenAI-compatible Chat Completions server.
// Field names are NeMo Gym's, so its configs work unchanged.
import { z } from "zod";
import { HttpError } from "../http/errors.js";
import type { ServerImplementation } from "../orchestrate/implementation.js";
import { toChatRequest } from "./chat_request.js";
import { firstChoice, fromChatCompletion, generationTokens, type TokenInfo } from "./chat_response.js";
import { isContextLengthError } from "./context_length.js";
import { Engine, engineError } from "./engine.js";
import { EngineCallFields, retryPolicy } from "./engine_config.js";
import { emptyIncompleteResponse, emptyLengthChatCompletion } from "./response_object.js";
import { buildModelServer, type ModelAdapter } from "./server.js";

export const VLLMModelConfig = z.strictObject({
  /** Base URL including `/v1`; a list spreads rollouts over several engines (sticky per rollout, with failover). */
  base_url: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  api_key: z.string().default("dummy"),
  model: z.string().min(1),
  /** Capture prompt/generation token ids and generation logprobs on the last output item (vLLM only). */
  return_token_id_information: z.boolean().default(false),
  /** The engine runs a reasoning parser (reasoning arrives in `reasoning_content`); else `<think>` is parsed from content. */
  uses_reasoning_parser: z.boolean().default(true),
  replace_developer_role_with_system: z.boolean().default(true),
  chat_template_kwargs: z.record(z.string(), z.unknown()).nullish(),
  /** Merged last into every Chat Completions body (engine-specific sampling knobs). */
  extra_body: z.record(z.string(), z.unknown()).nullish(),
  ...EngineCallFields,
});
export type VLLMModelConfig = z.infer<typeof VLLMModelConfig>;

const ID = "vllm_model";

/** vLLM serves `/tokenize` at the server root, beside `/v1`. */
function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
}

export function vllmAdapter(config: VLLMModelConfig): ModelAdapter {
  const engine = new Engine({
    baseUrls: Array.isArray(config.base_url) ? config.base_url : [config.base_url],
    apiKey: config.api_key,
    timeoutMs: config.request_timeout_s * 1000,
    retry: retryPolicy(config),
    label: ID,
  });

  /**
   * The prompt's token ids: vLLM ≥ 0.10.2 returns them with the completion (`return_token_ids`);
   * older versions are asked through `/tokenize` with the same messages, as NeMo Gym does.
   */
  async function promptTokenIds(chatBody: Record<string, unknown>, completion: Record<string, any>, baseUrl: string, signal: AbortSignal): Promise<number[]> {
    if (Array.isArray(completion.prompt_token_ids)) return completion.prompt_token_ids;
    const request: Record<string, unknown> = { model: chatBody.model, messages: chatBody.messages, add_generation_prompt: true };
    for (const key of ["tools", "chat_template_kwargs"]) if (chatBody[key] !== undefined) request[key] = chatBody[key];
    const reply = await engine.postTo([serverRoot(baseUrl)], "/tokenize", request, signal);
    if (!reply.ok) throw engineError(ID, reply);
    const tokens = (reply.json as { tokens?: unknown }).tokens;
    if (!Array.isArray(tokens)) throw new HttpError(502, `${ID}: ${reply.url} answered without a "tokens" list`);
    return tokens as number[];
  }

  return {
    models: () => [config.model],

    async createResponse(params, context) {
      const chatBody = toChatRequest(params, {
        model: config.model,
        replaceDeveloperRoleWithSystem: config.replace_developer_role_with_system,
        chatTemplateKwargs: config.chat_template_kwargs,
        extraBody: config.extra_body,
        returnTokenIds: config.return_token_id_information,
      });
      const reply = await engine.post("/chat/completions", chatBody, context.rollout, context.signal);
      if (!reply.ok) {
        if (isContextLengthError(reply.status, reply.text)) return emptyIncompleteResponse(params, config.model);
        throw engineError(ID, reply);
      }
      const completion = reply.json as Record<string, any>;
      const choice = firstChoice(completion, reply.url);
      let tokens: TokenInfo | undefined;
      if (config.return_token_id_information) {
        tokens = {
          prompt_token_ids: await promptTokenIds(chatBody, completion, reply.baseUrl, context.signal),
          ...generationTokens(choice, reply.url),
        };
      }
      return fromChatCompletion(params, completion, choice, { model: config.model, usesReasoningParser: config.uses_reasoning_parser }, tokens);
    },

    async chatCompletions(body, context) {
      const request: Record<string, unknown> = { ...body, model: config.model };
      if (config.chat_template_kwargs && request.chat_template_kwargs === undefined) request.chat_template_kwargs = config.chat_template_kwargs;
      const reply = await engine.post("/chat/completions", { ...request, ...config.extra_body }, context.rollout, context.signal);
      if (reply.ok) return reply.json;
      if (isContextLengthError(reply.status, reply.text)) return emptyLengthChatCompletion(config.model);
      throw engineError(ID, reply);
    },
  };
}

const implementation: ServerImplementation<VLLMModelConfig> = {
  type: "responses_api_models",
  id: ID,
  configSchema: VLLMModelConfig,
  async build({ name, config }) {
    return buildModelServer({ name, id: ID, adapter: vllmAdapter(config), recordPath: config.record_path });
  },
};

export default implementation;
