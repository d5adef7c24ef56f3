// Responses create params → a Chat Completions request, for engines that only speak Chat
// Completions (vLLM, SGLang, llama.cpp server, …). The mapping keeps one model turn one assistant
// message: its reasoning (as a `<think>` prefix), its text and all its tool calls together, so the
// engine's chat template renders the conversation the way the model produced it.
import { HttpError } from "../http/errors.js";
import type { ResponsesCreateParams } from "../protocol/index.js";
import { wrapThink } from "../tokens/think.js";
import { underExtraBody } from "./engine_config.js";
import { LOGPROBS_INCLUDE, METADATA_OVERRIDES } from "./request_fields.js";

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string; detail?: string } };

export interface ChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content: string | ChatContentPart[] | null;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

export interface ChatRequestOptions {
  model: string;
  replaceDeveloperRoleWithSystem: boolean;
  chatTemplateKwargs?: Record<string, unknown> | null | undefined;
  extraBody?: Record<string, unknown> | null | undefined;
  /** Ask vLLM for sampled token ids and logprobs (and the prompt's ids). */
  returnTokenIds?: boolean;
}

const TEXT_PARTS = new Set(["input_text", "output_text", "text", "summary_text", "reasoning_text"]);

function unsupported(what: string): HttpError {
  return new HttpError(400, `cannot convert ${what} to Chat Completions`);
}

/** Responses content parts → a string when all text (what every chat template takes), else chat parts. */
function chatContent(content: unknown, where: string): string | ChatContentPart[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw unsupported(`${where}: content that is neither a string nor a list of parts`);
  const parts: ChatContentPart[] = content.map((part: Record<string, any>, i): ChatContentPart => {
    if (TEXT_PARTS.has(part.type) && typeof part.text === "string") return { type: "text", text: part.text };
    if (part.type === "refusal" && typeof part.refusal === "string") return { type: "text", text: part.refusal };
    if (part.type === "input_image" && typeof part.image_url === "string") {
      return { type: "image_url", image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } };
    }
    throw unsupported(`${where}.content[${i}] of type ${JSON.stringify(part.type)}`);
  });
  if (parts.every((p) => p.type === "text")) return parts.map((p) => (p as { text: string }).text).join("\n");
  return parts;
}

function textOf(content: unknown, where: string): string {
  const converted = chatContent(content, where);
  if (typeof converted === "string") return converted;
  throw unsupported(`${where}: non-text content in an assistant or tool turn`);
}

function reasoningText(item: Record<string, any>): string {
  const parts: Array<{ text?: unknown }> = item.content?.length ? item.content : (item.summary ?? []);
  return parts.map((p) => (typeof p.text === "string" ? p.text : "")).join("\n");
}

export function toChatMessages(params: ResponsesCreateParams, replaceDeveloperRoleWithSystem: boolean): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (params.instructions) messages.push({ role: "system", content: params.instructions });
  if (typeof params.input === "string") return [...messages, { role: "user", content: params.input }];

  // The assistant message of the model turn being assembled; any non-assistant item closes it.
  let turn: ChatMessage | undefined;
  let pendingReasoning = "";
  const openTurn = (): ChatMessage => {
    if (!turn) {
      turn = { role: "assistant", content: pendingReasoning };
      pendingReasoning = "";
      messages.push(turn);
    }
    return turn;
  };
  const closeTurn = () => {
    if (pendingReasoning) openTurn();
    turn = undefined;
  };

  params.input.forEach((raw, index) => {
    const item = raw as Record<string, any>;
    const where = `input[${index}]`;
    const type = item.type ?? "message";
    if (type === "reasoning") {
      // Reasoning after text or tool calls starts a new model turn.
      if (turn && (turn.content || turn.tool_calls)) closeTurn();
      pendingReasoning += wrapThink(reasoningText(item));
    } else if (type === "message" && item.role === "assistant") {
      // Two assistant messages in a row are two turns; reasoning before a message belongs to it.
      if (turn && (turn.tool_calls || (turn.content && !pendingReasoning))) closeTurn();
      const current = openTurn();
      current.content = `${current.content ?? ""}${pendingReasoning}${textOf(item.content, where)}`;
      pendingReasoning = "";
    } else if (type === "function_call") {
      const current = openTurn();
      if (pendingReasoning) {
        current.content = `${current.content ?? ""}${pendingReasoning}`;
        pendingReasoning = "";
      }
      (current.tool_calls ??= []).push({ id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } });
    } else if (type === "function_call_output") {
      closeTurn();
      messages.push({ role: "tool", tool_call_id: item.call_id, content: textOf(item.output, where) });
    } else if (type === "message") {
      closeTurn();
      const role = item.role === "developer" && replaceDeveloperRoleWithSystem ? "system" : item.role;
      messages.push({ role, content: chatContent(item.content, where) });
    } else {
      throw unsupported(`${where} of type ${JSON.stringify(type)}`);
    }
  });
  closeTurn();
  return messages;
}

export function chatTools(tools: ResponsesCreateParams["tools"]): unknown[] | undefined {
  if (!tools?.length) return undefined;
  return tools.map((tool, i) => {
    const t = tool as Record<string, any>;
    if (t.type !== "function") throw unsupported(`tools[${i}] of type ${JSON.stringify(t.type)} (only function tools are)`);
    const fn: Record<string, unknown> = { name: t.name };
    if (t.description != null) fn.description = t.description;
    if (t.parameters != null) fn.parameters = t.parameters;
    if (t.strict != null) fn.strict = t.strict;
    return { type: "function", function: fn };
  });
}

function chatToolChoice(choice: unknown): unknown {
  if (choice === undefined || choice === null || typeof choice === "string") return choice ?? undefined;
  const c = choice as Record<string, any>;
  if (c.type === "function" && typeof c.name === "string") return { type: "function", function: { name: c.name } };
  throw unsupported(`tool_choice ${JSON.stringify(choice)}`);
}

/** Whether the caller asked for output_text logprobs through `include`. */
export function wantsLogprobs(params: ResponsesCreateParams): boolean {
  return params.include?.includes(LOGPROBS_INCLUDE) ?? false;
}

/** `text.format` → Chat `response_format` (vLLM's structured output); undefined for plain text. */
export function responseFormat(text: unknown): Record<string, unknown> | undefined {
  const format = (text as { format?: Record<string, unknown> | null } | null | undefined)?.format;
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  // json_schema; request_fields.ts refused every other type and a json_schema without name or schema.
  const schema: Record<string, unknown> = { name: format.name, schema: format.schema };
  if (format.description != null) schema.description = format.description;
  if (format.strict != null) schema.strict = format.strict;
  return { type: "json_schema", json_schema: schema };
}

/** NeMo Gym's per-request overrides in `metadata` (a JSON object, usually as a string), merged over the config's. */
export function metadataOverride(metadata: ResponsesCreateParams["metadata"], key: (typeof METADATA_OVERRIDES)[number]): Record<string, unknown> {
  const value = metadata?.[key];
  if (value === undefined || value === null) return {};
  return (typeof value === "string" ? JSON.parse(value) : value) as Record<string, unknown>;
}

export function toChatRequest(params: ResponsesCreateParams, options: ChatRequestOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: options.model,
    messages: toChatMessages(params, options.replaceDeveloperRoleWithSystem),
  };
  const set = (key: string, value: unknown) => {
    if (value !== undefined && value !== null) body[key] = value;
  };
  set("tools", chatTools(params.tools));
  set("tool_choice", chatToolChoice(params.tool_choice));
  set("parallel_tool_calls", params.parallel_tool_calls);
  set("temperature", params.temperature);
  set("top_p", params.top_p);
  set("max_tokens", params.max_output_tokens);
  set("seed", params.seed);
  set("reasoning_effort", (params.reasoning as { effort?: unknown } | null | undefined)?.effort);
  set("response_format", responseFormat(params.text));
  if (params.top_logprobs != null || wantsLogprobs(params)) Object.assign(body, { logprobs: true, top_logprobs: params.top_logprobs ?? 0 });
  // Passed on as NeMo Gym passes them (vLLM accepts and ignores what it has no use for).
  for (const key of ["metadata", "store", "user", "service_tier"] as const) set(key, params[key]);
  const templateKwargs = { ...options.chatTemplateKwargs, ...metadataOverride(params.metadata, "chat_template_kwargs") };
  if (Object.keys(templateKwargs).length > 0) body.chat_template_kwargs = templateKwargs;
  if (options.returnTokenIds) {
    // vLLM: logprobs of the sampled tokens (and of the top alternatives the caller asked for),
    // tokens spelled `token_id:N`, and the prompt's ids.
    Object.assign(body, { logprobs: true, top_logprobs: params.top_logprobs ?? 0, return_tokens_as_token_ids: true, return_token_ids: true });
  }
  // NeMo Gym: the request's own extra_body (metadata) over the config's, and both under the body.
  const requestExtra = params.metadata?.extra_body;
  const extraBody = requestExtra === undefined || requestExtra === null ? options.extraBody : { ...options.extraBody, ...metadataOverride(params.metadata, "extra_body") };
  return underExtraBody(body, extraBody);
}
