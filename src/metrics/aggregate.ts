// Default `/aggregate_metrics`, as NeMo Gym's reward profiler computes it (matched against
// NVIDIA-NeMo/Gym 07d6b0d, nemo_gym/reward_profile.py `RewardProfiler.profile_from_data` and
// `compute_aggregate_metrics`):
// - the measurements of a rollout are every numeric and boolean (as 0/1) top-level field of its verify
//   response, then every numeric field of `response.usage` (so `input_tokens`, not `usage/input_tokens`;
//   a usage field replaces a top-level field of the same name);
// - each measurement gets mean/max/min/median/std, named stat first, in the order
//   `mean/<every field>`, `max/<every field>`, … (pandas' describe, stacked);
// - per task, an entry with those statistics plus `sample`, `num_rollouts`, `expected_num_rollouts`,
//   `missing_num_rollouts`, `reward_profile_completion_pct` and one `rollout_infos` entry per rollout.
import type { MetricWeights } from "./pass_at_k.js";
import { NumberColumn, summarize } from "./stats.js";

export interface AggregateResult {
  agent_metrics: Record<string, number>;
  key_metrics: Record<string, number>;
  group_level_metrics: Array<Record<string, unknown>>;
  /** Per score, the mean of each run (rollout index) across tasks, as the pass/majority helper gives it. */
  per_sample_aggregate?: Record<string, number[]>;
  /** How many tasks each averaged value covers (Gymkit extension; see pass_at_k.ts). */
  metric_weights?: MetricWeights;
}

/**
 * How an environment's `/aggregate_metrics` may be called over a run, as `GET /aggregate_metrics_scope`
 * answers (a Gymkit route; an environment without it, such as a NeMo Gym Python server, is "chunked"):
 * "chunked" — per chunk of whole tasks, the chunks' results merged (metrics/chunk_merge.ts);
 * "whole_run" — once, over every rollout of the run (metrics no merge of chunks reproduces).
 */
export type AggregateMetricsScope = "chunked" | "whole_run";

/** Bookkeeping fields that are numbers but not measurements. */
const SKIPPED_FIELDS = new Set(["_ng_task_index", "_ng_rollout_index", "_ng_attempt_index"]);
const STATS = ["mean", "max", "min", "median", "std"] as const;

function usageOf(row: Record<string, unknown>): Record<string, unknown> | undefined {
  const usage = (row.response as { usage?: unknown } | null | undefined)?.usage;
  return usage && typeof usage === "object" && !Array.isArray(usage) ? (usage as Record<string, unknown>) : undefined;
}

function measurement(value: unknown): number | undefined {
  if (typeof value === "boolean") return value ? 1 : 0;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The numeric measurements of one verify response, as `name → value`, in NeMo Gym's column order. */
export function numericFields(row: Record<string, unknown>): Array<[string, number]> {
  const fields = new Map<string, number>();
  for (const [key, value] of Object.entries(row)) {
    if (SKIPPED_FIELDS.has(key)) continue;
    const v = measurement(value);
    if (v !== undefined) fields.set(key, v);
  }
  for (const [key, value] of Object.entries(usageOf(row) ?? {})) {
    if (SKIPPED_FIELDS.has(key)) continue;
    const v = measurement(value);
    if (v !== undefined) fields.set(key, v);
  }
  return [...fields];
}

/**
 * One rollout's line in a task's `rollout_infos`: its ids, reward, token usage and other numeric
 * fields (booleans as 0/1), with the values as the verify response gave them.
 */
export function rolloutInfo(row: Record<string, unknown>): Record<string, unknown> {
  const task = Number(row._ng_task_index ?? 0);
  const rollout = Number(row._ng_rollout_index ?? 0);
  const info: Record<string, unknown> = { rollout_id: `${task}:${rollout}`, _ng_task_index: task, _ng_rollout_index: rollout };
  if ("reward" in row) info.reward = row.reward;
  const take = (key: string, value: unknown) => {
    if (typeof value === "boolean") info[key] = value ? 1 : 0;
    else if (typeof value === "number") info[key] = value;
  };
  for (const [key, value] of Object.entries(usageOf(row) ?? {})) take(key, value);
  for (const [key, value] of Object.entries(row)) {
    if (key !== "_ng_task_index" && key !== "_ng_rollout_index" && key !== "reward" && key !== "response") take(key, value);
  }
  return info;
}

/**
 * The `rollout_infos` keys whose values are ints, not floats: token counts (the usage's numbers)
 * and booleans counted as 0/1. Every other number of a verify response is a float in NeMo Gym's models.
 */
export function rolloutInfoIntKeys(rows: Iterable<Record<string, unknown>>): Set<string> {
  const keys = new Set<string>();
  for (const row of rows) {
    for (const [key, value] of Object.entries(usageOf(row) ?? {})) if (typeof value === "number" || typeof value === "boolean") keys.add(key);
    for (const [key, value] of Object.entries(row)) if (typeof value === "boolean") keys.add(key);
  }
  return keys;
}

/** Accumulates columns of measurements; adding a row costs a few numbers, never the row itself. */
export class MetricsAccumulator {
  private readonly columns = new Map<string, NumberColumn>();
  count = 0;

  add(row: Record<string, unknown>): void {
    this.count++;
    for (const [key, value] of numericFields(row)) {
      let column = this.columns.get(key);
      if (!column) this.columns.set(key, (column = new NumberColumn()));
      column.push(value);
    }
  }

  /** `{"mean/reward": …, "mean/input_tokens": …, …, "max/reward": …, …}`: statistic first, fields in order of first appearance. */
  summary(): Record<string, number> {
    const summaries = [...this.columns].map(([key, column]) => [key, summarize(column.values())] as const);
    const out: Record<string, number> = {};
    for (const stat of STATS) {
      for (const [key, s] of summaries) if (s) out[`${stat}/${key}`] = s[stat];
    }
    return out;
  }
}

/**
 * A task's entry in `group_level_metrics`, in NeMo Gym's key order. `expected` is how many rollouts
 * the task should have had (NeMo Gym's environments count the ones they were given).
 */
export function groupEntry(task: number, stats: Record<string, number>, rows: ReadonlyArray<Record<string, unknown>>, expected = rows.length): Record<string, unknown> {
  const infos = rows.map(rolloutInfo).sort((a, b) => (a._ng_rollout_index as number) - (b._ng_rollout_index as number));
  return {
    _ng_task_index: task,
    ...stats,
    // NeMo Gym's environments profile under one placeholder agent name, and say so here.
    sample: { agent_ref: { name: "agent" } },
    num_rollouts: rows.length,
    expected_num_rollouts: expected,
    missing_num_rollouts: expected - rows.length,
    reward_profile_completion_pct: expected === 0 ? 100 : (100 * rows.length) / expected,
    rollout_infos: infos,
  };
}

/** Key metrics by default: every `mean/*`. */
export function keyMetrics(agentMetrics: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(agentMetrics).filter(([k]) => k.startsWith("mean/")));
}

export function aggregateMetrics(verifyResponses: Array<Record<string, unknown>>): AggregateResult {
  const overall = new MetricsAccumulator();
  const perTask = new Map<number, Array<Record<string, unknown>>>();
  for (const row of verifyResponses) {
    overall.add(row);
    const task = typeof row._ng_task_index === "number" ? row._ng_task_index : 0;
    let rows = perTask.get(task);
    if (!rows) perTask.set(task, (rows = []));
    rows.push(row);
  }
  const agent_metrics = overall.summary();
  const group_level_metrics = [...perTask.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([task, rows]) => {
      const acc = new MetricsAccumulator();
      for (const row of rows) acc.add(row);
      return groupEntry(task, acc.summary(), rows);
    });
  return { agent_metrics, key_metrics: keyMetrics(agent_metrics), group_level_metrics };
}
