// simpleqa's aggregate metrics (NeMo Gym resources_servers/simpleqa/app.py compute_metrics and
// get_key_metrics, 07d6b0d): pass@k / pass@1[avg-of-k] / majority@k of three verdict channels
// (correct, incorrect, not_attempted; majority voting on extracted_answer), then for every
// aggregation that has both `/correct` and `/incorrect`: accuracy_given_attempted = correct /
// (correct + incorrect) and f1 = 2·P·R / (P + R) with P that accuracy and R = correct (fractions,
// reported ×100; 0 when undefined). Key metrics: mean token counts, the highest-k pass@1[avg-of-k]
// entries and the highest-k pass@k entries but no_answer.
import type { AggregateResult } from "../../metrics/aggregate.js";
import { highestKMetrics } from "../../metrics/highest_k.js";
import { passAtKMetrics } from "../../metrics/pass_at_k.js";

/** The three verdict channels of one verify response (a missing verdict counts as not_attempted). */
function channels(row: Record<string, unknown>): Record<string, number> {
  const verdict = "verdict" in row ? row.verdict : "not_attempted";
  return {
    correct: verdict === "correct" ? 1 : 0,
    incorrect: verdict === "incorrect" ? 1 : 0,
    not_attempted: verdict === "not_attempted" ? 1 : 0,
  };
}

/** Adds `<agg>/f1` and `<agg>/accuracy_given_attempted` for each aggregation with correct and incorrect. */
export function addF1(metrics: Record<string, number>): void {
  for (const key of Object.keys(metrics)) {
    if (!key.includes("/correct")) continue;
    const agg = key.slice(0, key.lastIndexOf("/correct"));
    const incorrectKey = `${agg}/incorrect`;
    if (!(incorrectKey in metrics)) continue;
    const correct = metrics[`${agg}/correct`]! / 100;
    const incorrect = metrics[incorrectKey]! / 100;
    const attempted = correct + incorrect;
    const accuracy = attempted > 0 ? correct / attempted : 0;
    const denominator = accuracy + correct;
    const f1 = denominator > 0 ? (2 * accuracy * correct) / denominator : 0;
    metrics[`${agg}/f1`] = 100 * f1;
    metrics[`${agg}/accuracy_given_attempted`] = 100 * accuracy;
  }
}

export function simpleqaMetrics(rows: Array<Record<string, unknown>>, defaults: AggregateResult): AggregateResult {
  if (rows.length === 0) return defaults;
  const { metrics, per_sample_aggregate, metric_weights } = passAtKMetrics(rows, { scores: channels, answerKey: "extracted_answer" });
  addF1(metrics);
  const agent_metrics = { ...defaults.agent_metrics, ...metrics };
  const key_metrics: Record<string, number> = {};
  for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agent_metrics) key_metrics[name] = agent_metrics[name]!;
  Object.assign(key_metrics, highestKMetrics(agent_metrics, "pass@1[avg-of-{k}]"), highestKMetrics(agent_metrics, "pass@{k}", undefined, ["no_answer"]));
  return { agent_metrics, key_metrics, group_level_metrics: defaults.group_level_metrics, per_sample_aggregate, metric_weights };
}
