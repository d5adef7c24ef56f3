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
    expect(numericFields(rows[0]!).map(([k]) => k)).toEqual(["reward", "accuracy", "input_tokens", "output_tokens", "total_tokens"]);
    const result = aggregateMetrics(rows);
    expect(result.agent_metrics["mean/reward"]).toBeCloseTo(2 / 3, 12);
    expect(result.agent_metrics["std/reward"]).toBeCloseTo(Math.sqrt(1 / 3), 12);
    expect(result.agent_metrics["mean/accuracy"]).toBeCloseTo(2 / 3, 12);
    expect(result.agent_metrics["mean/input_tokens"]).toBe(20);
    expect(result.agent_metrics["mean/label"]).toBeUndefined();
    expect(Object.keys(result.key_metrics).every((k) => k.startsWith("mean/"))).toBe(true);
  });

  it("names statistics first, in NeMo Gym's order (mean of every field, then max, …)", () => {
    const names = Object.keys(aggregateMetrics(rows).agent_metrics);
    expect(names.slice(0, 6)).toEqual(["mean/reward", "mean/accuracy", "mean/input_tokens", "mean/output_tokens", "mean/total_tokens", "max/reward"]);
  });

  it("gives each task NeMo Gym's entry: counts, completion, a placeholder sample and one info per rollout", () => {
    const [first] = aggregateMetrics([rows[1]!, rows[0]!]).group_level_metrics;
    expect(first).toMatchObject({ _ng_task_index: 0, sample: { agent_ref: { name: "agent" } }, num_rollouts: 2, expected_num_rollouts: 2, missing_num_rollouts: 0, reward_profile_completion_pct: 100 });
    expect(first!.rollout_infos).toEqual([
      { rollout_id: "0:0", _ng_task_index: 0, _ng_rollout_index: 0, reward: 1, input_tokens: 10, output_tokens: 2, total_tokens: 12, accuracy: 1 },
      { rollout_id: "0:1", _ng_task_index: 0, _ng_rollout_index: 1, reward: 0, input_tokens: 20, output_tokens: 4, total_tokens: 24, accuracy: 0 },
    ]);
  });

  it("lets a usage field replace a top-level field of the same name, as NeMo Gym's merge does", () => {
    const row = { reward: 1, input_tokens: 999, response: { usage: { input_tokens: 7 } } };
    expect(numericFields(row)).toEqual([["reward", 1], ["input_tokens", 7]]);
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
