// Default `/aggregate_metrics`: mean/max/min/median/std of every numeric and boolean (as 0/1) field of
// the verify responses, and of the model's token usage, overall and per task.
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

/** Bookkeeping fields that are numbers but not measurements. */
const SKIPPED_FIELDS = new Set(["_ng_task_index", "_ng_rollout_index", "_ng_attempt_index"]);
const USAGE_FIELDS = ["input_tokens", "output_tokens", "total_tokens"] as const;

/** The numeric measurements of one verify response, as `name → value`. */
export function numericFields(row: Record<string, unknown>): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  // The reward first: it is the number everyone looks for.
  if (typeof row.reward === "number" && Number.isFinite(row.reward)) out.push(["reward", row.reward]);
  for (const [key, value] of Object.entries(row)) {
    if (SKIPPED_FIELDS.has(key) || key === "reward") continue;
    if (typeof value === "number" && Number.isFinite(value)) out.push([key, value]);
    else if (typeof value === "boolean") out.push([key, value ? 1 : 0]);
  }
  const usage = (row.response as { usage?: Record<string, unknown> } | undefined)?.usage;
  if (usage && typeof usage === "object") {
    for (const key of USAGE_FIELDS) {
      const value = usage[key];
      if (typeof value === "number" && Number.isFinite(value)) out.push([`usage/${key}`, value]);
    }
  }
  return out;
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

  /** `{"mean/reward": …, "max/reward": …, …}` in field order of first appearance. */
  summary(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [key, column] of this.columns) {
      const s = summarize(column.values());
      if (!s) continue;
      out[`mean/${key}`] = s.mean;
      out[`max/${key}`] = s.max;
      out[`min/${key}`] = s.min;
      out[`median/${key}`] = s.median;
      out[`std/${key}`] = s.std;
    }
    return out;
  }
}

/** Overall and per-task accumulators for one agent. */
export class AgentMetricsAccumulator {
  readonly overall = new MetricsAccumulator();
  private readonly perTask = new Map<number, MetricsAccumulator>();

  add(row: Record<string, unknown>): void {
    this.overall.add(row);
    const task = row._ng_task_index;
    if (typeof task === "number") {
      let acc = this.perTask.get(task);
      if (!acc) this.perTask.set(task, (acc = new MetricsAccumulator()));
      acc.add(row);
    }
  }

  result(): AggregateResult {
    const agent_metrics = this.overall.summary();
    const key_metrics = keyMetrics(agent_metrics);
    const group_level_metrics = [...this.perTask.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([task, acc]) => ({ _ng_task_index: task, num_rollouts: acc.count, ...acc.summary() }));
    return { agent_metrics, key_metrics, group_level_metrics };
  }
}

/** Key metrics by default: every `mean/*`. */
export function keyMetrics(agentMetrics: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(agentMetrics).filter(([k]) => k.startsWith("mean/")));
}

export function aggregateMetrics(verifyResponses: Array<Record<string, unknown>>): AggregateResult {
  const acc = new AgentMetricsAccumulator();
  for (const row of verifyResponses) acc.add(row);
  return acc.result();
}
