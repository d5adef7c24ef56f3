// math_with_judge's judge fallback (NeMo Gym 07d6b0d, resources_servers/math_with_judge/app.py), on
// the judge kit: is the model's answer equivalent to the expected one? Asked with the expected
// answer first, and only if the judge says equal, again with the order swapped; both must say equal.
// polymath inherits it. A judge that cannot be asked throws JudgeFailure (→ `judge_failed`).
import type { ResponsesCreateParams } from "../../protocol/index.js";
import { firstLabelIs, judgeRequest, swapChecked, type JudgeClient, type JudgeEvaluation } from "../../judge/index.js";
import { JUDGE_EQUAL, JUDGE_NOT_EQUAL, JUDGE_SYSTEM_PROMPT, judgeUserPrompt } from "./judge_prompt.js";

export async function judgeMathEquivalence(
  judge: JudgeClient,
  template: ResponsesCreateParams,
  question: string,
  expected: string,
  answer: string,
): Promise<{ reward: number; evaluations: JudgeEvaluation[] }> {
  const ask = (a: string, b: string) => judge.responses(judgeRequest(template, JUDGE_SYSTEM_PROMPT, judgeUserPrompt(question, a, b)));
  const { passed, verdicts } = await swapChecked(
    () => ask(expected, answer),
    () => ask(answer, expected),
    (call) => firstLabelIs(call.text, JUDGE_EQUAL, JUDGE_NOT_EQUAL),
  );
  // Recorded as NeMo Gym records them: the request and the response of each call.
  const evaluations = verdicts.map(({ responses_create_params, response }) => ({ responses_create_params, response }));
  return { reward: passed ? 1.0 : 0.0, evaluations };
}
