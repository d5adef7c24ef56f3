// example_multi_turn_gymnasium: NeMo Gym's scripted multi-turn example on the Gymnasium-style
// contract (NVIDIA-NeMo/Gym 07d6b0d resources_servers/example_multi_turn_gymnasium/app.py), played by
// gymnasium_agent. After each assistant turn the next of the row's `follow_ups` comes back as the
// observation; once they run out, the episode ends with reward 1 when the row's `expected_answer`
// occurs (case-insensitively) in the model's last text, else 0. The config's `strict: true` (Gymkit's
// own, README) closes what the reward-hack audit finds in that containment test.
import { z } from "zod";
import { outputText } from "../../protocol/index.js";
import { defineEnvironment } from "../../environment_kit/define.js";

/** The reply without what is not its answer: `<think>` blocks, HTML comments, fenced code. */
function visibleText(text: string): string {
  return text.replace(/<think>[\s\S]*?(<\/think>|$)/g, " ").replace(/<!--[\s\S]*?(-->|$)/g, " ").replace(/```[\s\S]*?(```|$)/g, " ");
}

const NUMBER = /^-?\d+(\.\d+)?$/;
const NEGATED = /(?:\bnot|\bno|\bnever|\bisn't|\bwasn't)(?:[\s*_"'`]+(?:the|a|an))?[\s*_"'`]*$/i;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Gymkit's own (`strict`): the expected answer must be what the final reply answers, not merely occur in
 * it. Outside <think>, HTML comments and code fences: a numeric answer must be the reply's last number (a
 * minus sign counts); any other answer's last whole-word occurrence must not follow "not"/"no"/"never" (an article between).
 */
export function strictlyAnswers(reply: string, expected: string): boolean {
  const text = visibleText(reply);
  const gold = expected.trim();
  if (NUMBER.test(gold)) {
    const numbers = text.match(/(?<![\w.])-?\d+(?:\.\d+)?/g) ?? [];
    return numbers.length > 0 && Number(numbers.at(-1)) === Number(gold);
  }
  const occurrences = [...text.matchAll(new RegExp(`(?<![\\p{L}\\p{N}_])${escape(gold)}(?![\\p{L}\\p{N}_])`, "giu"))];
  const last = occurrences.at(-1);
  return last !== undefined && !NEGATED.test(text.slice(0, last.index));
}

export default defineEnvironment({
  id: "example_multi_turn_gymnasium",
  description: "Scripted multi-turn conversation: follow-up questions from the row, then the expected answer in the last reply.",
  configSchema: z.strictObject({
    /** Gymkit's own (default false = NeMo Gym's containment test): the expected answer must be the reply's answer (README). */
    strict: z.boolean().default(false),
  }),
  // Follow-ups sent so far in the episode.
  state: z.number().int(),
  reset: (_metadata, ctx) => {
    ctx.sessions.set(ctx.sessionId, 0);
    return { observation: null, info: {} };
  },
  step: (action, metadata, ctx) => {
    const followUps = Array.isArray(metadata.follow_ups) ? (metadata.follow_ups as unknown[]) : [];
    const turn = ctx.sessions.get(ctx.sessionId) ?? 0;
    if (turn < followUps.length) {
      ctx.sessions.set(ctx.sessionId, turn + 1);
      return { observation: String(followUps[turn]), reward: 0, terminated: false, truncated: false };
    }
    const expected = typeof metadata.expected_answer === "string" ? metadata.expected_answer : "";
    // NeMo Gym's extract_text: every output_text of every message, joined without a separator.
    const text = outputText(action);
    const contains = expected !== "" && text.toLowerCase().includes(expected.toLowerCase());
    const reward = contains && (!ctx.config.strict || strictlyAnswers(text, expected)) ? 1.0 : 0.0;
    return { observation: null, reward, terminated: true, truncated: false };
  },
});
