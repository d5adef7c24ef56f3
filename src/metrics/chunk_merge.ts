// Merging an environment's `/aggregate_metrics` results over chunks of whole tasks into what one call
// over every task would have returned, so the collector can send a large run in small chunks (its
// memory then does not grow with the run) without changing the numbers.
//
// Averages over tasks (pass@k, pass@1[avg-of-k], majority@k, per_sample_aggregate, …) merge exactly
// as weighted means, weighted by how many tasks each chunk's value covers. Gymkit's environments say
// so in `metric_weights` (pass_at_k.ts); for an environment that does not (e.g. a Python NeMo Gym
// one), a `…@k` key is taken to cover the chunk's tasks with ≥ k rollouts, and any other key every
// task of the chunk — exact when every rollout is scored.
//
// The across-runs spreads (…/std_dev_across_runs, …/std_err_across_runs) are not averages: they are
// recomputed from the merged per_sample_aggregate, which is exact when the runs it averages cover the
// same tasks as the spread does (checked from the weights). Otherwise, over several chunks, they are
// weighted means of the chunks' spreads, only an approximation: `approximate` names them.
import { sampleStd, type MetricWeights } from "./pass_at_k.js";

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
  metric_weights?: Partial<MetricWeights>;
}

const isWeight = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;

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
    const stated = result.metric_weights;

    for (const [key, value] of Object.entries(result.agent_metrics ?? {})) {
      if (skip(key) || typeof value !== "number" || !Number.isFinite(value)) continue;
      const k = kOfMetric(key);
      const given = stated?.metrics?.[key];
      const weight = isWeight(given) ? given : k === undefined ? rolloutsPerTask.length : eligible(k);
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
      const givenRuns = stated?.per_sample?.[score];
      runs.forEach((value, r) => {
        if (typeof value !== "number" || !Number.isFinite(value)) return;
        const given = Array.isArray(givenRuns) ? givenRuns[r] : undefined;
        const weight = isWeight(given) ? given : eligible(r + 1);
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
      const exact = this.acrossRuns(key, perSample);
      if (exact !== undefined) {
        metrics[key] = exact;
        continue;
      }
      if (this.chunks > 1 && /\/(?:std_dev|std_err)_across_runs$/.test(key)) approximate.push(key);
      metrics[key] = s.weight > 0 ? s.sum / s.weight : 0;
    }
    return { metrics, approximate };
  }

  /**
   * An across-runs spread recomputed from the merged per-run accuracies, when they cover exactly the
   * tasks the spread is about: every run r < k covers as many tasks as `pass@1[avg-of-k]/<score>`
   * (tasks with ≥ k rollouts are among those with > r, so equal counts mean the same tasks).
   */
  private acrossRuns(key: string, perSample: Record<string, number[]> | undefined): number | undefined {
    const m = ACROSS_RUNS.exec(key);
    if (!m || !perSample) return undefined;
    const k = Number(m[1]);
    const score = m[2]!;
    const runs = perSample[score];
    const tasks = this.sums.get(`pass@1[avg-of-${k}]/${score}`)?.weight;
    const runWeights = this.perSample.get(score);
    if (!runs || runs.length < k || tasks === undefined || !runWeights) return undefined;
    for (let r = 0; r < k; r++) if (runWeights[r]?.weight !== tasks) return undefined;
    const std = sampleStd(runs.slice(0, k));
    return m[3] === "std_dev_across_runs" ? std : std / Math.sqrt(k);
  }
}
