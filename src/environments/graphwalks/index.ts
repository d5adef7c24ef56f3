// graphwalks: long-context graph questions (parents of a node, or the nodes BFS reaches at a given
// depth) from openai/graphwalks, as NeMo Gym's graphwalks server at NVIDIA-NeMo/Gym 07d6b0d scores
// them: reward = F1 between the node set on the response's `Final Answer: [...]` line and the
// expected set (0 without that line). Metrics: pass@k of the reward (max-of-k where it is
// continuous) overall and per `problem_type`. `/verify` is stateless.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { rewardPassAggregate } from "../../metrics/subsets.js";
import { outputText } from "../../protocol/index.js";
import { expectedNodeSet, nodeF1, parseNodeList } from "../../verifiers/text/node_list.js";

export default defineEnvironment({
  id: "graphwalks",
  description: "Long-context graph walks (parents / BFS) graded by F1 over the final answer's node set, as openai/graphwalks.",
  rowFields: {
    expected_answer: z.string(),
    problem_type: z.string(),
    n_tokens: z.number().int().nullable().default(null),
    prompt_chars: z.number().int().nullable().default(null),
  },
  verifyEchoes: ["expected_answer", "problem_type", "n_tokens", "prompt_chars"],
  reverifyMode: "stateless",
  verify: (request) => {
    const { nodes, parseFailed } = parseNodeList(outputText(request.response));
    const f1 = nodeF1(nodes, expectedNodeSet(request.expected_answer), parseFailed);
    return { reward: f1, f1, parse_failed: parseFailed, predicted_nodes: nodes };
  },
  aggregateMetrics: (rows, ctx) =>
    rewardPassAggregate(rows, ctx.defaults(rows), { key: "problem_type", rename: (key) => `problem_type=${key}` }).result,
});
