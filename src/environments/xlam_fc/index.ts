// xlam_fc: Salesforce xlam-function-calling-60k tasks. The row lists the calls the model should make
// (`expected_answers`); the reward is 1 when the model's function calls are exactly those (names
// equal, every expected argument present and equal, no call left over, none missing), else 0.
// Reproduces NVIDIA-NeMo/Gym 07d6b0d resources_servers/xlam_fc: the reply's fields, the greedy match
// (calls.ts), and the default metrics. NeMo Gym leaves its reverify mode "unknown".
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { jsOf, normalizeArguments, score, type Call } from "./calls.js";

export default defineEnvironment({
  id: "xlam_fc",
  description: "Salesforce xlam-function-calling-60k tool calling tasks: reward 1 when the model makes exactly the expected function calls.",
  rowFields: {
    expected_answers: z.array(z.record(z.string(), z.unknown())).default([]),
  },
  verify: (request) => {
    const predicted: Call[] = [];
    for (const item of request.response.output as Array<Record<string, unknown>>) {
      if (item.type === "function_call") predicted.push({ name: item.name, arguments: normalizeArguments(item.arguments) });
    }
    const expected: Call[] = request.expected_answers.map((answer) => ({ name: answer.name, arguments: normalizeArguments(answer.arguments ?? {}) }));
    const { reward, numCorrect } = score(predicted, expected);
    return {
      reward,
      num_expected: expected.length,
      num_predicted: predicted.length,
      num_correct: numCorrect,
      predicted_calls: predicted.map((call) => ({ name: call.name, arguments: jsOf(call.arguments) })),
    };
  },
});
