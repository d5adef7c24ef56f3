// lc_niah: long-context needle/graph questions whose reward also penalizes reasoning that copies the
// prompt, as NeMo Gym's lc_niah server at NVIDIA-NeMo/Gym 07d6b0d scores them. answer_score is the
// F1 of the final answer's node list (answer.ts); three copy measures compare the reasoning with the
// prompt (overlap.ts); `overlap_metric_rule` picks one as reasoning_overlap and
// `overlap_grading_rule` combines: base = answer_score, multiply = answer_score · (1 − overlap),
// minus = answer_score − overlap. Default metrics. `/verify` is stateless.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { outputText } from "../../protocol/index.js";
import { answerScore } from "./answer.js";
import { overlapLcs, overlapNgram, overlapSeqMatch } from "./overlap.js";
import { inputText, reasoningText } from "./texts.js";

const Config = z.strictObject({
  /** NeMo Gym's config model carries the server name too; accepted, unused. */
  name: z.string().default("lc_niah"),
  overlap_metric_rule: z.enum(["seq_match", "ngram16", "lcs"]).default("lcs"),
  overlap_grading_rule: z.enum(["base", "multiply", "minus"]).default("multiply"),
});
type Config = z.infer<typeof Config>;

export default defineEnvironment({
  id: "lc_niah",
  description: "Answer F1 over a node list, gated by how little the reasoning copies the prompt (seq_match | ngram16 | lcs).",
  configSchema: Config as z.ZodType<Config>,
  rowFields: { expected_answer: z.string() },
  verifyEchoes: "all",
  reverifyMode: "stateless",
  verify: (request, ctx) => {
    const answer_score = answerScore(outputText(request.response), request.expected_answer);
    const reasoning = reasoningText(request.response);
    const input = inputText(request.responses_create_params as { input?: unknown });
    const overlap_seq_match = overlapSeqMatch(reasoning, input);
    const overlap_ngram16 = overlapNgram(reasoning, input, 16);
    const overlap_lcs = overlapLcs(reasoning, input);
    const config = ctx.config;
    const reasoning_overlap =
      config.overlap_metric_rule === "seq_match" ? overlap_seq_match : config.overlap_metric_rule === "ngram16" ? overlap_ngram16 : overlap_lcs;
    const reward =
      config.overlap_grading_rule === "base"
        ? answer_score
        : config.overlap_grading_rule === "multiply"
          ? answer_score * (1.0 - reasoning_overlap)
          : answer_score - reasoning_overlap;
    return { reward, answer_score, reasoning_overlap, overlap_seq_match, overlap_ngram16, overlap_lcs };
  },
});
