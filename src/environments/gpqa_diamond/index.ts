// gpqa_diamond: GPQA-Diamond multiple-choice questions, as NeMo Gym's gpqa_diamond server grades them
// (resources_servers/gpqa_diamond/app.py at commit 07d6b0d). The row is an mcqa row; the letter comes
// from the row's `template_metadata.output_regex` when it has one, else from the last `\boxed{}` or
// "Answer: X" (extract.ts), and must be one of the row's option letters when the row lists options.
// Reward 1 when it equals the gold letter. `strict: true` (Gymkit's own) also demands that every box
// and "Answer:" line name that one letter (closes the audit's guess.all_boxes and wrong.negation). Metrics are mcqa's (pass@k, majority@k on the letter).
import { z } from "zod";
import { outputText } from "../../protocol/index.js";
import { pyStrip } from "../../verifiers/text/pystr.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { extractWithTemplate } from "../../verifiers/mcq/extract.js";
import { mcqaAggregateMetrics } from "../../verifiers/mcq/metrics.js";
import { MCQA_ROW_FIELDS, McqaConfig, questionOf } from "../../verifiers/mcq/request.js";
import { extractGpqaLetter, strictGpqaLetter } from "./extract.js";

const Config = McqaConfig.extend({
  /** Gymkit's own (default false = NeMo Gym's reward): every box must hold one letter and all boxes and "Answer:" lines must agree (extract.ts). */
  strict: z.boolean().default(false),
});
type Config = z.infer<typeof Config>;

export default defineEnvironment({
  id: "gpqa_diamond",
  description: "GPQA Diamond multiple-choice question answering: reward 1 when the extracted answer letter equals the gold letter.",
  // NeMo Gym's config class is mcqa's (grading_mode is accepted, and unused by this verifier).
  configSchema: Config,
  rowFields: MCQA_ROW_FIELDS,
  // NeMo Gym pins this server to ReverifyMode.UNKNOWN (not reviewed for reverify), though /verify needs no session.
  reverifyMode: "unknown",
  verify: (request, ctx) => {
    const text = pyStrip(outputText(request.response));
    const question = questionOf(request.options);
    let extracted: string | undefined;
    const template = request.template_metadata;
    if (template && "output_regex" in template) {
      // NeMo Gym hands this one pattern to re.findall: a list (which mcqa accepts) is a TypeError there.
      if (typeof template.output_regex !== "string") throw new TypeError("template_metadata.output_regex must be one pattern (a string) for gpqa_diamond");
      extracted = extractWithTemplate(text, template.output_regex, question);
    }
    if (extracted === undefined) {
      const letter = extractGpqaLetter(text)?.toUpperCase();
      // Without options every letter is allowed.
      if (letter !== undefined && (question.options.size === 0 || question.options.has(letter))) extracted = letter;
    }
    // strict: a response that boxes several letters, or a box that is not a letter ("not B"), scores 0.
    if (extracted !== undefined && (ctx.config as Config).strict) {
      const agreed = strictGpqaLetter(text);
      if (agreed !== null && agreed !== extracted) extracted = undefined;
    }
    const gold = pyStrip(request.expected_answer ?? "").toUpperCase();
    return {
      reward: extracted !== undefined && gold !== "" && extracted === gold ? 1.0 : 0.0,
      expected_answer: gold,
      extracted_answer: extracted ?? null,
    };
  },
  aggregateMetrics: (rows, ctx) => mcqaAggregateMetrics(rows, ctx.defaults(rows)),
});
