// mcqa: multiple-choice questions graded by the letter the model commits to. The row gives the
// options and the gold letter; the grading mode (per row, or forced for the whole instance by the
// config's `grading_mode`) says where the letter must be written: in `\boxed{}` (strict or lenient),
// after "Answer:", or after a markdown "**Answer:**". Verification needs nothing but the request, so
// stored rollouts can be re-scored later (`reverify_mode` "stateless"). The extraction, request and
// metrics live in src/verifiers/mcq/, shared with the environments NeMo Gym derives from mcqa.
import { outputText } from "../../protocol/index.js";
import { pyStrip } from "../../verifiers/text/pystr.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { extractAnswer, type GradingMode } from "../../verifiers/mcq/extract.js";
import { mcqaAggregateMetrics } from "../../verifiers/mcq/metrics.js";
import { MCQA_ROW_FIELDS, McqaConfig, questionOf } from "../../verifiers/mcq/request.js";

export default defineEnvironment({
  id: "mcqa",
  description: "Multiple-choice questions: reward 1 when the extracted answer letter equals the gold letter.",
  configSchema: McqaConfig,
  rowFields: MCQA_ROW_FIELDS,
  reverifyMode: "stateless",
  verify: (request, ctx) => {
    const gold = pyStrip(request.expected_answer ?? "").toUpperCase();
    const mode: GradingMode = (ctx.config as McqaConfig).grading_mode ?? request.grading_mode;
    const text = pyStrip(outputText(request.response));
    const extracted = text === "" ? undefined : extractAnswer(text, mode, questionOf(request.options), request.template_metadata?.output_regex);
    return {
      reward: extracted !== undefined && gold !== "" && extracted === gold ? 1.0 : 0.0,
      expected_answer: gold,
      extracted_answer: extracted ?? null,
    };
  },
  aggregateMetrics: (rows, ctx) => mcqaAggregateMetrics(rows, ctx.defaults(rows)),
});
