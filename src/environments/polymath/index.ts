// polymath: NeMo Gym's PolyMath benchmark server, math_with_judge's verification (math-verify's
// symbolic check, with the LLM-judge fallback when `should_use_judge` is on; the shipped config keeps it
// off) plus the row's difficulty `weight` and `language` carried into the reply, and metrics that add
// per-language and difficulty-weighted pass@k / majority@k (metrics.ts).
// Behaviour matched to NeMo Gym's resources_servers/polymath/app.py (and the math_with_judge it
// subclasses) at commit 07d6b0d.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { outputText, ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { JudgeCallFields, judgeCallOptions, JudgeClient } from "../../judge/index.js";
import { judgeMathEquivalence } from "../../verifiers/math/judge.js";
import { MathVerifierPool } from "../../verifiers/math/pool.js";
import { highestKMetrics } from "../../metrics/highest_k.js";
import { computePassMajorityMetrics, computeSubsetMetrics, computeWeightedMetrics, groupByTask, mathScores } from "./metrics.js";

const Config = z.strictObject({
  judge_model_server: ServerRef,
  judge_responses_create_params: ResponsesCreateParams,
  /** NeMo Gym's code default is true; the shipped config sets false. */
  should_use_judge: z.boolean().default(true),
  library_verifier_timeout_seconds: z.number().positive().default(10.0),
  library_verifier_max_concurrency: z.number().int().positive().default(32),
  ...JudgeCallFields,
});
type Config = z.output<typeof Config>;

export default defineEnvironment({
  id: "polymath",
  description: "PolyMath multilingual math: math-verify's symbolic check (optional LLM judge), with difficulty-weighted and per-language metrics.",
  configSchema: Config,
  rowFields: {
    question: z.string(),
    expected_answer: z.string(),
    weight: z.number().nullable().default(null),
    language: z.string().nullable().default(null),
  },
  reverifyMode: "stateless",
  setup: ({ config }) => new MathVerifierPool({ size: config.library_verifier_max_concurrency, timeoutMs: config.library_verifier_timeout_seconds * 1000 }),
  teardown: (pool) => pool.close(),
  verify: async (request, ctx) => {
    const config = ctx.config;
    const carried = { weight: request.weight, language: request.language };
    const generated = outputText(request.response);
    const verdict = await ctx.resources.verify(request.expected_answer, generated);
    const libraryReward = verdict.reward;
    const extracted = verdict.extracted;
    if (!config.should_use_judge || libraryReward > 0.5) {
      return { reward: libraryReward, expected_answer: request.expected_answer, extracted_answer: extracted, library_reward: libraryReward, judge_evaluations: null, ...carried };
    }
    const answer = extracted ? extracted : generated;
    const judge = JudgeClient.for(ctx, config.judge_model_server, request, judgeCallOptions(config));
    const { reward, evaluations } = await judgeMathEquivalence(judge, config.judge_responses_create_params, request.question, request.expected_answer, answer);
    return { reward, expected_answer: request.expected_answer, extracted_answer: extracted, library_reward: libraryReward, judge_evaluations: evaluations, ...carried };
  },
  aggregateMetrics: (rows, ctx) => {
    const base = ctx.defaults(rows);
    if (rows.length === 0) return base;
    // Rollouts of a task in rollout order, so that avg-of-k and majority@k do not depend on arrival.
    const rolloutOf = (r: Record<string, unknown>) => (typeof r._ng_rollout_index === "number" ? r._ng_rollout_index : 0);
    const tasks = groupByTask(rows).map((task) => [...task].sort((a, b) => rolloutOf(a) - rolloutOf(b)));
    const pooled = computePassMajorityMetrics(tasks, mathScores, "extracted_answer");
    const custom = {
      ...pooled.metrics,
      ...computeSubsetMetrics(tasks, "language", mathScores, "extracted_answer"),
      ...computeWeightedMetrics(tasks, mathScores, "extracted_answer"),
    };
    const agent_metrics = { ...base.agent_metrics, ...custom };
    const key_metrics: Record<string, number> = {};
    for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agent_metrics) key_metrics[name] = agent_metrics[name]!;
    Object.assign(
      key_metrics,
      highestKMetrics(agent_metrics, "pass@1[avg-of-{k}]"),
      highestKMetrics(agent_metrics, "pass@{k}", undefined, ["no_answer"]),
      highestKMetrics(agent_metrics, "majority@{k}", undefined, ["no_answer"]),
    );
    return { agent_metrics, key_metrics, group_level_metrics: base.group_level_metrics, per_sample_aggregate: pooled.per_sample_aggregate };
  },
});
