// Arena-Elo, the headline metric of arena_judge, computed as NeMo Gym's arena_judge server computes it
// (resources_servers/arena_judge/app.py at NVIDIA-NeMo/Gym 07d6b0d, after arena-hard-auto's
// show_result.py):
// - each task's rollouts collapse to one verdict pair: the most candidate-favouring gen-base verdict
//   and the most candidate-favouring base-gen verdict any rollout got;
// - each verdict becomes battles between "candidate" (model_a) and "baseline" (model_b): 3 for a
//   strong verdict (>>), 1 otherwise, a tie for A=B; a missing verdict counts as invalid;
// - Elo ratings come from a logistic regression without intercept or penalty (scikit-learn) over the
//   battles, each battle entered twice, a tie a win in the first copy and a loss in the second; the
//   baseline is anchored at 1000;
// - a 100-round bootstrap (battles resampled with replacement from numpy's legacy RNG seeded 42,
//   rounds whose resample has a single outcome skipped) gives the 2.5 and 97.5 percentiles;
// - ratings become the candidate's predicted win rate (%) against the baseline, rounded to 2 decimals;
//   the CI bounds are reported relative to the score.
//
// With two players whose columns are exact negatives, the regression has a closed form: sklearn's
// L-BFGS keeps the two coefficients opposite (its gradient is), and the optimum makes the predicted
// win probability equal the share of wins, so the rating gap is 400·log10(p / (1 − p)). We compute
// that instead of iterating; sklearn stops within its tolerance (tol=1e-8 on the gradient) of it, so
// ratings agree to ~1e-6 and the rounded percentages agree exactly except when the exact value sits
// within that distance of a rounding boundary (see arena_judge.test.ts and testdata/elo.json).
import { Mt19937 } from "../../verifiers/random/numpy_random.js";

export const VERDICTS = ["A>>B", "A>B", "A=B", "B>A", "B>>A"] as const;
export type Verdict = (typeof VERDICTS)[number];

type Winner = "model_a" | "model_b" | "tie";

export interface EloOptions {
  rounds: number;
  seed: number;
}

export interface EloSummary {
  score: number;
  ci_lower: number;
  ci_upper: number;
  invalid_scores: number;
  n: number;
}

const STRONG_WEIGHT = 3;
const WEIGHT: Record<string, number> = { "A=B": 1, "A>B": 1, "A>>B": STRONG_WEIGHT, "B>A": 1, "B>>A": STRONG_WEIGHT };

/** The most candidate-favouring verdict among a task's rollouts (`swapped`: for the base-gen call). */
export function bestOfRollouts(verdicts: ReadonlyArray<unknown>, swapped: boolean): Verdict | null {
  const order = swapped ? [...VERDICTS].reverse() : VERDICTS;
  return order.find((label) => verdicts.includes(label)) ?? null;
}

/** Battles (winners; model_a is the candidate) from verdict pairs, and how many verdicts were unusable. */
export function battlesOf(pairs: ReadonlyArray<readonly [unknown, unknown]>): { winners: Winner[]; invalid: number } {
  const winners: Winner[] = [];
  let invalid = 0;
  for (const [genBase, baseGen] of pairs) {
    for (const [verdict, swapped] of [
      [genBase, false],
      [baseGen, true],
    ] as const) {
      const weight = typeof verdict === "string" ? (WEIGHT[verdict] ?? 0) : 0;
      if (weight === 0) {
        invalid++;
        continue;
      }
      const aWins = verdict === "A>B" || verdict === "A>>B";
      const winner: Winner = verdict === "A=B" ? "tie" : aWins !== swapped ? "model_a" : "model_b";
      for (let i = 0; i < weight; i++) winners.push(winner);
    }
  }
  return { winners, invalid };
}

/**
 * The fitted ratings of candidate and baseline, or null where the regression has a single outcome
 * class (sklearn's ValueError). Ratings follow NeMo Gym's float steps: 400·coef + 1000, then shifted
 * so the baseline is at 1000.
 */
export function fitElo(winners: readonly Winner[]): { candidate: number; baseline: number } | null {
  const n = winners.length;
  let ones = 0;
  for (const w of winners) ones += w === "model_a" ? 2 : w === "tie" ? 1 : 0;
  const total = 2 * n;
  if (ones === 0 || ones === total) return null;
  const coef = Math.log(ones / (total - ones)) / (2 * Math.LN10);
  let candidate = 400 * coef + 1000;
  let baseline = 400 * -coef + 1000;
  const shift = 1000 - baseline;
  candidate += shift;
  baseline += shift;
  return { candidate, baseline };
}

/** numpy.percentile(values, q) with the default linear method, as numpy computes it. */
export function npPercentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const quantile = q / 100;
  const virtual = n * quantile + (1 + quantile * -1) - 1;
  const previous = Math.floor(virtual);
  const gamma = virtual - previous;
  const lo = sorted[Math.min(Math.max(previous, 0), n - 1)]!;
  const hi = sorted[Math.min(Math.max(previous + 1, 0), n - 1)]!;
  const diff = hi - lo;
  return gamma >= 0.5 ? hi - diff * (1 - gamma) : lo + diff * gamma;
}

/** Python's round(x, digits) on a float: the exact binary value rounded, ties to even. */
export function pyRound(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  const [whole, frac] = Math.abs(x).toFixed(100).split(".") as [string, string];
  const kept = BigInt(whole + frac.slice(0, digits));
  const rest = frac.slice(digits);
  const half = "5".padEnd(rest.length, "0");
  const up = rest > half || (rest === half && kept % 2n === 1n);
  const value = Number(up ? kept + 1n : kept) / 10 ** digits;
  return x < 0 ? -value : value;
}

/** numpy's round on a float64 (what Python's round does to one): x·10^d, rint (ties to even), ÷10^d. */
export function npRound(x: number, digits: number): number {
  const f = 10 ** digits;
  const y = x * f;
  let r = Math.round(y);
  if (r - y === 0.5 && r % 2 !== 0) r -= 1;
  return (Object.is(r, 0) && y < 0 ? -0 : r) / f;
}

/** The candidate's predicted win rate against the baseline, in % rounded as NeMo Gym rounds it. */
function winRatePercent(candidate: number, baseline: number): number {
  const rate = 1 / (1 + 10 ** ((baseline - candidate) / 400));
  return pyRound(rate * 100, 2);
}

/** Arena-Elo of verdict pairs ([gen-base best, base-gen best] per task). */
export function arenaElo(pairs: ReadonlyArray<readonly [unknown, unknown]>, options: EloOptions): EloSummary {
  const n = pairs.length;
  if (n === 0) return { score: NaN, ci_lower: NaN, ci_upper: NaN, invalid_scores: 0, n: 0 };
  const { winners, invalid } = battlesOf(pairs);
  if (winners.length === 0) return { score: NaN, ci_lower: NaN, ci_upper: NaN, invalid_scores: invalid, n };
  const seen = new Set(winners);
  if (!((seen.has("model_a") && seen.has("model_b")) || seen.has("tie"))) {
    // A sweep either way: NeMo Gym reports 100 or 0 without fitting.
    return { score: seen.has("model_a") && !seen.has("model_b") ? 100.0 : 0.0, ci_lower: 0.0, ci_upper: 0.0, invalid_scores: invalid, n };
  }
  const online = fitElo(winners)!;
  const boot = bootstrap(winners, options);
  if (boot.candidate.length === 0) {
    // Every resample had one outcome: NeMo Gym's bootstrap table is empty and its lookup raises.
    throw new Error("arena_elo: no bootstrap round could be fitted (every resample had a single outcome)");
  }
  const score = winRatePercent(online.candidate, online.baseline);
  const lower = winRatePercent(npPercentile(boot.candidate, 2.5), npPercentile(boot.baseline, 2.5));
  const upper = winRatePercent(npPercentile(boot.candidate, 97.5), npPercentile(boot.baseline, 97.5));
  return { score, ci_lower: npRound(lower - score, 2), ci_upper: npRound(upper - score, 2), invalid_scores: invalid, n };
}

/** Ratings of each bootstrap round that could be fitted. */
export function bootstrap(winners: readonly Winner[], options: EloOptions): { candidate: number[]; baseline: number[] } {
  const rng = new Mt19937(options.seed);
  const candidate: number[] = [];
  const baseline: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const fit = fitElo(rng.resamplePositions(winners.length).map((i) => winners[i]!));
    if (!fit) continue;
    candidate.push(fit.candidate);
    baseline.push(fit.baseline);
  }
  return { candidate, baseline };
}

/**
 * NeMo Gym's Arena-Elo metrics of tasks (rollout lists): `arena_elo/<stat>` over all tasks, then
 * `arena_elo/<category>/<stat>` per category (the task's first rollout's, in first-seen order).
 */
export function arenaEloMetrics(tasks: ReadonlyArray<ReadonlyArray<Record<string, unknown>>>, options: EloOptions): Record<string, number> {
  const pairs: Array<readonly [unknown, unknown]> = [];
  const categories: unknown[] = [];
  for (const rollouts of tasks) {
    if (rollouts.length === 0) continue;
    pairs.push([bestOfRollouts(rollouts.map((r) => r.verdict_gen_base), false), bestOfRollouts(rollouts.map((r) => r.verdict_base_gen), true)]);
    categories.push(rollouts[0]!.category);
  }
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(arenaElo(pairs, options))) out[`arena_elo/${key}`] = value;
  const buckets = new Map<string, Array<readonly [unknown, unknown]>>();
  pairs.forEach((pair, i) => {
    const category = categories[i];
    if (category === null || category === undefined) return;
    const name = String(category);
    let list = buckets.get(name);
    if (!list) buckets.set(name, (list = []));
    list.push(pair);
  });
  for (const [category, list] of buckets) {
    for (const [key, value] of Object.entries(arenaElo(list, options))) out[`arena_elo/${category}/${key}`] = value;
  }
  return out;
}
