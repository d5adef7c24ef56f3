// The user simulator and the tool-result simulator (NeMo Gym 07d6b0d `_generate_user_message`,
// `_generate_tool_result` and the message lists they send). Both are model servers named by the config
// (`user_model_server`, `tool_simulator_model_server`, else `simulator_model_server`), called with the
// judge kit's client so each call carries the rollout header and its ordinal within the session (for
// record and replay); every response's usage is added to its role's total. Without any model server a
// role answers NeMo Gym's canned text (a smoke-test mode).
import { accumulateUsage } from "../../agents/usage.js";
import { JudgeClient, JUDGE_RETRY, judgeMessages, type JudgeMessage } from "../../judge/index.js";
import type { ResponseObject, ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { pyJsonDumps, scenarioText, toolDefinitions } from "./format.js";
import type { Config, ConversationMessage, ModelRole, SessionState } from "./model.js";
import { COMPLETE_INDICATOR, fill, TOOL_SIMULATOR_CONVERSATION, TOOL_SIMULATOR_CONVERSATION_MESSAGE, TOOL_SIMULATOR_REQUEST, TOOL_SIMULATOR_SYSTEM, TRANSFER_INDICATOR, USER_SIMULATOR_SYSTEM } from "./prompts.js";

export interface UrlResolver {
  urlOf(ref: ServerRef | string): string;
}

/** A simulated message: its text and the model response it came from (none in canned mode). */
export interface Generated {
  text: string;
  response: Record<string, unknown> | null;
}

/** NeMo Gym's `_first_response_text`: the first non-empty text of the first message output that has one. */
export function firstResponseText(response: ResponseObject): string {
  for (const item of response.output as Array<Record<string, unknown>>) {
    if (item.type !== "message" || !Array.isArray(item.content)) continue;
    for (const part of item.content as Array<Record<string, unknown>>) {
      if (typeof part.text === "string" && part.text !== "") return part.text;
    }
  }
  throw new Error(`A response does not contain a message output: ${JSON.stringify(response.output)}`);
}

export function addUsage(state: SessionState, role: ModelRole, response: ResponseObject): void {
  state.usage[role] = accumulateUsage(state.usage[role], response.usage ?? null) ?? null;
}

function clientFor(state: SessionState, role: "user" | "tool_simulator", ctx: UrlResolver, ref: ServerRef, config: Config): JudgeClient {
  let client = state.clients[role];
  if (!client) {
    client = new JudgeClient(ctx.urlOf(ref), state.rollout, { timeoutSeconds: config.model_timeout_seconds, retry: JUDGE_RETRY });
    state.clients[role] = client;
  }
  return client;
}

async function ask(state: SessionState, role: "user" | "tool_simulator", ctx: UrlResolver, ref: ServerRef, config: Config, template: ResponsesCreateParams, messages: JudgeMessage[]): Promise<Generated> {
  const call = await clientFor(state, role, ctx, ref, config).responses(judgeMessages(template, messages));
  addUsage(state, role, call.response);
  return { text: firstResponseText(call.response), response: call.response as Record<string, unknown> };
}

const CUSTOMER_PREFIX = /^\s*Customer:\s*/i;

/** The user simulator's view: its scenario, the customer's messages as its own, the representative's as the other side's. */
export function userSimulatorMessages(state: SessionState): JudgeMessage[] {
  const system = fill(USER_SIMULATOR_SYSTEM, { complete_indicator: COMPLETE_INDICATOR, transfer_indicator: TRANSFER_INDICATOR, customer_scenario: scenarioText(state.scenario, true) });
  const messages: JudgeMessage[] = [{ role: "system", content: system }];
  for (const message of state.messages) {
    if (message.type !== "text") continue;
    if (message.source === "environment") throw new Error("a text message from the environment cannot be shown to the user simulator");
    const [role, sender] = message.source === "user" ? (["assistant", "Customer"] as const) : (["user", "Representative"] as const);
    messages.push({ role, content: `${sender}: ${String(message.content)}` });
  }
  return messages;
}

export async function generateUserMessage(state: SessionState, ctx: UrlResolver, config: Config): Promise<Generated> {
  const ref = config.user_model_server ?? config.simulator_model_server;
  if (!ref) {
    const first = !state.messages.some((m) => m.source === "user");
    return { text: first ? state.scenario.reason_for_contact || "I need help with my account." : "Thanks. Please continue helping me with this request.", response: null };
  }
  const generated = await ask(state, "user", ctx, ref, config, config.user_responses_create_params, userSimulatorMessages(state));
  return { ...generated, text: generated.text.replace(CUSTOMER_PREFIX, "") };
}

/** The tool-result simulator's system message. */
export const toolSimulatorSystem = (state: SessionState): string =>
  fill(TOOL_SIMULATOR_SYSTEM, { domain_policy: state.policy, customer_scenario: scenarioText(state.scenario), tool_definitions: toolDefinitions(state.tools) });

const conversationBlock = (texts: string[]): string => (texts.length > 0 ? fill(TOOL_SIMULATOR_CONVERSATION, { conversation: texts.join("\n\n") }) : "");

const requestText = (texts: string[], call: ConversationMessage): string =>
  fill(TOOL_SIMULATOR_REQUEST, { conversation: conversationBlock(texts), tool_name: call.tool_name ?? null, arguments: call.arguments ?? null });

const textLine = (message: ConversationMessage, sender: string): string => fill(TOOL_SIMULATOR_CONVERSATION_MESSAGE, { sender, message: message.content ?? null });

/**
 * The tool-result simulator's view when the call to answer is the trajectory's last step: each
 * earlier call is a request (with the text messages since the previous result), each result its answer.
 */
export function toolSimulatorMessages(state: SessionState): JudgeMessage[] {
  const messages: JudgeMessage[] = [{ role: "system", content: toolSimulatorSystem(state) }];
  const texts: string[] = [];
  for (const message of state.messages) {
    if (message.type === "text") {
      if (message.source === "environment") throw new Error("a text message from the environment cannot be shown to the tool simulator");
      texts.push(textLine(message, message.source === "user" ? "customer" : "representative"));
    } else if (message.type === "tool_call") {
      messages.push({ role: "user", content: requestText(texts, message) });
    } else {
      messages.push({ role: "assistant", content: String(message.content) });
      texts.length = 0;
    }
  }
  return messages;
}

/**
 * The view for a call recorded earlier and still unanswered (a prefilled history, or parallel calls):
 * every answered call with its result, in the order of the results, then the pending call.
 */
export function toolSimulatorMessagesForPending(state: SessionState, pending: ConversationMessage): JudgeMessage[] {
  const messages: JudgeMessage[] = [{ role: "system", content: toolSimulatorSystem(state) }];
  const calls = new Map(state.messages.filter((m) => m.type === "tool_call" && m.tool_call_id != null).map((m) => [m.tool_call_id as string, m]));
  const texts: string[] = [];
  for (const message of state.messages) {
    if (message.type === "text") {
      texts.push(textLine(message, message.source === "user" ? "customer" : "representative"));
    } else if (message.type === "tool_execution") {
      const call = message.tool_call_id != null ? calls.get(message.tool_call_id) : undefined;
      if (!call) continue;
      messages.push({ role: "user", content: requestText(texts, call) });
      messages.push({ role: "assistant", content: String(message.content) });
      texts.length = 0;
    }
  }
  messages.push({ role: "user", content: requestText(texts, pending) });
  return messages;
}

export async function generateToolResult(state: SessionState, ctx: UrlResolver, config: Config, pending: ConversationMessage | undefined): Promise<Generated> {
  const ref = config.tool_simulator_model_server ?? config.simulator_model_server;
  const call = pending ?? state.messages[state.messages.length - 1]!;
  if (!ref) return { text: pyJsonDumps({ output: `Simulated result for ${call.tool_name}.` }), response: null };
  const messages = pending ? toolSimulatorMessagesForPending(state, pending) : toolSimulatorMessages(state);
  return ask(state, "tool_simulator", ctx, ref, config, config.tool_simulator_responses_create_params, messages);
}
