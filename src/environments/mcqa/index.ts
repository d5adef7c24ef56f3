// mcqa: multiple-choice questions graded by the letter the model commits to. The row gives the
// options and the gold letter; the grading mode (per row, or forced for the whole instance by the
// config's `grading_mode`) says where the letter must be written: in `\boxed{}` (strict or lenient),
// after "Answer:", or after a markdown "**Answer:**". Verification needs nothing but the request, so
// stored rollouts can be re-scored later (`reverify_mode` "stateless").
import { z } from "zod";
import { highestK, passAtKMetrics } from "../../metrics/pass_at_k.js";
import { outputText } from "../../protocol/index.js";
import { pyStrip } from "../../verifiers/text/pystr.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { extractAnswer, GRADING_MODES, ROW_GRADING_MODES, type GradingMode, type Question } from "./extract.js";

const Config = z.strictObject({
  /** When set, overrides every row's `grading_mode` (and may also be `lenient_answer_colon_md`). */
  grading_mode: z.enum(GRADING_MODES).nullable().default(null),
});
type Config = z.infer<typeof Config>;

/** Option letters (upper-cased) that are one alphabetic character and have a text. */
export function questionOf(options: ReadonlyArray<Record<string, string | null>> | null | undefined): Question {
  const map = new Map<string, string>();
  for (const entry of options ?? []) {
    for (const [key, value] of Object.entries(entry)) {
      if (value !== null && Array.from(key).length === 1 && /^\p{L}$/u.test(key)) map.set(key.toUpperCase(), value);
    }
  }
  return { options: map };
}

export default defineEnvironment({
  id: "mcqa",
  description: "Multiple-choice questions: reward 1 when the extracted answer letter equals the gold letter.",
  configSchema: Config,
  rowFields: {
    options: z.array(z.record(z.string(), z.string().nullable())).nullable().default(null),
    expected_answer: z.string().nullable().default(null),
    grading_mode: z.enum(ROW_GRADING_MODES).default("strict_single_letter_boxed"),
    uuid: z.union([z.string(), z.number()]).nullable().default(null),
    metadata: z.record(z.string(), z.unknown()).nullable().default(null),
    template_metadata: z.record(z.string(), z.unknown()).nullable().default(null),
  },
  reverifyMode: "stateless",
  verify: (request, ctx) => {
    const gold = pyStrip(request.expected_answer ?? "").toUpperCase();
    const mode: GradingMode = (ctx.config as Config).grading_mode ?? request.grading_mode;
    const text = pyStrip(outputText(request.response));
    const extracted = text === "" ? undefined : extractAnswer(text, mode, questionOf(request.options), request.template_metadata?.output_regex);
    return {
      reward: extracted !== undefined && gold !== "" && extracted === gold ? 1.0 : 0.0,
      expected_answer: gold,
      extracted_answer: extracted ?? null,
    };
  },
  aggregateMetrics: (rows, ctx) => {
    const base = ctx.defaults(rows);
    const { metrics, per_sample_aggregate, metric_weights } = passAtKMetrics(rows, {
      scores: (row) => ({ accuracy: typeof row.reward === "number" ? row.reward : null }),
      answerKey: "extracted_answer",
    });
    const agent_metrics = { ...base.agent_metrics, ...metrics };
    const avgK = highestK(metrics, "avg");
    const passK = highestK(metrics, "pass");
    const majorityK = highestK(metrics, "majority");
    const pick = (keys: string[]) => Object.fromEntries(keys.filter((k) => k in agent_metrics).map((k) => [k, agent_metrics[k]!]));
    const key_metrics = pick([
      "mean/reward",
      `pass@1[avg-of-${avgK}]/accuracy`,
      `pass@1[avg-of-${avgK}]/no_answer`,
      `pass@${passK}/no_answer`,
      `majority@${majorityK}/accuracy`,
      "pass@1/accuracy",
    ]);
    return { ...base, agent_metrics, key_metrics, per_sample_aggregate, metric_weights };
  },
});
