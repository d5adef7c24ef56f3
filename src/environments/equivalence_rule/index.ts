// equivalence_rule: the reply (all its output text, joined) compared with the row's expected answer by
// the rule the config names: `exact` (default), `seq_match` or `weighted_seq_match` (see grade.ts).
// reward = equivalence_score. Every row field is echoed back, as NeMo Gym's response model allows
// extra fields.
// Behaviour matched to NeMo Gym's resources_servers/equivalence_rule/app.py at commit 07d6b0d.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { outputText } from "../../protocol/index.js";
import { grade, GRADING_RULES } from "./grade.js";

const Config = z.strictObject({
  /** NeMo Gym's config model carries a name field (default "equivalence_rule"); unused. */
  name: z.string().default("equivalence_rule"),
  grading_rule: z.enum(GRADING_RULES).default("exact"),
});

export default defineEnvironment({
  id: "equivalence_rule",
  description: "Question answering with a rule-based reward: exact match or difflib sequence similarity to the expected answer.",
  configSchema: Config,
  rowFields: {
    expected_answer: z.string(),
  },
  verifyEchoes: "all",
  reverifyMode: "stateless",
  verify: (request, ctx) => {
    const score = grade(outputText(request.response), request.expected_answer, ctx.config.grading_rule);
    return { reward: score, equivalence_score: score };
  },
});
