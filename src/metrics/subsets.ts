// Two helpers of NeMo Gym's reward profile (nemo_gym/reward_profile.py at NVIDIA-NeMo/Gym 07d6b0d)
// that environments' metric overrides build on:
// - per-subset pass@k: tasks grouped by a field of their first rollout (tasks whose value is
//   missing or falsy, as Python's truthiness, belong to no subset), each group's pass@k keys
//   prefixed `<value>/` (the value as Python's str() writes it);
// - the highest-k selection of headline metrics: every key `<pattern with k>/<score>` at the largest
//   k present, skipping the spread statistics.
import type { AggregateResult } from "./aggregate.js";
import { highestKMetrics } from "./highest_k.js";
import { passAtKMetrics, type PassAtKOptions } from "./pass_at_k.js";

/** Python's str() of a JSON value used as a subset name. */
function pyStrOf(value: unknown): string {
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "string") return value;
  return typeof value === "number" ? String(value) : JSON.stringify(value);
}

function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/** Rows grouped by `_ng_task_index` (rows without one share task 0, as NeMo Gym groups them), in first-seen order. */
function tasksInOrder(rows: Array<Record<string, unknown>>): Array<Array<Record<string, unknown>>> {
  const byTask = new Map<unknown, Array<Record<string, unknown>>>();
  for (const row of rows) {
    const task = row._ng_task_index ?? 0;
    let list = byTask.get(task);
    if (!list) byTask.set(task, (list = []));
    list.push(row);
  }
  return [...byTask.values()];
}

export interface SubsetMetrics {
  metrics: Record<string, number>;
  /** Tasks each value averages over (Gymkit's exact chunk merging; see pass_at_k.ts). */
  weights: Record<string, number>;
}

/** `<subset>/<pass@k key>` for every subset of tasks by `subsetKey`, `rename` applied to each key. */
export function subsetPassMetrics(rows: Array<Record<string, unknown>>, subsetKey: string, options: PassAtKOptions, rename: (key: string) => string = (k) => k): SubsetMetrics {
  const subsets = new Map<string, Array<Record<string, unknown>>>();
  for (const task of tasksInOrder(rows)) {
    const value = task[0]?.[subsetKey];
    if (!pyTruthy(value)) continue;
    const name = pyStrOf(value);
    let list = subsets.get(name);
    if (!list) subsets.set(name, (list = []));
    list.push(...task);
  }
  const metrics: Record<string, number> = {};
  const weights: Record<string, number> = {};
  for (const [name, subsetRows] of subsets) {
    const result = passAtKMetrics(subsetRows, options);
    for (const [key, value] of Object.entries(result.metrics)) {
      const full = rename(`${name}/${key}`);
      metrics[full] = value;
      weights[full] = result.metric_weights.metrics[key]!;
    }
  }
  return { metrics, weights };
}

/**
 * The metrics of NeMo Gym's long-context servers (graphwalks, mrcr, ruler2 at 07d6b0d): pass@k and
 * pass@1[avg-of-k] of `accuracy` = the reward (continuous: pass@k is max-of-k for a task unless its
 * rewards are all 0/1), the same per subset of tasks, merged into the default statistics. Key
 * metrics: mean input/output tokens, and the highest-k pass@1[avg-of-k] and pass@k entries.
 */
export function rewardPassAggregate(
  rows: Array<Record<string, unknown>>,
  defaults: AggregateResult,
  subset: { key: string; rename?: (key: string) => string },
): { result: AggregateResult; subsetMetrics: Record<string, number> } {
  const options: PassAtKOptions = { scores: (row) => ({ accuracy: typeof row.reward === "number" ? row.reward : null }) };
  const overall = passAtKMetrics(rows, options);
  const bySubset = subsetPassMetrics(rows, subset.key, options, subset.rename);
  const agent_metrics = { ...defaults.agent_metrics, ...overall.metrics, ...bySubset.metrics };
  const metric_weights = { metrics: { ...overall.metric_weights.metrics, ...bySubset.weights }, per_sample: overall.metric_weights.per_sample };
  const key_metrics: Record<string, number> = {};
  for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agent_metrics) key_metrics[name] = agent_metrics[name]!;
  Object.assign(key_metrics, highestKMetrics(agent_metrics, "pass@1[avg-of-{k}]"), highestKMetrics(agent_metrics, "pass@{k}"));
  return { result: { ...defaults, agent_metrics, key_metrics, per_sample_aggregate: overall.per_sample_aggregate, metric_weights }, subsetMetrics: bySubset.metrics };
}
