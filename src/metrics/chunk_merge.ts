// Merging an environment's `/aggregate_metrics` results over chunks of whole tasks into what one call
// over every task would have returned, so the collector can send a large run in small chunks (its
// memory then does not grow with the run) without changing the numbers.
//
// Averages over tasks (pass@k, pass@1[avg-of-k], majority@k, per_sample_aggregate, …) merge exactly
// as weighted means, weighted by how many tasks each chunk's value covers. Gymkit's environments say
// so in `metric_weights` (pass_at_k.ts); for an environment that does not (e.g. a Python NeMo Gym
// one), a `…@k` key is taken to cover the chunk's tasks with ≥ k rollouts, and an avg-of-k or
// majority@k key every task of the chunk — exact when every rollout is scored.
//
// The across-runs spreads (…/std_dev_across_runs, …/std_err_across_runs) are not averages: they are
// recomputed from the merged per_sample_aggregate, exactly (NeMo Gym defines them from it). Without
// one (or for a spread per_sample_aggregate does not cover, such as a per-subset one), over several
// chunks, they are weighted means of the chunks' spreads, only an approximation: `approximate` names them.
//
// A key the environment lists in `metric_weights.sums` (a count, a total) merges exactly as the sum of
// the chunks' values.
//
// Any other key — one the environment gives no weight for and that is not one of the forms above
// (an Elo rating, a count, a median, a ratio of sums, …) — cannot be merged from per-chunk values at
// all: over several chunks it is the chunks' mean weighted by their task counts, and `approximate`
// names it. An environment whose metrics need every rollout at once declares
// `aggregateMetricsScope: "whole_run"`, and the collector then makes one call over the whole run.
import { sampleStd, type MetricWeights } from "./pass_at_k.js";

const K_OF_KEY = /^(?:pass@(\d+)\/|majority@(\d+)\/|pass@1\[avg-of-(\d+)\]\/)/;
const ACROSS_RUNS = /^pass@1\[avg-of-(\d+)\]\/(.+)\/(std_dev_across_runs|std_err_across_runs)$/;
/** An across-runs spread under any prefix (a subset's too): never a mean of the chunks' values. */
const SPREAD = /\/(?:std_dev|std_err)_across_runs$/;

/** The k a per-task metric key is about (the tasks it averages over have ≥ k rollouts), if any. */
export function kOfMetric(key: string): number | undefined {
  const m = K_OF_KEY.exec(key);
  return m ? Number(m[1] ?? m[2] ?? m[3]) : undefined;
}

/** `pass@1[avg-of-k]/<score>` (1: avg, 3: score) or `majority@k/<score>` (2, 3). */
const FIRST_K = /^(?:(pass@1\[avg-of-\d+\])|(majority@\d+))\/(.+)$/;

interface Tail {
  k: number;
  value: number;
  weight: number;
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
  /** Keys some chunk gave in no mergeable form (no stated weight, not a `…@k` key). */
  private readonly unmergeable = new Set<string>();
  /** Keys stated as totals (`metric_weights.sums`), and keys some chunk gave otherwise. */
  private readonly totals = new Set<string>();
  private readonly notTotals = new Set<string>();
  /**
   * Per chunk, the value at its largest k of each avg-of-k / majority@k family. A task with n
   * rollouts has the same first k for every k ≥ n, so a chunk whose tasks have at most m rollouts
   * contributes its value at m to every k above m that other chunks reach.
   */
  private readonly tails: Array<Map<string, Tail>> = [];

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

    const tails = new Map<string, Tail>();
    const sums = new Set(Array.isArray(stated?.sums) ? stated.sums : []);
    for (const [key, value] of Object.entries(result.agent_metrics ?? {})) {
      if (skip(key) || typeof value !== "number" || !Number.isFinite(value)) continue;
      if (sums.has(key)) {
        this.totals.add(key);
        const s = this.sums.get(key) ?? { sum: 0, weight: 0 };
        s.sum += value;
        s.weight += 1;
        this.sums.set(key, s);
        continue;
      }
      this.notTotals.add(key);
      const k = kOfMetric(key);
      const given = stated?.metrics?.[key];
      if (!isWeight(given) && k === undefined) this.unmergeable.add(key);
      const family = ACROSS_RUNS.test(key) ? undefined : FIRST_K.exec(key);
      // pass@k averages over the tasks with ≥ k rollouts; avg-of-k and majority@k over every task.
      const weight = isWeight(given) ? given : k === undefined || family ? rolloutsPerTask.length : eligible(k);
      const s = this.sums.get(key) ?? { sum: 0, weight: 0 };
      s.sum += value * weight;
      s.weight += weight;
      this.sums.set(key, s);
      if (family && k !== undefined) {
        const name = family[1] ? `avg\u0000${family[3]}` : `maj\u0000${family[3]}`;
        if ((tails.get(name)?.k ?? 0) < k) tails.set(name, { k, value, weight });
      }
    }
    this.tails.push(tails);

    const perSample = result.per_sample_aggregate;
    if (!perSample || typeof perSample !== "object") {
      this.chunksWithoutPerSample++;
      return;
    }
    for (const [score, runs] of Object.entries(perSample)) {
      if (!Array.isArray(runs)) continue;
      const merged = this.perSample.get(score) ?? [];
      const givenRuns = stated?.per_sample?.[score];
      // With stated weights, the values are the positions whose weight is not 0, in order.
      const positions = Array.isArray(givenRuns) && givenRuns.every(isWeight) ? givenRuns.flatMap((w, r) => (w > 0 ? [r] : [])) : undefined;
      runs.forEach((value, i) => {
        if (typeof value !== "number" || !Number.isFinite(value)) return;
        const r = positions ? positions[i] : i;
        if (r === undefined) return;
        const weight = positions ? (givenRuns as number[])[r]! : eligible(r + 1);
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
    // A position no chunk scored is left out, as one call over every task leaves it out.
    return Object.fromEntries([...this.perSample].map(([score, runs]) => [score, Array.from(runs).flatMap((w) => (w && w.weight > 0 ? [w.sum / w.weight] : []))]));
  }

  /** Merged agent metrics, and the keys that could only be approximated. */
  agentMetrics(): { metrics: Record<string, number>; approximate: string[] } {
    const perSample = this.perSampleAggregate();
    const metrics: Record<string, number> = {};
    const approximate: string[] = [];
    for (const [key, s] of this.withTails()) {
      const exact = this.acrossRuns(key, perSample);
      if (exact !== undefined) {
        metrics[key] = exact;
        continue;
      }
      if (this.totals.has(key) && !this.notTotals.has(key)) {
        metrics[key] = s.sum;
        continue;
      }
      // A total in some chunks and not in others cannot be merged either.
      if (this.chunks > 1 && (SPREAD.test(key) || this.unmergeable.has(key) || this.totals.has(key))) approximate.push(key);
      metrics[key] = s.weight > 0 ? s.sum / s.weight : 0;
    }
    return { metrics, approximate };
  }

  /** The sums, with each chunk's avg-of-k / majority@k carried up to the largest k any chunk has. */
  private withTails(): Map<string, Weighted> {
    const top = new Map<string, number>();
    for (const tails of this.tails) for (const [family, tail] of tails) top.set(family, Math.max(top.get(family) ?? 0, tail.k));
    const sums = new Map([...this.sums].map(([key, s]) => [key, { ...s }]));
    for (const tails of this.tails) {
      for (const [family, tail] of tails) {
        const [kind, name] = family.split("\u0000") as [string, string];
        for (let k = tail.k + 1; k <= top.get(family)!; k++) {
          const key = kind === "avg" ? `pass@1[avg-of-${k}]/${name}` : `majority@${k}/${name}`;
          const s = sums.get(key) ?? { sum: 0, weight: 0 };
          s.sum += tail.value * tail.weight;
          s.weight += tail.weight;
          sums.set(key, s);
        }
      }
    }
    return sums;
  }

  /**
   * An across-runs spread recomputed from the merged per-run accuracies: NeMo Gym defines it as the
   * sample std of the first k values of per_sample_aggregate, so given those it is exact.
   */
  private acrossRuns(key: string, perSample: Record<string, number[]> | undefined): number | undefined {
    const m = ACROSS_RUNS.exec(key);
    if (!m || !perSample) return undefined;
    const runs = perSample[m[2]!]?.slice(0, Number(m[1]));
    if (!runs || runs.length < 2) return undefined;
    const std = sampleStd(runs);
    return m[3] === "std_dev_across_runs" ? std : std / Math.sqrt(runs.length);
  }

}
