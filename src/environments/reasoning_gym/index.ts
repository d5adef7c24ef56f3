// reasoning_gym: NeMo Gym's reasoning-gym verifier (NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/reasoning_gym/app.py), single-turn (simple_agent). The answer is the last
// <answer>…</answer> of the model's text, else its first \boxed{…}, else the whole text (stripped); the
// row's `metadata.source_dataset` names the reasoning-gym task whose `score_answer` gives the reward.
// Ported task families: knights_knaves (every NeMo Gym example row). Any other family is refused with a
// 400 naming it, rather than scored by a scorer Gymkit does not have.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { HttpError } from "../../http/errors.js";
import { outputText } from "../../protocol/index.js";
import { scoreKnightsKnaves } from "./knights_knaves.js";
import { PY_WS, pyStrip } from "./python_text.js";

/** Task family → its score_answer(answer, entry). */
const SCORERS: Record<string, (answer: string, entry: { answer: string | null }) => number> = {
  knights_knaves: (answer, entry) => scoreKnightsKnaves(answer, entry.answer),
};
export const SUPPORTED_TASKS = Object.keys(SCORERS);

// reasoning_gym.utils.extract_answer: re.finditer(r"<answer>\s?(.*?)\s?</answer>", text, re.DOTALL), the last one, stripped.
const ANSWER_TAG = new RegExp(`<answer>${PY_WS}?([\\s\\S]*?)${PY_WS}?</answer>`, "g");
const BOXED = /\\boxed\{([^}]+)\}/;

/** NeMo Gym's `_extract_answer_from_response` on the joined output_text of the response's messages. */
export function extractAnswer(text: string): string {
  const tags = [...text.matchAll(ANSWER_TAG)];
  if (tags.length > 0) return pyStrip(tags[tags.length - 1]![1]!);
  const boxed = BOXED.exec(text);
  if (boxed) return pyStrip(boxed[1]!);
  return pyStrip(text);
}

export default defineEnvironment({
  id: "reasoning_gym",
  description: "Over 100 tasks including algebra, arithmetic, computation, cognition, geometry, graph theory, logic, and many common games.",
  rowFields: {
    question: z.string(),
    answer: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  },
  verifyEchoes: ["question", "answer", "metadata"],
  reverifyMode: "stateless",
  verify: (request) => {
    const extracted = extractAnswer(outputText(request.response));
    const task = request.metadata.source_dataset;
    if (typeof task !== "string" || task === "") {
      throw new HttpError(422, `No task name found in metadata: ${JSON.stringify(request.metadata)}`, { detail: [{ type: "value_error", loc: ["body", "metadata", "source_dataset"], msg: "metadata.source_dataset names the reasoning-gym task", input: request.metadata }] });
    }
    const scorer = SCORERS[task];
    if (!scorer) {
      throw new HttpError(400, `reasoning_gym: task family "${task}" is not ported to Gymkit (ported: ${SUPPORTED_TASKS.join(", ")}); run it on NeMo Gym's Python server`, { detail: `task family "${task}" is not ported (ported: ${SUPPORTED_TASKS.join(", ")})` });
    }
    const score = scorer(extracted, { answer: request.answer });
    return { reward: score, task_name: task, score, extracted_answer: extracted };
  },
});
