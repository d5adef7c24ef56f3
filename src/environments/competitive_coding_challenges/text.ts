// The text NeMo Gym's competitive_coding_challenges app.py (commit 07d6b0d) grades: every text part of
// every assistant message of the response, joined by newlines, stripped at both ends.
export function lastAssistantText(response: unknown): string {
  const texts: string[] = [];
  const output = (response as { output?: unknown } | null | undefined)?.output;
  for (const item of Array.isArray(output) ? output : []) {
    const o = item as { type?: unknown; role?: unknown; content?: unknown };
    if (o.type !== "message" || o.role !== "assistant") continue;
    if (Array.isArray(o.content)) {
      for (const part of o.content) {
        const text = (part as { text?: unknown } | null)?.text;
        if (typeof text === "string") texts.push(text);
      }
    } else if (typeof o.content === "string") texts.push(o.content);
  }
  return texts.join("\n").replace(/^\s+|\s+$/g, "");
}
