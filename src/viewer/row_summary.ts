// What the rollout table and the task view show of a row, computed from the row read back from disk
// (the index keeps no text).

const SNIPPET_CHARS = 200;
const ANSWER_CHARS = 2000;

export interface RowSummary {
  /** The start of the first user message. */
  snippet: string;
  /** Function calls in the response (null for a failure line, which has no response). */
  tool_calls: number | null;
  /** The last assistant message (its first 2,000 characters). */
  answer: string;
}

const clip = (text: string, chars: number) => (text.length > chars ? `${text.slice(0, chars - 1)}…` : text);

/** The text of a message's `content`: a string, or the text of its parts. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : ""))
    .filter(Boolean)
    .join("\n");
}

function firstUserText(input: unknown): string {
  if (typeof input === "string") return input;
  if (!Array.isArray(input)) return "";
  const user = input.find((item) => item && typeof item === "object" && (item as { role?: unknown }).role === "user") as { content?: unknown } | undefined;
  return user ? contentText(user.content) : "";
}

function outputItems(row: Record<string, unknown>): unknown[] | undefined {
  const output = (row.response as { output?: unknown } | undefined)?.output;
  return Array.isArray(output) ? output : undefined;
}

const itemType = (item: unknown) => (item && typeof item === "object" ? (item as { type?: unknown }).type : undefined);

/** `row` is the rollout (or failure) line; `planned` the pair's materialized input, shown for failures. */
export function summarizeRow(row: Record<string, unknown>, planned?: Record<string, unknown>): RowSummary {
  const params = (row.responses_create_params ?? planned?.responses_create_params) as { input?: unknown } | undefined;
  const output = outputItems(row);
  const lastMessage = output
    ?.slice()
    .reverse()
    .find((item) => itemType(item) === "message") as { content?: unknown } | undefined;
  return {
    snippet: clip(firstUserText(params?.input).replace(/\s+/g, " ").trim(), SNIPPET_CHARS),
    tool_calls: output ? output.filter((item) => itemType(item) === "function_call").length : null,
    answer: lastMessage ? clip(contentText(lastMessage.content), ANSWER_CHARS) : "",
  };
}
