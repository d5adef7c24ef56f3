// `vllm_model`: Responses API in front of vLLM or any OpenAI-compatible Chat Completions server.
// Field names are NeMo Gym's, so its configs work unchanged.
import { z } from "zod";
import { HttpError } from "../http/errors.js";
import type { ServerImplementation } from "../http/implementation.js";
import type { ResponseObject, ResponsesCreateParams } from "../protocol/index.js";
import type { ChatTokenizer } from "../tokens/tokenizer.js";
import type { ModelAdapter, ModelRequestContext } from "./adapter.js";
import { chatPassthrough } from "./chat_passthrough.js";
import { metadataOverride, responseFormat, toChatRequest, wantsLogprobs } from "./chat_request.js";
import { firstChoice, fromChatCompletion, generationTokens, type TokenInfo } from "./chat_response.js";
import { isContextLengthError } from "./context_length.js";
import { Engine, engineError } from "./engine.js";
import { EngineCallFields, HeadersField, retryPolicy, underExtraBody, withSamplingOverrides } from "./engine_config.js";
import { emptyIncompleteResponse } from "./response_object.js";
import { buildModelServer } from "./server.js";
import { asHttpApp } from "../http/server.js";
import { buildTokenPrompt, endOfTurnId, engineStopIds, loadChatTemplates, responseFromRawCompletion, toolCallFormatOf, type TokenTurnConfig } from "./token_turn.js";
import { TOOL_CALL_FORMATS } from "../tokens/tool_parsers.js";

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
  /** Engine-specific fields for every body sent to the engine (e.g. {top_k: 20}); a field the request sets keeps the request's value, as in NeMo Gym. */
  extra_body: z.record(z.string(), z.unknown()).nullish(),
  /** Sampling parameters forced onto every request to the engine, replacing the caller's (e.g. {temperature: 1.0}). */
  sampling_overrides: z.record(z.string(), z.unknown()).nullish(),
  /** Headers sent with every request to the engine. */
  default_headers: HeadersField,
  /**
   * On-policy token prompts: render the chat template here, keep the ids earlier calls saw and
   * sampled, and send token ids to vLLM's `/v1/completions` (see src/tokens/README.md). Implies
   * return_token_id_information; needs tokenizer_path.
   */
  on_policy_prompts: z.boolean().default(false),
  /** Local Hugging Face model folder with tokenizer.json and tokenizer_config.json (the served model's). */
  tokenizer_path: z.string().min(1).nullish(),
  /**
   * How the model writes tool calls, named as vLLM's `--tool-call-parser` (hermes, llama3_json,
   * mistral, qwen3_coder, deepseek_v3, openai = gpt-oss harmony); checked at start-up against the
   * chat template. Default: the format the template writes.
   */
  tool_call_parser: z.enum(TOOL_CALL_FORMATS).nullish(),
  /** The token closing each message of the chat template; default: the tokenizer's eos_token. */
  end_of_turn_token: z.string().min(1).nullish(),
  ...EngineCallFields,
}).check((ctx) => {
  if (ctx.value.on_policy_prompts && !ctx.value.tokenizer_path) {
    ctx.issues.push({
      code: "custom",
      path: ["tokenizer_path"],
      message: "on_policy_prompts needs tokenizer_path: the local folder of the served model's tokenizer.json and tokenizer_config.json",
      input: ctx.value.tokenizer_path,
    });
  }
  if (ctx.value.tool_call_parser && !ctx.value.on_policy_prompts) {
    ctx.issues.push({
      code: "custom",
      path: ["tool_call_parser"],
      message: "tool_call_parser is for on_policy_prompts (Gymkit parses the raw completion); without it the engine's own --tool-call-parser reads tool calls",
      input: ctx.value.tool_call_parser,
    });
  }
});
export type VLLMModelConfig = z.infer<typeof VLLMModelConfig>;

const ID = "vllm_model";

/** vLLM serves `/tokenize` at the server root, beside `/v1`. */
function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
}

/** Ids of the `token_id:N` strings vLLM returns with `return_tokens_as_token_ids`. */
function idsFromTokenStrings(tokens: unknown, engineUrl: string): number[] {
  if (!Array.isArray(tokens)) throw new HttpError(502, `engine ${engineUrl} returned no logprobs.tokens; is it vLLM?`);
  return tokens.map((token) => {
    const match = /^token_id:(\d+)$/.exec(String(token));
    if (!match) throw new HttpError(502, `engine ${engineUrl} returned token ${JSON.stringify(token)}, not "token_id:N"; it must honour return_tokens_as_token_ids`);
    return Number(match[1]);
  });
}

/**
 * A call with an on-policy token prompt through vLLM's Completions API: the prompt is token ids,
 * so vLLM applies no chat template and no parsers; Gymkit parses the raw completion itself.
 */
async function tokenPromptResponse(
  engine: Engine,
  config: VLLMModelConfig,
  turn: TokenTurnConfig,
  params: ResponsesCreateParams,
  context: ModelRequestContext,
): Promise<ResponseObject> {
  const choiceOfTool = params.tool_choice;
  if (choiceOfTool !== undefined && choiceOfTool !== null && choiceOfTool !== "auto" && choiceOfTool !== "none") {
    throw new HttpError(400, `${ID}: tool_choice ${JSON.stringify(choiceOfTool)} cannot be enforced with on_policy_prompts (token-id prompts run no tool parser); use "auto"`);
  }
  await loadChatTemplates();
  const prompt = buildTokenPrompt(params, turn);
  const body: Record<string, unknown> = {
    model: config.model,
    prompt: prompt.ids,
    // null, not absent: vLLM's Completions default is 16 tokens; null means "the rest of the context".
    // The request's limit, else extra_body's: it is the one field this body always carries that the
    // request may not set (every other field here is one the token path needs as it is).
    max_tokens: params.max_output_tokens ?? config.extra_body?.max_tokens ?? null,
    // Raw logprob of each sampled token only, tokens spelled `token_id:N`, sampled ids returned.
    logprobs: 0,
    return_tokens_as_token_ids: true,
    return_token_ids: true,
    skip_special_tokens: false,
  };
  if (params.temperature != null) body.temperature = params.temperature;
  if (params.top_p != null) body.top_p = params.top_p;
  if (params.seed != null) body.seed = params.seed;
  const stops = engineStopIds(turn);
  if (stops) body.stop_token_ids = stops;
  // vLLM's Completions API takes the same structured-output response_format as its Chat API.
  const format = responseFormat(params.text);
  if (format) body.response_format = format;
  const reply = await engine.post("/completions", withSamplingOverrides(underExtraBody(body, config.extra_body), config.sampling_overrides), context.rollout, context.signal);
  if (!reply.ok) {
    if (isContextLengthError(reply.status, reply.text)) return emptyIncompleteResponse(params, config.model);
    throw engineError(ID, reply);
  }
  const completion = reply.json as Record<string, any>;
  const choice = completion?.choices?.[0] as Record<string, any> | undefined;
  if (!choice) throw new HttpError(502, `engine ${reply.url} answered without choices[0]: ${JSON.stringify(completion).slice(0, 300)}`);
  const generationIds: number[] = Array.isArray(choice.token_ids) ? choice.token_ids : idsFromTokenStrings(choice.logprobs?.tokens, reply.url);
  const logProbs = choice.logprobs?.token_logprobs;
  if (!Array.isArray(logProbs)) throw new HttpError(502, `engine ${reply.url} returned no logprobs.token_logprobs; is it vLLM?`);
  const stopIds = new Set([turn.endOfTurnId]);
  const eos = turn.tokenizer.eosToken === null ? undefined : turn.tokenizer.tokenId(turn.tokenizer.eosToken);
  if (eos !== undefined) stopIds.add(eos);
  return responseFromRawCompletion(
    params,
    { promptIds: prompt.ids, generationIds, logProbs: logProbs.map(Number), truncated: choice.finish_reason === "length" },
    { model: config.model, tokenizer: turn.tokenizer, stopIds, capture: true, parseTools: Boolean(prompt.tools) && choiceOfTool !== "none", toolCallFormat: turn.toolCallFormat, tools: prompt.tools },
  );
}

/** Ways a model built on vllm_model changes what goes to the engine (e.g. genrm_model's custom roles). */
export interface VLLMAdapterHooks {
  /** Rewrites the Chat Completions body made from a Responses request, before sampling overrides. */
  prepareChat?(body: Record<string, unknown>, params: ResponsesCreateParams): Record<string, unknown>;
}

export function vllmAdapter(config: VLLMModelConfig, tokenizer?: ChatTokenizer, hooks: VLLMAdapterHooks = {}): ModelAdapter {
  const engine = new Engine({
    baseUrls: Array.isArray(config.base_url) ? config.base_url : [config.base_url],
    apiKey: config.api_key,
    headers: config.default_headers,
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

  let turn: TokenTurnConfig | undefined;
  if (config.on_policy_prompts) {
    if (!tokenizer) throw new Error(`${ID}: on_policy_prompts needs the tokenizer of tokenizer_path`);
    turn = {
      label: ID,
      tokenizer,
      endOfTurnId: endOfTurnId(tokenizer, config.end_of_turn_token, ID),
      onPolicy: true,
      replaceDeveloperRoleWithSystem: config.replace_developer_role_with_system,
      chatTemplateKwargs: config.chat_template_kwargs,
      toolCallFormat: toolCallFormatOf(tokenizer, config.tool_call_parser, ID),
    };
  }

  return {
    models: () => [config.model],
    requestFields: turn ? "vllm_model_tokens" : "vllm_model",

    async createResponse(params, context) {
      if (turn) return tokenPromptResponse(engine, config, turn, params, context);
      const converted = toChatRequest(params, {
        model: config.model,
        replaceDeveloperRoleWithSystem: config.replace_developer_role_with_system,
        chatTemplateKwargs: config.chat_template_kwargs,
        extraBody: config.extra_body,
        returnTokenIds: config.return_token_id_information,
      });
      const chatBody = withSamplingOverrides(hooks.prepareChat ? hooks.prepareChat(converted, params) : converted, config.sampling_overrides);
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
      const logprobs = chatBody.logprobs === true && (params.top_logprobs != null || wantsLogprobs(params));
      return fromChatCompletion(params, completion, choice, { model: config.model, usesReasoningParser: config.uses_reasoning_parser, outputLogprobs: logprobs }, tokens);
    },

    chatCompletions: chatPassthrough(engine, {
      label: ID,
      model: config.model,
      finish(request) {
        // The configured template kwargs, unless the caller sent its own.
        const kwargs = config.chat_template_kwargs && request.chat_template_kwargs === undefined ? { chat_template_kwargs: config.chat_template_kwargs } : {};
        // NeMo Gym: the request's metadata.extra_body over the config's, both under the body.
        const requestExtra = (request.metadata as Record<string, unknown> | null | undefined)?.extra_body;
        const extraBody = requestExtra === undefined || requestExtra === null ? config.extra_body : { ...config.extra_body, ...metadataOverride(request.metadata as ResponsesCreateParams["metadata"], "extra_body") };
        return withSamplingOverrides(underExtraBody({ ...request, ...kwargs }, extraBody), config.sampling_overrides);
      },
    }),
  };
}

const implementation: ServerImplementation<VLLMModelConfig> = {
  type: "responses_api_models",
  id: ID,
  configSchema: VLLMModelConfig,
  noEffectFields: {
    uses_interleaved_reasoning: "Gymkit always sends earlier reasoning back as a <think> prefix of the assistant message",
  },
  async build({ name, config }) {
    // Loaded only when needed: the tokenizer library and a 150k vocabulary take ~0.5 s.
    const tokenizer = config.tokenizer_path ? (await import("../tokens/tokenizer.js")).loadTokenizer(config.tokenizer_path) : undefined;
    return asHttpApp(buildModelServer({ name, id: ID, adapter: vllmAdapter(config, tokenizer), recordPath: config.record_path }));
  },
};

export default implementation;
