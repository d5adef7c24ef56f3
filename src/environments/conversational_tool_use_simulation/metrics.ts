// NeMo Gym 07d6b0d's `compute_metrics` and `get_key_metrics` of conversational_tool_use_simulation:
// rates over every rollout of the run (not per task) — transfers, transfer/ground-truth mismatches,
// judge skips for a mismatch, and rollouts with at least one tool-schema, user, agent or tool failure —
// added to the default statistics; the key metrics are the mean reward and these rates.
const PREFIX = "conversational_tool_use";

export function conversationalMetrics(rows: ReadonlyArray<Record<string, unknown>>): Record<string, number> {
  if (rows.length === 0) return {};
  const rate = (hit: (row: Record<string, unknown>) => boolean) => rows.filter(hit).length / rows.length;
  const positive = (key: string) => (row: Record<string, unknown>) => typeof row[key] === "number" && (row[key] as number) > 0;
  return {
    [`${PREFIX}/transfer_rate`]: rate((row) => row.transferred === true),
    [`${PREFIX}/transfer_ground_truth_mismatch_rate`]: rate((row) => row.transfer_ground_truth_mismatch === true),
    [`${PREFIX}/transfer_mismatch_judge_skip_rate`]: rate((row) => row.judge_skipped_for_transfer_mismatch === true),
    [`${PREFIX}/tool_schema_failure_rate`]: rate(positive("num_tool_schema_failures")),
    [`${PREFIX}/user_failure_rate`]: rate(positive("num_user_failures")),
    [`${PREFIX}/agent_failure_rate`]: rate(positive("num_agent_failures")),
    [`${PREFIX}/tool_failure_rate`]: rate(positive("num_tool_failures")),
  };
}

const KEY_METRICS = [
  "mean/reward",
  "reward/mean",
  `${PREFIX}/transfer_rate`,
  `${PREFIX}/transfer_ground_truth_mismatch_rate`,
  `${PREFIX}/transfer_mismatch_judge_skip_rate`,
  `${PREFIX}/tool_schema_failure_rate`,
  `${PREFIX}/user_failure_rate`,
  `${PREFIX}/agent_failure_rate`,
  `${PREFIX}/tool_failure_rate`,
];

export function keyMetrics(agentMetrics: Record<string, number>): Record<string, number> {
  return Object.fromEntries(KEY_METRICS.filter((key) => key in agentMetrics).map((key) => [key, agentMetrics[key]!]));
}
