// The tool-call mode of structured_outputs (NeMo Gym 07d6b0d `extract_tool_call_payload`): the
// structured object is the arguments of the single function call the model made. An API error, no
// call, more than one call, another tool's name, arguments that are not JSON, or a missing payload
// key each score 0 with their own error type.
import { pyJsonLoads } from "../../verifiers/structured/index.js";

export interface Payload {
  value?: unknown;
  errorType?: string;
  errorMessage?: string;
}

/** Python's `str(e)[:200]` of a JSON decode error is not reproduced; ours names the position. */
export function toolCallPayload(response: Record<string, unknown>, toolName: string | null, payloadKey: string | null): Payload {
  if (response.error !== undefined && response.error !== null) {
    return { errorType: "api_error", errorMessage: String(JSON.stringify(response.error)).slice(0, 200) };
  }
  const calls = (response.output as Array<Record<string, unknown>>).filter((item) => item.type === "function_call");
  if (calls.length === 0) return { errorType: "missing_tool_call", errorMessage: "No function_call item found in assistant response" };
  const names = calls.map((c) => String(c.name)).join(", ");
  if (calls.length > 1) return { errorType: "multiple_tool_calls", errorMessage: `Expected exactly one function_call, got: ${names}` };
  let selected = calls[0]!;
  if (toolName) {
    const named = calls.find((c) => c.name === toolName);
    if (!named) return { errorType: "wrong_tool_name", errorMessage: `Expected tool '${toolName}', got: ${names}` };
    selected = named;
  }
  const args = selected.arguments;
  let parsed: unknown;
  if (typeof args === "string") {
    try {
      parsed = pyJsonLoads(args);
    } catch (e) {
      return { errorType: "tool_arguments_parse_error", errorMessage: `JSONDecodeError: ${(e as Error).message.slice(0, 200)}` };
    }
  } else if (args !== null && typeof args === "object" && !Array.isArray(args)) parsed = args;
  else return { errorType: "tool_arguments_parse_error", errorMessage: `Unsupported arguments type: ${args === null ? "NoneType" : typeof args}` };
  if (payloadKey) {
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed) || !Object.prototype.hasOwnProperty.call(parsed, payloadKey)) {
      return { errorType: "missing_tool_payload_key", errorMessage: `Missing tool payload key: ${payloadKey}` };
    }
    return { value: (parsed as Record<string, unknown>)[payloadKey] };
  }
  return { value: parsed };
}
