// math_with_judge: NeMo Gym's math environment. The model's text is checked against the expected
// answer symbolically (math-verify 0.8.0 as NeMo Gym configures it, in a worker pool with a hard
// deadline); if that fails and `should_use_judge` is on, an LLM judge is asked whether the two
// answers are equivalent, twice with the order swapped, and both must say so.
import { z } from "zod";
import { outputText, ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { JudgeCallFields, judgeCallOptions, JudgeClient } from "../../judge/index.js";
import { judgeMathEquivalence } from "../../verifiers/math/judge.js";
import { MathVerifierPool } from "../../verifiers/math/pool.js";
import { mathMetrics } from "../../verifiers/math/metrics.js";
import { defineEnvironment } from "../../environment_kit/define.js";

const Config = z.strictObject({
  judge_model_server: ServerRef,
  judge_responses_create_params: ResponsesCreateParams,
  /** NeMo Gym's code default is true; the shipped config sets false. */
  should_use_judge: z.boolean().default(true),
  library_verifier_timeout_seconds: z.number().positive().default(10.0),
  library_verifier_max_concurrency: z.number().int().positive().default(32),
  /** Deadline and retries of one judge call (Gymkit extensions; NeMo Gym uses its client defaults). */
  ...JudgeCallFields,
});
type Config = z.output<typeof Config>;

export default defineEnvironment({
  id: "math_with_judge",
  description: "Math answers checked symbolically (math-verify 0.8.0 as NeMo Gym uses it), with an optional LLM judge.",
  configSchema: Config,
  rowFields: {
    question: z.string(),
    expected_answer: z.string(),
  },
  reverifyMode: "stateless",
  // One verifier pool per instance, closed with its server.
  setup: ({ config }) => new MathVerifierPool({ size: config.library_verifier_max_concurrency, timeoutMs: config.library_verifier_timeout_seconds * 1000 }),
  teardown: (pool) => pool.close(),
  verify: async (request, ctx) => {
    const config = ctx.config;
    const generated = outputText(request.response);
    const verdict = await ctx.resources.verify(request.expected_answer, generated);
    const libraryReward = verdict.reward;
    const extracted = verdict.extracted;
    if (!config.should_use_judge || libraryReward > 0.5) {
      return { reward: libraryReward, expected_answer: request.expected_answer, extracted_answer: extracted, library_reward: libraryReward, judge_evaluations: null };
    }
    const answer = extracted ? extracted : generated;
    const judge = JudgeClient.for(ctx, config.judge_model_server, request, judgeCallOptions(config));
    const { reward, evaluations } = await judgeMathEquivalence(judge, config.judge_responses_create_params, request.question, request.expected_answer, answer);
    return { reward, expected_answer: request.expected_answer, extracted_answer: extracted, library_reward: libraryReward, judge_evaluations: evaluations };
  },
  aggregateMetrics: (rows, ctx) => mathMetrics(rows, ctx.defaults(rows)),
});
