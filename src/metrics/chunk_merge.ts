// Merging an environment's `/aggregate_metrics` results over chunks of whole tasks into what one call
// over every task would have returned, so the collector can send a large run in small chunks (its
// memory then does not grow with the run) without changing the numbers.
//
// Exact, when every rollout of a task is scored (the usual case):
//   pass@{k}/…, pass@1[avg-of-{k}]/…, majority@{k}/…   means over the tasks with ≥ k rollouts, so each
//       chunk's value is weighted by its number of such tasks;
//   per_sample_aggregate[score][r]   the mean over tasks with > r rollouts, weighted likewise;
//   …/std_dev_across_runs, …/std_err_across_runs   not averages at all (the spread of the per-run
//       accuracies of the whole run), so they are recomputed from the merged per_sample_aggregate.
// Anything else numeric is weighted by the chunk's task count (exact for per-task means). An
// environment that returns no per_sample_aggregate gets its across-runs spreads weighted likewise,
// which is only an approximation; `approximate` names those keys.
import { sampleStd } from "./pass_at_k.js";

const K_OF_KEY = /^(?:pass@(\d+)\/|majority@(\d+)\/|pass@1\[avg-of-(\d+)\]\/)/;
const ACROSS_RUNS = /^pass@1\[avg-of-(\d+)\]\/(.+)\/(std_dev_across_runs|std_err_across_runs)$/;

/** The k a per-task metric key is about (the tasks it averages over have ≥ k rollouts), if any. */
export function kOfMetric(key: string): number | undefined {
  const m = K_OF_KEY.exec(key);
  return m ? Number(m[1] ?? m[2] ?? m[3]) : undefined;
}

interface Weighted {
  sum: number;
  weight: number;
}

export interface ChunkResult {
  agent_metrics?: Record<string, unknown>;
  per_sample_aggregate?: Record<string, unknown>;
}

export class ChunkedMetricsMerger {
  private readonly sums = new Map<string, Weighted>();
  /** score → per run index r: weighted sum and weight. */
  private readonly perSample = new Map<string, Weighted[]>();
  private chunksWithoutPerSample = 0;
  private chunks = 0;

  /**
   * Adds one chunk's result. `rolloutsPerTask` holds, for each task of the chunk, how many rollouts
   * were sent for it. `skip` keys (e.g. statistics the caller computes exactly itself) are ignored.
   */
  add(result: ChunkResult, rolloutsPerTask: readonly number[], skip: (key: string) => boolean = () => false): void {
    this.chunks++;
    // tasksWithAtLeast[k] = tasks of this chunk with ≥ k rollouts.
    const maxRollouts = rolloutsPerTask.reduce((a, b) => Math.max(a, b), 0);
    const tasksWithAtLeast = new Array<number>(maxRollouts + 2).fill(0);
    for (const n of rolloutsPerTask) tasksWithAtLeast[Math.min(n, maxRollouts)]!++;
    for (let k = maxRollouts - 1; k >= 0; k--) tasksWithAtLeast[k]! += tasksWithAtLeast[k + 1]!;
    const eligible = (k: number) => (k <= maxRollouts ? tasksWithAtLeast[k]! : 0);

    for (const [key, value] of Object.entries(result.agent_metrics ?? {})) {
      if (skip(key) || typeof value !== "number" || !Number.isFinite(value)) continue;
      const k = kOfMetric(key);
      const weight = k === undefined ? rolloutsPerTask.length : eligible(k);
      const s = this.sums.get(key) ?? { sum: 0, weight: 0 };
      s.sum += value * weight;
      s.weight += weight;
      this.sums.set(key, s);
    }

    const perSample = result.per_sample_aggregate;
    if (!perSample || typeof perSample !== "object") {
      this.chunksWithoutPerSample++;
      return;
    }
    for (const [score, runs] of Object.entries(perSample)) {
      if (!Array.isArray(runs)) continue;
      const merged = this.perSample.get(score) ?? [];
      runs.forEach((value, r) => {
        if (typeof value !== "number" || !Number.isFinite(value)) return;
        const weight = eligible(r + 1);
        merged[r] ??= { sum: 0, weight: 0 };
        merged[r].sum += value * weight;
        merged[r].weight += weight;
      });
      this.perSample.set(score, merged);
    }
  }

  /** The merged per-run accuracies, when every chunk reported them. */
  perSampleAggregate(): Record<string, number[]> | undefined {
    if (this.chunks === 0 || this.chunksWithoutPerSample > 0 || this.perSample.size === 0) return undefined;
    return Object.fromEntries([...this.perSample].map(([score, runs]) => [score, Array.from(runs, (w) => (w && w.weight > 0 ? w.sum / w.weight : 0))]));
  }

  /** Merged agent metrics, and the keys that could only be approximated. */
  agentMetrics(): { metrics: Record<string, number>; approximate: string[] } {
    const perSample = this.perSampleAggregate();
    const metrics: Record<string, number> = {};
    const approximate: string[] = [];
    for (const [key, s] of this.sums) {
      const across = ACROSS_RUNS.exec(key);
      if (across) {
        const k = Number(across[1]);
        const runs = perSample?.[across[2]!];
        if (runs && runs.length >= k) {
          const std = sampleStd(runs.slice(0, k));
          metrics[key] = across[3] === "std_dev_across_runs" ? std : std / Math.sqrt(k);
          continue;
        }
        if (this.chunks > 1) approximate.push(key);
      }
      metrics[key] = s.weight > 0 ? s.sum / s.weight : 0;
    }
    return { metrics, approximate };
  }
}
