// Quick acceptance checks for the bodies every rollout sends several times (the data row, the
// Responses create params, the Responses object), for the places that only need to know a body is
// valid and then use the body as received. Each check is conservative: `true` only when the zod
// schema of ./responses.ts and ./rows.ts accepts the value; `false` says nothing, and the caller runs
// the schema, which gives the exact error (the 422 details and messages do not change). zod walks
// every union option and copies every object; these walk once and allocate nothing.
// Matches the schemas as they stand (they follow NVIDIA-NeMo/Gym 07d6b0d's models); a schema change
// needs the same change here, which src/protocol/fast_check.test.ts compares on mutated bodies.

type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
export const isPlainObject = (v: unknown): v is Json => isObject(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isInt = (v: unknown): boolean => Number.isSafeInteger(v);
const nullish = (v: unknown): boolean => v === undefined || v === null;
export const nullishString = (v: unknown): boolean => nullish(v) || typeof v === "string";
export const nullishBoolean = (v: unknown): boolean => nullish(v) || typeof v === "boolean";
const nullishNumber = (v: unknown): boolean => nullish(v) || isNumber(v);
const nullishInt = (v: unknown): boolean => nullish(v) || isInt(v);
const anything = (): boolean => true;

function every(v: unknown, check: (item: unknown) => boolean): boolean {
  if (!Array.isArray(v)) return false;
  for (const item of v) if (!check(item)) return false;
  return true;
}

/** An object whose `type` is a string: the catch-all member of the item and tool unions. */
const isTyped = (v: unknown): boolean => isObject(v) && typeof v.type === "string";
const isTextPart = (v: unknown): boolean => isObject(v) && typeof v.type === "string" && typeof v.text === "string";
const optionalInts = (v: unknown): boolean => v === undefined || every(v, isInt);
const optionalNumbers = (v: unknown): boolean => v === undefined || every(v, isNumber);
const hasTokenFields = (v: Json): boolean => optionalInts(v.prompt_token_ids) && optionalInts(v.generation_token_ids) && optionalNumbers(v.generation_log_probs);
const isContent = (v: unknown): boolean => typeof v === "string" || every(v, isTyped);
const ROLES = new Set(["user", "system", "developer", "assistant"]);

/** An input item; only the kinds InputItem knows (any other is left to the schema). */
export function isInputItem(v: unknown): boolean {
  if (!isObject(v)) return false;
  switch (v.type) {
    case undefined:
    case "message":
      return typeof v.role === "string" && ROLES.has(v.role) && isContent(v.content) && nullishString(v.id) && nullishString(v.status) && hasTokenFields(v);
    case "function_call":
      return typeof v.name === "string" && typeof v.arguments === "string" && typeof v.call_id === "string" && nullishString(v.id) && nullishString(v.status) && hasTokenFields(v);
    case "function_call_output":
      return typeof v.call_id === "string" && isContent(v.output) && nullishString(v.id) && nullishString(v.status);
    case "reasoning":
      return nullishString(v.id) && (v.summary === undefined || every(v.summary, isTextPart)) && (nullish(v.content) || every(v.content, isTextPart)) && nullishString(v.encrypted_content) && hasTokenFields(v);
    default:
      return false;
  }
}

/** Every key ResponsesCreateParams allows (it is strict), with its check. */
const CREATE_PARAMS: ReadonlyMap<string, (v: unknown) => boolean> = new Map<string, (v: unknown) => boolean>([
  ["input", (v) => typeof v === "string" || every(v, isInputItem)],
  ["background", nullishBoolean],
  ["context_management", anything],
  ["conversation", anything],
  ["include", (v) => nullish(v) || every(v, (s) => typeof s === "string")],
  ["instructions", nullishString],
  ["max_output_tokens", (v) => nullish(v) || (isInt(v) && (v as number) > 0)],
  ["max_tool_calls", nullishInt],
  ["metadata", (v) => nullish(v) || isPlainObject(v)],
  ["model", nullishString],
  ["moderation", anything],
  ["parallel_tool_calls", nullishBoolean],
  ["previous_response_id", nullishString],
  ["prompt", anything],
  ["prompt_cache_key", nullishString],
  ["prompt_cache_options", anything],
  ["prompt_cache_retention", nullishString],
  ["reasoning", (v) => nullish(v) || isObject(v)],
  ["safety_identifier", nullishString],
  ["service_tier", nullishString],
  ["store", nullishBoolean],
  ["stream", nullishBoolean],
  ["stream_options", anything],
  ["temperature", nullishNumber],
  ["text", anything],
  ["tool_choice", anything],
  ["tools", (v) => nullish(v) || every(v, isTyped)],
  ["top_logprobs", nullishInt],
  ["top_p", nullishNumber],
  ["truncation", nullishString],
  ["user", nullishString],
  ["seed", nullishInt],
]);

/** `true` only if ResponsesCreateParams accepts `v`. */
export function surelyCreateParams(v: unknown): boolean {
  if (!isObject(v) || v.input === undefined) return false;
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    const check = CREATE_PARAMS.get(key);
    if (check === undefined || !check(v[key])) return false;
  }
  return true;
}

/** `true` only if DataRow accepts `v`. */
export function surelyDataRow(v: unknown): boolean {
  if (!isObject(v) || !surelyCreateParams(v.responses_create_params)) return false;
  const ref = v.agent_ref;
  return ref === undefined || (isObject(ref) && (ref.type === undefined || ref.type === "responses_api_agents") && typeof ref.name === "string");
}

const STATUSES = new Set(["completed", "incomplete", "failed", "in_progress", "cancelled", "queued"]);
const isDetails = (v: unknown, key: string): boolean => v === undefined || (isObject(v) && isNumber(v[key]));

function isUsage(v: unknown): boolean {
  return isObject(v) && isNumber(v.input_tokens) && isNumber(v.output_tokens) && isNumber(v.total_tokens) && isDetails(v.input_tokens_details, "cached_tokens") && isDetails(v.output_tokens_details, "reasoning_tokens");
}

/** `true` only if ResponseObject accepts `v`. */
export function surelyResponseObject(v: unknown): boolean {
  return (
    isObject(v) &&
    typeof v.id === "string" &&
    v.object === "response" &&
    isNumber(v.created_at) &&
    typeof v.model === "string" &&
    every(v.output, isTyped) &&
    (nullish(v.status) || (typeof v.status === "string" && STATUSES.has(v.status))) &&
    (nullish(v.incomplete_details) || (isObject(v.incomplete_details) && typeof v.incomplete_details.reason === "string")) &&
    (nullish(v.usage) || isUsage(v.usage))
  );
}
