// arena_judge's /aggregate_metrics, as NeMo Gym's arena_judge server computes them (compute_metrics and
// get_key_metrics of resources_servers/arena_judge/app.py at NVIDIA-NeMo/Gym 07d6b0d): the default
// statistics, plus pass@k / pass@1[avg-of-k] / majority@k (majority on the gen-base verdict) of
// wins, strict_wins, ties, losses, double_wins and invalid_gen_base, the same per category, and the
// Arena-Elo win rate with its bootstrap CI (elo.ts), overall and per category. Key metrics: mean
// token counts, the Arena-Elo headline four, and the highest-k pass@1[avg-of-k] and pass@k entries
// (pass@k without no_answer).
import type { AggregateResult } from "../../metrics/aggregate.js";
import { highestKMetrics } from "../../metrics/highest_k.js";
import { passAtKMetrics, type PassAtKOptions } from "../../metrics/pass_at_k.js";
import { subsetPassMetrics } from "../../metrics/subsets.js";
import { arenaEloMetrics, type EloOptions } from "./elo.js";

type Row = Record<string, unknown>;

/** The named scores of one rollout (NeMo Gym's `_arena_score_fn`). */
export function arenaScores(row: Row): Record<string, number> {
  const gen = row.verdict_gen_base;
  const base = row.verdict_base_gen;
  const strict = gen === "A>>B" ? 1.0 : 0.0;
  const slight = gen === "A>B" ? 1.0 : 0.0;
  return {
    wins: strict + slight,
    strict_wins: strict,
    ties: gen === "A=B" ? 1.0 : 0.0,
    losses: gen === "B>A" || gen === "B>>A" ? 1.0 : 0.0,
    double_wins: (gen === "A>>B" || gen === "A>B") && (base === "B>A" || base === "B>>A") ? 1.0 : 0.0,
    invalid_gen_base: row.invalid_gen_base ? 1.0 : 0.0,
  };
}

/** Rollouts grouped by `_ng_task_index` (absent: 0) in ascending order, each task in rollout order. */
export function tasksByIndex(rows: readonly Row[]): Row[][] {
  const groups = new Map<number, Row[]>();
  for (const row of rows) {
    const task = typeof row._ng_task_index === "number" ? row._ng_task_index : 0;
    let list = groups.get(task);
    if (!list) groups.set(task, (list = []));
    list.push(row);
  }
  const rollout = (r: Row) => (typeof r._ng_rollout_index === "number" ? r._ng_rollout_index : 0);
  return [...groups.keys()].sort((a, b) => a - b).map((k) => [...groups.get(k)!].sort((a, b) => rollout(a) - rollout(b)));
}

export function arenaMetrics(rows: Row[], defaults: AggregateResult, elo: EloOptions): AggregateResult {
  if (rows.length === 0) return defaults;
  const tasks = tasksByIndex(rows);
  const ordered = tasks.flat();
  const options: PassAtKOptions = { scores: arenaScores, answerKey: "verdict_gen_base" };
  const pooled = passAtKMetrics(ordered, options);
  const bySubset = subsetPassMetrics(ordered, "category", options);
  const agent_metrics: Record<string, number> = { ...defaults.agent_metrics, ...pooled.metrics, ...bySubset.metrics, ...arenaEloMetrics(tasks, elo) };
  const key_metrics: Record<string, number> = {};
  for (const name of ["mean/input_tokens", "mean/output_tokens", "arena_elo/score", "arena_elo/ci_lower", "arena_elo/ci_upper", "arena_elo/invalid_scores"]) {
    if (name in agent_metrics) key_metrics[name] = agent_metrics[name]!;
  }
  Object.assign(key_metrics, highestKMetrics(agent_metrics, "pass@1[avg-of-{k}]"), highestKMetrics(agent_metrics, "pass@{k}", undefined, ["no_answer"]));
  const metric_weights = { metrics: { ...pooled.metric_weights.metrics, ...bySubset.weights }, per_sample: pooled.metric_weights.per_sample };
  return { agent_metrics, key_metrics, group_level_metrics: defaults.group_level_metrics, per_sample_aggregate: pooled.per_sample_aggregate, metric_weights };
}
