// What a driven environment (an OpenEnv or Open Reward Standard server at a URL, played by
// gymnasium_agent through the adapters beside this file) needs from one model response: its tool
// calls with parsed arguments, or else its text; and the other way, the remote's tool list as the
// Responses function tools the model is offered.
import { HttpError } from "../../http/errors.js";
import type { ResponseObject } from "../../protocol/index.js";

export interface ModelToolCall {
  callId: string;
  name: string;
  /** The parsed arguments; a call whose arguments are not a JSON object carries `argumentError`. */
  arguments: Record<string, unknown>;
  argumentError?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The function calls of a response, in order, arguments parsed. */
export function toolCallsOf(response: ResponseObject): ModelToolCall[] {
  const calls: ModelToolCall[] = [];
  for (const item of response.output as Array<Record<string, unknown>>) {
    if (item.type !== "function_call" || typeof item.name !== "string") continue;
    const callId = typeof item.call_id === "string" ? item.call_id : `call_${calls.length}`;
    const raw = typeof item.arguments === "string" ? item.arguments : "{}";
    let parsed: unknown;
    try {
      parsed = raw.trim() === "" ? {} : JSON.parse(raw);
    } catch (error) {
      calls.push({ callId, name: item.name, arguments: {}, argumentError: `arguments are not JSON: ${(error as Error).message}` });
      continue;
    }
    if (isRecord(parsed)) calls.push({ callId, name: item.name, arguments: parsed });
    else calls.push({ callId, name: item.name, arguments: {}, argumentError: "arguments must be a JSON object" });
  }
  return calls;
}

/** What the remote answered to one tool call: the call's output, the reward it gave, whether the episode ended. */
export interface CallAnswer {
  output: string;
  reward?: number;
  done?: boolean;
}

/**
 * Runs a response's tool calls one after another (a remote session takes one at a time), until one
 * ends the episode: a call whose arguments are not a JSON object is answered with why, unsent. Returns
 * the step as gymnasium_agent reads it: rewards summed, the calls' outputs in `info.tool_outputs`.
 */
export async function stepThroughCalls(calls: readonly ModelToolCall[], run: (call: ModelToolCall) => Promise<CallAnswer>) {
  const toolOutputs: Array<{ call_id: string; output: string }> = [];
  let reward = 0;
  let done = false;
  for (const call of calls) {
    if (done) break;
    const answer: CallAnswer = call.argumentError ? { output: `error: ${call.argumentError}` } : await run(call);
    reward += answer.reward ?? 0;
    done = answer.done === true;
    toolOutputs.push({ call_id: call.callId, output: answer.output });
  }
  return { observation: null, reward, terminated: done, info: { tool_outputs: toolOutputs } };
}

/** The text of a response's assistant messages, joined by newlines. */
export function textOf(response: ResponseObject): string {
  const parts: string[] = [];
  for (const item of response.output as Array<Record<string, unknown>>) {
    if (item.type !== "message" || !Array.isArray(item.content)) continue;
    for (const part of item.content as Array<Record<string, unknown>>) {
      if ((part.type === "output_text" || part.type === "text") && typeof part.text === "string") parts.push(part.text);
    }
  }
  return parts.join("\n");
}

/** A remote tool (OpenEnv's MCP Tool, ORS's ToolSpec) as a Responses function tool. */
export function functionTool(tool: { name: string; description?: string | null; input_schema?: unknown }): Record<string, unknown> {
  const parameters = isRecord(tool.input_schema) ? tool.input_schema : { type: "object", properties: {} };
  return { type: "function", name: tool.name, description: tool.description ?? "", parameters, strict: false };
}

/** A value shown to the model: a string as is, anything else as compact JSON. */
export function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

/** The remote server failed or answered outside its protocol: the step fails as the environment's (502). */
export function remoteFailure(who: string, message: string): HttpError {
  return new HttpError(502, `${who}: ${message}`);
}

/** The row's fields an adapter forwards: everything but Gymkit's own bookkeeping. */
export function forwardedFields(metadata: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(metadata).filter(([key]) => !key.startsWith("_ng_") && key !== "agent_ref" && key !== "response"));
}
