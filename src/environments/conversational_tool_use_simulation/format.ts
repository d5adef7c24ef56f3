// How the scenario, the tools and the trajectory's steps are written into simulator and judge prompts,
// as NeMo Gym 07d6b0d writes them (CustomerScenario.create_string, _format_tool_definitions,
// _format_message), including Python's `json.dumps` defaults (", " and ": " separators, non-ASCII
// escaped) and `textwrap.indent`.
import { pythonStr } from "../../protocol/python_format.js";
import { type ConversationMessage, type CustomerScenario, type ToolSignature, toolDoc, toolParams } from "./model.js";
import { fill, TEXT_STEP, TOOL_CALL_STEP, TOOL_DEFINITION, TOOL_RESULT_STEP } from "./prompts.js";

const escapeNonAscii = (text: string): string =>
  text.replace(/[^\x20-\x7e]/g, (ch) => {
    const named: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };
    return named[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });

/** Python's `json.dumps(value)` with its defaults (ensure_ascii, ", " and ": "). */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return `"${escapeNonAscii(JSON.stringify(value).slice(1, -1))}"`;
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : value > 0 ? "Infinity" : value < 0 ? "-Infinity" : "NaN";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${pyJsonDumps(k)}: ${pyJsonDumps(v)}`).join(", ")}}`;
  }
  return pyJsonDumps(String(value));
}

/** Python's str.splitlines(keepends=True) line boundaries. */
const BREAKS = "\n\r\v\f\u001c\u001d\u001e\u0085\u2028\u2029";
const LINE = new RegExp(`[^${BREAKS}]*(?:\r\n|[${BREAKS}])?`, "g");

/** Python's `textwrap.indent(text, prefix)`: the prefix before every line that is not blank. */
export function indent(text: string, prefix: string): string {
  const lines = text.match(LINE)?.filter((line) => line !== "") ?? [];
  return lines.map((line) => (line.trim() !== "" ? prefix + line : line)).join("");
}

/** The scenario as the user simulator (with the domain) and the judges (without) read it. */
export function scenarioText(scenario: CustomerScenario, includeDomain = false): string {
  const lines = ["Customer persona:", indent(scenario.customer_persona, "\t")];
  if (includeDomain) lines.push(`Domain of representative: ${pythonStr(scenario.representative_domain)}`);
  lines.push("Reason for contacting representative:", indent(scenario.reason_for_contact, "\t"));
  lines.push("Customer details:", indent(scenario.customer_details, "\t"));
  if (scenario.unknown_info !== null) lines.push("Unknown info:", indent(scenario.unknown_info, "\t"));
  lines.push("Task instructions:", indent(scenario.task_instructions, "\t"));
  return lines.join("\n");
}

export function toolDefinitions(tools: readonly ToolSignature[]): string {
  return tools
    .map((tool) => fill(TOOL_DEFINITION, { name: tool.name, documentation: toolDoc(tool), parameters: pyJsonDumps(toolParams(tool)), return_type: pyJsonDumps(tool.returns) }))
    .join("\n\n");
}

/** One step as the judges read it. */
export function stepText(message: ConversationMessage): string {
  if (message.type === "text") {
    if (message.source === "environment") throw new Error("a text message from the environment has no sender");
    return fill(TEXT_STEP, { sender: message.source === "user" ? "Customer" : "Representative", content: message.content ?? null });
  }
  if (message.type === "tool_call") {
    return fill(TOOL_CALL_STEP, { execution_id: message.tool_call_id ?? null, tool_name: message.tool_name ?? null, arguments: message.arguments ?? null });
  }
  return fill(TOOL_RESULT_STEP, { execution_id: message.tool_call_id ?? null, execution_result: message.content ?? null });
}

export const stepsText = (messages: readonly ConversationMessage[]): string => messages.map(stepText).join("\n\n");
