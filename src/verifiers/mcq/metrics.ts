// mcqa's `/aggregate_metrics` (NeMo Gym's MCQAResourcesServer.compute_metrics / get_key_metrics at
// commit 07d6b0d): pass@k, majority@k and no_answer on `extracted_answer`, scored by the reward, on top
// of the default statistics. Shared with the environments NeMo Gym derives from mcqa (gpqa_diamond,
// bunsenbench_chemistry_mcq), which inherit it.
import type { AggregateResult } from "../../metrics/aggregate.js";
import { highestK, passAtKMetrics } from "../../metrics/pass_at_k.js";

export function pickMetrics(metrics: Record<string, number>, keys: readonly string[]): Record<string, number> {
  return Object.fromEntries(keys.filter((k) => k in metrics).map((k) => [k, metrics[k]!]));
}

/** mcqa's key metrics, in NeMo Gym's order, from the agent metrics. */
export function mcqaKeyMetrics(agentMetrics: Record<string, number>): Record<string, number> {
  const avgK = highestK(agentMetrics, "avg");
  const passK = highestK(agentMetrics, "pass");
  const majorityK = highestK(agentMetrics, "majority");
  return pickMetrics(agentMetrics, [
    "mean/reward",
    `pass@1[avg-of-${avgK}]/accuracy`,
    `pass@1[avg-of-${avgK}]/no_answer`,
    `pass@${passK}/no_answer`,
    `majority@${majorityK}/accuracy`,
    "pass@1/accuracy",
  ]);
}

/** The pass/majority metrics of a set of rows, scored by reward, voting on `extracted_answer`. */
export function mcqaPassMetrics(rows: Array<Record<string, unknown>>) {
  return passAtKMetrics(rows, {
    scores: (row) => ({ accuracy: typeof row.reward === "number" ? row.reward : null }),
    answerKey: "extracted_answer",
  });
}

/** mcqa's metrics over `rows`, built on `base` (the default aggregation of the same rows). */
export function mcqaAggregateMetrics(rows: Array<Record<string, unknown>>, base: AggregateResult): AggregateResult {
  const { metrics, per_sample_aggregate, metric_weights } = mcqaPassMetrics(rows);
  const agent_metrics = { ...base.agent_metrics, ...metrics };
  return { ...base, agent_metrics, key_metrics: mcqaKeyMetrics(agent_metrics), per_sample_aggregate, metric_weights };
}
