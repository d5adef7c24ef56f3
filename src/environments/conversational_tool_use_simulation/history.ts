// A row may start mid-conversation: its `responses_create_params.input` holds earlier customer and
// representative messages, tool calls and their results. `/seed_session` replays them into the
// session as NeMo Gym 07d6b0d's `_hydrate_prefilled_history` does — system, developer and reasoning
// items skipped, each step validated as if it had just happened (an invalid one ends the trajectory
// with its failure label), a customer's ###STOP###/###TRANSFER### ending it as complete — and refuses,
// with a 400 naming the problem, a history it cannot read.
import { HttpError } from "../../http/errors.js";
import { labelOfSource, recordFailure, isTerminalText, type ConversationMessage, type SessionState } from "./model.js";
import { validateMessage } from "./validation.js";

type Item = Record<string, unknown>;

const field = (item: unknown, name: string): unknown => (item !== null && typeof item === "object" ? (item as Item)[name] : undefined);

function itemType(item: unknown): string | undefined {
  const type = field(item, "type");
  if (type !== undefined && type !== null) return String(type);
  if (field(item, "role") != null) return "message";
  if (field(item, "output") != null) return "function_call_output";
  if (field(item, "name") != null) return "function_call";
  return undefined;
}

function requiredString(item: unknown, name: string): string {
  const value = field(item, name);
  if (typeof value !== "string") throw new HttpError(400, `Prefilled input item field ${name} must be a string.`);
  return value;
}

/** A message's text: a string, or text parts (input_text/output_text) joined. */
function itemText(item: unknown): string {
  const content = field(item, "content");
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const parts: string[] = [];
    let allText = true;
    for (const part of content) {
      const type = field(part, "type");
      const text = field(part, "text");
      if ((type !== "input_text" && type !== "output_text") || typeof text !== "string") {
        allText = false;
        break;
      }
      parts.push(text);
    }
    if (allText) return parts.join("");
  }
  throw new HttpError(400, "Prefilled user and assistant messages must contain only text.");
}

/** Appends one prefilled step, validated (NeMo Gym's `_append_prefilled_message`). */
export function appendPrefilled(state: SessionState, message: ConversationMessage): void {
  if (state.terminal_state !== null) throw new HttpError(400, "Prefilled history continues after a terminal message.");
  const invalid = validateMessage(state, message);
  state.messages.push(message);
  if (message.type === "tool_execution") message.schema_valid = invalid === undefined;
  if (invalid) recordFailure(state, invalid.reason, labelOfSource(message.source), invalid.error);
  else if (message.source === "user" && isTerminalText(message)) state.terminal_state = "complete";
}

export function hydrateHistory(state: SessionState, input: unknown): void {
  const items: unknown[] = typeof input === "string" ? [{ role: "user", content: input, type: "message" }] : Array.isArray(input) ? input : [];
  const calls = new Map<string, ConversationMessage>();
  const answered = new Set<string>();
  for (const item of items) {
    const type = itemType(item);
    const role = field(item, "role");
    if (type === "reasoning" || role === "system" || role === "developer") continue;
    if (type === "message") {
      if (role !== "user" && role !== "assistant") throw new HttpError(400, `Unsupported prefilled message role: ${String(role ?? "None")}.`);
      appendPrefilled(state, { type: "text", source: role === "user" ? "user" : "agent", content: itemText(item) });
    } else if (type === "function_call") {
      const callId = field(item, "call_id");
      if (typeof callId !== "string" || calls.has(callId)) throw new HttpError(400, "Prefilled function calls must have unique call_id values.");
      const call: ConversationMessage = { type: "tool_call", source: "agent", tool_call_id: callId, tool_name: requiredString(item, "name"), arguments: requiredString(item, "arguments") };
      appendPrefilled(state, call);
      calls.set(callId, call);
    } else if (type === "function_call_output") {
      const callId = requiredString(item, "call_id");
      const call = calls.get(callId);
      if (!call) throw new HttpError(400, `Prefilled tool output references unknown call_id ${callId}.`);
      if (answered.has(callId)) throw new HttpError(400, `Prefilled tool call ${callId} has more than one output.`);
      appendPrefilled(state, { type: "tool_execution", source: "environment", tool_call_id: callId, tool_name: call.tool_name ?? null, arguments: call.arguments ?? null, content: requiredString(item, "output") });
      answered.add(callId);
    } else {
      throw new HttpError(400, `Unsupported prefilled input item type: ${type ?? "None"}.`);
    }
  }
}
