// The conversation bookkeeping of the conversational tool-use agent, as NVIDIA-NeMo/Gym 07d6b0d
// responses_api_agents/conversational_tool_use/simulation/app.py keeps it: reading the items of a
// row's `responses_create_params.input` (what counts as conversation, whose turn is next when a row
// arrives with a prefilled history), the checks that refuse a row before anything runs, how the
// policy's response is trimmed before it is recorded, and how the finished transcript is split into
// the rollout's input and output. Pure functions over JSON items; the HTTP loop is in
// conversational_tool_use_simulation.ts.
import { HttpError } from "../http/errors.js";
import type { Usage } from "../protocol/index.js";
import { agentSystemMessage, responsesApiTools } from "./conversational_tool_use_prompt.js";

export type Item = Record<string, unknown>;

/** A row refused before anything runs (NeMo Gym answers these 400 with the same reasons). */
export class RowError extends HttpError {
  constructor(detail: string) {
    super(400, detail, { detail });
    this.name = "RowError";
  }
}

/** The marker with which the simulated user ends the conversation (their tasks are done). */
export const STOP_MARKER = "###STOP###";
/** The marker with which the simulated user acknowledges a transfer to a human agent. */
export const TRANSFER_MARKER = "###TRANSFER###";

export const userMessage = (content: string): Item => ({ content, role: "user", type: "message" });

export function itemRole(item: unknown): string | undefined {
  const role = (item as Item | null)?.role;
  return role === undefined || role === null ? undefined : String(role);
}

/** An item's type; items without one are classified by their fields (a role makes a message). */
export function itemType(item: unknown): string | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  const it = item as Item;
  if (it.type !== undefined && it.type !== null) return String(it.type);
  if (itemRole(it) !== undefined) return "message";
  if ("output" in it) return "function_call_output";
  if ("name" in it && "arguments" in it) return "function_call";
  return undefined;
}

/** Conversation items: everything but reasoning and the system/developer prompt. */
export function isConversationItem(item: unknown): boolean {
  const role = itemRole(item);
  return itemType(item) !== "reasoning" && role !== "system" && role !== "developer";
}

/** The text of a prefilled message: a string, or text parts only (any other part is refused). */
export function inputItemText(item: unknown): string {
  const content = (item as Item).content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    let text = "";
    let allText = true;
    for (const part of content as Item[]) {
      if ((part?.type !== "input_text" && part?.type !== "output_text") || typeof part.text !== "string") {
        allText = false;
        break;
      }
      text += part.text;
    }
    if (allText) return text;
  }
  throw new RowError("Prefilled user and assistant messages must contain only text.");
}

export function inputItems(input: unknown): Item[] {
  if (typeof input === "string") return [userMessage(input)];
  return Array.isArray(input) ? [...(input as Item[])] : [];
}

/**
 * `initial_user_message` copied into the policy's input when the row has no conversation yet; when
 * it has one, its first user message must be that text.
 */
export function materializeInitialUserMessage(params: Item, initialUserMessage: unknown): Item {
  const copy = structuredClone(params);
  if (initialUserMessage === undefined || initialUserMessage === null) return copy;
  const text = String(initialUserMessage);
  const items = inputItems(copy.input);
  const history = items.filter(isConversationItem);
  const userTexts = history.filter((item) => itemType(item) === "message" && itemRole(item) === "user").map(inputItemText);
  if (userTexts.length > 0 && userTexts[0] !== text) {
    throw new RowError("initial_user_message must match the first user message in responses_create_params.input.");
  }
  if (userTexts.length === 0 && history.length > 0) {
    throw new RowError("initial_user_message cannot be merged into an existing prefilled history without a user message.");
  }
  if (history.length === 0) copy.input = [...items, userMessage(text)];
  return copy;
}

/** Python's `==` on JSON values: key order does not matter, list order does. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => jsonEqual(v, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Item)[k], (b as Item)[k]));
}

/** A JSON value without its null-valued keys, at every depth (pydantic's `exclude_none`). */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== "object" || value === null) return value;
  const out: Item = {};
  for (const [key, v] of Object.entries(value)) if (v !== null && v !== undefined) out[key] = withoutNulls(v);
  return out;
}

/** The policy's `parallel_tool_calls`, defaulting to on as NeMo Gym's request model does. */
export function parallelToolCalls(params: Item): boolean {
  return params.parallel_tool_calls === undefined || params.parallel_tool_calls === null ? true : Boolean(params.parallel_tool_calls);
}

/**
 * The row's policy prompt and tools must be the canonical renderings of its top-level `policy` and
 * `tools`, so that the policy model and the verifier see one contract.
 */
export function validateMaterializedParams(params: Item, policy: string, tools: ReadonlyArray<Item>): void {
  const items = inputItems(params.input);
  const prompts = items.filter((item) => itemRole(item) === "system" || itemRole(item) === "developer").map(inputItemText);
  if (prompts.length === 0) throw new RowError("responses_create_params.input must include the materialized policy system prompt.");
  const expected = agentSystemMessage(policy, parallelToolCalls(params));
  if (prompts.length !== 1 || prompts[0] !== expected) throw new RowError("responses_create_params policy prompt does not match the top-level policy.");
  const actual = params.tools;
  if (!Array.isArray(actual) || actual.length === 0) throw new RowError("responses_create_params.tools must include materialized policy tools.");
  if (!jsonEqual(withoutNulls(actual), responsesApiTools(tools))) throw new RowError("responses_create_params.tools do not match the top-level tool definitions.");
}

export type NextActor = "user" | "agent" | "environment" | "terminal";

/**
 * Whose turn it is after a prefilled history: undefined when there is no conversation yet; the
 * environment when some prefilled function call has no output (those calls are returned, in order);
 * the agent after a tool output or a user message; the user after an assistant message; nobody when
 * the last user message carries a stop or transfer marker.
 */
export function prefilledResumeState(params: Item): { next: NextActor; pending: Item[] } | undefined {
  const items = inputItems(params.input).filter(isConversationItem);
  if (items.length === 0) return undefined;
  const calls = new Map<string, Item>();
  const executed = new Set<string>();
  for (const item of items) {
    const type = itemType(item);
    if (type === "function_call") calls.set(String(item.call_id), { ...item, type: "function_call" });
    else if (type === "function_call_output" && typeof item.call_id === "string") executed.add(item.call_id);
  }
  const pending = [...calls].filter(([id]) => !executed.has(id)).map(([, call]) => call);
  if (pending.length > 0) return { next: "environment", pending };
  const last = items.at(-1)!;
  const type = itemType(last);
  if (type === "function_call_output") return { next: "agent", pending: [] };
  if (type === "message") {
    const role = itemRole(last);
    if (role === "assistant") return { next: "user", pending: [] };
    if (role === "user") {
      const text = inputItemText(last);
      return { next: text.includes(STOP_MARKER) || text.includes(TRANSFER_MARKER) ? "terminal" : "agent", pending: [] };
    }
  }
  throw new RowError("Prefilled history does not end at a resumable state.");
}

/** Items for the policy's request: each with its `type` (inferred where missing) and no null fields. */
export function normalizeInputItems(items: readonly unknown[]): unknown[] {
  return items.map((raw) => {
    if (typeof raw !== "object" || raw === null) return raw;
    const item = withoutNulls(raw) as Item;
    if (!("type" in item)) {
      if (item.role) item.type = "message";
      else if ("call_id" in item && "output" in item) item.type = "function_call_output";
      else if ("call_id" in item && "name" in item && "arguments" in item) item.type = "function_call";
      else if ("summary" in item) item.type = "reasoning";
    }
    return item;
  });
}

/** The text of a message output: its parts' texts joined by newlines. */
export function messageText(item: Item): string {
  const parts = Array.isArray(item.content) ? (item.content as Item[]) : [];
  return parts
    .map((part) => (typeof part?.text === "string" ? part.text : ""))
    .filter((text) => text !== "")
    .join("\n");
}

/** Assistant messages with at least one `output_text` part. */
export function isTextMessage(item: Item): boolean {
  return item.type === "message" && Array.isArray(item.content) && (item.content as Item[]).some((part) => part?.type === "output_text");
}

/**
 * The policy's output as the agent keeps it: without function calls past the first when parallel
 * calls are off, and without messages whose text is blank. Returns a new output list.
 */
export function selectOutputs(output: readonly Item[], parallel: boolean): Item[] {
  let seenCall = false;
  const kept: Item[] = [];
  for (const item of output) {
    if (item.type === "function_call" && !parallel) {
      if (seenCall) continue;
      seenCall = true;
    }
    if (item.type === "message" && messageText(item).trim() === "") continue;
    kept.push(item);
  }
  return kept;
}

/**
 * What `/record_agent_outputs` is told about one policy response: its text messages and function
 * calls, each with its index in the (trimmed) response.
 */
export function recordedOutputs(output: readonly Item[]): Item[] {
  const recorded: Item[] = [];
  output.forEach((item, index) => {
    if (item.type === "message" && isTextMessage(item)) {
      recorded.push({ type: "message", content: messageText(item), response_output_index: index });
    } else if (item.type === "function_call") {
      recorded.push({ type: "function_call", tool_name: item.name, tool_call_id: item.call_id, arguments: item.arguments, response_output_index: index });
    }
  });
  return recorded;
}

/** Item types that open the model-generated part of a transcript (besides an assistant message). */
const GENERATED_TYPES = new Set([
  "code_interpreter_call",
  "computer_call",
  "custom_tool_call",
  "file_search_call",
  "function_call",
  "image_generation_call",
  "local_shell_call",
  "mcp_approval_request",
  "mcp_call",
  "mcp_list_tools",
  "reasoning",
  "web_search_call",
]);

/**
 * The rollout's transcript split as NeMo Gym writes it: leading items before the first generated one
 * (the simulated user's opening message, say) move to the end of `responses_create_params.input`, and
 * `response.output` starts where the policy starts.
 */
export function canonicalizeTranscript(params: Item, response: Item): { params: Item; response: Item } {
  const output = Array.isArray(response.output) ? (response.output as Item[]) : [];
  let split = output.length;
  for (let i = 0; i < output.length; i++) {
    const item = output[i]!;
    if ((item.type === "message" && item.role === "assistant") || GENERATED_TYPES.has(String(item.type))) {
      split = i;
      break;
    }
  }
  if (split === 0) return { params, response };
  return {
    params: { ...params, input: [...inputItems(params.input), ...output.slice(0, split)] },
    response: { ...response, output: output.slice(split) },
  };
}

/**
 * The policy usage of a rollout as NeMo Gym's agent sums it: the first response's usage as it is;
 * each further one adds its input, output and total tokens and resets the cached and reasoning
 * details to 0.
 */
export function mergePolicyUsage(total: Usage | null | undefined, next: Usage | null | undefined): Usage | null | undefined {
  if (total === null || total === undefined) return next === undefined ? undefined : structuredClone(next);
  if (!next) return total;
  const sum = structuredClone(total);
  sum.input_tokens += next.input_tokens;
  sum.output_tokens += next.output_tokens;
  sum.total_tokens += next.total_tokens;
  sum.input_tokens_details = { ...sum.input_tokens_details, cached_tokens: 0 };
  sum.output_tokens_details = { ...sum.output_tokens_details, reasoning_tokens: 0 };
  return sum;
}

/** How Python prints a response's `incomplete_details` (the openai SDK model's repr). */
export function incompleteDetailsRepr(details: unknown): string {
  const reason = (details as Item | null)?.reason;
  return `IncompleteDetails(reason=${typeof reason === "string" ? `'${reason}'` : "None"})`;
}
