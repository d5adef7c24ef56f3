// reasoning_gym: NeMo Gym's reasoning-gym verifier (NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/reasoning_gym/app.py), single-turn (simple_agent). The answer is the last
// <answer>…</answer> of the model's text, else its first \boxed{…}, else the whole text (stripped); the
// row's `metadata.source_dataset` names the reasoning-gym task whose `score_answer` gives the reward.
// Task families: the 59 of reasoning-gym 0.1.25 whose scorer is ported (scorers.ts); any other family is
// refused with a 400 naming it and why, rather than scored by a scorer Gymkit does not have. The config's
// `strict: true` (Gymkit's own, strict.ts, README) closes what the reward-hack audit finds in the default.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { HttpError } from "../../http/errors.js";
import { outputText } from "../../protocol/index.js";
import { PY_WS, pyStrip } from "./python_text.js";
import { SCORERS, UNSUPPORTED } from "./scorers.js";
import { strictScore } from "./strict.js";

export const SUPPORTED_TASKS = Object.keys(SCORERS).sort();

// reasoning_gym.utils.extract_answer: re.finditer(r"<answer>\s?(.*?)\s?</answer>", text, re.DOTALL), the last one, stripped.
const ANSWER_TAG = new RegExp(`<answer>${PY_WS}?([\\s\\S]*?)${PY_WS}?</answer>`, "g");
const BOXED = /\\boxed\{([^}]+)\}/;
const BOXED_ALL = /\\boxed\{([^}]+)\}/g;

/** NeMo Gym's `_extract_answer_from_response` on the joined output_text of the response's messages. */
export function extractAnswer(text: string, strict = false): string {
  const tags = [...text.matchAll(ANSWER_TAG)];
  if (tags.length > 0) return pyStrip(tags[tags.length - 1]![1]!);
  // Gymkit's `strict`: the last box (the final answer), not the first.
  const boxed = strict ? [...text.matchAll(BOXED_ALL)].at(-1) : BOXED.exec(text);
  if (boxed) return pyStrip(boxed[1]!);
  return pyStrip(text);
}

export default defineEnvironment({
  id: "reasoning_gym",
  configSchema: z.strictObject({
    /**
     * Gymkit's own (default false = NeMo Gym's reward): the \\boxed{} fallback reads the last box, a right
     * answer scores 1 and anything else 0 (no partial credit), and the scorers that accept a wrong answer
     * read it exactly (strict.ts, README).
     */
    strict: z.boolean().default(false),
  }),
  description: "Over 100 tasks including algebra, arithmetic, computation, cognition, geometry, graph theory, logic, and many common games.",
  rowFields: {
    question: z.string(),
    answer: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  },
  verifyEchoes: ["question", "answer", "metadata"],
  reverifyMode: "stateless",
  verify: (request, ctx) => {
    const strict = ctx.config.strict;
    const extracted = extractAnswer(outputText(request.response), strict);
    const task = request.metadata.source_dataset;
    if (typeof task !== "string" || task === "") {
      throw new HttpError(422, `No task name found in metadata: ${JSON.stringify(request.metadata)}`, { detail: [{ type: "value_error", loc: ["body", "metadata", "source_dataset"], msg: "metadata.source_dataset names the reasoning-gym task", input: request.metadata }] });
    }
    const scorer = SCORERS[task];
    if (!scorer) {
      const why = UNSUPPORTED[task] ?? "it is not a task of reasoning-gym 0.1.25";
      const message = `task family "${task}" is not ported to Gymkit: ${why} (ported: ${SUPPORTED_TASKS.join(", ")})`;
      throw new HttpError(400, `reasoning_gym: ${message}; run it on NeMo Gym's Python server`, { detail: message });
    }
    const names = request.metadata.names;
    const entry = { question: request.question, answer: request.answer, metadata: request.metadata };
    const score = strict ? strictScore(task, extracted, entry, Array.isArray(names) && names.every((n) => typeof n === "string") ? names : undefined) : scorer(extracted, entry);
    return { reward: score, task_name: task, score, extracted_answer: extracted };
  },
});
