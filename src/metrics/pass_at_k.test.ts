import { readFileSync } from "node:fs";
// The pass/majority helper (src/metrics/pass_at_k.ts) math_with_judge opts into, against hand-computed
// values of NeMo Gym's definitions.
import { describe, expect, it } from "vitest";
import { majorityScore, passAtKMetrics, unbiasedPassAtK, highestK } from "./pass_at_k.js";

const row = (task: number, rollout: number, score: number, answer: string | null = null) => ({
  _ng_task_index: task,
  _ng_rollout_index: rollout,
  score,
  answer,
});
const scores = (r: Record<string, unknown>) => ({ accuracy: r.score as number });

describe("unbiased pass@k", () => {
  it("is 1 − C(n−c, k)/C(n, k)", () => {
    expect(unbiasedPassAtK(4, 1, 1)).toBeCloseTo(0.25);
    expect(unbiasedPassAtK(4, 1, 2)).toBeCloseTo(1 - 3 / 6);
    expect(unbiasedPassAtK(4, 0, 4)).toBe(0);
    expect(unbiasedPassAtK(4, 2, 3)).toBe(1);
    // C(997, 500)/C(1000, 500) = (500·499·498)/(1000·999·998), without ever forming the binomials.
    expect(unbiasedPassAtK(1000, 3, 500)).toBeCloseTo(1 - (500 * 499 * 498) / (1000 * 999 * 998), 12);
  });
});

describe("majority@k", () => {
  it("takes the most common non-null answer's score, averaging ties, 0 without answers", () => {
    expect(majorityScore([{ score: 1, answer: "4" }, { score: 0, answer: "5" }, { score: 1, answer: "4" }])).toBe(1);
    expect(majorityScore([{ score: 1, answer: "4" }, { score: 0, answer: "5" }])).toBe(0.5);
    expect(majorityScore([{ score: 0, answer: null }, { score: 0, answer: "5" }, { score: 1, answer: null }])).toBe(0);
    expect(majorityScore([{ score: 1, answer: null }])).toBe(0);
  });
});

describe("passAtKMetrics", () => {
  const rows = [row(0, 0, 1, "a"), row(0, 1, 0, "b"), row(0, 2, 1, "a"), row(1, 0, 0, "x"), row(1, 1, 0, null), row(1, 2, 0, "x")];

  it("computes pass@k, pass@1[avg-of-k], majority@k and no_answer as percentages", () => {
    const { metrics } = passAtKMetrics(rows, { scores, answerKey: "answer" });
    expect(metrics["pass@1/accuracy"]).toBeCloseTo((100 * (2 / 3 + 0)) / 2);
    expect(metrics["pass@3/accuracy"]).toBe(50);
    expect(metrics["pass@1[avg-of-1]/accuracy"]).toBe(50);
    expect(metrics["pass@1[avg-of-2]/accuracy"]).toBe(25);
    expect(metrics["majority@3/accuracy"]).toBe(50);
    expect(metrics["majority@2/accuracy"]).toBe(25); // task 0: a/b tie → 0.5; task 1: x → 0
    expect(metrics["pass@1[avg-of-3]/no_answer"]).toBeCloseTo(100 / 6);
    // NeMo Gym emits it; a vote only counts rollouts with an answer, so it is always 0.
    expect(metrics["majority@3/no_answer"]).toBe(0);
  });

  it("adds std_dev/std_err across runs for k ≥ 2 (sample std of per-run accuracies)", () => {
    const { metrics, per_sample_aggregate } = passAtKMetrics(rows, { scores });
    expect(per_sample_aggregate.accuracy).toEqual([50, 0, 50]);
    const std = Math.sqrt(((50 - 100 / 3) ** 2 * 2 + (100 / 3) ** 2) / 2);
    expect(metrics["pass@1[avg-of-3]/accuracy/std_dev_across_runs"]).toBeCloseTo(std);
    expect(metrics["pass@1[avg-of-3]/accuracy/std_err_across_runs"]).toBeCloseTo(std / Math.sqrt(3));
    expect(metrics["pass@1[avg-of-1]/accuracy/std_dev_across_runs"]).toBeUndefined();
  });

  it("uses the max of the first k for non-binary scores, and skips unscored rows", () => {
    const graded = [row(0, 0, 0.25), row(0, 1, 0.75), row(1, 0, 0.5)];
    const { metrics } = passAtKMetrics(graded, { scores: (r) => ({ partial: r.score as number, judged: r._ng_task_index === 1 ? 1 : null }) });
    expect(metrics["pass@1/partial"]).toBeCloseTo(100 * (0.25 + 0.5) / 2);
    expect(metrics["pass@2/partial"]).toBe(75); // only task 0 has two rollouts
    expect(metrics["pass@1/judged"]).toBe(100);
    expect(metrics["pass@2/judged"]).toBeUndefined();
    expect(highestK(metrics, "pass")).toBe(2);
  });
});

describe("pass@k with binary and continuous tasks mixed", () => {
  it("decides combinatorial vs max-of-k per task, as NeMo Gym's compute_pass_majority_metrics", () => {
    const r = (task: number, rollout: number, score: number) => ({ _ng_task_index: task, _ng_rollout_index: rollout, score });
    // Task 0 is binary [0, 1]: pass@1 = 1 − C(1,1)/C(2,1) = 0.5 (not the max of its first rollout, 0).
    // Task 1 is continuous [0.5, 0.25]: pass@1 = 0.5, pass@2 = 0.5.
    const { metrics } = passAtKMetrics([r(0, 0, 0), r(0, 1, 1), r(1, 0, 0.5), r(1, 1, 0.25)], { scores: (row) => ({ accuracy: row.score as number }) });
    expect(metrics["pass@1/accuracy"]).toBeCloseTo(50, 12);
    expect(metrics["pass@2/accuracy"]).toBeCloseTo(75, 12);
  });
});

describe("equal to NeMo Gym's compute_pass_majority_metrics", () => {
  // Scenarios (one rollout each, four each, uneven counts, a judge score on only some rollouts, the
  // recorded polymath rollouts) with the values NeMo Gym's own function gave at 07d6b0d
  // (src/environments/polymath/testdata: generate.py lifts it out of nemo_gym/reward_profile.py).
  const reference = JSON.parse(readFileSync(new URL("../environments/polymath/testdata/reference.json", import.meta.url), "utf8")) as {
    scenarios: Record<string, { tasks: Array<Array<Record<string, unknown>>>; metrics: Record<string, number> }>;
  };
  const scores = (row: Record<string, unknown>) => ({
    symbolic_accuracy: "library_reward" in row ? (row.library_reward as number) : undefined,
    judge_accuracy: row.judge_evaluations != null ? (row.reward as number) : undefined,
  });
  const OWN_KEY = /^(pass@\d+|pass@1\[avg-of-\d+\]|majority@\d+)\/(symbolic_accuracy|judge_accuracy|no_answer)(\/std_(dev|err)_across_runs)?$/;
  for (const [name, scenario] of Object.entries(reference.scenarios)) {
    it(name, () => {
      const { metrics } = passAtKMetrics(scenario.tasks.flat(), { scores, answerKey: "extracted_answer" });
      const expected = Object.fromEntries(Object.entries(scenario.metrics).filter(([key]) => OWN_KEY.test(key)));
      expect(Object.keys(metrics).sort()).toEqual(Object.keys(expected).sort());
      for (const [key, value] of Object.entries(expected)) expect(metrics[key], key).toBeCloseTo(value, 9);
    });
  }
});
