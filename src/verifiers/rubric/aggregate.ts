// Combining per-criterion rubric scores into one reward, NeMo Gym's `_aggregate_scores` of the
// multichallenge and inverse_if servers (07d6b0d). A criterion counts as passed at a score of 0.99
// or more. No criteria → 0.
import { z } from "zod";

export const AggregationMode = z.enum(["mean", "min", "max", "all", "any", "weighted"]);
export type AggregationMode = z.output<typeof AggregationMode>;

export const passed = (score: number) => score >= 0.99;

/**
 * Python's `sum` of floats (3.12 and later, NeMo Gym requires 3.13): left to right with Neumaier's
 * compensation, the compensation added at the end when it is finite and not zero.
 */
export function pySum(values: readonly number[]): number {
  let total = 0;
  let c = 0;
  for (const x of values) {
    const t = total + x;
    c += Math.abs(total) >= Math.abs(x) ? total - t + x : x - t + total;
    total = t;
  }
  return c !== 0 && Number.isFinite(c) ? total + c : total;
}
const sum = pySum;

/**
 * The reward of these scores under `mode`. `weights` (one per score) are used by "weighted"; without
 * them "weighted" is the mean (inverse_if's criteria carry no weights).
 */
export function aggregateScores(scores: readonly number[], mode: AggregationMode, weights?: readonly number[]): number {
  if (scores.length === 0) return 0.0;
  switch (mode) {
    case "mean":
      return sum(scores) / scores.length;
    case "min":
      return Math.min(...scores);
    case "max":
      return Math.max(...scores);
    case "all":
      return scores.every(passed) ? 1.0 : 0.0;
    case "any":
      return scores.some(passed) ? 1.0 : 0.0;
    case "weighted": {
      if (!weights) return sum(scores) / scores.length;
      const total = sum(weights);
      if (total === 0) return 0.0;
      return sum(scores.map((s, i) => s * weights[i]!)) / total;
    }
  }
}

/** How many criteria passed (NeMo Gym's `num_passed`). */
export const countPassed = (scores: readonly number[]) => scores.filter(passed).length;
