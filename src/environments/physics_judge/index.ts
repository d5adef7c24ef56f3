// physics_judge: NeMo Gym's math_with_judge with NeMo Skills' physics judge (NVIDIA-NeMo/Gym 07d6b0d,
// resources_servers/physics_judge/app.py). math-verify first; on a miss (and with should_use_judge)
// one judge call shows the judge the model's whole output beside the expected answer, and the reward
// is 1 when the reply contains `[Correct]` in any letter case (NeMo Skills' PhysicsMetrics rule: an
// `[Incorrect]` elsewhere does not matter). The judge is asked on /v1/responses, or on
// /v1/chat/completions with `use_chat_completions_for_judge` (NeMo Gym's config sets it).
import { z } from "zod";
import { outputText } from "../../protocol/index.js";
import { JudgeClient } from "../../judge/index.js";
import { pySearch } from "../../verifiers/text/pyregex.js";
import { mathMetrics } from "../../verifiers/math/metrics.js";
import { askSkillsJudge, fillJudgePrompt, loadJudgePromptConfig, mathJudgeConfigShape, mathVerifierPoolOf } from "../../verifiers/math/skills_judge.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { BUNDLED_PROMPTS } from "./prompts.js";

export const DEFAULT_PROMPT_PATH = "resources_servers/physics_judge/prompts/judge.yaml";

/**
 * NeMo Skills' PhysicsMetrics.is_correct_judgement as NeMo Gym applies it: `[correct]`, any case,
 * anywhere. With `strict` (Gymkit's) the last of `[correct]` / `[incorrect]` (any case) decides.
 */
export function physicsVerdict(text: string | undefined, strict = false): boolean {
  if (text === undefined) return false;
  if (!strict) return pySearch("\\[correct\\]", text, { ignoreCase: true }) !== null;
  const labels = [...text.matchAll(/\[(in)?correct\]/gi)];
  const last = labels[labels.length - 1];
  return last !== undefined && last[1] === undefined;
}

const Config = z.strictObject({
  ...mathJudgeConfigShape,
  use_chat_completions_for_judge: z.boolean().default(false),
  /** A prompt YAML (`user`, optional `system`) with {problem}, {generation}, {expected_answer}. */
  judge_prompt_path: z.string().min(1).default(DEFAULT_PROMPT_PATH),
  /**
   * Gymkit's: the verdict is the label found LAST in the judge's reply (where the prompt asks for it),
   * not NeMo Gym's reading, so a label the judge quotes from the answer does not decide. Off: NeMo Gym's reward.
   */
  strict: z.boolean().default(false),
});

export default defineEnvironment({
  id: "physics_judge",
  description: "Physics answers checked by math-verify, then (on a miss) by NeMo Skills' [Correct]/[Incorrect] physics judge.",
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
    // NeMo Skills' physics judge reads the whole generation, not an extracted answer.
    const messages = fillJudgePrompt(ctx.resources.prompt, { problem: request.question, generation: generated, expected_answer: request.expected_answer });
    const judge = JudgeClient.for(ctx, config.judge_model_server, request, { timeoutSeconds: config.judge_timeout_seconds });
    const call = await askSkillsJudge(judge, config.judge_responses_create_params, messages, config.use_chat_completions_for_judge);
    return { reward: physicsVerdict(call.text, config.strict) ? 1.0 : 0.0, ...fields, judge_evaluations: [call.evaluation] };
  },
  // math_with_judge's metrics, and the same per `domain` when any row carries one.
  aggregateMetrics: (rows, ctx) => mathMetrics(rows, ctx.defaults(rows), { subsetKey: rows.some((r) => "domain" in r) ? "domain" : undefined }),
});
