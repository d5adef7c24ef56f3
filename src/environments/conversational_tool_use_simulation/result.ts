// The `result` object of the verify response (NeMo Gym 07d6b0d ConversationalToolUseResult): the
// profile, the source artifacts, and the trajectory — each step with where it came from (the model
// response stored once), its text, tool call or tool result, and the judge's verdict on it.
import type { ConversationMessage, SessionState, VerificationResult } from "./model.js";

const withoutNulls = (result: VerificationResult): Record<string, unknown> => Object.fromEntries(Object.entries(result).filter(([, v]) => v !== null && v !== undefined));

export function messageDict(message: ConversationMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { type: message.type, source: message.source };
  if (message.responses != null) out.responses = message.responses;
  if (message.response_id != null) out.response_id = message.response_id;
  if (message.response_output_index != null) out.response_output_index = message.response_output_index;
  if (message.type === "text") {
    out.text = message.content ?? null;
  } else if (message.type === "tool_call") {
    Object.assign(out, { tool_call_id: message.tool_call_id ?? null, tool_name: message.tool_name ?? null, arguments: message.arguments ?? null, deserialized_arguments: message.deserialized_arguments ?? null });
  } else {
    Object.assign(out, {
      tool_call_id: message.tool_call_id ?? null,
      tool_name: message.tool_name ?? null,
      arguments: message.arguments ?? null,
      execution_result: message.content ?? null,
      deserialized_execution_result: message.deserialized_execution_result ?? null,
      schema_valid: message.schema_valid ?? null,
    });
  }
  if (message.verification_result != null) out.verification_result = withoutNulls(message.verification_result);
  return out;
}

export function trajectoryResult(state: SessionState): Record<string, unknown> {
  return {
    profile: state.profile,
    source_artifacts: state.source_artifacts,
    trajectory: {
      messages: state.messages.map(messageDict),
      prefill_message_count: state.prefill_message_count,
      continuation_start_index: state.prefill_message_count,
      terminal_state: state.terminal_state,
      generation_invalid_reason: state.generation_invalid_reason,
      terminal_error: state.terminal_error,
      agent_verification_result: state.agent_verification_result,
      user_verification_result: state.user_verification_result,
      environment_verification_result: state.environment_verification_result,
    },
  };
}
