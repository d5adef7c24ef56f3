import { describe, expect, it } from "vitest";
import { aggregateMetrics, numericFields } from "./aggregate.js";
import { summarize } from "./stats.js";

describe("summarize", () => {
  it("uses the sample standard deviation (ddof=1)", () => {
    const s = summarize([1, 2, 3, 4])!;
    expect(s.mean).toBe(2.5);
    expect(s.median).toBe(2.5);
    expect(s.std).toBeCloseTo(Math.sqrt(5 / 3), 12);
    expect(s.min).toBe(1);
    expect(s.max).toBe(4);
  });

  it("gives std 0 for a single value and nothing for none", () => {
    expect(summarize([7])).toEqual({ mean: 7, max: 7, min: 7, median: 7, std: 0 });
    expect(summarize([])).toBeUndefined();
  });

  it("takes the middle element as the median of an odd count", () => {
    expect(summarize([5, 1, 3])!.median).toBe(3);
  });
});

describe("aggregateMetrics", () => {
  const rows = [
    { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1, accuracy: true, label: "x", response: { usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 } } },
    { _ng_task_index: 0, _ng_rollout_index: 1, reward: 0, accuracy: false, label: "y", response: { usage: { input_tokens: 20, output_tokens: 4, total_tokens: 24 } } },
    { _ng_task_index: 1, _ng_rollout_index: 0, reward: 1, accuracy: true, label: "z", response: { usage: { input_tokens: 30, output_tokens: 6, total_tokens: 36 } } },
  ];

  it("summarises numeric and boolean fields and usage, skipping indices and strings", () => {
    expect(numericFields(rows[0]!).map(([k]) => k)).toEqual(["reward", "accuracy", "usage/input_tokens", "usage/output_tokens", "usage/total_tokens"]);
    const result = aggregateMetrics(rows);
    expect(result.agent_metrics["mean/reward"]).toBeCloseTo(2 / 3, 12);
    expect(result.agent_metrics["std/reward"]).toBeCloseTo(Math.sqrt(1 / 3), 12);
    expect(result.agent_metrics["mean/accuracy"]).toBeCloseTo(2 / 3, 12);
    expect(result.agent_metrics["mean/usage/input_tokens"]).toBe(20);
    expect(result.agent_metrics["mean/label"]).toBeUndefined();
    expect(Object.keys(result.key_metrics).every((k) => k.startsWith("mean/"))).toBe(true);
  });

  it("groups per task in task order", () => {
    const groups = aggregateMetrics([rows[2]!, rows[0]!, rows[1]!]).group_level_metrics;
    expect(groups.map((g) => g._ng_task_index)).toEqual([0, 1]);
    expect(groups[0]!["mean/reward"]).toBe(0.5);
    expect(groups[0]!.num_rollouts).toBe(2);
    expect(groups[1]!["std/reward"]).toBe(0);
  });

  it("never writes NaN", () => {
    const json = JSON.stringify(aggregateMetrics([{ reward: 1 }]));
    expect(json).not.toMatch(/NaN|null/);
  });
});
