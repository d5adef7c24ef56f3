// The shapes of conversational_tool_use_simulation (NeMo Gym 07d6b0d,
// resources_servers/conversational_tool_use_simulation/app.py): its config, the row it seeds a
// session from (customer scenario, tool signatures, policy), one session's state, and the labels a
// failed trajectory carries. Request bodies of the session routes are in session.ts.
import { z } from "zod";
import { ResponsesCreateParams, ServerRef, type Usage } from "../../protocol/index.js";
import type { JudgeClient } from "../../judge/index.js";

export type MessageType = "text" | "tool_call" | "tool_execution";
export type Source = "user" | "agent" | "environment";

/** Why a trajectory is not scored (NeMo Gym's TrajectoryInvalidReason values). */
export const InvalidReason = {
  MESSAGE_GENERATION_ERROR: "message_generation_error",
  INVALID_USER_MESSAGE: "invalid_user_message",
  INVALID_AGENT_TOOL_CALL: "invalid_agent_tool_call",
  INVALID_ENVIRONMENT_TOOL_EXECUTION: "invalid_environment_tool_execution",
  EXCESSIVE_LENGTH: "excessive_length",
  VERIFICATION_GENERATION_ERROR: "verification_generation_error",
  NO_REWARD_USER_MESSAGE: "no_reward_user_message",
  NO_REWARD_ENVIRONMENT_MESSAGE: "no_reward_environment_message",
} as const;
export type InvalidReason = (typeof InvalidReason)[keyof typeof InvalidReason];

/** Whose failure it was (NeMo Gym's VerificationFailureLabel values). */
export const FailureLabel = {
  USER_FAILURE: "user_failure",
  AGENT_FAILURE: "agent_failure",
  TOOL_FAILURE: "tool_failure",
  VERIFICATION_GENERATION_ERROR: "verification_generation_error",
  TRAJECTORY_FAILURE: "trajectory_failure",
} as const;
export type FailureLabel = (typeof FailureLabel)[keyof typeof FailureLabel];

export const labelOfSource = (source: Source): FailureLabel =>
  source === "user" ? FailureLabel.USER_FAILURE : source === "agent" ? FailureLabel.AGENT_FAILURE : FailureLabel.TOOL_FAILURE;

const OptionalRef = ServerRef.nullable().default(null);
const CreateParams = ResponsesCreateParams.default({ input: [] });

export const Config = z.strictObject({
  /** Used by a role whose own reference is unset. */
  simulator_model_server: OptionalRef,
  user_model_server: OptionalRef,
  tool_simulator_model_server: OptionalRef,
  judge_model_server: OptionalRef,
  user_responses_create_params: CreateParams,
  tool_simulator_responses_create_params: CreateParams,
  judge_responses_create_params: CreateParams,
  /** Tries per simulated message or judge verdict when the model's output is unusable. */
  generation_attempts: z.number().int().min(1).default(3),
  /** Tries per judge call when the judge's server fails (transport, 429, 5xx). */
  judge_provider_attempts: z.number().int().min(1).default(3),
  judge_provider_retry_initial_backoff_seconds: z.number().min(0).default(0.5),
  judge_provider_retry_max_backoff_seconds: z.number().min(0).default(8.0),
  enable_llm_judge: z.boolean().default(true),
  enable_termination: z.boolean().default(true),
  verification_type: z.enum(["message", "complete_trajectory_combined_evaluation"]).default("message"),
  enforce_transfer_ground_truth: z.boolean().default(false),
  /** Deadline of one simulator or judge call (a Gymkit extension; NeMo Gym uses its client default). */
  model_timeout_seconds: z.number().positive().default(600),
});
export type Config = z.output<typeof Config>;

/** The customer the user simulator plays (extra fields kept, as NeMo Gym's model allows). */
export const CustomerScenario = z.looseObject({
  customer_persona: z.string().default(""),
  reason_for_contact: z.string().default(""),
  customer_details: z.string().default(""),
  unknown_info: z.string().nullable().default(null),
  task_instructions: z.string().default(""),
  representative_domain: z.string().nullable().default(null),
  outside_policy_scope: z.boolean().nullable().default(null),
});
export type CustomerScenario = z.output<typeof CustomerScenario>;

const JsonObject = z.record(z.string(), z.unknown());

/** One tool of the scenario: `doc`/`params` win over `description`/`parameters` when both are given. */
export const ToolSignature = z.looseObject({
  name: z.string(),
  description: z.string().nullable().default(null),
  parameters: JsonObject.nullable().default(null),
  returns: JsonObject.nullable().default(null),
  strict: z.boolean().default(true),
  doc: z.string().nullable().default(null),
  params: JsonObject.nullable().default(null),
});
export type ToolSignature = z.output<typeof ToolSignature>;

export const toolDoc = (tool: ToolSignature): string => tool.doc ?? tool.description ?? "";
export const toolParams = (tool: ToolSignature): Record<string, unknown> | null => tool.params ?? tool.parameters;

/** One judge verdict (NeMo Gym's VerificationResult). */
export interface VerificationResult {
  reward: number | null;
  explanation: string | null;
  judge_response: string | null;
  generation_error: string | null;
  responses: Array<Record<string, unknown>> | null;
}

export const emptyVerification = (): VerificationResult => ({ reward: null, explanation: null, judge_response: null, generation_error: null, responses: null });

export interface AgentVerificationResult {
  conversation_verification_result: VerificationResult | null;
  overall_reward: number | null;
  trajectory_invalid_reasons: string[] | null;
}

/** One step of the trajectory: a text message, an agent's tool call, or a tool's (simulated) result. */
export interface ConversationMessage {
  type: MessageType;
  source: Source;
  /** The model response the step came from, stored once per response. */
  responses?: Array<Record<string, unknown>> | null;
  response_id?: string | null;
  response_output_index?: number | null;
  /** The text (text messages) or the execution result (tool results). */
  content?: unknown;
  tool_call_id?: string | null;
  tool_name?: string | null;
  arguments?: string | null;
  deserialized_arguments?: unknown;
  deserialized_execution_result?: unknown;
  schema_valid?: boolean | null;
  verification_result?: VerificationResult | null;
}

/** The three model roles besides the policy. */
export type ModelRole = "user" | "tool_simulator" | "judge";

/** Usage summed per simulator role (a Gymkit field of the verify response: `simulator_usage`). */
export type RoleUsage = Record<ModelRole, Usage | null>;

export interface SessionState {
  domain_name: string;
  profile: "general" | "proactive" | null;
  policy: string;
  tools: ToolSignature[];
  scenario: CustomerScenario;
  messages: ConversationMessage[];
  prefill_message_count: number;
  source_artifacts: Record<string, unknown>;
  invalid_reasons: string[];
  failure_labels: string[];
  terminal_state: "complete" | "incomplete" | null;
  generation_invalid_reason: string | null;
  terminal_error: string | null;
  agent_verification_result: AgentVerificationResult | null;
  user_verification_result: VerificationResult | null;
  environment_verification_result: VerificationResult | null;
  verification_reward: number | null;
  judge_generation_error: string | null;
  judge_diagnostics: Record<string, unknown>;
  /** The rollout header of the seeded row (`<task>:<rollout>`), carried by simulator calls. */
  rollout: string | undefined;
  /** This session's client per simulator role: its calls carry the rollout header and their ordinal. */
  clients: Partial<Record<"user" | "tool_simulator", JudgeClient>>;
  usage: RoleUsage;
}

/** Records a failure that ends the trajectory as incomplete (NeMo Gym's `_record_generation_failure`). */
export function recordFailure(state: SessionState, reason: InvalidReason, label: FailureLabel, error: string): void {
  state.generation_invalid_reason = reason;
  if (!state.invalid_reasons.includes(reason)) state.invalid_reasons.push(reason);
  if (!state.failure_labels.includes(label)) state.failure_labels.push(label);
  state.terminal_state = "incomplete";
  state.terminal_error = error;
  const errors = state.source_artifacts.terminal_errors;
  if (Array.isArray(errors)) errors.push(error);
  else state.source_artifacts.terminal_errors = [error];
}

export const dedupe = (values: readonly unknown[]): string[] => [...new Set(values.map(String))];

export const isTerminalText = (message: ConversationMessage): boolean =>
  message.type === "text" && (String(message.content).includes("###STOP###") || String(message.content).includes("###TRANSFER###"));
