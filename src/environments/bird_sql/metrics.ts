// bird_sql's `/aggregate_metrics`, as NeMo Gym's server computes it at 07d6b0d: the reward profiler's
// defaults, plus pass@k / majority@k of `accuracy` (reward > 0) with `extracted_sql` as the answer,
// overall and per `difficulty` (`simple/pass@1/accuracy`, …); key metrics: token means, the highest-k
// pass@1[avg-of-k] and pass@k accuracy, and each difficulty's highest-k pass@1[avg-of-k] accuracy.
import type { AggregateResult } from "../../metrics/aggregate.js";
import { passAtKMetrics } from "../../metrics/pass_at_k.js";

const score = (row: Record<string, unknown>) => ({ accuracy: typeof row.reward === "number" && row.reward > 0 ? 1 : 0 });

/** Rows grouped by task, in first-seen order; the subset is the first rollout's `difficulty`. */
function subsets(rows: Array<Record<string, unknown>>): Map<string, Array<Record<string, unknown>>> {
  const tasks = new Map<unknown, Array<Record<string, unknown>>>();
  rows.forEach((row, i) => {
    const task = typeof row._ng_task_index === "number" ? row._ng_task_index : `row${i}`;
    const list = tasks.get(task) ?? [];
    list.push(row);
    tasks.set(task, list);
  });
  const bySubset = new Map<string, Array<Record<string, unknown>>>();
  const rollout = (r: Record<string, unknown>) => (typeof r._ng_rollout_index === "number" ? r._ng_rollout_index : 0);
  for (const list of [...tasks.entries()].sort(([a], [b]) => (typeof a === "number" && typeof b === "number" ? a - b : 0)).map(([, l]) => l)) {
    const first = [...list].sort((a, b) => rollout(a) - rollout(b))[0]!;
    const value = first.difficulty;
    if (typeof value !== "string" || value === "") continue;
    bySubset.set(value, [...(bySubset.get(value) ?? []), ...list]);
  }
  return bySubset;
}

/** NeMo Gym's `highest_k_metrics`: the entries of `pattern` (with {k}) at its highest k, for `accuracy`. */
export function highestKAccuracy(metrics: Record<string, number>, pattern: string): Record<string, number> {
  const escaped = pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace("\\{k\\}", "(\\d+)");
  const regex = new RegExp(`^${escaped}/(.+)$`);
  const matches: Array<[number, string]> = [];
  for (const key of Object.keys(metrics)) {
    const m = regex.exec(key);
    if (m && m[2] === "accuracy") matches.push([Number(m[1]), key]);
  }
  if (matches.length === 0) return {};
  const top = Math.max(...matches.map(([k]) => k));
  return Object.fromEntries(matches.filter(([k]) => k === top).map(([, key]) => [key, metrics[key]!]));
}

export function birdMetrics(rows: Array<Record<string, unknown>>, defaults: AggregateResult): AggregateResult {
  const overall = passAtKMetrics(rows, { scores: score, answerKey: "extracted_sql" });
  const agent_metrics: Record<string, number> = { ...defaults.agent_metrics, ...overall.metrics };
  for (const [name, subsetRows] of subsets(rows)) {
    for (const [key, value] of Object.entries(passAtKMetrics(subsetRows, { scores: score, answerKey: "extracted_sql" }).metrics)) agent_metrics[`${name}/${key}`] = value;
  }
  const key_metrics: Record<string, number> = {};
  for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agent_metrics) key_metrics[name] = agent_metrics[name]!;
  Object.assign(key_metrics, highestKAccuracy(agent_metrics, "pass@1[avg-of-{k}]"), highestKAccuracy(agent_metrics, "pass@{k}"));
  const prefixes = new Set(Object.keys(agent_metrics).filter((k) => k.includes("/pass@") && /^[a-z]/.test(k)).map((k) => k.split("/pass@")[0]!));
  for (const prefix of prefixes) Object.assign(key_metrics, highestKAccuracy(agent_metrics, `${prefix}/pass@1[avg-of-{k}]`));
  return { ...defaults, agent_metrics, key_metrics, per_sample_aggregate: overall.per_sample_aggregate, metric_weights: overall.metric_weights };
}
