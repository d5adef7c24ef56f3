// Message validation, as NeMo Gym 07d6b0d's `_validate_message` does it: a customer may not end the
// conversation in its first message; a tool call must name a tool of the scenario and carry JSON
// arguments valid under the tool's parameter schema; a tool result must be JSON valid under the tool's
// return schema (a ```json fence is stripped first). Schemas are checked as JSON Schema 2020-12 (the
// draft Python's `jsonschema.validators.validator_for` picks for a schema without `$schema`), formats
// not asserted; `required`, `enum`, `type` and `additionalProperties` failures are worded as jsonschema's. A schema that is itself invalid makes the message invalid, naming the schema error
// (NeMo Gym's server raises a 500 there).
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import { pythonRepr } from "../../protocol/python_format.js";
import { InvalidReason, isTerminalText, type ConversationMessage, type SessionState, type ToolSignature, toolParams } from "./model.js";

export interface Invalid {
  reason: InvalidReason;
  error: string;
}

// `verbose` keeps the failing value, for messages worded as Python jsonschema's.
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false, validateSchema: true, addUsedSchema: false, verbose: true });
const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    // Ajv's 2020 build knows only its own meta-schema; the schema's keywords are read as 2020-12.
    const { $schema: _declared, ...rest } = schema;
    validate = ajv.compile(rest);
    compiled.set(schema, validate);
  }
  return validate;
}

function describe(errors: ErrorObject[] | null | undefined): string {
  const first = errors?.[0];
  if (!first) return "invalid";
  if (first.keyword === "required") return `'${String(first.params.missingProperty)}' is a required property`;
  if (first.keyword === "additionalProperties") return `Additional properties are not allowed ('${String(first.params.additionalProperty)}' was unexpected)`;
  if (first.keyword === "enum") return `${pythonRepr(first.data)} is not one of ${pythonRepr(first.params.allowedValues)}`;
  if (first.keyword === "type") return `${pythonRepr(first.data)} is not of type ${String(first.params.type).split(",").map((t) => pythonRepr(t)).join(", ")}`;
  return `${first.instancePath || "instance"} ${first.message ?? "is invalid"}`;
}

type Checked = { ok: true; value: unknown } | { ok: false; kind: "json" | "schema"; message: string };

function check(text: string, schema: Record<string, unknown>): Checked {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, kind: "json", message: (error as Error).message };
  }
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (error) {
    return { ok: false, kind: "schema", message: `the schema itself is invalid: ${(error as Error).message}` };
  }
  return validate(value) ? { ok: true, value } : { ok: false, kind: "schema", message: describe(validate.errors) };
}

export const findTool = (state: SessionState, name: string): ToolSignature | undefined => state.tools.find((tool) => tool.name === name);

/** Python's `text.strip().removeprefix("```json").removesuffix("```")`. */
export function stripJsonFence(text: string): string {
  let stripped = text.trim();
  if (stripped.startsWith("```json")) stripped = stripped.slice("```json".length);
  if (stripped.endsWith("```")) stripped = stripped.slice(0, -3);
  return stripped;
}

/** Checks `message` against the state it is about to join; sets its deserialized arguments or result when valid. */
export function validateMessage(state: SessionState, message: ConversationMessage): Invalid | undefined {
  if (message.type === "text") {
    if (message.source === "user" && state.messages.length < 1 && isTerminalText(message)) {
      return { reason: InvalidReason.INVALID_USER_MESSAGE, error: `The first message in a trajectory from the user contains an indicator that the trajectory is complete: ${String(message.content)}` };
    }
    return undefined;
  }
  const name = message.tool_name ?? "";
  const tool = findTool(state, name);
  if (message.type === "tool_call") {
    if (!tool) return { reason: InvalidReason.INVALID_AGENT_TOOL_CALL, error: `The tool ${name} in the tool call with the ID ${message.tool_call_id} is unknown` };
    const schema = toolParams(tool);
    if (schema === null) return undefined;
    const checked = check(message.arguments ?? "", schema);
    if (!checked.ok) {
      return checked.kind === "json"
        ? { reason: InvalidReason.INVALID_AGENT_TOOL_CALL, error: `The arguments string in the tool call with the ID ${message.tool_call_id} could not be converted to a JSON object: ${checked.message}` }
        : { reason: InvalidReason.INVALID_AGENT_TOOL_CALL, error: `The arguments object in the tool call with the ID ${message.tool_call_id} is not valid under the ${name} tool parameters JSON Schema: ${checked.message}` };
    }
    message.deserialized_arguments = checked.value;
    return undefined;
  }
  if (!tool) return { reason: InvalidReason.INVALID_ENVIRONMENT_TOOL_EXECUTION, error: `The tool ${name} in the tool execution with the ID ${message.tool_call_id} is unknown` };
  if (tool.returns === null) return undefined;
  let result = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  if (result.trim().startsWith("```json")) result = stripJsonFence(result);
  const checked = check(result, tool.returns);
  if (!checked.ok) {
    return checked.kind === "json"
      ? { reason: InvalidReason.INVALID_ENVIRONMENT_TOOL_EXECUTION, error: `The execution result for the tool call with the ID ${message.tool_call_id} could not be converted to a JSON object: ${checked.message}` }
      : { reason: InvalidReason.INVALID_ENVIRONMENT_TOOL_EXECUTION, error: `The execution result for the tool call with the ID ${message.tool_call_id} is not valid under the ${name} tool return type JSON Schema: ${checked.message}` };
  }
  message.deserialized_execution_result = checked.value;
  return undefined;
}
