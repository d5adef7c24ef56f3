// Every field of a Responses create request, and what each kind of Gymkit model server does with
// it: maps it onto the engine's own parameter, forwards it, accepts it as a documented no-op, or
// refuses it with a 400 that names the field. One table drives both the check the model server runs
// before an adapter sees a request (`refuseUnhonoured`) and the table in docs/models.md
// (`requestFieldsMarkdown`, kept in sync by test/request_fields.test.ts). The field list is the
// openai SDK's `ResponseCreateParamsBase` (openai 6.49) plus `seed`; where NeMo Gym's vllm_model
// (07d6b0d, nemo_gym/responses_converter.py + responses_api_models/vllm_model/app.py) maps a field,
// vllm_model maps it the same way.
import { HttpError } from "../http/errors.js";
import type { ResponsesCreateParams } from "../protocol/index.js";

/** The columns of the table: how a model server turns a request into an engine call. */
export type RequestFieldsKind = "vllm_model" | "vllm_model_tokens" | "local_model" | "openai_model" | "replay_model";

export const KIND_TITLES: Record<RequestFieldsKind, string> = {
  vllm_model: "vllm_model (Chat Completions)",
  vllm_model_tokens: "vllm_model with on_policy_prompts",
  local_model: "local_model",
  openai_model: "openai_model",
  replay_model: "replay_model, judge_replay_model, scripted_model",
};

type How = "mapped" | "honoured" | "forwarded" | "no-op" | "refused";

interface Rule {
  how: How;
  /** What happens, for the docs table. */
  note: string;
  /** For a partly honoured field: why this value is refused (undefined: accepted). */
  refuses?: (value: unknown, params: ResponsesCreateParams) => string | undefined;
}

const rule = (how: How, note: string, refuses?: Rule["refuses"]): Rule => (refuses ? { how, note, refuses } : { how, note });
const refused = (note: string): Rule => rule("refused", note);

const record = (value: unknown): Record<string, unknown> => (value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/** Keys of NeMo Gym's metadata side channel vllm_model reads (JSON strings), and the audio ones it does not. */
export const METADATA_OVERRIDES = ["chat_template_kwargs", "extra_body"] as const;
const METADATA_AUDIO = ["audio_data", "audio_path", "audio_paths"];

function metadataRefusal(allowOverrides: boolean) {
  return (value: unknown): string | undefined => {
    const metadata = record(value);
    const audio = METADATA_AUDIO.find((key) => metadata[key] !== undefined && metadata[key] !== null);
    if (audio) return `metadata.${audio} (NeMo Gym's audio side channel): Gymkit model servers take no audio input`;
    for (const key of METADATA_OVERRIDES) {
      const override = metadata[key];
      if (override === undefined || override === null) continue;
      if (!allowOverrides) return `metadata.${key}: per-request ${key} overrides reach only vllm_model's Chat Completions path; set ${key} in the server's config`;
      try {
        const parsed: unknown = typeof override === "string" ? JSON.parse(override) : override;
        if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
      } catch {
        return `metadata.${key} must be a JSON object (as a string, e.g. '{"enable_thinking": false}'), got ${JSON.stringify(override).slice(0, 100)}`;
      }
    }
    return undefined;
  };
}

const TEXT_FORMATS_OF_CHAT = new Set(["text", "json_schema", "json_object"]);

function textRefusal(structured: boolean, why: string) {
  return (value: unknown): string | undefined => {
    const text = record(value);
    if (text.verbosity !== undefined && text.verbosity !== null) return `text.verbosity: no open-weights engine has a verbosity control`;
    const format = record(text.format);
    const type = format.type;
    if (type === undefined || type === null || type === "text") return undefined;
    if (!TEXT_FORMATS_OF_CHAT.has(String(type))) return `text.format of type ${JSON.stringify(type)}: only "text", "json_schema" and "json_object" exist`;
    if (!structured) return `text.format ${JSON.stringify(type)}: ${why}`;
    if (type === "json_schema" && (typeof format.name !== "string" || !format.schema || typeof format.schema !== "object")) {
      return 'text.format "json_schema" needs a name and a schema object';
    }
    return undefined;
  };
}

const REASONING_KEYS_KEPT = new Set(["effort", "summary", "generate_summary"]);
function reasoningRefusal(effort: boolean) {
  return (value: unknown): string | undefined => {
    const reasoning = record(value);
    const other = Object.keys(reasoning).find((key) => !REASONING_KEYS_KEPT.has(key) && reasoning[key] !== null && reasoning[key] !== undefined);
    if (other) return `reasoning.${other} has no equivalent here`;
    if (!effort && reasoning.effort !== undefined && reasoning.effort !== null) {
      return "reasoning.effort: the chat template is rendered by Gymkit here, without an effort setting; use chat_template_kwargs in the server's config";
    }
    return undefined;
  };
}

const INCLUDABLE = new Set([
  "file_search_call.results",
  "web_search_call.results",
  "web_search_call.action.sources",
  "message.input_image.image_url",
  "computer_call_output.output.image_url",
  "code_interpreter_call.outputs",
  "reasoning.encrypted_content",
  "message.output_text.logprobs",
]);
export const LOGPROBS_INCLUDE = "message.output_text.logprobs";
function includeRefusal(logprobs: boolean) {
  return (value: unknown): string | undefined => {
    for (const entry of Array.isArray(value) ? value : []) {
      if (!INCLUDABLE.has(String(entry))) return `include entry ${JSON.stringify(entry)} is not one of ${[...INCLUDABLE].join(", ")}`;
      if (entry === LOGPROBS_INCLUDE && !logprobs) return `include "${LOGPROBS_INCLUDE}": this server returns no per-token logprobs in output_text`;
    }
    return undefined;
  };
}

/** parallel_tool_calls false cannot be enforced on a raw completion; without tools it means nothing (NeMo Gym drops it then). */
function serialToolCalls(value: unknown, params: ResponsesCreateParams): string | undefined {
  if (value !== false || !params.tools?.length) return undefined;
  return "parallel_tool_calls false cannot be enforced on raw completions: every parsed tool call is returned";
}

const whenTrue = (why: string) => (value: unknown) => (value === true ? why : undefined);

const STREAMING = "streaming is not supported by Gymkit model servers: send stream: false (or omit it); rollouts need the whole response anyway";
const REPLAYED = "part of the replay key: the recorded engine's handling is replayed";
const NO_BUILT_IN_TOOLS = "counts built-in tool calls only, and only function tools are accepted, so there is nothing to count";

type Column = Record<RequestFieldsKind, Rule>;
const same = (r: Rule, overrides: Partial<Column> = {}): Column => ({
  vllm_model: r,
  vllm_model_tokens: r,
  local_model: r,
  openai_model: rule("forwarded", "sent to the Responses engine as is"),
  replay_model: rule("honoured", REPLAYED),
  ...overrides,
});

/** Field → what each kind of model server does with it. */
export const REQUEST_FIELDS: Record<string, Column> = {
  input: same(rule("mapped", "messages (Chat) or the rendered chat template (token prompts)")),
  instructions: same(rule("mapped", "a leading system message")),
  model: same(rule("no-op", "the configured model replaces it, as in NeMo Gym"), { openai_model: rule("no-op", "replaced by openai_model, as in NeMo Gym") }),
  max_output_tokens: same(rule("mapped", "max_tokens"), { local_model: rule("mapped", "the generation limit (at most the context left)") }),
  temperature: same(rule("mapped", "temperature")),
  top_p: same(rule("mapped", "top_p")),
  seed: same(rule("mapped", "seed (vLLM and SGLang extension)"), { local_model: rule("mapped", "the sampler's seed") }),
  tools: same(rule("mapped", "function tools (Chat tools / the template's tools); other tool types: 400")),
  tool_choice: same(rule("mapped", "auto / none / required / a named function"), {
    vllm_model_tokens: rule("mapped", '"auto" and "none"; required or a named function: 400 (no tool parser can enforce it)'),
    local_model: rule("mapped", "required / named function: a grammar forcing a tool call"),
  }),
  parallel_tool_calls: same(rule("mapped", "parallel_tool_calls"), {
    vllm_model_tokens: rule("honoured", "true (default): every parsed call is returned; false with tools: 400 (without tools it means nothing)", serialToolCalls),
    local_model: rule("honoured", "true (default): every parsed call is returned; false with tools: 400 (without tools it means nothing)", serialToolCalls),
  }),
  reasoning: same(rule("mapped", "effort → reasoning_effort (as NeMo Gym); summary: reasoning always comes back as summary_text", reasoningRefusal(true)), {
    vllm_model_tokens: rule("honoured", "summary only (reasoning comes back as summary_text); effort: 400", reasoningRefusal(false)),
    local_model: rule("honoured", "summary only (reasoning comes back as summary_text); effort: 400", reasoningRefusal(false)),
  }),
  text: same(rule("mapped", 'format json_schema / json_object → response_format (vLLM structured output); "text": default; verbosity: 400', textRefusal(true, "")), {
    vllm_model_tokens: rule("mapped", "format json_schema / json_object → response_format on /v1/completions (vLLM structured output, from the first sampled token); verbosity: 400", textRefusal(true, "")),
    local_model: rule("mapped", "format json_schema / json_object → a llama.cpp grammar for one JSON value of the schema; verbosity: 400", textRefusal(true, "")),
  }),
  top_logprobs: same(rule("mapped", "logprobs: true, top_logprobs: n; returned as output_text logprobs"), {
    vllm_model_tokens: refused("token-id prompts ask vLLM for the sampled token's logprob only"),
    local_model: refused("local_model returns no alternatives' logprobs"),
  }),
  include: same(rule("honoured", `"${LOGPROBS_INCLUDE}" → logprobs (as top_logprobs 0); the rest: no-op (reasoning is returned in clear; built-in tools are refused)`, includeRefusal(true)), {
    vllm_model_tokens: rule("honoured", `"${LOGPROBS_INCLUDE}": 400; the rest: no-op`, includeRefusal(false)),
    local_model: rule("honoured", `"${LOGPROBS_INCLUDE}": 400; the rest: no-op`, includeRefusal(false)),
  }),
  metadata: same(rule("no-op", "echoed on the response; the engine has no metadata"), {
    vllm_model: rule("forwarded", "Chat metadata, and NeMo Gym's per-request chat_template_kwargs / extra_body (JSON strings) merged over the config's; audio_*: 400", metadataRefusal(true)),
    vllm_model_tokens: rule("no-op", "echoed on the response (the Completions call carries none); chat_template_kwargs / extra_body / audio_*: 400", metadataRefusal(false)),
    local_model: rule("no-op", "echoed on the response; chat_template_kwargs / extra_body / audio_*: 400", metadataRefusal(false)),
  }),
  previous_response_id: same(rule("honoured", "responses this server created (a bounded in-memory store); unknown id: 400"), {
    openai_model: rule("forwarded", "the Responses engine resolves it against its own store"),
    replay_model: rule("honoured", "responses this server replayed (the same store), then keyed as usual"),
  }),
  store: same(rule("honoured", "false: the response is not kept for previous_response_id"), {
    vllm_model: rule("honoured", "false: the response is not kept for previous_response_id; also forwarded to Chat, as NeMo Gym does"),
  }),
  user: same(rule("no-op", "an end-user id for abuse monitoring; no engine here has any"), {
    vllm_model: rule("forwarded", "Chat user, as NeMo Gym does (vLLM accepts and ignores it)"),
  }),
  service_tier: same(rule("no-op", "a self-hosted engine has one tier"), {
    vllm_model: rule("forwarded", "Chat service_tier, as NeMo Gym does (vLLM has one tier)"),
  }),
  safety_identifier: same(rule("no-op", "an end-user id for OpenAI's abuse monitoring; no engine here has any")),
  prompt_cache_key: same(rule("no-op", "vLLM's prefix cache needs no key, and replicas already keep a rollout on one engine")),
  prompt_cache_retention: same(rule("no-op", "how long the engine keeps its prefix cache is the engine's setting")),
  prompt_cache_options: same(rule("no-op", "how long the engine keeps its prefix cache is the engine's setting")),
  truncation: same(rule("honoured", '"disabled" (default): a prompt too long ends the call as an empty incomplete response (NeMo Gym\'s behaviour); "auto": 400', (v) => (v === "auto" ? 'truncation "auto": Gymkit never drops conversation items; a prompt too long for the context gives an empty, incomplete response' : undefined))),
  max_tool_calls: same(rule("no-op", NO_BUILT_IN_TOOLS)),
  background: same(rule("honoured", "false only; true: 400", whenTrue("background true: Gymkit model servers answer in the request; there is no background mode or polling"))),
  stream: same(rule("honoured", "false only; true: 400", whenTrue(STREAMING)), {
    openai_model: rule("honoured", "false only; true: 400", whenTrue(STREAMING)),
    replay_model: rule("honoured", "false only; true: 400", whenTrue(STREAMING)),
  }),
  stream_options: same(refused("only used with streaming, which Gymkit model servers do not do"), { replay_model: refused("only used with streaming, which Gymkit model servers do not do"), openai_model: refused("only used with streaming, which Gymkit model servers do not do") }),
  conversation: same(refused("there is no conversation store; send the whole input or previous_response_id")),
  prompt: same(refused("there are no stored prompt templates; send the input itself")),
  context_management: same(refused("there is no server-side context compaction")),
  moderation: same(refused("there is no moderation here")),
};

/** A 400 in both error shapes (FastAPI `detail`, OpenAI `error`), with the field as `param`. */
export function fieldRefusal(label: string, field: string, why: string): HttpError {
  const message = `${label}: request field "${field}" is not supported: ${why}`;
  return new HttpError(400, message, { detail: message, error: { message, type: "invalid_request_error", param: field, code: "unsupported_parameter" } });
}

/** Throws the 400 for the first field of `params` this kind of server refuses. */
export function refuseUnhonoured(params: ResponsesCreateParams, kind: RequestFieldsKind, label: string): void {
  for (const [field, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    const column = REQUEST_FIELDS[field];
    // The schema and this table list the same fields (test/request_fields.test.ts checks it).
    if (!column) throw fieldRefusal(label, field, "Gymkit does not know this field");
    const r = column[kind];
    if (r.how === "refused") throw fieldRefusal(label, field, r.note);
    const why = r.refuses?.(value, params);
    if (why) throw fieldRefusal(label, field, why);
  }
}

/** The docs table (docs/models.md carries exactly this). */
export function requestFieldsMarkdown(): string {
  const kinds = Object.keys(KIND_TITLES) as RequestFieldsKind[];
  const escape = (text: string) => text.replaceAll("|", "\\|");
  const lines = [`| field | ${kinds.map((k) => KIND_TITLES[k]).join(" | ")} |`, `|---|${kinds.map(() => "---").join("|")}|`];
  for (const [field, column] of Object.entries(REQUEST_FIELDS)) {
    lines.push(`| \`${field}\` | ${kinds.map((k) => `**${column[k].how}**: ${escape(column[k].note)}`).join(" | ")} |`);
  }
  return lines.join("\n");
}
