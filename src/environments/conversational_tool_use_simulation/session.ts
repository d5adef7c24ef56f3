// The session routes the conversational_tool_use/simulation agent drives, with NeMo Gym 07d6b0d's
// request and response shapes: `/seed_session` (scenario, tools, policy, optional prefilled history),
// `/session_tools`, `/session_resume` (who acts next), `/record_agent_message` and
// `/record_agent_outputs` (the policy's messages and tool calls), `/record_generation_error`,
// `/record_agent_step_limit`, `/next_user_message` (the user simulator), `/execute_agent_tool_call`
// and `/{tool_name}` (the tool-result simulator), `/discard_session`.
//
// Bad steps never crash the server: a call to a tool the scenario does not have, arguments that are not
// valid under its schema, a reused call id, a simulated message that stays invalid after
// `generation_attempts` tries, or a simulator that cannot be reached end the trajectory as incomplete
// with NeMo Gym's invalid reason and failure label, and the reply says so (`should_continue: false`).
// Requests the protocol does not allow (no session, a history that cannot be read, a pending call
// replayed with other arguments) are answered 400 with the reason, as NeMo Gym's are.
import { z } from "zod";
import { HttpError, parseOr422 } from "../../http/errors.js";
import { rolloutHeaderOfRow } from "../../protocol/index.js";
import { pyJsonDumps } from "./format.js";
import { hydrateHistory, appendPrefilled } from "./history.js";
import {
  CustomerScenario,
  FailureLabel,
  InvalidReason,
  isTerminalText,
  labelOfSource,
  recordFailure,
  ToolSignature,
  toolDoc,
  toolParams,
  type Config,
  type ConversationMessage,
  type SessionState,
} from "./model.js";
import { generateToolResult, generateUserMessage, type UrlResolver } from "./simulators.js";
import { validateMessage } from "./validation.js";

/** What a handler needs: the instance's config and server URLs, this rollout's session, and the store. */
export interface SessionContext extends UrlResolver {
  config: Config;
  sessionId: string;
  sessions: Map<string, SessionState>;
}

const ResponseDict = z.record(z.string(), z.unknown()).nullable().default(null);
const OutputIndex = z.number().int().min(0).nullable().default(null);

export const SeedFields = {
  domain_name: z.string().default(""),
  profile: z.enum(["general", "proactive"]).nullable().default(null),
  policy: z.string(),
  tools: z.array(ToolSignature).default([]),
  customer_scenario: CustomerScenario.default(CustomerScenario.parse({})),
  responses_create_params: z.looseObject({ input: z.unknown() }).nullable().default(null),
  initial_user_message: z.string().nullable().default(null),
  source_artifacts: z.record(z.string(), z.unknown()).default({}),
  rollout_id: z.string().nullable().default(null),
};

const RecordAgentMessage = z.looseObject({ content: z.string(), response: ResponseDict });
const RecordedMessage = z.looseObject({ type: z.literal("message"), content: z.string(), response_output_index: OutputIndex });
const RecordedToolCall = z.looseObject({ type: z.literal("function_call"), tool_name: z.string(), tool_call_id: z.string(), arguments: z.string(), response_output_index: OutputIndex });
const RecordAgentOutputs = z.looseObject({ outputs: z.array(z.discriminatedUnion("type", [RecordedMessage, RecordedToolCall])), response: ResponseDict });
const RecordGenerationError = z.looseObject({ source: z.enum(["user", "agent", "environment"]), error: z.string() });
const StepLimitCall = z.looseObject({ tool_name: z.string(), tool_call_id: z.string(), arguments: z.string(), response_output_index: OutputIndex });
const RecordAgentStepLimit = z.looseObject({ max_agent_steps: z.number().int().min(1), tool_calls: z.array(StepLimitCall).default([]), response: ResponseDict });
const AgentToolCall = z.looseObject({ tool_name: z.string(), tool_call_id: z.string(), arguments: z.string(), response: ResponseDict });

/** `/seed_session`: a fresh state from the row, its prefilled history hydrated. */
export function seedSession(row: Record<string, unknown>, ctx: SessionContext): Record<string, never> {
  const body = parseOr422(z.looseObject(SeedFields), row);
  const state: SessionState = {
    domain_name: body.domain_name,
    profile: body.profile,
    policy: body.policy,
    tools: body.tools,
    scenario: body.customer_scenario,
    messages: [],
    prefill_message_count: 0,
    source_artifacts: body.source_artifacts,
    invalid_reasons: [],
    failure_labels: [],
    terminal_state: null,
    generation_invalid_reason: null,
    terminal_error: null,
    agent_verification_result: null,
    user_verification_result: null,
    environment_verification_result: null,
    verification_reward: null,
    judge_generation_error: null,
    judge_diagnostics: {},
    rollout: rolloutHeaderOfRow(row),
    clients: {},
    usage: { user: null, tool_simulator: null, judge: null },
  };
  if (body.responses_create_params) hydrateHistory(state, body.responses_create_params.input);
  if (body.initial_user_message !== null) {
    const firstUser = state.messages.find((m) => m.type === "text" && m.source === "user");
    if (firstUser) {
      if (firstUser.content !== body.initial_user_message) throw new HttpError(400, "initial_user_message must match the first user message in responses_create_params.input.");
    } else if (state.messages.length > 0) {
      throw new HttpError(400, "initial_user_message cannot be merged into an existing prefilled history without a user message.");
    } else {
      appendPrefilled(state, { type: "text", source: "user", content: body.initial_user_message });
    }
  }
  state.prefill_message_count = state.messages.length;
  ctx.sessions.set(ctx.sessionId, state);
  return {};
}

export function stateOf(ctx: SessionContext): SessionState {
  const state = ctx.sessions.get(ctx.sessionId);
  if (!state) throw new HttpError(400, "Session not initialized. Call /seed_session first.");
  return state;
}

/** Where a step came from: the response's id, the output's index, and the response itself the first time it is seen. */
function provenance(state: SessionState, response: Record<string, unknown> | null, outputIndex: number | null = null, store = true): Partial<ConversationMessage> {
  if (response === null) return {};
  const id = typeof response.id === "string" ? response.id : null;
  const stored = id !== null && state.messages.some((m) => m.response_id === id && m.responses);
  return { response_id: id, response_output_index: outputIndex, responses: store && !stored ? [response] : null };
}

const executedIds = (state: SessionState) => new Set(state.messages.filter((m) => m.type === "tool_execution" && m.tool_call_id != null).map((m) => m.tool_call_id as string));

function pendingToolCalls(state: SessionState) {
  const executed = executedIds(state);
  return state.messages
    .filter((m) => m.type === "tool_call" && !executed.has(m.tool_call_id as string))
    .map((m) => ({ tool_name: m.tool_name ?? "", tool_call_id: m.tool_call_id ?? "", arguments: m.arguments ?? "" }));
}

export function sessionResume(ctx: SessionContext) {
  const state = stateOf(ctx);
  const pending = pendingToolCalls(state);
  const reply = (next_actor: string, extra: { pending_tool_calls?: unknown[]; is_initial?: boolean; terminal_state?: string | null } = {}) => ({
    next_actor,
    pending_tool_calls: extra.pending_tool_calls ?? [],
    is_initial: extra.is_initial ?? false,
    terminal_state: extra.terminal_state ?? null,
  });
  if (state.terminal_state !== null) return reply("terminal", { terminal_state: state.terminal_state });
  if (pending.length > 0) return reply("environment", { pending_tool_calls: pending });
  if (state.messages.length === 0) return reply("user", { is_initial: true });
  const last = state.messages[state.messages.length - 1]!;
  if (last.source === "agent" && last.type === "text") return reply("user");
  if (last.source === "user" || last.type === "tool_execution") return reply("agent");
  throw new HttpError(400, "Prefilled history does not end at a resumable state.");
}

/** The scenario's tools as Responses API function tools (`doc`/`params` preferred, strict). */
export function sessionTools(ctx: SessionContext) {
  const state = stateOf(ctx);
  return { tools: state.tools.map((tool) => ({ type: "function", name: tool.name, description: toolDoc(tool), parameters: toolParams(tool) ?? { type: "object", properties: {} }, strict: true })) };
}

type Outputs = z.output<typeof RecordAgentOutputs>["outputs"];

function recordOutputs(ctx: SessionContext, outputs: Outputs, response: Record<string, unknown> | null) {
  const state = stateOf(ctx);
  if (state.terminal_state) return { should_continue: false, terminal_state: state.terminal_state };
  const known = new Set(state.messages.filter((m) => m.type === "tool_call" && m.tool_call_id != null).map((m) => m.tool_call_id as string));
  for (const [index, output] of outputs.entries()) {
    const origin = provenance(state, response, output.response_output_index, index === 0);
    let message: ConversationMessage;
    if (output.type === "message") {
      message = { type: "text", source: "agent", content: output.content, ...origin };
    } else {
      message = { type: "tool_call", source: "agent", tool_call_id: output.tool_call_id, tool_name: output.tool_name, arguments: output.arguments, ...origin };
      if (known.has(output.tool_call_id)) {
        state.messages.push(message);
        recordFailure(state, InvalidReason.INVALID_AGENT_TOOL_CALL, FailureLabel.AGENT_FAILURE, `The tool call ID ${output.tool_call_id} is not unique within the trajectory.`);
        return { should_continue: false, terminal_state: state.terminal_state };
      }
      known.add(output.tool_call_id);
    }
    state.messages.push(message);
    const invalid = validateMessage(state, message);
    if (invalid) {
      recordFailure(state, invalid.reason, FailureLabel.AGENT_FAILURE, invalid.error);
      return { should_continue: false, terminal_state: state.terminal_state };
    }
  }
  return { should_continue: true, terminal_state: null };
}

export function recordAgentMessage(body: unknown, ctx: SessionContext) {
  const request = parseOr422(RecordAgentMessage, body ?? {});
  return recordOutputs(ctx, [{ type: "message", content: request.content, response_output_index: null }], request.response);
}

export function recordAgentOutputs(body: unknown, ctx: SessionContext) {
  const request = parseOr422(RecordAgentOutputs, body ?? {});
  return recordOutputs(ctx, request.outputs, request.response);
}

export function recordGenerationError(body: unknown, ctx: SessionContext) {
  const request = parseOr422(RecordGenerationError, body ?? {});
  const state = stateOf(ctx);
  if (!state.terminal_state) recordFailure(state, InvalidReason.MESSAGE_GENERATION_ERROR, labelOfSource(request.source), request.error);
  return { should_continue: false, terminal_state: state.terminal_state };
}

export function recordAgentStepLimit(body: unknown, ctx: SessionContext) {
  const request = parseOr422(RecordAgentStepLimit, body ?? {});
  const state = stateOf(ctx);
  if (state.terminal_state) return { should_continue: false, terminal_state: state.terminal_state };
  for (const [index, call] of request.tool_calls.entries()) {
    const message: ConversationMessage = { type: "tool_call", source: "agent", tool_call_id: call.tool_call_id, tool_name: call.tool_name, arguments: call.arguments, ...provenance(state, request.response, call.response_output_index, index === 0) };
    state.messages.push(message);
    const invalid = validateMessage(state, message);
    if (invalid) {
      recordFailure(state, invalid.reason, FailureLabel.AGENT_FAILURE, invalid.error);
      return { should_continue: false, terminal_state: state.terminal_state };
    }
  }
  recordFailure(state, InvalidReason.EXCESSIVE_LENGTH, FailureLabel.TRAJECTORY_FAILURE, `The maximum number of agent steps of ${request.max_agent_steps} has been reached`);
  return { should_continue: false, terminal_state: state.terminal_state };
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** `/next_user_message`: the user simulator's next message, retried while it is invalid. */
export async function nextUserMessage(ctx: SessionContext) {
  const state = stateOf(ctx);
  if (state.terminal_state) return { message: "", should_continue: false, terminal_state: state.terminal_state };
  let message: ConversationMessage | undefined;
  let invalid: ReturnType<typeof validateMessage>;
  try {
    for (let attempt = 0; attempt < Math.max(1, ctx.config.generation_attempts); attempt++) {
      const generated = await generateUserMessage(state, ctx, ctx.config);
      message = { type: "text", source: "user", content: generated.text, ...provenance(state, generated.response) };
      invalid = validateMessage(state, message);
      if (!invalid) break;
    }
  } catch (error) {
    recordFailure(state, InvalidReason.MESSAGE_GENERATION_ERROR, FailureLabel.USER_FAILURE, errorText(error));
    return { message: "", should_continue: false, terminal_state: state.terminal_state };
  }
  state.messages.push(message!);
  if (invalid) recordFailure(state, invalid.reason, FailureLabel.USER_FAILURE, invalid.error);
  else if (isTerminalText(message!)) state.terminal_state = "complete";
  return { message: String(message!.content), should_continue: state.terminal_state === null, terminal_state: state.terminal_state };
}

function toolReply(output: unknown, schemaValid: boolean, error: string | null, state: SessionState) {
  return { output, schema_valid: schemaValid, error, should_continue: state.terminal_state === null, terminal_state: state.terminal_state };
}

/** One tool call of the agent answered by the tool-result simulator (NeMo Gym's `_handle_agent_tool_call`). */
async function handleToolCall(ctx: SessionContext, toolName: string, callId: string, args: string, response: Record<string, unknown> | null) {
  const state = stateOf(ctx);
  if (state.terminal_state) {
    const error = `Trajectory is already terminal: ${state.terminal_state}`;
    return { output: { error }, schema_valid: false, error, should_continue: false, terminal_state: state.terminal_state };
  }
  const executed = executedIds(state);
  let call = state.messages.find((m) => m.type === "tool_call" && m.tool_call_id === callId && !executed.has(callId));
  const resumed = call !== undefined;
  if (call) {
    if (call.tool_name !== toolName || call.arguments !== args) throw new HttpError(400, `Pending tool call ${callId} does not match the requested execution.`);
  } else {
    if (state.messages.some((m) => m.type === "tool_call" && m.tool_call_id === callId)) throw new HttpError(400, `Tool call ${callId} has already been executed.`);
    call = { type: "tool_call", source: "agent", tool_call_id: callId, tool_name: toolName, arguments: args, ...provenance(state, response) };
    state.messages.push(call);
    const invalid = validateMessage(state, call);
    if (invalid) {
      recordFailure(state, invalid.reason, FailureLabel.AGENT_FAILURE, invalid.error || "Invalid tool call arguments.");
      return toolReply({ error: invalid.error }, false, invalid.error, state);
    }
  }
  let output = "";
  let schemaValid = false;
  let lastError: string | null = null;
  let result: ConversationMessage | undefined;
  try {
    for (let attempt = 0; attempt < Math.max(1, ctx.config.generation_attempts); attempt++) {
      const generated = await generateToolResult(state, ctx, ctx.config, resumed ? call : undefined);
      output = generated.text;
      result = { type: "tool_execution", source: "environment", tool_call_id: callId, tool_name: toolName, arguments: args, content: output, ...provenance(state, generated.response) };
      const invalid = validateMessage(state, result);
      if (!invalid) {
        schemaValid = true;
        break;
      }
      lastError = invalid.error;
    }
  } catch (error) {
    const text = errorText(error);
    recordFailure(state, InvalidReason.MESSAGE_GENERATION_ERROR, FailureLabel.TOOL_FAILURE, text);
    return toolReply({ error: text }, false, text, state);
  }
  result!.schema_valid = schemaValid;
  state.messages.push(result!);
  if (!schemaValid && lastError) recordFailure(state, InvalidReason.INVALID_ENVIRONMENT_TOOL_EXECUTION, FailureLabel.TOOL_FAILURE, lastError);
  return toolReply(output, schemaValid, schemaValid ? null : lastError, state);
}

export function executeAgentToolCall(body: unknown, ctx: SessionContext) {
  const request = parseOr422(AgentToolCall, body ?? {});
  return handleToolCall(ctx, request.tool_name, request.tool_call_id, request.arguments, request.response);
}

/**
 * `/{tool_name}`: a direct tool call, the body being the arguments (null-valued ones dropped, as
 * NeMo Gym's model dump does); `_tool_call_id` names the call, else `tool_call_<n>`.
 */
export function routeToolCall(name: string, body: unknown, ctx: SessionContext) {
  if (body !== null && body !== undefined && (typeof body !== "object" || Array.isArray(body))) {
    throw new HttpError(422, `the arguments of tool ${name} must be a JSON object`);
  }
  const state = stateOf(ctx);
  const args = Object.fromEntries(Object.entries((body ?? {}) as Record<string, unknown>).filter(([, v]) => v !== null));
  const { _tool_call_id: given, ...rest } = args;
  const callId = given !== undefined ? String(given) : `tool_call_${1 + state.messages.filter((m) => m.type === "tool_call").length}`;
  return handleToolCall(ctx, name, callId, pyJsonDumps(rest), null);
}

export function discardSession(ctx: SessionContext) {
  return { discarded: ctx.sessions.delete(ctx.sessionId) };
}

/** The session routes by name; any other name is a tool call. */
export function sessionRoute(name: string, body: unknown, ctx: SessionContext): unknown {
  switch (name) {
    case "session_tools":
      return sessionTools(ctx);
    case "session_resume":
      return sessionResume(ctx);
    case "record_agent_message":
      return recordAgentMessage(body, ctx);
    case "record_agent_outputs":
      return recordAgentOutputs(body, ctx);
    case "record_generation_error":
      return recordGenerationError(body, ctx);
    case "record_agent_step_limit":
      return recordAgentStepLimit(body, ctx);
    case "next_user_message":
      return nextUserMessage(ctx);
    case "execute_agent_tool_call":
      return executeAgentToolCall(body, ctx);
    case "discard_session":
      return discardSession(ctx);
    default:
      return routeToolCall(name, body, ctx);
  }
}
