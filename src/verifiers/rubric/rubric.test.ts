// The shared pieces of the rubric-judged environments against NeMo Gym's own code (07d6b0d): the
// response-text reading of multichallenge and inverse_if (`_extract_text_from_response`, identical in
// both) and Python's float `sum` the aggregation uses. Fixture: testdata/nemo_gym_parsing.json, made
// by testdata/gen_nemo_gym_parsing.py (see its header).
import { describe, expect, it } from "vitest";
import fixture from "./testdata/nemo_gym_parsing.json" with { type: "json" };
import { aggregateScores, countPassed, pySum } from "./aggregate.js";
import { finalAssistantText } from "./response_text.js";

describe("_extract_text_from_response (both servers agree)", () => {
  for (const { output, multichallenge, inverse_if } of fixture.response_text) {
    it(JSON.stringify(output).slice(0, 120), () => {
      expect(multichallenge).toBe(inverse_if);
      expect(finalAssistantText({ output })).toBe(multichallenge);
    });
  }
});

describe("Python's sum() of floats (compensated, Python ≥ 3.12)", () => {
  for (const { values, sum } of fixture.py_sum) {
    it(JSON.stringify(values), () => expect(pySum(values)).toBe(sum));
  }
});

describe("aggregation", () => {
  it("each mode; a score of 0.99 counts as passed", () => {
    const scores = [1, 0, 1];
    expect(["mean", "min", "max", "all", "any"].map((m) => aggregateScores(scores, m as never))).toEqual([2 / 3, 0, 1, 0, 1]);
    expect(aggregateScores([0.99, 1], "all")).toBe(1);
    expect(countPassed([0.99, 0.98, 1])).toBe(2);
    expect(aggregateScores([], "mean")).toBe(0);
  });
  it("weighted: by weight when given (zero total weight → 0), else the mean", () => {
    expect(aggregateScores([1, 0], "weighted", [3, 1])).toBe(0.75);
    expect(aggregateScores([1, 0], "weighted", [0, 0])).toBe(0);
    expect(aggregateScores([1, 0, 1], "weighted")).toBe(2 / 3);
  });
});
