// What zod's parse of the two bodies every rollout sends to a server and whose parsed value is used
// (the model server's Responses create params, an environment's `/verify` request) would return,
// without running zod: the same value with its objects' keys in zod's output order (the schema's
// keys that are present, in the schema's order, then the others in the order they came) and the one
// default these schemas fill in (a reasoning item's `summary: []`). Objects already in that order
// are returned as they are (no copy: the body was parsed for this request alone); others are copied
// in that order. `undefined` means "not sure": the caller runs the schema, which gives the exact value
// or the exact 422. Byte-identical to the schema's output is what src/protocol/fast_check.test.ts
// checks, on mutated and reordered bodies. Schemas of ./responses.ts and ./rows.ts (NVIDIA-NeMo/Gym
// 07d6b0d's models); a schema change needs the same change here and in ./fast_check.ts.
import { z } from "zod";
import { isInputItem, isObject, isPlainObject, nullishBoolean, nullishString, surelyCreateParams, surelyResponseObject } from "./fast_check.js";
import { FunctionCallItem, FunctionCallOutputItem, FunctionTool, MessageItem, ReasoningItem, ResponseObject, ResponsesCreateParams, Usage } from "./responses.js";
import { AgentRef } from "./rows.js";

type Json = Record<string, unknown>;

/** A schema's keys in its order, and each key's place. */
interface Order {
  keys: readonly string[];
  rank: ReadonlyMap<string, number>;
}

const orderOf = (keys: readonly string[]): Order => ({ keys, rank: new Map(keys.map((key, i) => [key, i])) });

const CREATE_PARAMS = orderOf(Object.keys(ResponsesCreateParams.shape));
const RESPONSE = orderOf(Object.keys(ResponseObject.shape));
const MESSAGE = orderOf(Object.keys(MessageItem.shape));
const FUNCTION_CALL = orderOf(Object.keys(FunctionCallItem.shape));
const FUNCTION_CALL_OUTPUT = orderOf(Object.keys(FunctionCallOutputItem.shape));
const REASONING = orderOf(Object.keys(ReasoningItem.shape));
const FUNCTION_TOOL = orderOf(Object.keys(FunctionTool.shape));
const USAGE = orderOf(Object.keys(Usage.shape));
const TYPED = orderOf(["type"]);
const TEXT_PART = orderOf(["type", "text"]);
const CACHED = orderOf(["cached_tokens"]);
const REASONING_TOKENS = orderOf(["reasoning_tokens"]);
const REASON = orderOf(["reason"]);

/** `v` with its keys in `order` (then the rest as they came): `v` itself when they already are. */
function ordered(v: Json, order: Order): Json {
  let last = -1;
  let extra = false;
  let inOrder = true;
  for (const key in v) {
    const at = order.rank.get(key);
    if (at === undefined) extra = true;
    else if (extra || at < last) {
      inOrder = false;
      break;
    } else last = at;
  }
  if (inOrder) return v;
  const out: Json = {};
  for (const key of order.keys) if (Object.hasOwn(v, key)) out[key] = v[key];
  for (const key in v) if (Object.hasOwn(v, key) && !order.rank.has(key)) out[key] = v[key];
  return out;
}

/** `v` with `key` set to `value`, copied only when that changes it (the key keeps its place). */
function withValue(v: Json, key: string, value: unknown): Json {
  return v[key] === value ? v : { ...v, [key]: value };
}

/** Each element mapped; the same array when none changed; undefined when any maps to undefined. */
function mapAll<T>(items: readonly unknown[], map: (item: unknown) => T | undefined): unknown[] | undefined {
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const mapped = map(item);
    if (mapped === undefined) return undefined;
    if (mapped !== item) out ??= items.slice(0, i);
    if (out) out.push(mapped);
  }
  return out ?? (items as unknown[]);
}

const orderedAs =
  (order: Order) =>
  (part: unknown): Json =>
    ordered(part as Json, order);
const typedPart = orderedAs(TYPED);
const textPart = orderedAs(TEXT_PART);

/** A list of parts (already checked to be objects) parsed as `order`; anything else as it is. */
function partsAsParsed(parts: unknown, part: (p: unknown) => Json): unknown {
  return Array.isArray(parts) ? mapAll(parts, part) : parts;
}

/** One of the four known item kinds, as its schema parses it (the caller knows it is valid). */
function knownItemAsParsed(item: Json): Json | undefined {
  switch (item.type) {
    case undefined:
    case "message":
      return ordered(withValue(item, "content", partsAsParsed(item.content, typedPart)), MESSAGE);
    case "function_call":
      return ordered(item, FUNCTION_CALL);
    case "function_call_output":
      return ordered(withValue(item, "output", partsAsParsed(item.output, typedPart)), FUNCTION_CALL_OUTPUT);
    case "reasoning": {
      // `summary` defaults to [] (added at its place in the schema's order).
      const filled = item.summary === undefined ? { ...item, summary: [] } : withValue(item, "summary", partsAsParsed(item.summary, textPart));
      return ordered(withValue(filled, "content", partsAsParsed(item.content, textPart)), REASONING);
    }
    default:
      return undefined;
  }
}

const inputItemAsParsed = (item: unknown): Json | undefined => (isInputItem(item) ? knownItemAsParsed(item as Json) : undefined);

/** FunctionTool's own check (`parameters` is a record): exact, since the union falls back to `{type}` when it fails. */
const isFunctionTool = (v: Json): boolean =>
  typeof v.name === "string" && nullishString(v.description) && (v.parameters === undefined || v.parameters === null || isPlainObject(v.parameters)) && nullishBoolean(v.strict);

function toolAsParsed(tool: unknown): Json | undefined {
  const v = tool as Json;
  if (v.type !== "function") return typedPart(v);
  return isFunctionTool(v) ? ordered(v, FUNCTION_TOOL) : undefined;
}

/** ResponsesCreateParams.parse(v), or undefined when not sure (the caller then runs the schema). */
export function createParamsAsParsed(v: unknown): Json | undefined {
  if (!surelyCreateParams(v)) return undefined;
  let params = v as Json;
  if (Array.isArray(params.input)) {
    const input = mapAll(params.input, inputItemAsParsed);
    if (input === undefined) return undefined;
    params = withValue(params, "input", input);
  }
  if (Array.isArray(params.tools)) {
    const tools = mapAll(params.tools, toolAsParsed);
    if (tools === undefined) return undefined;
    params = withValue(params, "tools", tools);
  }
  return ordered(params, CREATE_PARAMS);
}

/** An output item: a known kind parses as its schema (only when surely valid), any other as `{type, ...}`. */
function outputItemAsParsed(item: unknown): Json | undefined {
  const v = item as Json;
  switch (v.type) {
    case "message":
    case "function_call":
    case "function_call_output":
    case "reasoning":
      return isInputItem(v) ? knownItemAsParsed(v) : undefined;
    default:
      return typedPart(v);
  }
}

function usageAsParsed(usage: Json): Json {
  let out = usage;
  if (isObject(out.input_tokens_details)) out = withValue(out, "input_tokens_details", ordered(out.input_tokens_details, CACHED));
  if (isObject(out.output_tokens_details)) out = withValue(out, "output_tokens_details", ordered(out.output_tokens_details, REASONING_TOKENS));
  return ordered(out, USAGE);
}

/** ResponseObject.parse(v), or undefined when not sure. */
export function responseObjectAsParsed(v: unknown): Json | undefined {
  if (!surelyResponseObject(v)) return undefined;
  let response = v as Json;
  const output = mapAll(response.output as unknown[], outputItemAsParsed);
  if (output === undefined) return undefined;
  response = withValue(response, "output", output);
  if (isObject(response.incomplete_details)) response = withValue(response, "incomplete_details", ordered(response.incomplete_details, REASON));
  if (isObject(response.usage)) response = withValue(response, "usage", usageAsParsed(response.usage));
  return ordered(response, RESPONSE);
}

const VERIFY_KEYS = ["responses_create_params", "agent_ref", "response"];
const VERIFY = orderOf(VERIFY_KEYS);
const AGENT_REF = orderOf(["type", "name"]);

/** VerifyRequest.parse(v) for an environment without row fields of its own, or undefined when not sure. */
function plainVerifyRequest(v: unknown): Json | undefined {
  if (!isObject(v)) return undefined;
  const ref = v.agent_ref;
  if (ref !== undefined && !(isObject(ref) && (ref.type === undefined || ref.type === "responses_api_agents") && typeof ref.name === "string")) return undefined;
  const params = createParamsAsParsed(v.responses_create_params);
  const response = params && responseObjectAsParsed(v.response);
  if (!response) return undefined;
  let out = withValue(withValue(v, "responses_create_params", params), "response", response);
  if (ref !== undefined) out = withValue(out, "agent_ref", ordered(ref, AGENT_REF));
  return ordered(out, VERIFY);
}

/**
 * For an environment's `/verify`: VerifyRequest extended with `rowFields`, parsed, or undefined when
 * not sure. The row's own fields (the environment's schemas, which may transform) and `agent_ref` go
 * through zod in an object of the same key order whose two large members are taken as they are; those
 * two are then the quick parses above.
 */
export function verifyRequestParser(rowFields: z.ZodRawShape = {}): (v: unknown) => Json | undefined {
  if (VERIFY_KEYS.some((key) => Object.hasOwn(rowFields, key))) return () => undefined;
  if (Object.keys(rowFields).length === 0) return plainVerifyRequest;
  const outline = z.looseObject({ responses_create_params: z.unknown(), agent_ref: AgentRef.optional(), response: z.unknown(), ...rowFields });
  return (v) => {
    if (!isObject(v)) return undefined;
    const params = createParamsAsParsed(v.responses_create_params);
    const response = params && responseObjectAsParsed(v.response);
    if (!response) return undefined;
    const parsed = outline.safeParse(v);
    if (!parsed.success) return undefined;
    const out = parsed.data as Json;
    out.responses_create_params = params;
    out.response = response;
    return out;
  };
}
