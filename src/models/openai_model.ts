// `openai_model`: a Responses API passthrough to OpenAI or any server that speaks `/v1/responses`.
// The configured model replaces whatever the request names, as in NeMo Gym.
import { z } from "zod";
import { HttpError } from "../http/errors.js";
import type { ServerImplementation } from "../http/implementation.js";
import { ResponseObject, type InputItem, type ResponsesCreateParams } from "../protocol/index.js";
import type { ModelAdapter } from "./adapter.js";
import { chatPassthrough } from "./chat_passthrough.js";
import { isContextLengthError } from "./context_length.js";
import { Engine, engineError } from "./engine.js";
import { BooleanText, EngineCallFields, HeadersField, retryPolicy, underExtraBody } from "./engine_config.js";
import { emptyIncompleteResponse } from "./response_object.js";
import { buildModelServer } from "./server.js";
import { asHttpApp } from "../http/server.js";
import { truncate } from "../http/client.js";

export const OpenAIModelConfig = z.strictObject({
  /** Base URL including `/v1`, e.g. `https://api.openai.com/v1`. */
  openai_base_url: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  openai_api_key: z.string().default("dummy"),
  openai_model: z.string().min(1),
  /** Headers sent with every request to the engine. */
  openai_default_headers: HeadersField,
  /** Fields added to every body sent to the engine unless the request sets them (NeMo Gym 07d6b0d's openai_model). */
  extra_body: z.record(z.string(), z.unknown()).nullish(),
  /**
   * Remove `type: reasoning` items from the input before calling the engine: some endpoints fail on
   * their own content-less reasoning items echoed back across tool turns (NeMo Gym 07d6b0d).
   */
  drop_input_reasoning_items: BooleanText.default(false),
  ...EngineCallFields,
});
export type OpenAIModelConfig = z.infer<typeof OpenAIModelConfig>;

const ID = "openai_model";

/** Token fields are Gymkit/NeMo Gym bookkeeping; a real Responses endpoint rejects them as unknown. */
function withoutTokenFields(input: ResponsesCreateParams["input"]): ResponsesCreateParams["input"] {
  if (typeof input === "string") return input;
  return input.map((item) => {
    const { prompt_token_ids: _p, generation_token_ids: _g, generation_log_probs: _l, ...rest } = item as InputItem & Record<string, unknown>;
    return rest as InputItem;
  });
}

function withoutReasoningItems(input: ResponsesCreateParams["input"]): ResponsesCreateParams["input"] {
  if (typeof input === "string") return input;
  return input.filter((item) => (item as { type?: unknown }).type !== "reasoning");
}

export function openaiAdapter(config: OpenAIModelConfig): ModelAdapter {
  const engine = new Engine({
    baseUrls: Array.isArray(config.openai_base_url) ? config.openai_base_url : [config.openai_base_url],
    apiKey: config.openai_api_key,
    headers: config.openai_default_headers,
    timeoutMs: config.request_timeout_s * 1000,
    retry: retryPolicy(config),
    label: ID,
  });
  return {
    models: () => [config.openai_model],
    requestFields: "openai_model",

    async createResponse(params, context) {
      const input = config.drop_input_reasoning_items ? withoutReasoningItems(params.input) : params.input;
      const body = underExtraBody({ ...params, input: withoutTokenFields(input), model: config.openai_model }, config.extra_body);
      const reply = await engine.post("/responses", body, context.rollout, context.signal);
      if (!reply.ok) {
        if (isContextLengthError(reply.status, reply.text)) return emptyIncompleteResponse(params, config.openai_model);
        throw engineError(ID, reply);
      }
      const parsed = ResponseObject.safeParse(reply.json);
      if (!parsed.success) {
        throw new HttpError(502, `${ID}: engine ${reply.url} answered with something that is not a Responses object: ${truncate(JSON.stringify(reply.json), 300)}`);
      }
      return parsed.data;
    },

    chatCompletions: chatPassthrough(engine, { label: ID, model: config.openai_model, finish: (body) => underExtraBody(body, config.extra_body) }),
  };
}

const implementation: ServerImplementation<OpenAIModelConfig> = {
  type: "responses_api_models",
  id: ID,
  configSchema: OpenAIModelConfig,
  async build({ name, config }) {
    return asHttpApp(buildModelServer({ name, id: ID, adapter: openaiAdapter(config), recordPath: config.record_path }));
  },
};

export default implementation;
