// GET /api/summary: the run at a glance — its files, counts, failure classes and, per agent, the
// numbers from the index (rollouts, failures, rewards and their histogram) beside the metrics file's.
import type { FastifyInstance } from "fastify";
import { shownKeyMetrics, splitKeyMetrics } from "../key_metrics.js";
import type { RunIndex } from "../run_index/run_index.js";
import type { ViewerContext } from "./context.js";

const HISTOGRAM_BINS = 10;

type Histogram = { min: number; max: number; counts: number[] };

/** Reward histograms per agent id: one pass over the reward column. */
function rewardHistograms(run: RunIndex): Map<number, Histogram> {
  const e = run.entries;
  const histograms = new Map<number, Histogram>();
  for (let id = 0; id < e.successes; id++) {
    const reward = e.reward[id]!;
    const stats = run.agentStats[e.agent[id]!]!;
    if (!Number.isFinite(reward)) continue;
    let histogram = histograms.get(e.agent[id]!);
    if (!histogram) histograms.set(e.agent[id]!, (histogram = { min: stats.minReward, max: stats.maxReward, counts: new Array<number>(HISTOGRAM_BINS).fill(0) }));
    const span = histogram.max - histogram.min;
    const bin = span > 0 ? Math.min(HISTOGRAM_BINS - 1, Math.floor(((reward - histogram.min) / span) * HISTOGRAM_BINS)) : 0;
    histogram.counts[bin]!++;
  }
  return histograms;
}

export function summaryRoute(app: FastifyInstance, { run, metrics }: ViewerContext): void {
  const e = run.entries;
  let histograms: Map<number, Histogram> | undefined;

  app.get("/api/summary", async () => {
    const failureClasses: Record<string, number> = {};
    for (let id = e.successes; id < e.count; id++) {
      const name = run.failureClasses.names[e.failureClass[id]!]!;
      failureClasses[name] = (failureClasses[name] ?? 0) + 1;
    }
    const byName = new Map(metrics.agents.map((agent) => [agent.name, agent.entry]));
    const names = [...new Set([...run.agentStats.filter(Boolean).map((s) => s.name), ...byName.keys()])];
    // Built on first use and kept: the index does not change while the viewer runs.
    histograms ??= rewardHistograms(run);
    const histogramsByAgent = histograms;
    // Identifiers and constants among the key metrics are named, not shown (key_metrics.ts).
    const keySplit = splitKeyMetrics(metrics.agents.map((agent) => agent.entry));
    return {
      rollouts_path: run.paths.output,
      files: {
        rollouts: run.files.rollouts,
        failures: run.files.failures,
        materialized_inputs: run.files.materialized,
        metrics: { path: metrics.path, present: metrics.present, agents: metrics.agents.length, tasks_with_group_metrics: metrics.groupCount, error: metrics.error ?? null },
      },
      counts: {
        rollouts: e.successes,
        failures: e.count - e.successes,
        failed_pairs: run.failedPairs,
        duplicate_pairs: run.duplicatePairs,
        tasks: run.tasks,
        agents: names.length,
        planned: run.plannedCount ?? null,
        missing_pairs: run.plannedCount === undefined ? null : run.missingPairs,
        malformed_lines: run.malformedCount,
      },
      missing_pairs: run.missingNamed.map(([task, rollout]) => ({ task, rollout })),
      malformed_lines: run.malformed,
      failure_classes: failureClasses,
      agents: names.map((name) => {
        const id = run.agents.find(name);
        const stats = id === undefined ? undefined : run.agentStats[id];
        const entry = byName.get(name);
        return {
          name,
          rollouts: stats?.rollouts ?? 0,
          failures: stats?.failures ?? 0,
          mean_reward: stats && stats.rewarded > 0 ? stats.rewardSum / stats.rewarded : null,
          min_reward: stats && stats.rewarded > 0 ? stats.minReward : null,
          max_reward: stats && stats.rewarded > 0 ? stats.maxReward : null,
          reward_histogram: id === undefined ? null : (histogramsByAgent.get(id) ?? null),
          ...shownKeyMetrics(entry?.key_metrics as Record<string, unknown> | undefined, keySplit),
          agent_metrics: entry?.agent_metrics ?? null,
        };
      }),
    };
  });
}
