// A raw completion (the decoded text of the sampled ids) → reasoning, answer text and tool calls.
// With token-id prompts the engine runs no chat parsers, so Gymkit parses what the model wrote:
// `<think>…</think>` reasoning and Qwen3/Hermes-style `<tool_call>{"name", "arguments"}</tool_call>`
// blocks, following vLLM's `qwen3` reasoning parser and `hermes` tool parser so that results read
// the same as from a vLLM server with those parsers on.
import { splitThink } from "./think.js";
import { pythonJsonDumps } from "./python_json.js";

export const TOOL_CALL_FORMATS = ["hermes"] as const;
export type ToolCallFormat = (typeof TOOL_CALL_FORMATS)[number];

export interface ParsedToolCall {
  name: string;
  /** JSON text of the arguments, in Python's `json.dumps` layout (as vLLM returns them). */
  arguments: string;
}

export interface ParsedCompletion {
  reasoning: string[];
  /** Answer text (empty when the model only called tools). */
  content: string;
  toolCalls: ParsedToolCall[];
}

const TOOL_CALL_OPEN = "<tool_call>";
const TOOL_CALL_CLOSE = "</tool_call>";
// vLLM's hermes regex: closed blocks, or one left open when generation stopped.
const TOOL_CALL_BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>|<tool_call>([\s\S]*)$/g;

/**
 * Hermes tool calls out of answer text. A block that is not `{"name": string, "arguments": …}`
 * JSON makes the whole text plain content, as vLLM does: the model's mistake is scored, not hidden.
 */
export function parseHermesToolCalls(text: string): { content: string; toolCalls: ParsedToolCall[] } {
  const start = text.indexOf(TOOL_CALL_OPEN);
  if (start === -1) return { content: text, toolCalls: [] };
  const toolCalls: ParsedToolCall[] = [];
  for (const match of text.matchAll(TOOL_CALL_BLOCK)) {
    const body = (match[1] ?? match[2] ?? "").trim();
    let call: unknown;
    try {
      call = JSON.parse(body);
    } catch {
      return { content: text, toolCalls: [] };
    }
    const { name, arguments: args } = (call ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof name !== "string" || call === null || typeof call !== "object" || Array.isArray(call)) return { content: text, toolCalls: [] };
    toolCalls.push({ name, arguments: typeof args === "string" ? args : pythonJsonDumps(args ?? {}) });
  }
  // vLLM keeps only the text before the first call as content.
  return { content: text.slice(0, start), toolCalls };
}

/** Reasoning, answer and tool calls of a raw completion; `toolCallFormat: null` leaves tool calls as text. */
export function parseCompletion(text: string, toolCallFormat: ToolCallFormat | null = "hermes"): ParsedCompletion {
  const { reasoning, text: answer } = splitThink(text);
  if (toolCallFormat === null) return { reasoning, content: answer, toolCalls: [] };
  const { content, toolCalls } = parseHermesToolCalls(answer);
  return { reasoning, content, toolCalls };
}

/**
 * Whether a chat template writes tool calls in a format Gymkit can parse back. With token-id
 * prompts a template that renders tools some other way (Llama 3.1's bare JSON, Mistral's
 * `[TOOL_CALLS]`, …) would have its calls silently read as text, so callers refuse it instead.
 */
export function templateToolCallFormat(template: string): ToolCallFormat | null {
  return template.includes(TOOL_CALL_OPEN) && template.includes(TOOL_CALL_CLOSE) ? "hermes" : null;
}
