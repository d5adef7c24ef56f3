// The conversation context multichallenge shows its judge when a row has no `context`: built from
// `metadata.messages` as NeMo Gym's `_build_context_from_messages` does (07d6b0d): one
// "[ROLE]: content" block per message (thinking messages skipped), blocks joined by a blank line.
// Content is shown as Python's str() shows it (a list of parts appears as its repr).
import { pythonStr } from "../../protocol/python_format.js";

export function contextFromMessages(messages: unknown): string {
  if (!Array.isArray(messages)) throw new TypeError(`metadata.messages must be a list of messages, got ${JSON.stringify(messages)}`);
  const parts: string[] = [];
  for (const message of messages) {
    if (message === null || typeof message !== "object" || Array.isArray(message)) throw new TypeError(`metadata.messages: every message must be an object, got ${JSON.stringify(message)}`);
    const record = message as Record<string, unknown>;
    const role = "role" in record ? record.role : "unknown";
    const content = "content" in record ? record.content : "";
    if (typeof role !== "string") throw new TypeError(`metadata.messages: a role must be a string, got ${JSON.stringify(role)}`);
    if (role === "thinking") continue;
    parts.push(`[${role.toUpperCase()}]: ${pythonStr(content)}`);
  }
  return parts.join("\n\n");
}
