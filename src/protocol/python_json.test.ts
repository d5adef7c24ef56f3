import { describe, expect, it } from "vitest";
import { agentMetricsFloats, ROLLOUT_FLOATS, stringifyWithFloats } from "./python_json.js";

describe("stringifyWithFloats", () => {
  it("writes the integral numbers a shape calls floats with a decimal point, and leaves the rest", () => {
    const row = { _ng_task_index: 3, reward: 1, set_overlap: 0.5, accuracy: true, response: { created_at: 1700000000, temperature: 1, usage: { input_tokens: 10 } }, reward_components: { format: 0 }, meta: { n: 2 } };
    expect(stringifyWithFloats(row, ROLLOUT_FLOATS)).toBe(
      '{"_ng_task_index":3,"reward":1.0,"set_overlap":0.5,"accuracy":true,"response":{"created_at":1700000000.0,"temperature":1.0,"usage":{"input_tokens":10}},"reward_components":{"format":0.0},"meta":{"n":2}}',
    );
  });

  it("never changes the value it is given, and round-trips to equal numbers", () => {
    const row = { reward: 1, response: { top_p: 1 } };
    const text = stringifyWithFloats(row, ROLLOUT_FLOATS);
    expect(row).toEqual({ reward: 1, response: { top_p: 1 } });
    expect(JSON.parse(text)).toEqual(row);
  });

  it("keeps negative numbers, indentation, and a text that only looks like the marker inside a longer string", () => {
    expect(stringifyWithFloats({ reward: -2, note: "x\u0000f1" }, ROLLOUT_FLOATS, 2)).toBe('{\n  "reward": -2.0,\n  "note": "x\\u0000f1"\n}');
  });

  it("keeps counts as ints in metrics, and the ints the rollouts' own rows name", () => {
    const entry = {
      agent_metrics: { "mean/reward": 1 },
      key_metrics: { "mean/reward": 1 },
      group_level_metrics: [
        { _ng_task_index: 0, "mean/reward": 1, num_rollouts: 2, expected_num_rollouts: 2, missing_num_rollouts: 0, reward_profile_completion_pct: 100, sample: { agent_ref: { name: "agent" } }, rollout_infos: [{ rollout_id: "0:0", _ng_task_index: 0, _ng_rollout_index: 0, reward: 1, input_tokens: 5, accuracy: 1, set_overlap: 1 }] },
      ],
    };
    const text = stringifyWithFloats(entry, agentMetricsFloats(["input_tokens", "accuracy"]));
    expect(text).toContain('"num_rollouts":2,"expected_num_rollouts":2,"missing_num_rollouts":0,"reward_profile_completion_pct":100.0');
    expect(text).toContain('"_ng_rollout_index":0,"reward":1.0,"input_tokens":5,"accuracy":1,"set_overlap":1.0');
    expect(text).toContain('"agent_metrics":{"mean/reward":1.0}');
  });

  it("leaves out and writes null exactly where JSON.stringify does", () => {
    const row = { reward: -0, big: 1e20, nan: NaN, gone: undefined, fn: () => 1, when: new Date(0), reward_components: { a: 2 } };
    expect(stringifyWithFloats(row, ROLLOUT_FLOATS)).toBe('{"reward":0.0,"big":100000000000000000000,"nan":null,"when":"1970-01-01T00:00:00.000Z","reward_components":{"a":2.0}}');
    expect(stringifyWithFloats({ per_sample_aggregate: { reward: [1, undefined, 0.5] } }, agentMetricsFloats())).toBe('{"per_sample_aggregate":{"reward":[1.0,null,0.5]}}');
  });

  it("writes text that looks like its float marker as the text it is, as a value or as a key", () => {
    // The compact writer marks floats with such strings internally: it must notice a real one.
    expect(stringifyWithFloats({ reward: 1, note: "\u0000f1", response: { created_at: 5 } }, ROLLOUT_FLOATS)).toBe('{"reward":1.0,"note":"\\u0000f1","response":{"created_at":5.0}}');
    expect(stringifyWithFloats({ "\u0000f2": 3, reward: 2 }, ROLLOUT_FLOATS)).toBe('{"\\u0000f2":3.0,"reward":2.0}');
    expect(stringifyWithFloats({ reward: 0.5, note: "\u0000f-7" }, ROLLOUT_FLOATS)).toBe('{"reward":0.5,"note":"\\u0000f-7"}');
  });

  it("writes a parsed `__proto__` member as a member, and leaves objects it cannot reach untouched", () => {
    const row = JSON.parse('{"__proto__":1,"reward":3,"meta":{"__proto__":{"n":4}}}') as Record<string, unknown>;
    expect(stringifyWithFloats(row, ROLLOUT_FLOATS)).toBe('{"__proto__":1,"reward":3.0,"meta":{"__proto__":{"n":4}}}');
    expect(stringifyWithFloats({ response: { output: [{ n: 1 }], top_p: 1, created_at: 2.5 } }, ROLLOUT_FLOATS)).toBe('{"response":{"output":[{"n":1}],"top_p":1.0,"created_at":2.5}}');
  });
});

