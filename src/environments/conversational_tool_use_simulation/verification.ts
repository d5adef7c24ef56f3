// `/verify` of conversational_tool_use_simulation, as NeMo Gym 07d6b0d scores a trajectory:
// - an incomplete trajectory, or one with an invalid step, scores 0 with the labels it collected;
// - with `enforce_transfer_ground_truth`, a transfer that contradicts the scenario's
//   `outside_policy_scope` scores 0 as an agent failure without asking the judge;
// - else the LLM judge (`verification_type: message`): with `enable_termination`, every customer
//   message and tool result first (the first failing one ends judging: user_failure / tool_failure,
//   reward 0, sample masked), then every representative step (the first failing one: agent_failure,
//   reward 0), then — all passed — one judge of the whole conversation; without termination every
//   step is judged and the conversation judge always runs. `complete_trajectory_combined_evaluation`
//   asks one judge for customer, representative and tool results at once.
// A judge reply that is not the JSON verdict after `generation_attempts` tries is a
// verification_generation_error (reward 0, masked). A judge that cannot be reached (transport, 429,
// 5xx after `judge_provider_attempts` tries with the configured backoff) is a `judge_failed` rollout
// (the judge kit's failure class), where NeMo Gym answers 503.
import { JudgeClient, JudgeFailure, judgeRequest } from "../../judge/index.js";
import type { ResponseObject } from "../../protocol/index.js";
import { scenarioText, stepsText, stepText, toolDefinitions } from "./format.js";
import {
  dedupe,
  emptyVerification,
  FailureLabel,
  InvalidReason,
  recordFailure,
  type AgentVerificationResult,
  type Config,
  type ConversationMessage,
  type SessionState,
  type Source,
  type VerificationResult,
} from "./model.js";
import {
  AGENT_MESSAGE_JUDGE_SYSTEM,
  COMBINED_JUDGE_SYSTEM,
  COMPLETE_INDICATOR,
  CONVERSATION_JUDGE_SYSTEM,
  CONVERSATION_JUDGE_USER,
  fill,
  MESSAGE_JUDGE_USER,
  TOOL_RESULT_JUDGE_SYSTEM,
  TRANSFER_INDICATOR,
  USER_MESSAGE_JUDGE_SYSTEM,
} from "./prompts.js";
import { addUsage, firstResponseText, type UrlResolver } from "./simulators.js";
import { stripJsonFence } from "./validation.js";

/** `json.dumps(Evaluation.model_json_schema())` of NeMo Gym's pydantic model. */
export const EVALUATION_SCHEMA =
  '{"properties": {"success": {"description": "True for an evaluation of success, or false for an evaluation of failure.", "title": "Success", "type": "boolean"}, "explanation": {"description": "An explanation for the evaluation.", "title": "Explanation", "type": "string"}}, "required": ["success", "explanation"], "title": "Evaluation", "type": "object"}';
/** `json.dumps(UserAgentEnvironmentEvaluation.model_json_schema())`. */
export const COMBINED_EVALUATION_SCHEMA =
  '{"properties": {"customer_success": {"description": "True for an evaluation of success for the actions of the customer, or false for an evaluation of failure.", "title": "Customer Success", "type": "boolean"}, "customer_explanation": {"description": "An explanation for the evaluation of the customer.", "title": "Customer Explanation", "type": "string"}, "representative_success": {"description": "True for an evaluation of success for the actions of the customer service representative, or false for an evaluation of failure.", "title": "Representative Success", "type": "boolean"}, "representative_explanation": {"description": "An explanation for the evaluation of the customer service representative.", "title": "Representative Explanation", "type": "string"}, "tool_results_success": {"description": "True for an evaluation of success for the tool results, or false for an evaluation of failure.", "title": "Tool Results Success", "type": "boolean"}, "tool_results_explanation": {"description": "An explanation for the evaluation of the tool results.", "title": "Tool Results Explanation", "type": "string"}}, "required": ["customer_success", "customer_explanation", "representative_success", "representative_explanation", "tool_results_success", "tool_results_explanation"], "title": "Evaluation", "type": "object"}';

export type JudgeKind = Source | "conversation";

/** Pydantic's lax boolean (JSON mode): true/false, 0/1, and its string spellings. */
function laxBool(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value === "string") {
    const text = value.trim().toLowerCase();
    if (["1", "on", "t", "true", "y", "yes"].includes(text)) return true;
    if (["0", "off", "f", "false", "n", "no"].includes(text)) return false;
  }
  return undefined;
}

/** Reads a JSON verdict with the given boolean and string fields; throws naming what is wrong. */
function readVerdict<K extends string>(text: string, bools: readonly K[], strings: readonly K[]): Record<K, boolean | string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`ValidationError: the judge's reply is not JSON: ${(error as Error).message}`, { cause: error });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("ValidationError: the judge's reply is not a JSON object");
  const object = value as Record<string, unknown>;
  const out = {} as Record<K, boolean | string>;
  for (const key of bools) {
    const flag = laxBool(object[key]);
    if (flag === undefined) throw new Error(`ValidationError: ${key}: ${key in object ? "Input should be a valid boolean" : "Field required"}`);
    out[key] = flag;
  }
  for (const key of strings) {
    if (typeof object[key] !== "string") throw new Error(`ValidationError: ${key}: ${key in object ? "Input should be a valid string" : "Field required"}`);
    out[key] = object[key] as string;
  }
  return out;
}

/** A reply NeMo Gym's judge loop retries (it could not be read), as opposed to a judge that failed. */
const unreadable = (error: unknown): boolean => !(error instanceof JudgeFailure) || error.errorType === "ValidationError" || error.errorType === "JSONDecodeError";

const describe = (error: unknown): string => (error instanceof JudgeFailure ? error.describe() : error instanceof Error ? error.message : String(error));

class Judge {
  private readonly client: JudgeClient;

  constructor(
    private readonly state: SessionState,
    private readonly config: Config,
    ctx: UrlResolver,
    request: Record<string, unknown>,
  ) {
    const retry = {
      attempts: config.judge_provider_attempts,
      initialDelayMs: config.judge_provider_retry_initial_backoff_seconds * 1000,
      maxDelayMs: config.judge_provider_retry_max_backoff_seconds * 1000,
    };
    this.client = JudgeClient.for(ctx, config.judge_model_server!, request, { retry, timeoutSeconds: config.model_timeout_seconds });
  }

  /** Asks until a reply reads as a verdict, `generation_attempts` times at most. */
  async ask<T>(system: string, user: string, read: (text: string) => T): Promise<{ verdict: T; text: string; responses: Array<Record<string, unknown>> } | { error: string; responses: Array<Record<string, unknown>> }> {
    const responses: Array<Record<string, unknown>> = [];
    let lastError = "";
    for (let attempt = 0; attempt < Math.max(1, this.config.generation_attempts); attempt++) {
      try {
        const call = await this.client.responses(judgeRequest(this.config.judge_responses_create_params, system, user));
        addUsage(this.state, "judge", call.response);
        responses.push(call.response as Record<string, unknown>);
        const text = stripJsonFence(firstResponseText(call.response as ResponseObject));
        return { verdict: read(text), text, responses };
      } catch (error) {
        if (!unreadable(error)) throw error;
        lastError = describe(error);
      }
    }
    return { error: lastError, responses };
  }

  async evaluate(kind: JudgeKind, user: string): Promise<VerificationResult> {
    const answer = await this.ask(systemMessage(this.state, kind), user, (text) => readVerdict(text, ["success"], ["explanation"]));
    if ("error" in answer) return { ...emptyVerification(), generation_error: answer.error, responses: answer.responses };
    return { reward: answer.verdict.success ? 1 : 0, explanation: answer.verdict.explanation as string, judge_response: answer.text, generation_error: null, responses: answer.responses };
  }
}

const transferInstruction = (state: SessionState) => (state.scenario.outside_policy_scope ? "" : "not ");

/** The system message of one kind of judge (NeMo Gym's `_system_messages`). */
export function systemMessage(state: SessionState, kind: JudgeKind): string {
  const policy = state.policy;
  const tools = toolDefinitions(state.tools);
  switch (kind) {
    case "user":
      return fill(USER_MESSAGE_JUDGE_SYSTEM, { policy, customer_scenario: scenarioText(state.scenario), complete_indicator: COMPLETE_INDICATOR, transfer_indicator: TRANSFER_INDICATOR, evaluation_schema: EVALUATION_SCHEMA });
    case "agent":
      return fill(AGENT_MESSAGE_JUDGE_SYSTEM, { policy, tool_definitions: tools, evaluation_schema: EVALUATION_SCHEMA });
    case "environment":
      return fill(TOOL_RESULT_JUDGE_SYSTEM, { policy, customer_scenario: scenarioText(state.scenario), tool_definitions: tools, evaluation_schema: EVALUATION_SCHEMA });
    case "conversation":
      return fill(CONVERSATION_JUDGE_SYSTEM, { policy, tool_definitions: tools, transfer_instruction: transferInstruction(state), evaluation_schema: EVALUATION_SCHEMA });
  }
}

async function judgeMessage(judge: Judge, messages: ConversationMessage[], index: number): Promise<number | null> {
  const message = messages[index]!;
  const user = fill(MESSAGE_JUDGE_USER, { previous_steps: stepsText(messages.slice(0, index)), current_step: stepText(message) });
  message.verification_result = await judge.evaluate(message.source, user);
  return message.verification_result.reward;
}

type Partial3 = { reasons: string[]; agentReward: number; labels: string[] };

async function judgeWithTermination(judge: Judge, messages: ConversationMessage[]): Promise<Partial3> {
  const generationError = { reasons: [InvalidReason.VERIFICATION_GENERATION_ERROR], agentReward: 1, labels: [FailureLabel.VERIFICATION_GENERATION_ERROR] };
  for (const [index, message] of messages.entries()) {
    if (message.source === "agent") continue;
    const reward = await judgeMessage(judge, messages, index);
    if (reward === null) return generationError;
    if (reward < 1) {
      return message.source === "user"
        ? { reasons: [InvalidReason.NO_REWARD_USER_MESSAGE], agentReward: 1, labels: [FailureLabel.USER_FAILURE] }
        : { reasons: [InvalidReason.NO_REWARD_ENVIRONMENT_MESSAGE], agentReward: 1, labels: [FailureLabel.TOOL_FAILURE] };
    }
  }
  for (const [index, message] of messages.entries()) {
    if (message.source !== "agent") continue;
    const reward = await judgeMessage(judge, messages, index);
    if (reward === null) return generationError;
    if (reward < 1) return { reasons: [], agentReward: 0, labels: [FailureLabel.AGENT_FAILURE] };
  }
  return { reasons: [], agentReward: 1, labels: [] };
}

async function judgeAll(judge: Judge, messages: ConversationMessage[]): Promise<Partial3> {
  const out: Partial3 = { reasons: [], agentReward: 1, labels: [] };
  for (const [index, message] of messages.entries()) {
    const reward = await judgeMessage(judge, messages, index);
    if (reward === null) {
      out.reasons.push(InvalidReason.VERIFICATION_GENERATION_ERROR);
      out.labels.push(FailureLabel.VERIFICATION_GENERATION_ERROR);
    } else if (reward < 1) {
      if (message.source === "user") {
        out.reasons.push(InvalidReason.NO_REWARD_USER_MESSAGE);
        out.labels.push(FailureLabel.USER_FAILURE);
      } else if (message.source === "agent") {
        out.agentReward = Math.min(out.agentReward, reward);
        out.labels.push(FailureLabel.AGENT_FAILURE);
      } else {
        out.reasons.push(InvalidReason.NO_REWARD_ENVIRONMENT_MESSAGE);
        out.labels.push(FailureLabel.TOOL_FAILURE);
      }
    }
  }
  return out;
}

const withoutNulls = (result: VerificationResult): Record<string, unknown> => Object.fromEntries(Object.entries(result).filter(([, v]) => v !== null && v !== undefined));

export interface JudgeOutcome {
  reward: number;
  reasons: string[];
  labels: string[];
  diagnostics: Record<string, unknown>;
}

async function verifyByMessages(judge: Judge, state: SessionState, config: Config): Promise<JudgeOutcome> {
  const { reasons, labels, agentReward: stepsReward } = config.enable_termination ? await judgeWithTermination(judge, state.messages) : await judgeAll(judge, state.messages);
  let agentReward = stepsReward;
  let conversation: VerificationResult | null = null;
  if (!config.enable_termination || (reasons.length < 1 && agentReward > 0)) {
    conversation = await judge.evaluate("conversation", fill(CONVERSATION_JUDGE_USER, { steps: stepsText(state.messages) }));
    if (conversation.reward === null) {
      reasons.push(InvalidReason.VERIFICATION_GENERATION_ERROR);
      labels.push(FailureLabel.VERIFICATION_GENERATION_ERROR);
    } else {
      agentReward = Math.min(agentReward, conversation.reward);
      if (conversation.reward < 1) labels.push(FailureLabel.AGENT_FAILURE);
    }
  }
  const invalid = dedupe(reasons);
  state.agent_verification_result = invalid.length > 0
    ? { conversation_verification_result: conversation, overall_reward: null, trajectory_invalid_reasons: invalid }
    : { conversation_verification_result: conversation, overall_reward: Math.trunc(agentReward), trajectory_invalid_reasons: null };
  const diagnostics = {
    verification_type: "message",
    enable_termination: config.enable_termination,
    message_verification_results: state.messages.map((message, index) => ({
      index,
      type: message.type,
      source: message.source,
      tool_name: message.tool_name ?? null,
      reward: message.verification_result?.reward ?? null,
      explanation: message.verification_result?.explanation ?? null,
      generation_error: message.verification_result?.generation_error ?? null,
    })),
    conversation_verification_result: conversation === null ? null : withoutNulls(conversation),
  };
  return { reward: invalid.length > 0 ? 0 : agentReward, reasons: invalid, labels: dedupe(labels), diagnostics };
}

/** The combined judge's system message (NeMo Gym's `_combined_evaluation_system_message`). */
export function combinedSystemMessage(state: SessionState): string {
  return fill(COMBINED_JUDGE_SYSTEM, {
    policy: state.policy,
    tool_definitions: toolDefinitions(state.tools),
    customer_scenario: scenarioText(state.scenario),
    complete_indicator: COMPLETE_INDICATOR,
    transfer_indicator: TRANSFER_INDICATOR,
    transfer_instruction: transferInstruction(state),
    evaluation_schema: COMBINED_EVALUATION_SCHEMA,
  });
}

async function verifyCombined(judge: Judge, state: SessionState, config: Config): Promise<JudgeOutcome> {
  const system = combinedSystemMessage(state);
  const fields = ["customer_success", "representative_success", "tool_results_success"] as const;
  const notes = ["customer_explanation", "representative_explanation", "tool_results_explanation"] as const;
  const answer = await judge.ask(system, fill(CONVERSATION_JUDGE_USER, { steps: stepsText(state.messages) }), (text) => readVerdict<string>(text, fields, notes));
  const reasons: string[] = [];
  const labels: string[] = [];
  let reward = 0;
  let user: VerificationResult | null = null;
  let environment: VerificationResult | null = null;
  let agent: VerificationResult;
  if ("error" in answer) {
    agent = { ...emptyVerification(), generation_error: answer.error, responses: answer.responses };
    reasons.push(InvalidReason.VERIFICATION_GENERATION_ERROR);
    labels.push(FailureLabel.VERIFICATION_GENERATION_ERROR);
  } else {
    const v = answer.verdict;
    user = { ...emptyVerification(), reward: v.customer_success ? 1 : 0, explanation: v.customer_explanation as string };
    agent = { reward: v.representative_success ? 1 : 0, explanation: v.representative_explanation as string, judge_response: answer.text, generation_error: null, responses: answer.responses };
    environment = { ...emptyVerification(), reward: v.tool_results_success ? 1 : 0, explanation: v.tool_results_explanation as string };
    if (user.reward! < 1) {
      reasons.push(InvalidReason.NO_REWARD_USER_MESSAGE);
      labels.push(FailureLabel.USER_FAILURE);
    }
    if (environment.reward! < 1) {
      reasons.push(InvalidReason.NO_REWARD_ENVIRONMENT_MESSAGE);
      labels.push(FailureLabel.TOOL_FAILURE);
    }
    if (agent.reward! < 1) labels.push(FailureLabel.AGENT_FAILURE);
    reward = reasons.length > 0 ? 0 : agent.reward!;
  }
  const invalid = dedupe(reasons);
  state.user_verification_result = user;
  state.environment_verification_result = environment;
  state.agent_verification_result = invalid.length > 0
    ? { conversation_verification_result: agent, overall_reward: null, trajectory_invalid_reasons: invalid }
    : { conversation_verification_result: agent, overall_reward: agent.reward, trajectory_invalid_reasons: null };
  const diagnostics = {
    verification_type: "complete_trajectory_combined_evaluation",
    enable_termination: config.enable_termination,
    user_verification_result: user === null ? null : withoutNulls(user),
    conversation_verification_result: withoutNulls(agent),
    environment_verification_result: environment === null ? null : withoutNulls(environment),
  };
  return { reward, reasons: invalid, labels: dedupe(labels), diagnostics };
}

/** What the trajectory shows without a judge: counts, transfer, and whether it contradicts the scenario. */
export function trajectoryDiagnostics(state: SessionState, config: Config) {
  const transferred = state.messages.some((m) => m.source === "user" && typeof m.content === "string" && m.content.includes(TRANSFER_INDICATOR));
  const outside = Boolean(state.scenario.outside_policy_scope);
  const enforced = config.enforce_transfer_ground_truth;
  return {
    num_user_messages: state.messages.filter((m) => m.source === "user").length,
    num_agent_messages: state.messages.filter((m) => m.source === "agent").length,
    num_tool_calls: state.messages.filter((m) => m.type === "tool_call").length,
    num_tool_results: state.messages.filter((m) => m.type === "tool_execution").length,
    num_tool_schema_failures: state.messages.filter((m) => m.type === "tool_execution" && m.schema_valid === false).length,
    outside_policy_scope: outside,
    transferred,
    transfer_ground_truth_enforced: enforced,
    transfer_ground_truth_mismatch: enforced && transferred !== outside,
    judge_skipped_for_transfer_mismatch: false,
  };
}

const pyBool = (value: boolean) => (value ? "True" : "False");

/** NeMo Gym's `_should_mask_sample`: samples whose failure is not the policy's are kept out of training. */
export function shouldMask(state: SessionState): boolean {
  const labels = new Set(state.failure_labels);
  if (labels.has(FailureLabel.USER_FAILURE) || labels.has(FailureLabel.TOOL_FAILURE) || labels.has(FailureLabel.VERIFICATION_GENERATION_ERROR)) return true;
  return labels.has(FailureLabel.TRAJECTORY_FAILURE) && state.generation_invalid_reason === InvalidReason.MESSAGE_GENERATION_ERROR;
}

/** Scores the session's trajectory; fills the state's verification fields. Throws JudgeFailure when the judge cannot be reached. */
export async function scoreTrajectory(state: SessionState, config: Config, ctx: UrlResolver, request: Record<string, unknown>): Promise<ReturnType<typeof trajectoryDiagnostics>> {
  let diagnostics = trajectoryDiagnostics(state, config);
  let reasons = dedupe(state.invalid_reasons);
  let labels = dedupe(state.failure_labels);
  let judgeError: string | null = null;
  let judgeDiagnostics: Record<string, unknown> = {};
  const mismatch = diagnostics.transfer_ground_truth_mismatch;
  let skipped = false;
  let reward: number;
  if (state.terminal_state !== "complete") {
    if (reasons.length === 0) {
      recordFailure(state, InvalidReason.MESSAGE_GENERATION_ERROR, FailureLabel.TRAJECTORY_FAILURE, "Trajectory reached verification without a complete terminal state.");
      reasons = dedupe(state.invalid_reasons);
      labels = dedupe(state.failure_labels);
      diagnostics = trajectoryDiagnostics(state, config);
    }
    reward = 0;
  } else if (reasons.length > 0) {
    reward = 0;
  } else if (mismatch) {
    reward = 0;
    labels = dedupe([...labels, FailureLabel.AGENT_FAILURE]);
    skipped = true;
    state.agent_verification_result = {
      conversation_verification_result: { ...emptyVerification(), reward: 0, explanation: `Deterministic transfer-ground-truth mismatch: expected transferred=${pyBool(diagnostics.outside_policy_scope)}, observed transferred=${pyBool(diagnostics.transferred)}.` },
      overall_reward: 0,
      trajectory_invalid_reasons: null,
    } satisfies AgentVerificationResult;
  } else if (config.enable_llm_judge && config.judge_model_server !== null) {
    try {
      const judge = new Judge(state, config, ctx, request);
      const outcome = config.verification_type === "complete_trajectory_combined_evaluation" ? await verifyCombined(judge, state, config) : await verifyByMessages(judge, state, config);
      ({ reward, reasons, labels } = outcome);
      judgeDiagnostics = outcome.diagnostics;
    } catch (error) {
      if (error instanceof JudgeFailure) throw error;
      judgeError = `${error instanceof Error ? error.name : "Error"}: ${error instanceof Error ? error.message : String(error)}`;
      reasons = [InvalidReason.VERIFICATION_GENERATION_ERROR];
      labels = [FailureLabel.VERIFICATION_GENERATION_ERROR];
      reward = 0;
    }
  } else {
    reward = 1;
  }
  diagnostics.judge_skipped_for_transfer_mismatch = skipped;
  if (config.enforce_transfer_ground_truth) {
    judgeDiagnostics = {
      ...judgeDiagnostics,
      transfer_ground_truth_enforcement: { expected_transfer: diagnostics.outside_policy_scope, observed_transfer: diagnostics.transferred, mismatch, judge_skipped: skipped },
    };
  }
  state.invalid_reasons = dedupe(reasons);
  state.failure_labels = dedupe(labels);
  state.verification_reward = reward;
  state.judge_generation_error = judgeError;
  state.judge_diagnostics = judgeDiagnostics;
  if (judgeError !== null && state.agent_verification_result === null) {
    state.agent_verification_result = { conversation_verification_result: { ...emptyVerification(), generation_error: judgeError }, overall_reward: null, trajectory_invalid_reasons: [...state.invalid_reasons] };
  }
  return diagnostics;
}
