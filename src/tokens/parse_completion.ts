// A raw completion (the decoded text of the sampled ids) → reasoning, answer text and tool calls.
// With token-id prompts the engine runs no chat parsers, so Gymkit parses what the model wrote:
// `<think>…</think>` reasoning (vLLM's `qwen3` reasoning parser restated) and the tool calls of the
// model's format (see tool_parsers.ts: hermes, llama3_json, mistral, qwen3_coder, deepseek_v3,
// openai), so that results read the same as from a vLLM server with those parsers on.
import { splitThink } from "./think.js";
import { parseToolCalls, type ChatToolList, type ParsedToolCall, type ToolCallFormat } from "./tool_parsers.js";

export {
  TOOL_CALL_FORMATS,
  parseHermesToolCalls,
  templateToolCallFormat,
  resolveToolCallFormat,
  type ParsedToolCall,
  type ToolCallFormat,
} from "./tool_parsers.js";

export interface ParsedCompletion {
  reasoning: string[];
  /** Answer text (empty when the model only called tools). */
  content: string;
  toolCalls: ParsedToolCall[];
}

/**
 * Reasoning, answer and tool calls of a raw completion; `toolCallFormat: null` leaves tool calls
 * as text. `tools` (Chat Completions form) types Qwen3-Coder's XML parameters.
 */
export function parseCompletion(text: string, toolCallFormat: ToolCallFormat | null = "hermes", tools?: ChatToolList): ParsedCompletion {
  if (toolCallFormat === "openai") {
    // Harmony carries reasoning in its analysis channel, not in <think>; parsed even without tools.
    const parsed = parseToolCalls("openai", text, tools);
    return { reasoning: parsed.reasoning ?? [], content: parsed.content, toolCalls: parsed.toolCalls };
  }
  const { reasoning, text: answer } = splitThink(text);
  if (toolCallFormat === null) return { reasoning, content: answer, toolCalls: [] };
  const { content, toolCalls } = parseToolCalls(toolCallFormat, answer, tools);
  return { reasoning, content, toolCalls };
}
