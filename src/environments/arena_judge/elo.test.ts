// Arena-Elo against NeMo Gym's own code run on numpy 2.4 / pandas 2.3 / scikit-learn 1.9
// (testdata/elo.json, made by testdata/generate.py): the bootstrap's row draws exactly, which rounds
// are skipped exactly, the fitted and bootstrapped ratings within 1e-4 Elo points, and every reported
// metric (win rates rounded to 0.01) exactly. The ratings differ because sklearn's L-BFGS stops once
// its gradient is below tol=1e-8 while we take the closed-form optimum: over these fixtures the
// largest difference is 6.6e-6 Elo points, 7.4e-7 percentage points of win rate, so a rounded metric
// could only differ where the exact value lies within ~1e-6 of a rounding boundary (none here).
import { describe, expect, it } from "vitest";
import fixture from "./testdata/elo.json" with { type: "json" };
import { arenaEloMetrics, battlesOf, bestOfRollouts, bootstrap, fitElo, npPercentile, npRound, pyRound } from "./elo.js";
import { Mt19937 } from "../../verifiers/random/numpy_random.js";

type Metrics = Record<string, number | "NaN">;
interface Set {
  name: string;
  tasks: Array<Array<Record<string, unknown>>>;
  metrics: Metrics;
  internals: null | { elo: Record<string, number>; boot_rounds: number; lower: Record<string, number>; upper: Record<string, number>; boot_candidate?: number[] };
}
const sets = fixture.sets as unknown as Set[];
const OPTIONS = { rounds: 100, seed: 42 };
const ELO_TOLERANCE = 1e-4;

const fromJson = (m: Metrics) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v === "NaN" ? NaN : v]));

describe("pandas' bootstrap draws after np.random.seed(42)", () => {
  for (const { size, rounds } of fixture.draws) {
    it(`a table of ${size} rows, three rounds`, () => {
      const rng = new Mt19937(42);
      expect(rounds.map(() => rng.resamplePositions(size))).toEqual(rounds);
    });
  }
});

describe("Arena-Elo of battle sets, against NeMo Gym's compute_metrics", () => {
  for (const set of sets) {
    it(set.name, () => {
      expect(arenaEloMetrics(set.tasks, OPTIONS)).toEqual(fromJson(set.metrics));
      const inner = set.internals;
      if (!inner) return;
      const pairs = set.tasks.map((t) => [bestOfRollouts(t.map((r) => r.verdict_gen_base), false), bestOfRollouts(t.map((r) => r.verdict_base_gen), true)] as const);
      const { winners } = battlesOf(pairs);
      const online = fitElo(winners)!;
      expect(Math.abs(online.candidate - inner.elo.candidate!)).toBeLessThanOrEqual(ELO_TOLERANCE);
      expect(online.baseline).toBe(inner.elo.baseline);
      const boot = bootstrap(winners, OPTIONS);
      expect(boot.candidate.length).toBe(inner.boot_rounds);
      for (const [model, values] of Object.entries(boot)) {
        expect(Math.abs(npPercentile(values, 2.5) - inner.lower[model]!)).toBeLessThanOrEqual(ELO_TOLERANCE);
        expect(Math.abs(npPercentile(values, 97.5) - inner.upper[model]!)).toBeLessThanOrEqual(ELO_TOLERANCE);
      }
      if (inner.boot_candidate) {
        const worst = Math.max(...boot.candidate.map((v, i) => Math.abs(v - inner.boot_candidate![i]!)));
        expect(worst).toBeLessThanOrEqual(ELO_TOLERANCE);
      }
    });
  }
});

describe("rounding as Python and numpy round", () => {
  it("round(float, 2) is the exact binary value rounded, ties to even", () => {
    expect([pyRound(20.255, 2), pyRound(0.125, 2), pyRound(0.375, 2), pyRound(2.675, 2), pyRound(-6.405, 2)]).toEqual([20.25, 0.12, 0.38, 2.67, -6.41]);
  });
  it("round(np.float64, 2) scales, rints and divides", () => {
    expect([npRound(20.255, 2), npRound(5.255, 2), npRound(-6.405, 2), npRound(28.925, 2)]).toEqual([20.26, 5.26, -6.4, 28.92]);
  });
});
