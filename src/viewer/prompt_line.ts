// The first line of a task's prompt, for the task list: a task is read as its question, not its
// index. Taken from the first user message's text of the task's first readable row (else its plan).
import { contentText } from "./row_summary.js";
import type { RunIndex } from "./run_index/run_index.js";

const PROMPT_CHARS = 160;
/** Rows tried before falling back to the plan. */
const ROWS_TRIED = 3;

function userText(params: unknown): string {
  const input = (params as { input?: unknown } | null | undefined)?.input;
  if (typeof input === "string") return input;
  if (!Array.isArray(input)) return "";
  const users = input.filter((item) => item && typeof item === "object" && (item as { role?: unknown }).role === "user") as Array<{ content?: unknown }>;
  // The first user message: later ones are a multi-turn episode's observations.
  return users.length ? contentText(users[0]!.content) : "";
}

/** The first non-empty line, whitespace folded, clipped. */
export function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  const folded = line.replace(/\s+/g, " ").trim();
  return folded.length > PROMPT_CHARS ? `${folded.slice(0, PROMPT_CHARS - 1)}…` : folded;
}

/** `ids` are the task's entry ids in display order. */
export function taskPromptLine(run: RunIndex, task: number, ids: ArrayLike<number>): string | null {
  for (let i = 0; i < Math.min(ids.length, ROWS_TRIED); i++) {
    try {
      const text = userText(run.readRow(ids[i]!).responses_create_params);
      if (text) return firstLine(text);
    } catch {
      continue;
    }
  }
  const first = ids.length ? ids[0]! : undefined;
  const planned = first === undefined ? undefined : run.readPlanned(task, run.entries.rollout[first]!);
  const text = userText(planned?.responses_create_params);
  return text ? firstLine(text) : null;
}
