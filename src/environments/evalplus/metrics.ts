// evalplus' /aggregate_metrics, as NeMo Gym 07d6b0d overrides it: pass@k, pass@1[avg-of-k] and
// majority@k of `passing_base_tests` and `passing_plus_tests` (answer key `extracted_model_code`)
// added to the default statistics; key metrics are the mean token counts and, for those two scores,
// the entries of the highest k of each family (never the spread statistics).
import type { AggregateResult } from "../../metrics/aggregate.js";
import { passAtKMetrics } from "../../metrics/pass_at_k.js";

const SPREAD = ["std_dev_across_runs", "std_err_across_runs", "avg_sample_std_dev"];

/** NeMo Gym's `highest_k_metrics(metrics, pattern, score_names)`. */
export function highestKEntries(metrics: Record<string, number>, pattern: "pass@1[avg-of-{k}]" | "pass@{k}" | "majority@{k}", scoreNames: readonly string[]): Record<string, number> {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const regex = new RegExp(`^${pattern.split("{k}").map(escape).join("(\\d+)")}/(.+)$`);
  const matches: Array<[number, string]> = [];
  for (const key of Object.keys(metrics)) {
    const m = regex.exec(key);
    if (!m) continue;
    const score = m[2]!;
    if (SPREAD.some((suffix) => score.endsWith(suffix)) || !scoreNames.includes(score)) continue;
    matches.push([Number(m[1]), key]);
  }
  if (matches.length === 0) return {};
  const top = Math.max(...matches.map(([k]) => k));
  return Object.fromEntries(matches.filter(([k]) => k === top).map(([, key]) => [key, metrics[key]!]));
}

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
  for (const pattern of ["pass@1[avg-of-{k}]", "pass@{k}", "majority@{k}"] as const) Object.assign(key_metrics, highestKEntries(agent_metrics, pattern, names));
  return { agent_metrics, key_metrics, group_level_metrics: defaults.group_level_metrics, per_sample_aggregate, metric_weights };
}
