// The request and response of a rollout as NeMo Gym writes them into a verify response: its pydantic
// models (NVIDIA-NeMo/Gym 07d6b0d, nemo_gym/openai_utils.py, over openai 2.7.2, NeMo Gym's pinned
// release) dump every declared field, unset ones as their default (mostly null), and keep fields
// they do not declare. A reader of NeMo Gym's files finds every key in every line; Gymkit writes the
// same. A newer openai adds further fields; Gymkit follows the pin.

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Declared fields in declaration order, with their defaults; then whatever else `value` carries.
 * Built as a copy of the defaults table with `value`'s own fields written over it: a field already
 * declared keeps its place, the others follow in `value`'s order. That is the same object as looking
 * every declared field up in `value`, for a fraction of the lookups (most declared fields are absent).
 */
function withDefaults(value: Json, defaults: Json): Json {
  const out: Json = { ...defaults };
  for (const key of Object.keys(value)) out[key] = value[key];
  // A list default is a fresh list per dump, never one shared between outputs.
  for (const key of listDefaults(defaults)) if (!Object.hasOwn(value, key)) out[key] = [...(defaults[key] as unknown[])];
  return out;
}

/** The keys of each defaults table whose default is a list, found once per table (every rollout dumps through them). */
const listKeysOf = new WeakMap<Json, readonly string[]>();

function listDefaults(defaults: Json): readonly string[] {
  let keys = listKeysOf.get(defaults);
  if (keys === undefined) {
    keys = Object.keys(defaults).filter((key) => Array.isArray(defaults[key]));
    listKeysOf.set(defaults, keys);
  }
  return keys;
}

const CREATE_PARAMS: Json = {
  background: null,
  include: null,
  input: null,
  instructions: null,
  max_output_tokens: null,
  max_tool_calls: null,
  metadata: null,
  model: null,
  parallel_tool_calls: true,
  previous_response_id: null,
  prompt: null,
  reasoning: null,
  service_tier: null,
  store: null,
  temperature: null,
  text: null,
  tool_choice: "auto",
  // `Field(default_factory=list)` in NeMo Gym's model: an absent list dumps as [].
  tools: [],
  top_logprobs: null,
  top_p: null,
  truncation: null,
  user: null,
  stream: null,
};

const RESPONSE: Json = {
  id: null,
  created_at: null,
  error: null,
  incomplete_details: null,
  instructions: null,
  metadata: null,
  model: null,
  object: null,
  output: null,
  parallel_tool_calls: null,
  temperature: null,
  tool_choice: null,
  tools: null,
  top_p: null,
  background: null,
  conversation: null,
  max_output_tokens: null,
  max_tool_calls: null,
  previous_response_id: null,
  prompt: null,
  prompt_cache_key: null,
  reasoning: null,
  safety_identifier: null,
  service_tier: null,
  status: null,
  text: null,
  top_logprobs: null,
  truncation: null,
  usage: null,
  user: null,
};

/** Items of `input` and `output`, by `type`. */
const ITEMS: Record<string, Json> = {
  function_call: { arguments: null, call_id: null, name: null, type: "function_call", id: null, status: null },
  function_call_output: { call_id: null, output: null, type: "function_call_output", id: null, status: null },
  reasoning: { id: null, summary: null, type: "reasoning", encrypted_content: null, content: null },
};
const OUTPUT_MESSAGE: Json = { id: null, content: null, role: "assistant", status: "completed", type: "message" };
const INPUT_MESSAGE: Json = { content: null, role: null, type: "message" };
/** Items that carry token ids are NeMo Gym's "for training" variants, which also declare this. */
const TRAINING: Json = { prompt_token_ids: null, generation_token_ids: null, generation_log_probs: null, routed_experts: null };
const CONTENT: Record<string, Json> = {
  output_text: { annotations: [], text: null, type: "output_text", logprobs: null },
  refusal: { refusal: null, type: "refusal" },
};
const FUNCTION_TOOL: Json = { name: null, parameters: null, strict: null, type: "function", description: null };

function training(item: Json, shaped: Json): Json {
  // The training fields first, then the item's (which fill them where it has them).
  return "prompt_token_ids" in item ? { ...TRAINING, ...shaped } : shaped;
}

function outputItem(item: unknown): unknown {
  if (!isObject(item)) return item;
  const type = typeof item.type === "string" ? item.type : undefined;
  if (type === "message" || (type === undefined && "role" in item)) {
    // A message an agent put among the outputs (gymnasium_agent's observations) keeps the easy input
    // message's shape, as NeMo Gym's agent leaves it: an engine's own messages are assistant ones with ids.
    if (item.role !== "assistant" && !("id" in item)) return training(item, withDefaults(item, INPUT_MESSAGE));
    const content = Array.isArray(item.content) ? item.content.map((part) => (isObject(part) && typeof part.type === "string" && CONTENT[part.type] ? withDefaults(part, CONTENT[part.type]!) : part)) : item.content;
    return training(item, withDefaults({ ...item, content }, OUTPUT_MESSAGE));
  }
  const defaults = type ? ITEMS[type] : undefined;
  return defaults ? training(item, withDefaults(item, defaults)) : item;
}

/** An input item: a bare `{role, content}` is an easy input message, whose type defaults to "message". */
function inputItem(item: unknown): unknown {
  if (!isObject(item)) return item;
  if ("role" in item && !("id" in item) && (item.type === undefined || item.type === "message")) return training(item, withDefaults(item, INPUT_MESSAGE));
  return outputItem(item);
}

/** `responses_create_params` as NeMo Gym's NeMoGymResponseCreateParamsNonStreaming dumps it. */
export function asNemoGymCreateParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  const input = Array.isArray(params.input) ? params.input.map(inputItem) : params.input;
  return withDefaults({ ...params, input }, CREATE_PARAMS);
}

/** `response` as NeMo Gym's NeMoGymResponse dumps it. */
export function asNemoGymResponse(response: unknown): unknown {
  if (!isObject(response)) return response;
  const output = Array.isArray(response.output) ? response.output.map(outputItem) : response.output;
  const tools = Array.isArray(response.tools)
    ? response.tools.map((tool) => (isObject(tool) && tool.type === "function" ? withDefaults(tool, FUNCTION_TOOL) : tool))
    : response.tools;
  return withDefaults({ ...response, output, tools }, RESPONSE);
}
