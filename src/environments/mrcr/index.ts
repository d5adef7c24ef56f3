// mrcr: OpenAI's multi-round coreference resolution over long multi-turn conversations, as NeMo Gym's
// mrcr server at NVIDIA-NeMo/Gym 07d6b0d scores it: the model must reproduce an earlier assistant
// turn, prefixed with the row's random string; reward = SequenceMatcher ratio against the expected
// answer (0 without the prefix). Metrics: pass@k of the reward overall and per `n_needles`.
// `/verify` is stateless.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { rewardPassAggregate } from "../../metrics/subsets.js";
import { outputText } from "../../protocol/index.js";
import { pyStrip } from "../../verifiers/text/pystr.js";
import { mrcrGrade } from "./grade.js";

export default defineEnvironment({
  id: "mrcr",
  description: "Multi-round coreference resolution: prefix-gated difflib SequenceMatcher ratio against the expected turn.",
  rowFields: {
    expected_answer: z.string(),
    random_string_to_prepend: z.string(),
    n_needles: z.number().int(),
    n_tokens: z.number().int(),
  },
  verifyEchoes: ["expected_answer", "random_string_to_prepend", "n_needles", "n_tokens"],
  reverifyMode: "stateless",
  verify: (request) => {
    const response = pyStrip(outputText(request.response));
    const ratio = mrcrGrade(response, request.expected_answer, request.random_string_to_prepend);
    return { reward: ratio, prefix_matched: response.startsWith(request.random_string_to_prepend), seq_match_ratio: ratio };
  },
  aggregateMetrics: (rows, ctx) =>
    rewardPassAggregate(rows, ctx.defaults(rows), { key: "n_needles", rename: (key) => `n_needles=${key}` }).result,
});
