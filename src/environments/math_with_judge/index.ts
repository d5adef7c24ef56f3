// math_with_judge: NeMo Gym's math environment. The model's text is checked against the expected
// answer symbolically (math-verify 0.8.0 as NeMo Gym configures it, in a worker pool with a hard
// deadline); if that fails and `should_use_judge` is on, an LLM judge is asked whether the two
// answers are equivalent, twice with the order swapped, and both must say so.
import { z } from "zod";
import type { AggregateResult } from "../../metrics/aggregate.js";
import { highestKMetrics } from "../../metrics/highest_k.js";
import { passAtKMetrics } from "../../metrics/pass_at_k.js";
import { outputText, ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { callJudge, finalJudgeText, firstLabelIs, JudgeFailure, judgeRequest, type JudgeEvaluation } from "../../verifiers/judge.js";
import { MathVerifierPool } from "../../verifiers/math/pool.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { JUDGE_EQUAL, JUDGE_NOT_EQUAL, JUDGE_SYSTEM_PROMPT, judgeUserPrompt } from "../../verifiers/math/judge_prompt.js";

const Config = z.strictObject({
  judge_model_server: ServerRef,
  judge_responses_create_params: ResponsesCreateParams,
  /** NeMo Gym's code default is true; the shipped config sets false. */
  should_use_judge: z.boolean().default(true),
  library_verifier_timeout_seconds: z.number().positive().default(10.0),
  library_verifier_max_concurrency: z.number().int().positive().default(32),
  /** Deadline of one judge call (a Gymkit extension; NeMo Gym uses its client default). */
  judge_timeout_seconds: z.number().positive().default(600),
});
type Config = z.output<typeof Config>;

/** Judge calls retry transient failures briefly; past that the rollout is a `judge_failed` failure. */
const JUDGE_RETRY = { attempts: 3, initialDelayMs: 250, maxDelayMs: 2_000 };

/** `a` vs `b` by the judge: true only if its final text says [[A=B]] first. */
async function judgeOnce(config: Config, baseUrl: string, question: string, a: string, b: string): Promise<{ equal: boolean; evaluation: JudgeEvaluation }> {
  const params = judgeRequest(config.judge_responses_create_params, JUDGE_SYSTEM_PROMPT, judgeUserPrompt(question, a, b));
  const evaluation = await callJudge(params, { baseUrl, timeoutMs: config.judge_timeout_seconds * 1000, retry: JUDGE_RETRY });
  return { equal: firstLabelIs(finalJudgeText(evaluation.response), JUDGE_EQUAL, JUDGE_NOT_EQUAL), evaluation };
}

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
    const evaluations: JudgeEvaluation[] = [];
    let reward = 0;
    try {
      const baseUrl = ctx.urlOf(config.judge_model_server);
      const first = await judgeOnce(config, baseUrl, request.question, request.expected_answer, answer);
      evaluations.push(first.evaluation);
      if (first.equal) {
        const second = await judgeOnce(config, baseUrl, request.question, answer, request.expected_answer);
        evaluations.push(second.evaluation);
        reward = second.equal ? 1.0 : 0.0;
      }
    } catch (error) {
      if (!(error instanceof JudgeFailure)) throw error;
      // Not a zero: the judge could not be asked. The collector records it as a failure.
      return { reward: 0.0, _ng_failure_class: "judge_failed", _ng_failure_judge_error: error.describe() };
    }
    return { reward, expected_answer: request.expected_answer, extracted_answer: extracted, library_reward: libraryReward, judge_evaluations: evaluations };
  },
  aggregateMetrics: (rows, ctx) => mathMetrics(rows, ctx.defaults(rows)),
});

/**
 * symbolic_accuracy (every row) and judge_accuracy (rows the judge saw) with pass@k and majority@k
 * on extracted_answer. Key metrics as NeMo Gym's get_key_metrics (07d6b0d): mean tokens, every
 * highest-k pass@1[avg-of-k] entry, and the highest-k pass@k and majority@k entries but no_answer.
 */
export function mathMetrics(rows: Array<Record<string, unknown>>, defaults: AggregateResult): AggregateResult {
  const { metrics, per_sample_aggregate, metric_weights } = passAtKMetrics(rows, {
    scores: (row) => ({
      symbolic_accuracy: typeof row.library_reward === "number" ? row.library_reward : undefined,
      judge_accuracy: row.judge_evaluations !== null && row.judge_evaluations !== undefined && typeof row.reward === "number" ? row.reward : undefined,
    }),
    answerKey: "extracted_answer",
  });
  const agent_metrics = { ...defaults.agent_metrics, ...metrics };
  const key_metrics: Record<string, number> = {};
  for (const usage of ["input_tokens", "output_tokens"]) {
    const value = agent_metrics[`mean/${usage}`];
    if (value !== undefined) key_metrics[`mean/${usage}`] = value;
  }
  Object.assign(
    key_metrics,
    highestKMetrics(metrics, "pass@1[avg-of-{k}]"),
    highestKMetrics(metrics, "pass@{k}", undefined, ["no_answer"]),
    highestKMetrics(metrics, "majority@{k}", undefined, ["no_answer"]),
  );
  return { agent_metrics, key_metrics, group_level_metrics: defaults.group_level_metrics, per_sample_aggregate, metric_weights };
}
