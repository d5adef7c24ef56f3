// The /aggregate_metrics override NeMo Gym's code environments share (07d6b0d: evalplus, code_fim):
// pass@k, pass@1[avg-of-k] and majority@k of the environment's scores on its answer key, added to the
// default statistics; key metrics are the mean token counts and, for those scores, the entries of the
// highest k of each family (never the spread statistics).
import type { AggregateResult } from "./aggregate.js";
import { highestKMetrics } from "./highest_k.js";
import { passAtKMetrics } from "./pass_at_k.js";

/** The override's result for scores `scores(row)` with answer key `answerKey`. */
export function passMajorityAggregate(
  rows: Array<Record<string, unknown>>,
  defaults: AggregateResult,
  scores: (row: Record<string, unknown>) => Record<string, number>,
  answerKey: string,
): AggregateResult {
  const { metrics, per_sample_aggregate, metric_weights } = passAtKMetrics(rows, { scores, answerKey });
  const agent_metrics: Record<string, number> = { ...defaults.agent_metrics, ...metrics };
  const names = Object.keys(scores(rows[0] ?? {}));
  const key_metrics: Record<string, number> = {};
  for (const usage of ["mean/input_tokens", "mean/output_tokens"]) if (usage in agent_metrics) key_metrics[usage] = agent_metrics[usage]!;
  for (const pattern of ["pass@1[avg-of-{k}]", "pass@{k}", "majority@{k}"]) Object.assign(key_metrics, highestKMetrics(agent_metrics, pattern, names));
  return { agent_metrics, key_metrics, group_level_metrics: defaults.group_level_metrics, per_sample_aggregate, metric_weights };
}
