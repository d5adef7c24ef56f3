// The aggregate metrics of NeMo Gym's math_with_judge family (NVIDIA-NeMo/Gym 07d6b0d: math_with_judge,
// math_with_autograder, physics_judge, ugphysics_judge, and frontierscience_judge, which computes its
// metrics the same way): pass@k, pass@1[avg-of-k] and majority@k of the server's scores on its answer
// key (nemo_gym/reward_profile.py compute_pass_majority_metrics), optionally the same per subset of
// tasks (compute_subset_metrics), merged into the default statistics. Key metrics (get_key_metrics):
// the mean token counts, every highest-k pass@1[avg-of-k] entry, and the highest-k pass@k and
// majority@k entries except no_answer.
import type { AggregateResult } from "../../metrics/aggregate.js";
import { highestKMetrics } from "../../metrics/highest_k.js";
import { passAtKMetrics, type Scores } from "../../metrics/pass_at_k.js";
import { subsetPassMetrics } from "../../metrics/subsets.js";

type Row = Record<string, unknown>;

export interface MathMetricsOptions {
  /** The server's score function (default: math_with_judge's `_math_score_fn`). */
  scores?: (row: Row) => Scores;
  /** The answer majority@k votes on (default `extracted_answer`). */
  answerKey?: string;
  /** Also per subset of tasks by this field (the tasks' first rollout's value; falsy values belong to none). */
  subsetKey?: string;
}

/** math_with_judge's `_math_score_fn`: library_reward as symbolic_accuracy; the reward as judge_accuracy where the judge was asked. */
export function mathScores(row: Row): Scores {
  const scores: Scores = {};
  if ("library_reward" in row) scores.symbolic_accuracy = typeof row.library_reward === "number" ? row.library_reward : undefined;
  if (row.judge_evaluations !== null && row.judge_evaluations !== undefined) scores.judge_accuracy = typeof row.reward === "number" ? row.reward : undefined;
  return scores;
}

export function mathMetrics(rows: Row[], defaults: AggregateResult, options: MathMetricsOptions = {}): AggregateResult {
  const passOptions = { scores: options.scores ?? mathScores, answerKey: options.answerKey ?? "extracted_answer" };
  const { metrics, per_sample_aggregate, metric_weights } = passAtKMetrics(rows, passOptions);
  const agent_metrics: Record<string, number> = { ...defaults.agent_metrics, ...metrics };
  const weights = { ...metric_weights.metrics };
  if (options.subsetKey) {
    const bySubset = subsetPassMetrics(rows, options.subsetKey, passOptions);
    Object.assign(agent_metrics, bySubset.metrics);
    Object.assign(weights, bySubset.weights);
  }
  const key_metrics: Record<string, number> = {};
  for (const usage of ["mean/input_tokens", "mean/output_tokens"]) {
    const value = agent_metrics[usage];
    if (value !== undefined) key_metrics[usage] = value;
  }
  Object.assign(
    key_metrics,
    highestKMetrics(agent_metrics, "pass@1[avg-of-{k}]"),
    highestKMetrics(agent_metrics, "pass@{k}", undefined, ["no_answer"]),
    highestKMetrics(agent_metrics, "majority@{k}", undefined, ["no_answer"]),
  );
  return {
    agent_metrics,
    key_metrics,
    group_level_metrics: defaults.group_level_metrics,
    per_sample_aggregate,
    metric_weights: { metrics: weights, per_sample: metric_weights.per_sample },
  };
}
