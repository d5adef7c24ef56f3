// The answer omniscience judges (NeMo Gym resources_servers/omniscience/app.py verify, 07d6b0d), as
// NeMo Skills' parse_reasoning reads a reasoning model's text: complete <think> blocks removed, and
// text before an unpaired closing tag dropped; but a reasoning block opened and never closed (the
// generation was cut mid-thought) leaves no answer at all ("").
import { lastAssistantText, stripThinking } from "../../verifiers/graded_qa/text.js";

export function omniscienceAnswer(response: { output: readonly unknown[] }): string {
  const raw = lastAssistantText(response);
  const opened = raw.includes("<think>") || raw.includes("<thinking>");
  const closed = raw.includes("</think>") || raw.includes("</thinking>");
  return opened && !closed ? "" : stripThinking(raw);
}
