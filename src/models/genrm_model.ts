// `genrm_model`: a generative reward model behind the Responses API (NeMo Gym's
// responses_api_models/genrm_model, matched at 07d6b0d). It is vllm_model with one change: the
// comparison a caller (genrm_compare) puts in the request's `metadata` becomes messages with the
// GenRM's own roles, appended after the conversation — `principle` (only with
// supports_principle_role), then `response_1`, then `response_2` — and `metadata` itself is not sent
// to the engine. The engine's chat template must know those roles.
//
// NeMo Gym's genrm_model downloads the model and starts vLLM itself (local_vllm_model). Gymkit does not
// start engines: give the URL of a running one as `base_url`; the local-vLLM fields are accepted and
// have no effect.
import { z } from "zod";
import type { ServerImplementation } from "../http/implementation.js";
import { asHttpApp } from "../http/server.js";
import type { ResponsesCreateParams } from "../protocol/index.js";
import { buildModelServer } from "./server.js";
import { VLLMModelConfig, vllmAdapter, type VLLMAdapterHooks } from "./vllm_model.js";

const ID = "genrm_model";

// vllm_model's fields but the on-policy token prompts (a GenRM is asked, not trained).
const { on_policy_prompts: _onPolicy, tokenizer_path: _tokenizer, end_of_turn_token: _endOfTurn, base_url: baseUrl, ...vllmFields } = VLLMModelConfig.shape;

export const GenRMModelConfig = z
  .strictObject({
    ...vllmFields,
    /** Base URL of the running engine, including `/v1` (NeMo Gym's config leaves it to the vLLM it starts). */
    base_url: baseUrl.optional(),
    /** Send `metadata.principle` as a `principle` message (NeMo Gym's default true). */
    supports_principle_role: z.boolean().default(true),
  })
  .check((ctx) => {
    if (ctx.value.base_url === undefined) {
      ctx.issues.push({
        code: "custom",
        path: ["base_url"],
        message:
          "genrm_model needs the URL of a running engine serving the GenRM (Gymkit does not start vLLM as NeMo Gym's local genrm_model does): " +
          "set base_url, e.g. ++genrm_model.responses_api_models.genrm_model.base_url=http://host:8000/v1",
        input: ctx.value.base_url,
      });
    }
  });
export type GenRMModelConfig = z.infer<typeof GenRMModelConfig>;

/** The GenRM's messages from `metadata`, appended to the converted conversation; `metadata` is not forwarded. */
export function genrmMessages(supportsPrincipleRole: boolean): NonNullable<VLLMAdapterHooks["prepareChat"]> {
  return (body: Record<string, unknown>, params: ResponsesCreateParams) => {
    const { metadata: _dropped, ...rest } = body;
    const metadata = (params.metadata ?? {}) as Record<string, unknown>;
    const messages = [...((rest.messages as unknown[]) ?? [])];
    const principle = metadata.principle;
    // NeMo Gym tests the principle for truthiness and the responses for presence (not None).
    if (supportsPrincipleRole && isTruthy(principle)) messages.push({ role: "principle", content: principle });
    if (metadata.response_1 !== undefined && metadata.response_1 !== null) messages.push({ role: "response_1", content: metadata.response_1 });
    if (metadata.response_2 !== undefined && metadata.response_2 !== null) messages.push({ role: "response_2", content: metadata.response_2 });
    return { ...rest, messages };
  };
}

function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

const implementation: ServerImplementation<GenRMModelConfig> = {
  type: "responses_api_models",
  id: ID,
  configSchema: GenRMModelConfig,
  noEffectFields: {
    hf_home: "Gymkit does not download models; the engine at base_url serves the GenRM",
    vllm_serve_kwargs: "Gymkit does not start vLLM; give the URL of a running engine as base_url",
    vllm_serve_env_vars: "Gymkit does not start vLLM; give the URL of a running engine as base_url",
    ray_worker_py_executable: "Gymkit does not start vLLM workers",
    show_vllm_engine_stats: "Gymkit does not start vLLM",
    debug: "Gymkit does not start vLLM",
    uses_interleaved_reasoning: "Gymkit always sends earlier reasoning back as a <think> prefix of the assistant message",
  },
  async build({ name, config }) {
    const { supports_principle_role, base_url, ...rest } = config;
    const vllmConfig = { ...rest, base_url: base_url!, on_policy_prompts: false } as VLLMModelConfig;
    const adapter = vllmAdapter(vllmConfig, undefined, { prepareChat: genrmMessages(supports_principle_role) });
    return asHttpApp(buildModelServer({ name, id: ID, adapter, recordPath: config.record_path }));
  },
};

export default implementation;
