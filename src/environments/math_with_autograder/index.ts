// math_with_autograder: NeMo Gym's math_with_judge with a NeMo Skills-style autograder (NVIDIA-NeMo/Gym
// 07d6b0d, resources_servers/math_with_autograder/app.py). math-verify first; on a miss (and with
// should_use_judge) one judge call grades the model's raw boxed LaTeX against the golden answer with
// the IMO AnswerBench autograder prompt; `\boxed{Correct}` before any `\boxed{Incorrect}` scores 1
// (with Gymkit's `strict: true`, the one of the two found last decides).
import { z } from "zod";
import { outputText } from "../../protocol/index.js";
import { firstLabelIs, JudgeClient } from "../../judge/index.js";
import { askSkillsJudge, fillJudgePrompt, loadJudgePromptConfig, mathJudgeConfigShape, mathVerifierPoolOf } from "../../verifiers/math/skills_judge.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { mathMetrics } from "../../verifiers/math/metrics.js";
import { searchBoxed } from "./boxed.js";
import { BUNDLED_PROMPTS } from "./prompts.js";

export const DEFAULT_PROMPT_PATH = "resources_servers/math_with_autograder/prompts/judge.yaml";
export const CORRECT = "\\boxed{Correct}";
export const INCORRECT = "\\boxed{Incorrect}";

const Config = z.strictObject({
  ...mathJudgeConfigShape,
  /** A prompt YAML (`user`, optional `system`) with {problem}, {predicted_answer}, {expected_answer}. */
  judge_prompt_path: z.string().min(1).default(DEFAULT_PROMPT_PATH),
  /**
   * Gymkit's: the verdict is the label found LAST in the judge's reply (where the prompt asks for it),
   * not NeMo Gym's reading, so a label the judge quotes from the answer does not decide. Off: NeMo Gym's reward.
   */
  strict: z.boolean().default(false),
});

/** Whether the reply says Correct: the first label wins (NeMo Gym's), or with `strict` the last. */
export function autograderVerdict(text: string | undefined, strict: boolean): boolean {
  if (!strict) return firstLabelIs(text, CORRECT, INCORRECT);
  if (text === undefined) return false;
  const yes = text.lastIndexOf(CORRECT);
  return yes >= 0 && yes > text.lastIndexOf(INCORRECT);
}

export default defineEnvironment({
  id: "math_with_autograder",
  description: "Math answers checked by math-verify, then (on a miss) by a NeMo Skills-style Correct/Incorrect autograder judge.",
  configSchema: Config,
  rowFields: {
    question: z.string(),
    expected_answer: z.string(),
  },
  reverifyMode: "stateless",
  setup: ({ config }) => ({
    pool: mathVerifierPoolOf(config),
    prompt: loadJudgePromptConfig(config.judge_prompt_path, { key: "judge_prompt_path", bundled: BUNDLED_PROMPTS }),
  }),
  teardown: ({ pool }) => pool.close(),
  verify: async (request, ctx) => {
    const config = ctx.config;
    const generated = outputText(request.response);
    const { reward: libraryReward, extracted } = await ctx.resources.pool.verify(request.expected_answer, generated);
    const fields = { expected_answer: request.expected_answer, extracted_answer: extracted, library_reward: libraryReward };
    if (!config.should_use_judge || libraryReward > 0.5) return { reward: libraryReward, ...fields, judge_evaluations: null };
    // The judge sees what the model boxed, verbatim (math-verify's normal form can mangle sets and conditions).
    const answer = searchBoxed(generated) || extracted || generated;
    const messages = fillJudgePrompt(ctx.resources.prompt, { problem: request.question, predicted_answer: answer, expected_answer: request.expected_answer });
    const judge = JudgeClient.for(ctx, config.judge_model_server, request, { timeoutSeconds: config.judge_timeout_seconds });
    const call = await askSkillsJudge(judge, config.judge_responses_create_params, messages, false);
    const correct = autograderVerdict(call.text, config.strict);
    return { reward: correct ? 1.0 : 0.0, ...fields, judge_evaluations: [call.evaluation] };
  },
  aggregateMetrics: (rows, ctx) => mathMetrics(rows, ctx.defaults(rows)),
});
