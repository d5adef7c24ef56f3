// Tool-call parsers for raw completions, one per chat-template family. With token-id prompts the
// engine runs no tool parser, so Gymkit reads the calls out of the decoded text itself, behaving as
// the vLLM `--tool-call-parser` of the same name does on a complete (non-streamed) output, so that a
// rollout reads the same as from a vLLM server with that parser on. Behaviour matched against vLLM's
// vllm/tool_parsers/*_tool_parser.py: llama 13e48c2, mistral decc268, qwen3coder 0b13f93,
// deepseekv3 80445b4, openai 2050c21 (hermes as before); the chat templates the formats come from
// are checked in src/tokens/tool_parsers.test.ts.
//
// Shared rule (vLLM's): a call block the parser cannot read turns the whole answer back into plain
// content, so the model's mistake is scored, not hidden.
import { pythonJsonDumps } from "./python_json.js";

export const TOOL_CALL_FORMATS = ["hermes", "llama3_json", "mistral", "qwen3_coder", "deepseek_v3", "openai"] as const;
export type ToolCallFormat = (typeof TOOL_CALL_FORMATS)[number];

export interface ParsedToolCall {
  name: string;
  /** JSON text of the arguments, spelled as the vLLM parser returns them. */
  arguments: string;
  /** The call id the model wrote itself (Mistral's 9-character ids); absent when the format has none. */
  id?: string;
}

export interface ToolParseResult {
  content: string;
  toolCalls: ParsedToolCall[];
  /** Reasoning the format carries outside `<think>` (gpt-oss's analysis channel). */
  reasoning?: string[];
}

/** Chat Completions tools (`{type: "function", function: {name, parameters}}`), for schema-typed formats. */
export type ChatToolList = readonly unknown[] | null | undefined;

const plain = (text: string): ToolParseResult => ({ content: text, toolCalls: [] });

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Python's `json.dumps(value)` with its default `ensure_ascii=True`. */
function pythonJsonDumpsAscii(value: unknown): string {
  return pythonJsonDumps(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

// ---------------------------------------------------------------- hermes (Qwen2.5/Qwen3, Hermes)

const HERMES_BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>|<tool_call>([\s\S]*)$/g;

/** `<tool_call>{"name", "arguments"}</tool_call>` blocks; content is the text before the first. */
export function parseHermesToolCalls(text: string): ToolParseResult {
  const start = text.indexOf("<tool_call>");
  if (start === -1) return plain(text);
  const toolCalls: ParsedToolCall[] = [];
  for (const match of text.matchAll(HERMES_BLOCK)) {
    let call: unknown;
    try {
      call = JSON.parse((match[1] ?? match[2] ?? "").trim());
    } catch {
      return plain(text);
    }
    if (!isObject(call) || typeof call.name !== "string") return plain(text);
    toolCalls.push({ name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : pythonJsonDumps(call.arguments ?? {}) });
  }
  return { content: text.slice(0, start), toolCalls };
}

// ---------------------------------------------------------------- llama3_json (Llama 3.1/3.2/3.3)

/** One JSON value starting at `from` (like Python's `raw_decode`): the value and where it ends, or null. */
function decodeJsonAt(text: string, from: number): { value: unknown; end: number } | null {
  // Find the end of the balanced object first (strings respected), then let JSON.parse judge it.
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) {
        try {
          return { value: JSON.parse(text.slice(from, i + 1)), end: i + 1 };
        } catch {
          return null;
        }
      }
    }
  }
  return null;
}

/**
 * Llama 3.x JSON calls: every top-level `{...}` in the output (after an optional `<|python_tag|>`,
 * several joined by `;`) must be `{"name", "parameters"|"arguments"}`. As in vLLM, a valid call
 * replaces all content (surrounding text is dropped), and one malformed object makes it all text.
 */
export function parseLlama3JsonToolCalls(text: string): ToolParseResult {
  if (!text.includes("<|python_tag|>") && !text.includes("{")) return plain(text);
  const toolCalls: ParsedToolCall[] = [];
  let end = -1;
  for (let i = text.indexOf("{"); i !== -1; i = text.indexOf("{", i + 1)) {
    if (i < end) continue;
    const decoded = decodeJsonAt(text, i);
    if (!decoded || !isObject(decoded.value)) return plain(text);
    end = decoded.end;
    const { name } = decoded.value;
    const args = "arguments" in decoded.value ? decoded.value.arguments : decoded.value.parameters;
    if (typeof name !== "string" || (!("arguments" in decoded.value) && !("parameters" in decoded.value))) return plain(text);
    toolCalls.push({ name, arguments: pythonJsonDumps(args) });
  }
  return toolCalls.length ? { content: "", toolCalls } : plain(text);
}

// ---------------------------------------------------------------- mistral ([TOOL_CALLS])

const MISTRAL_BOT = "[TOOL_CALLS]";
const MISTRAL_ID = /^[A-Za-z0-9]{9}$/;
const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A Mistral tool-call id: 9 alphanumeric characters (Mistral templates refuse any other). */
export function mistralToolCallId(): string {
  let id = "";
  for (let i = 0; i < 9; i++) id += ALPHANUMERIC[Math.floor(Math.random() * ALPHANUMERIC.length)];
  return id;
}

/**
 * Mistral calls. Before tokenizer v11 (Mistral 7B v0.3, Nemo, Small 2409):
 * `content[TOOL_CALLS][{"name", "arguments", "id"?}, …]`; from v11: `content[TOOL_CALLS]name{args}[TOOL_CALLS]…`.
 * Unlike vLLM, which always draws fresh ids, an id the model wrote is kept when it is a valid
 * 9-character one, so the next turn's render names the same call the model sampled.
 */
export function parseMistralToolCalls(text: string): ToolParseResult {
  const start = text.indexOf(MISTRAL_BOT);
  if (start === -1) return plain(text);
  const content = text.slice(0, start);
  const raw = text.slice(start + MISTRAL_BOT.length).split(MISTRAL_BOT);
  const listForm = raw.length === 1 && raw[0]!.trim().startsWith("[");
  if (!listForm) {
    const toolCalls: ParsedToolCall[] = [];
    for (const part of raw) {
      const brace = part.indexOf("{");
      if (brace === -1) continue;
      toolCalls.push({ name: part.slice(0, brace), arguments: part.slice(brace), id: mistralToolCallId() });
    }
    return { content, toolCalls };
  }
  const body = raw[0]!.trim();
  let calls: unknown;
  try {
    calls = JSON.parse(body);
  } catch {
    // vLLM's fallback: the outermost `[{…}]` inside the text.
    const match = /\[\{[\s\S]*\}\]/.exec(body);
    try {
      calls = match ? JSON.parse(match[0]) : undefined;
    } catch {
      calls = undefined;
    }
    if (calls === undefined) return plain(body);
  }
  if (!Array.isArray(calls) || !calls.every((c) => isObject(c) && typeof c.name === "string")) return plain(text);
  return {
    content,
    toolCalls: (calls as Array<Record<string, unknown>>).map((call) => ({
      name: call.name as string,
      arguments: pythonJsonDumps(call.arguments ?? {}),
      id: typeof call.id === "string" && MISTRAL_ID.test(call.id) ? call.id : mistralToolCallId(),
    })),
  };
}

// ---------------------------------------------------------------- qwen3_coder (XML)

const CODER_BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>|<tool_call>([\s\S]*?)$/g;
const CODER_FUNCTION = /<function=([\s\S]*?)<\/function>|<function=([\s\S]*)$/g;
const CODER_PARAMETER = /<parameter=([\s\S]*?)(?:<\/parameter>|(?=<parameter=)|(?=<\/function>)|$)/g;

function toolProperties(tools: ChatToolList, name: string): Record<string, unknown> {
  for (const tool of tools ?? []) {
    const fn = isObject(tool) && isObject(tool.function) ? tool.function : undefined;
    if (fn?.name !== name) continue;
    const params = fn.parameters;
    if (!isObject(params)) return {};
    return isObject(params.properties) ? params.properties : params;
  }
  return {};
}

/** A parameter's text converted by the type its schema declares, as vLLM's Qwen3-Coder parser does. */
function coderValue(value: string, name: string, properties: Record<string, unknown>): unknown {
  if (value.toLowerCase() === "null") return null;
  if (!(name in properties)) return value;
  const spec = properties[name];
  const type = isObject(spec) && "type" in spec ? String(spec.type).trim().toLowerCase() : "string";
  if (["string", "str", "text", "varchar", "char", "enum"].includes(type)) return value;
  if (/^(int|uint|long|short|unsigned)/.test(type)) {
    return /^\s*[-+]?\d+\s*$/.test(value) ? Number.parseInt(value, 10) : value;
  }
  if (type.startsWith("num") || type.startsWith("float")) {
    const number = Number(value);
    return value.trim() !== "" && Number.isFinite(number) ? number : value;
  }
  if (["boolean", "bool", "binary"].includes(type)) return value.toLowerCase() === "true";
  // Objects, arrays and anything else: JSON, else left as text (vLLM also tries Python literals).
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** Qwen3-Coder `<tool_call><function=name><parameter=key>value</parameter></function></tool_call>`. */
export function parseQwen3CoderToolCalls(text: string, tools?: ChatToolList): ToolParseResult {
  if (!text.includes("<function=")) return plain(text);
  const blocks = [...text.matchAll(CODER_BLOCK)].map((m) => m[1] ?? m[2] ?? "");
  const functions = (blocks.length ? blocks : [text]).flatMap((block) => [...block.matchAll(CODER_FUNCTION)].map((m) => m[1] ?? m[2] ?? ""));
  if (functions.length === 0) return plain(text);
  const toolCalls: ParsedToolCall[] = [];
  for (const fn of functions) {
    const close = fn.indexOf(">");
    if (close === -1) return plain(text);
    const name = fn.slice(0, close);
    const properties = toolProperties(tools, name);
    const args: Record<string, unknown> = {};
    for (const match of fn.slice(close + 1).matchAll(CODER_PARAMETER)) {
      const body = match[1]!;
      const end = body.indexOf(">");
      if (end === -1) return plain(text);
      let value = body.slice(end + 1);
      if (value.startsWith("\n")) value = value.slice(1);
      if (value.endsWith("\n")) value = value.slice(0, -1);
      const key = body.slice(0, end);
      args[key] = coderValue(value, key, properties);
    }
    toolCalls.push({ name, arguments: pythonJsonDumps(args) });
  }
  const open = text.indexOf("<tool_call>");
  return { content: text.slice(0, open !== -1 ? open : text.indexOf("<function=")), toolCalls };
}

// ---------------------------------------------------------------- deepseek_v3

const DEEPSEEK_CALLS_BEGIN = "<｜tool▁calls▁begin｜>";
// One call on one line each for type and name, arguments on one line (vLLM's regex has no DOTALL).
const DEEPSEEK_CALL = /<｜tool▁call▁begin｜>(.*)<｜tool▁sep｜>(.*)\n```json\n(.*)\n```<｜tool▁call▁end｜>/g;

/** DeepSeek-V3 `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name\n```json\n{…}\n```<｜tool▁call▁end｜>…`. */
export function parseDeepSeekV3ToolCalls(text: string): ToolParseResult {
  const start = text.indexOf(DEEPSEEK_CALLS_BEGIN);
  if (start === -1) return plain(text);
  // Arguments are passed on verbatim, as vLLM does.
  const toolCalls = [...text.matchAll(DEEPSEEK_CALL)].map((m) => ({ name: m[2]!, arguments: m[3]! }));
  return { content: text.slice(0, start), toolCalls };
}

// ---------------------------------------------------------------- openai (gpt-oss harmony)

interface HarmonyMessage {
  channel: string | null;
  recipient: string | null;
  contentType: string | null;
  text: string;
  complete: boolean;
}

/** Header fields of one harmony message (`assistant to=functions.f<|channel|>commentary <|constrain|>json`). */
function harmonyHeader(header: string): Omit<HarmonyMessage, "text" | "complete"> {
  let channel: string | null = null;
  let recipient: string | null = null;
  let contentType: string | null = null;
  const channelAt = header.indexOf("<|channel|>");
  const beforeChannel = channelAt === -1 ? header : header.slice(0, channelAt);
  let rest = channelAt === -1 ? "" : header.slice(channelAt + "<|channel|>".length);
  const roleTo = /\bto=(\S+)/.exec(beforeChannel);
  if (roleTo) recipient = roleTo[1]!;
  if (channelAt !== -1) {
    rest = rest.replace("<|constrain|>", " ");
    const words = rest.trim().split(/\s+/).filter(Boolean);
    channel = words.shift() ?? null;
    for (const word of words) {
      if (word.startsWith("to=")) recipient = word.slice(3);
      else contentType = word;
    }
  }
  return { channel, recipient, contentType };
}

/** The assistant messages of a harmony completion (the prompt ended with `<|start|>assistant`). */
function harmonyMessages(text: string): HarmonyMessage[] | null {
  const messages: HarmonyMessage[] = [];
  let rest = text;
  while (rest.length) {
    const body = rest.indexOf("<|message|>");
    if (body === -1) return messages.length || rest.trim() === "" ? messages : null;
    const header = harmonyHeader(rest.slice(0, body));
    rest = rest.slice(body + "<|message|>".length);
    const stop = /<\|end\|>|<\|call\|>|<\|return\|>/.exec(rest);
    const content = stop ? rest.slice(0, stop.index) : rest;
    messages.push({ ...header, text: content, complete: stop !== null });
    rest = stop ? rest.slice(stop.index + stop[0].length) : "";
    if (rest.startsWith("<|start|>")) rest = rest.slice("<|start|>".length);
  }
  return messages;
}

/**
 * gpt-oss harmony: analysis channel → reasoning, commentary addressed `to=functions.name` → a tool
 * call (JSON arguments re-dumped as Python's `json.dumps`, as vLLM does), final channel → content
 * (else recipient-less commentary, the preamble).
 */
export function parseHarmony(text: string): ToolParseResult {
  const messages = harmonyMessages(text);
  if (messages === null) return plain(text);
  const reasoning: string[] = [];
  const toolCalls: ParsedToolCall[] = [];
  let final: string | null = null;
  let commentary: string | null = null;
  for (const message of messages) {
    if (message.recipient?.startsWith("functions.")) {
      if (!message.complete) continue;
      let args = message.text;
      if (!message.contentType || message.contentType.includes("json")) {
        try {
          args = pythonJsonDumpsAscii(JSON.parse(message.text));
        } catch {
          // Kept verbatim, as vLLM does when the JSON does not parse.
        }
      }
      toolCalls.push({ name: message.recipient.slice("functions.".length), arguments: args });
    } else if (message.channel === "analysis") reasoning.push(message.text);
    else if (message.channel === "final") final = message.text;
    else if (message.channel === "commentary" && !message.recipient) commentary = message.text;
  }
  return { content: final || commentary || "", toolCalls, reasoning };
}

// ---------------------------------------------------------------- choosing and checking

export function parseToolCalls(format: ToolCallFormat, text: string, tools?: ChatToolList): ToolParseResult {
  switch (format) {
    case "hermes":
      return parseHermesToolCalls(text);
    case "llama3_json":
      return parseLlama3JsonToolCalls(text);
    case "mistral":
      return parseMistralToolCalls(text);
    case "qwen3_coder":
      return parseQwen3CoderToolCalls(text, tools);
    case "deepseek_v3":
      return parseDeepSeekV3ToolCalls(text);
    case "openai":
      return parseHarmony(text);
  }
}

/** What each format's chat template must contain to write tool calls that way (checked in order). */
const TEMPLATE_MARKERS: Array<[ToolCallFormat, string[]]> = [
  ["openai", ["<|channel|>", "functions."]],
  ["deepseek_v3", ["<｜tool▁calls▁begin｜>", "<｜tool▁sep｜>", "```json"]],
  ["mistral", ["[TOOL_CALLS]"]],
  ["qwen3_coder", ["<tool_call>", "<function=", "<parameter="]],
  ["hermes", ["<tool_call>", "</tool_call>"]],
  ["llama3_json", ["<|start_header_id|>", '"parameters": ']],
];

/**
 * The tool-call format a chat template writes, judged by its markers; null when it writes none
 * Gymkit parses (e.g. a template with no tool support, or DeepSeek-V3.1's changed format).
 */
export function templateToolCallFormat(template: string): ToolCallFormat | null {
  for (const [format, markers] of TEMPLATE_MARKERS) {
    if (markers.every((marker) => template.includes(marker))) return format;
  }
  return null;
}

/** Whether a template renders tools at all (reads the `tools` variable or writes tool calls). */
function templateUsesTools(template: string): boolean {
  return /\btools\b|tool_calls/.test(template);
}

const SUPPORTED = `supported: ${TOOL_CALL_FORMATS.join(", ")}`;

/**
 * The start-up check of a token-path model: the configured `tool_call_parser` must be the format
 * the chat template writes; unset, the template's format is used. A template that renders tools in
 * no supported format is refused here, not at the first rollout. Returns null for templates
 * without tool support (requests with tools are then refused one by one).
 */
export function resolveToolCallFormat(template: string | null, configured: ToolCallFormat | null | undefined, where: string): ToolCallFormat | null {
  const detected = template ? templateToolCallFormat(template) : null;
  if (configured) {
    if (detected === configured) return configured;
    throw new Error(
      `${where}: tool_call_parser ${JSON.stringify(configured)} does not match the chat template, which ` +
        (detected ? `writes ${JSON.stringify(detected)} tool calls; set tool_call_parser: ${detected}` : `writes tool calls in no format Gymkit parses (${SUPPORTED})`),
    );
  }
  if (detected === null && template && templateUsesTools(template)) {
    throw new Error(`${where}: the chat template renders tools, but not in a tool-call format Gymkit can parse from raw completions (${SUPPORTED}); serve this model through vllm_model without on_policy_prompts (the engine's own tool parser) instead`);
  }
  return detected;
}
