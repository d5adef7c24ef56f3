// What genrm_compare (NeMo Gym 07d6b0d, app.py `_input_to_conversation_history`, utils.py
// `get_prompt_key_from_input`) takes from a rollout's request: the conversation the GenRM sees, and
// the key that groups the rollouts of one prompt into a cohort.
import { createHash } from "node:crypto";

export interface ConversationMessage {
  role: string;
  content: string;
}

/**
 * The request's input as `{role, content}` messages. A string input is iterated as Python iterates
 * a string (one empty user message per character). A message's string content is kept; list content
 * keeps only `output_text` parts read as plain objects — NeMo Gym's validated input holds such parts
 * only in output messages (items with an `id`), whose parts are models it does not read, so those
 * become empty. Items without a role (tool calls, reasoning) are empty user messages.
 */
export function conversationOf(input: unknown): ConversationMessage[] {
  if (typeof input === "string") return [...input].map(() => ({ role: "user", content: "" }));
  if (!Array.isArray(input)) return [];
  return input.map((raw) => {
    const item = (raw !== null && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
    const role = typeof item.role === "string" ? item.role : "user";
    const content = item.content;
    if (typeof content === "string") return { role, content };
    if (Array.isArray(content)) {
      if (item.id !== undefined && item.id !== null) return { role, content: "" };
      const text = content
        .filter((part): part is Record<string, unknown> => part !== null && typeof part === "object" && (part as Record<string, unknown>).type === "output_text")
        .map((part) => (typeof part.text === "string" ? part.text : ""))
        .join("");
      return { role, content: text };
    }
    return { role, content: "" };
  });
}

/** A stable hash of the input and the principle: equal prompts (and principles) share it. */
export function promptKey(input: unknown, principle: string | null | undefined): string {
  return createHash("sha256").update(sortedJson({ input, principle: principle ?? null })).digest("hex");
}

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${sortedJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The cohort key NeMo Gym uses: the task index when the request has one, else the caller's
 * prompt_id, each with the prompt hash; else the prompt hash alone.
 */
export function cohortKey(task: number | undefined, promptId: string | null | undefined, hash: string): string {
  if (task !== undefined) return `task_idx::${task}::${hash}`;
  if (promptId !== null && promptId !== undefined) return `prompt_id::${promptId}::${hash}`;
  return hash;
}
