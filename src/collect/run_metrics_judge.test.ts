// The rows the collector hands to an environment's /aggregate_metrics keep whether the judge was asked:
// judged environments (NeMo Gym's math_with_judge family) score judge_accuracy only where
// `judge_evaluations` is not null, so the compacted row keeps one stub per call.
import { describe, expect, it } from "vitest";
import { compactRow } from "./run_metrics.js";

describe("compactRow and judge_evaluations", () => {
  it("keeps a stub per judge call, and a null as null", () => {
    const big = { responses_create_params: { input: "x".repeat(2000) }, response: { output: [] } };
    expect(compactRow({ reward: 1, judge_evaluations: [big, big] }).judge_evaluations).toEqual([{}, {}]);
    expect(compactRow({ reward: 1, judge_evaluations: null }).judge_evaluations).toBeNull();
    expect(compactRow({ reward: 1 })).not.toHaveProperty("judge_evaluations");
  });
});
