// One model call on token ids, shared by vllm_model (`on_policy_prompts`, vLLM `/v1/completions`)
// and local_model (llama.cpp): Responses request → prompt ids (fresh chat-template render, or the
// on-policy prefix + the new part of it) → engine → raw completion parsed into Responses items,
// with the token fields on the last one.
import { HttpError } from "../http/errors.js";
import type { ResponseObject, ResponsesCreateParams } from "../protocol/index.js";
import { parseCompletion, resolveToolCallFormat, templateToolCallFormat, TOOL_CALL_FORMATS, type ParsedCompletion, type ToolCallFormat } from "../tokens/parse_completion.js";
import { splitThink } from "../tokens/think.js";
import { callTokensOf, NonContiguousError, onPolicyPromptIds } from "../tokens/prefix.js";
import type { ChatTokenizer } from "../tokens/tokenizer.js";
import { turnFormatOf, type TurnFormat } from "../tokens/turns.js";
import { chatTools, toChatMessages, type ChatMessage } from "./chat_request.js";
import { fromChatCompletion, type TokenInfo } from "./chat_response.js";
import { newId } from "./response_object.js";

export interface TokenTurnConfig {
  /** Implementation id, for error messages. */
  label: string;
  tokenizer: ChatTokenizer;
  /** The token that closes every message of this chat template. */
  endOfTurnId: number;
  /** Keep earlier calls' ids and append only the new part of the render (see src/tokens/prefix.ts). */
  onPolicy: boolean;
  replaceDeveloperRoleWithSystem: boolean;
  chatTemplateKwargs?: Record<string, unknown> | null | undefined;
  /** How the chat template writes tool calls (see toolCallFormatOf); null: it renders none; unset: judged from the template. */
  toolCallFormat?: ToolCallFormat | null | undefined;
}

/**
 * The start-up check of a token-path model: the template used with tools must write tool calls
 * in a format Gymkit parses, and the one `tool_call_parser` names when it is set.
 */
export function toolCallFormatOf(tokenizer: ChatTokenizer, configured: ToolCallFormat | null | undefined, label: string): ToolCallFormat | null {
  const template = tokenizer.toolUseTemplate || tokenizer.chatTemplate;
  return resolveToolCallFormat(template, configured, `${label}: the chat template of ${tokenizer.source}`);
}

export interface TokenPrompt {
  ids: number[];
  /** Chat Completions tools, as rendered into the prompt. */
  tools: unknown[] | undefined;
  /** How many leading ids were carried over from earlier calls (0 on a first call or fresh render). */
  keptLength: number;
}

/**
 * Chat messages as vLLM hands them to a chat template: tool-call arguments parsed into objects, so
 * templates that `tojson` them render what a vLLM server would (they stay strings if not JSON).
 */
function templateMessages(messages: ChatMessage[], format: ToolCallFormat | null): unknown[] {
  return messages.map((message) => {
    if (format === "openai" && message.role === "assistant" && typeof message.content === "string") {
      // gpt-oss's template takes the analysis channel from `thinking`, not from <think> in content.
      const { reasoning, text } = splitThink(message.content);
      if (reasoning.length) message = { ...message, content: text, thinking: reasoning.join("\n") } as ChatMessage;
    }
    if (!message.tool_calls) return message;
    if (format === "deepseek_v3") {
      // DeepSeek-V3's template concatenates the arguments text and writes calls only for a null content.
      return { ...message, content: message.content === "" ? null : message.content };
    }
    return {
      ...message,
      tool_calls: message.tool_calls.map((call) => {
        let args: unknown = call.function.arguments;
        try {
          args = JSON.parse(call.function.arguments);
        } catch {
          // Not JSON (a model's malformed call fed back): render it verbatim.
        }
        return { ...call, function: { ...call.function, arguments: args } };
      }),
    };
  });
}

/** Resolves the end-of-turn token id: the configured spelling, else the tokenizer's EOS token. */
export function endOfTurnId(tokenizer: ChatTokenizer, configured: string | null | undefined, label: string): number {
  const spelling = configured ?? tokenizer.eosToken;
  if (!spelling) throw new Error(`${label}: the tokenizer at ${tokenizer.source} names no EOS token; set end_of_turn_token (e.g. "<|im_end|>")`);
  const id = tokenizer.tokenId(spelling);
  if (id === undefined) throw new Error(`${label}: end_of_turn_token ${JSON.stringify(spelling)} is not a single token of the tokenizer at ${tokenizer.source}`);
  return id;
}

type Render = typeof import("../tokens/chat_template.js").renderChatTemplate;
let renderChatTemplate: Render | undefined;

/**
 * Loads the chat-template renderer (@huggingface/jinja) that `buildTokenPrompt` uses. Only token-id
 * calls render a template, so it is imported on the first one instead of at every start-up (issue 23).
 */
export async function loadChatTemplates(): Promise<void> {
  renderChatTemplate ??= (await import("../tokens/chat_template.js")).renderChatTemplate;
}

/** Call `loadChatTemplates()` once before the first call. */
export function buildTokenPrompt(params: ResponsesCreateParams, config: TokenTurnConfig): TokenPrompt {
  const renderTemplate = renderChatTemplate;
  if (!renderTemplate) throw new Error("buildTokenPrompt: await loadChatTemplates() first");
  const { tokenizer, label } = config;
  const tools = chatTools(params.tools);
  const template = (tools && tokenizer.toolUseTemplate) || tokenizer.chatTemplate;
  if (!template) throw new HttpError(500, `${label}: the tokenizer at ${tokenizer.source} has no chat template`);
  const format = config.toolCallFormat === undefined ? templateToolCallFormat(template) : config.toolCallFormat;
  if (tools && format === null) {
    throw new HttpError(
      400,
      `${label}: the chat template of ${tokenizer.source} renders no tool calls in a format Gymkit parses from raw completions (supported: ${TOOL_CALL_FORMATS.join(", ")}); ` +
        `serve this model through vllm_model without on_policy_prompts (the engine's own tool parser) instead`,
    );
  }
  const messages = templateMessages(toChatMessages(params, config.replaceDeveloperRoleWithSystem), format);
  const render = (addGenerationPrompt: boolean) =>
    renderTemplate(template, { messages, tools, addGenerationPrompt, bosToken: tokenizer.bosToken, eosToken: tokenizer.eosToken, kwargs: config.chatTemplateKwargs });
  let text: string;
  try {
    text = render(true);
  } catch (error) {
    throw new HttpError(400, `${label}: rendering the chat template failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const fresh = tokenizer.encode(text);
  if (!config.onPolicy || typeof params.input === "string") return { ids: fresh, tools, keptLength: 0 };
  const calls = callTokensOf(params.input);
  try {
    const { ids, keptLength } = onPolicyPromptIds({
      calls,
      freshIds: fresh,
      endOfTurnId: config.endOfTurnId,
      turns: turnFormat(config, format),
      generationPromptLength: calls.length ? generationPromptLength(text, () => render(false), tokenizer) : undefined,
    });
    return { ids, tools, keptLength };
  } catch (error) {
    if (error instanceof NonContiguousError) throw new HttpError(400, `${label}: ${error.message}`);
    throw error;
  }
}

const turnFormats = new WeakMap<TokenTurnConfig, Map<ToolCallFormat | null, TurnFormat | undefined>>();

/** The template family's turn rules (src/tokens/turns.ts), once per model server and format. */
function turnFormat(config: TokenTurnConfig, format: ToolCallFormat | null): TurnFormat | undefined {
  let byFormat = turnFormats.get(config);
  if (!byFormat) turnFormats.set(config, (byFormat = new Map()));
  if (!byFormat.has(format)) byFormat.set(format, turnFormatOf(config.tokenizer, format, config.endOfTurnId));
  return byFormat.get(format);
}

/**
 * Ids an engine must stop on for this template family beyond its EOS (gpt-oss: `<|call|>` and
 * `<|return|>`, which older generation configs do not list), or undefined for the default rule.
 */
export function engineStopIds(config: TokenTurnConfig): number[] | undefined {
  const turns = turnFormat(config, config.toolCallFormat ?? null);
  return turns ? [...turns.stops] : undefined;
}

/** Ids the generation prompt adds at the end of a render (the render without it must prefix the one with it). */
function generationPromptLength(withPrompt: string, renderWithout: () => string, tokenizer: ChatTokenizer): number | undefined {
  let without: string;
  try {
    without = renderWithout();
  } catch {
    return undefined; // Some templates insist on a generation prompt after a user turn; no check then.
  }
  return withPrompt.startsWith(without) ? tokenizer.encode(withPrompt.slice(without.length)).length : undefined;
}

export interface RawCompletion {
  promptIds: number[];
  /** Sampled ids, including the stop token the engine ended on (if any). */
  generationIds: number[];
  /** Raw logprob of each sampled id (same length); null only when token capture is off. */
  logProbs: number[] | null;
  /** Generation stopped at the token limit. */
  truncated: boolean;
}

export interface RawResponseOptions {
  model: string;
  tokenizer: ChatTokenizer;
  /** Ids that end a turn; a trailing one is not part of the text that gets parsed. */
  stopIds: ReadonlySet<number>;
  /** Put prompt/generation ids and logprobs on the last output item. */
  capture: boolean;
  /** Parse tool calls (false when the request had no tools or tool_choice "none"). */
  parseTools: boolean;
  /** The format to parse them in (TokenTurnConfig.toolCallFormat); default hermes. */
  toolCallFormat?: ToolCallFormat | null | undefined;
  /** The request's tools in Chat Completions form (typed parameters of Qwen3-Coder's XML). */
  tools?: readonly unknown[] | undefined;
}

export function parseGeneration(ids: readonly number[], options: Pick<RawResponseOptions, "tokenizer" | "stopIds" | "parseTools" | "toolCallFormat" | "tools">): ParsedCompletion {
  const body = ids.length && options.stopIds.has(ids[ids.length - 1]!) ? ids.slice(0, -1) : ids;
  const format = options.toolCallFormat === undefined ? "hermes" : options.toolCallFormat;
  const text = options.tokenizer.decode(body);
  // Harmony is parsed even without tools: its channels carry reasoning and the answer.
  if (format === "openai" && !options.parseTools) return { ...parseCompletion(text, "openai", options.tools), toolCalls: [] };
  return parseCompletion(text, options.parseTools ? format : null, options.tools);
}

/** A raw completion as a Responses object, through the same mapping as Chat Completions replies. */
export function responseFromRawCompletion(params: ResponsesCreateParams, completion: RawCompletion, options: RawResponseOptions): ResponseObject {
  const parsed = parseGeneration(completion.generationIds, options);
  const message = {
    role: "assistant",
    content: parsed.content,
    reasoning_content: parsed.reasoning.length ? parsed.reasoning.join("\n") : null,
    tool_calls: parsed.toolCalls.map(({ id, ...call }) => ({ id: id ?? newId("call"), type: "function", function: call })),
  };
  const choice = { index: 0, message, finish_reason: completion.truncated ? "length" : parsed.toolCalls.length ? "tool_calls" : "stop" };
  const usage = {
    prompt_tokens: completion.promptIds.length,
    completion_tokens: completion.generationIds.length,
    total_tokens: completion.promptIds.length + completion.generationIds.length,
  };
  let tokens: TokenInfo | undefined;
  if (options.capture) {
    if (!completion.logProbs || completion.logProbs.length !== completion.generationIds.length) {
      throw new HttpError(502, `the engine returned ${completion.generationIds.length} token ids but ${completion.logProbs?.length ?? 0} logprobs`);
    }
    tokens = {
      prompt_token_ids: completion.promptIds,
      generation_token_ids: completion.generationIds,
      generation_log_probs: completion.logProbs,
    };
  }
  return fromChatCompletion(params, { model: options.model, usage }, choice, { model: options.model, usesReasoningParser: true }, tokens);
}
