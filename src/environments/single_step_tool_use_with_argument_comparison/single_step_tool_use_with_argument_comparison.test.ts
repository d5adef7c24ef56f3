// single_step_tool_use_with_argument_comparison: the comparator's rules on our own cases (traps
// included, and the reward table NeMo Gym's parallel config documents), /verify over HTTP, NeMo Gym's
// recorded rollouts re-verified, and each of NeMo Gym's six configs run unchanged with its
// tool_simulation_agent, the engine double replaying recorded (or, for the parallel rows, written) outputs.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import env from "./index.js";
import { ActionComparator, Category, maximumMatching, type ComparatorConfig } from "./compare.js";
import { ExpectedAction, type FunctionCallAction } from "./actions.js";
import { assistantMessage, functionCall, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type Action, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import { runGym, readJsonlFile } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded, type NemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";
import { recordedPolicy } from "../../../test/helpers/recorded_policy.js";

const ID = "single_step_tool_use_with_argument_comparison";
const BASE: ComparatorConfig = {
  word_count_similarity_threshold: 0.1,
  floating_point_comparison_threshold: 1e-6,
  parallel_tool_call_rewarding: false,
  allow_subset: false,
  allow_superset: false,
  parallel_tool_call_reward_mode: "binary_strict",
};
const comparator = (over: Partial<ComparatorConfig> = {}) => new ActionComparator({ ...BASE, ...over });
const call = (name: string, args: Record<string, unknown> | string = {}): FunctionCallAction => ({ type: "function_call", name, arguments: typeof args === "string" ? args : JSON.stringify(args) });
const batch = (...calls: FunctionCallAction[]) => ({ type: "function_call_batch" as const, calls });

describe("argument comparison (one call)", () => {
  const c = comparator();
  const one = (want: string, got: string) => c.compareToolCall(call("f", want), call("f", got));
  it("equal arguments → 1, EXPECTED_TOOL_CALL; a different tool → UNEXPECTED_TOOL", () => {
    expect(one('{"a": 1, "b": "x"}', '{"b": "x", "a": 1}')).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL });
    expect(c.compareToolCall(call("f", { a: 1 }), call("g", { a: 1 }))).toEqual({ reward: 0, category: Category.UNEXPECTED_TOOL });
  });
  it("types as isinstance sees them: 1 vs 1.0 differ, 1.0 vs 1 differ, an int accepts true (bool is an int), a bool refuses 1", () => {
    expect(one('{"n": 1}', '{"n": 1.0}').category).toBe(Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    expect(one('{"n": 1.0}', '{"n": 1}').category).toBe(Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    expect(one('{"n": 1}', '{"n": true}').reward).toBe(1);
    expect(one('{"n": 2}', '{"n": true}').category).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    expect(one('{"n": true}', '{"n": 1}').category).toBe(Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
    expect(one('{"n": null}', '{"n": null}').reward).toBe(1);
    expect(one('{"n": "5"}', '{"n": 5}').category).toBe(Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
  });
  it("ints compare exactly at any size", () => {
    expect(one('{"n": 12345678901234567890}', '{"n": 12345678901234567891}').category).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    expect(one('{"n": 12345678901234567890}', '{"n": 12345678901234567890}').reward).toBe(1);
  });
  it("floats within the threshold (strictly less than it)", () => {
    expect(one('{"x": 0.5}', '{"x": 0.5000005}').reward).toBe(1);
    expect(one('{"x": 0.5}', '{"x": 0.500002}').category).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    expect(comparator({ floating_point_comparison_threshold: 0.5 }).compareToolCall(call("f", '{"x": 1.0}'), call("f", '{"x": 1.5}')).reward).toBe(0);
    expect(one('{"x": 1.0}', '{"x": NaN}').category).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
  });
  it("objects: the same key set, then each value; lists: the same length, then in order", () => {
    expect(one('{"a": 1}', '{"a": 1, "b": 2}').category).toBe(Category.ARGUMENT_OBJECT_KEYS_DIFFERENT);
    expect(one('{"o": {"k": 1}}', '{"o": {"j": 1}}').category).toBe(Category.ARGUMENT_OBJECT_KEYS_DIFFERENT);
    expect(one('{"l": [1, 2]}', '{"l": [1, 2, 3]}').category).toBe(Category.ARGUMENT_LIST_LENGTH_DIFFERENT);
    expect(one('{"l": [1, 2]}', '{"l": [2, 1]}').category).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    // The first failing key, in the expected object's order, names the category.
    expect(one('{"a": [1], "b": 1}', '{"a": [1, 2], "b": "x"}').category).toBe(Category.ARGUMENT_LIST_LENGTH_DIFFERENT);
    expect(one('{"b": 1, "a": [1]}', '{"a": [1, 2], "b": "x"}').category).toBe(Category.ARGUMENT_VALUE_TYPE_DIFFERENT);
  });
  it("strings: single words must be equal as written; longer ones by shared words over all words (≤ 0.5) against the threshold", () => {
    expect(one('{"s": "Paris"}', '{"s": "paris"}').category).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    expect(one('{"s": "Paris"}', '{"s": " Paris"}').category).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    // 2 shared of 2+2 words = 0.5 ≥ 0.1, case and spacing ignored.
    expect(one('{"s": "New York"}', '{"s": "  new   YORK "}').reward).toBe(1);
    // 1 shared of 2+9 = 0.0909 < 0.1: the trap of a long answer sharing one word.
    expect(one('{"s": "expired payment"}', '{"s": "the user has a question about seat selection payment"}').category).toBe(Category.ARGUMENT_VALUE_DIFFERENT);
    // 1 shared of 2+8 = 0.1: exactly at the threshold passes.
    expect(one('{"s": "expired payment"}', '{"s": "the user has a question about seat payment"}').reward).toBe(1);
    // Word multisets: "a a" against "a b" shares one word.
    expect(comparator({ word_count_similarity_threshold: 0.3 }).compareToolCall(call("f", { s: "a a" }), call("f", { s: "a b" })).reward).toBe(0);
    expect(comparator({ word_count_similarity_threshold: 0.25 }).compareToolCall(call("f", { s: "a a" }), call("f", { s: "a b" })).reward).toBe(1);
    // Threshold 0 (droid and swe configs): any two multi-word strings match, single words still must be equal.
    expect(comparator({ word_count_similarity_threshold: 0 }).compareToolCall(call("f", { s: "ls -la" }), call("f", { s: "rm -rf /" })).reward).toBe(1);
  });
  it("arguments that do not decode → ARGUMENTS_DECODE_ERROR (Python's json.loads: raw control characters in strings rejected)", () => {
    expect(one('{"a": 1}', "{a: 1}").category).toBe(Category.ARGUMENTS_DECODE_ERROR);
    expect(one('{"s": "a b"}', '{"s": "a\tb"}').category).toBe(Category.ARGUMENTS_DECODE_ERROR);
    expect(one('{"s": "a\\tb"}', '{"s": "a\\tb"}').reward).toBe(1);
  });
});

describe("actions and parallel calls", () => {
  const alpha = call("alpha", { q: 1 });
  const beta = call("beta", { q: 2 });
  const expected = batch(alpha, beta);
  const wrongBeta = call("beta", { q: 3 });
  const junk = [call("j1"), call("j2"), call("j3")];
  it("message expected: any message → 1; a call → NO_EXPECTED_CHAT_MESSAGE. Call expected: a message → NO_EXPECTED_TOOL_CALL", () => {
    const c = comparator();
    expect(c.compareAction({ type: "message", content: "x" }, { type: "message", content: "entirely different" })).toEqual({ reward: 1, category: Category.EXPECTED_CHAT_MESSAGE_FOUND });
    expect(c.compareAction({ type: "message", content: "x" }, alpha).category).toBe(Category.NO_EXPECTED_CHAT_MESSAGE);
    expect(c.compareAction(alpha, { type: "message", content: "alpha(q=1)" }).category).toBe(Category.NO_EXPECTED_TOOL_CALL);
  });
  it("rewarding off (default): the call count is not judged, surplus calls are free, missing ones are not", () => {
    const c = comparator();
    expect(c.compareAction(expected, batch(beta, alpha))).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL_BATCH });
    expect(c.compareAction(alpha, batch(call("junk"), alpha))).toEqual({ reward: 1, category: Category.EXPECTED_TOOL_CALL });
    expect(c.compareAction(expected, alpha)).toEqual({ reward: 0, category: Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT });
    expect(c.compareAction(expected, batch(alpha, call("junk"))).reward).toBe(0);
  });
  it("rewarding on, no gates: only the exact count is admissible", () => {
    const c = comparator({ parallel_tool_call_rewarding: true });
    expect(c.compareAction(alpha, batch(alpha, call("junk"))).category).toBe(Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT);
    expect(c.compareAction(expected, batch(alpha, beta, alpha)).reward).toBe(0);
  });
  // The table in NeMo Gym's parallel_tool_calls config ("Measured rewards, expecting the 2 calls {alpha, beta}").
  const table: Array<[string, FunctionCallAction[], Partial<ComparatorConfig>, [number, number, number]]> = [
    ["both calls, either order", [beta, alpha], {}, [1, 1, 1]],
    ["right count, one call wrong", [alpha, wrongBeta], {}, [0, 0.5, 0.5]],
    ["only 1 of the 2 calls", [alpha], { allow_subset: true }, [1, 1, 2 / 3]],
    ["both calls + 3 junk calls", [alpha, beta, ...junk], { allow_superset: true }, [1, 1, 4 / 7]],
  ];
  for (const [what, calls, gate, rewards] of table) {
    it(`the documented table: ${what} → ${rewards.map((r) => r.toFixed(3)).join(" / ")}`, () => {
      const modes = ["binary_strict", "fractional", "f1"] as const;
      modes.forEach((mode, i) => {
        const c = comparator({ parallel_tool_call_rewarding: true, parallel_tool_call_reward_mode: mode, ...gate });
        expect(c.compareAction(expected, calls.length === 1 ? calls[0]! : batch(...calls)).reward).toBeCloseTo(rewards[i]!, 12);
      });
    });
  }
  it("a partial match reports the first unmatched expected call's nearest miss, or the count when only count is wrong", () => {
    const c = comparator({ parallel_tool_call_rewarding: true, parallel_tool_call_reward_mode: "f1", allow_subset: true, allow_superset: true });
    expect(c.compareAction(expected, batch(alpha, wrongBeta))).toEqual({ reward: 0.5, category: Category.ARGUMENT_VALUE_DIFFERENT });
    expect(c.compareAction(expected, alpha).category).toBe(Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT);
    expect(c.compareAction(expected, batch(alpha, beta, call("junk"))).category).toBe(Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT);
  });
  it("fuzzy, non-transitive matching needs augmenting paths: greedy pairing would strand a call", () => {
    // Expected 0 accepts actual 0 or 1; expected 1 only actual 0.
    const m = maximumMatching([[0, 1], [0]]);
    expect(m.size).toBe(2);
    expect([...m.entries()].sort()).toEqual([[0, 1], [1, 0]]);
    // With strings: "red apple" matches both "red apple" and "apple red pie"; "red apple pie" only the latter at 0.3.
    const c = comparator({ word_count_similarity_threshold: 0.3 });
    const want = batch(call("f", { s: "red apple" }), call("f", { s: "red apple pie" }));
    expect(c.compareAction(want, batch(call("f", { s: "apple red pie" }), call("f", { s: "red apple" }))).reward).toBe(1);
  });
});

describe("/verify over HTTP", () => {
  let instance: RunningInstance;
  beforeAll(async () => {
    instance = await startInstance(env, { config: { tool_call_comparator_config: { word_count_similarity_threshold: 0.1 } } });
  });
  afterAll(() => instance.close());
  const verify = (expected_action: unknown, output: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) =>
    instance.request("/verify", { responses_create_params: { input: [{ role: "user", content: "next" }] }, expected_action, response: responseWith(output), ...extra });

  it("a call wins over the text beside it; the reply carries the expected action as its model dumps it, and the category", async () => {
    const result = await verify({ type: "function_call", name: "f", arguments: '{"a": 1}', extra: "dropped" }, [assistantMessage("Calling f."), functionCall("f", '{"a":1}')], { id: 7 });
    expect(result.status, result.text).toBe(200);
    expect(result.body.reward).toBe(1);
    expect(result.body.category).toBe(Category.EXPECTED_TOOL_CALL);
    expect(result.body.expected_action).toEqual({ type: "function_call", name: "f", arguments: '{"a": 1}' });
    expect(Object.keys(result.body)).toEqual(["responses_create_params", "response", "reward", "expected_action", "category"]);
    expect(result.text).toContain('"reward":1.0');
  });
  it("nothing said, nothing called → 0, NO_ACTION_FOUND; a reasoning-only response too", async () => {
    expect((await verify({ type: "message", content: "x" }, [])).body).toMatchObject({ reward: 0, category: Category.NO_ACTION_FOUND });
    const reasoning = { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "thinking" }] };
    expect((await verify({ type: "message", content: "x" }, [reasoning])).body.category).toBe(Category.NO_ACTION_FOUND);
  });
  it("an expected action of unknown type, or a batch without calls, is refused (422)", async () => {
    expect((await verify({ type: "tool", name: "f" }, [assistantMessage("x")])).status).toBe(422);
    expect((await verify({ type: "function_call_batch", calls: [] }, [assistantMessage("x")])).status).toBe(422);
  });
});

// ---------------- NeMo Gym's recordings and configs ----------------

const CONFIGS = [
  "droid_pivot_single_step_tool_use_with_argument_comparison",
  "search_pivot_single_step_tool_use_with_argument_comparison",
  "single_step_tool_use_with_argument_comparison",
  "swe_pivot_single_step_tool_use_with_argument_comparison",
  "toolcall_schema_single_step_tool_use_with_argument_comparison",
];

/** The parallel rows' answers (NeMo Gym recorded none): all three cities; only NVDA; Berlin, AMD and a junk call; Paris; a message. */
const PARALLEL_ANSWERS = new Map<string, Action>([
  ["What's the weather in Paris, Tokyo, and Cairo?", { toolCalls: ["Cairo", "Paris", "Tokyo"].map((city) => ({ name: "get_weather", arguments: { city } })) }],
  ["Get me the stock price for NVDA and AMD.", { toolCalls: [{ name: "get_stock_price", arguments: { ticker: "NVDA" } }] }],
  ["What's the weather in Berlin, and what's AMD trading at?", { toolCalls: [{ name: "get_stock_price", arguments: { ticker: "AMD" } }, { name: "get_weather", arguments: { city: "Berlin" } }, { name: "get_weather", arguments: { city: "Bonn" } }] }],
  ["What's the weather in Paris?", { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] }],
  ["Thanks, that's all I needed!", { text: "Glad to help." }],
]);

describe("NeMo Gym's recordings and configs (07d6b0d)", () => {
  let dir: string;
  let checkout: NemoGymCheckout;
  let engine: FakeEngine;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gym-single-step-"));
    checkout = nemoGymCheckout([ID]);
    const replay = recordedPolicy(recordedRollouts(ID));
    engine = await startFakeEngine({
      policy: (turns: Turn[], tools, request) => PARALLEL_ANSWERS.get(turns.findLast((t) => t.role === "user")?.content ?? "") ?? replay(turns, tools, request),
    });
  });
  afterAll(async () => {
    await engine.close();
    checkout.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the five recorded rollouts re-verify to their recorded rewards and categories (NeMo Gym's main config)", async () => {
    const { result, recorded, reverified, rows } = await reverifyRecorded(ID, ["--config", `resources_servers/${ID}/configs/${ID}.yaml`, "--force"], { cwd: checkout.root });
    expect(result.code, result.stderr).toBe(0);
    expect(recorded).toEqual([1, 1, 0, 1, 0]);
    expect(reverified).toEqual(recorded);
    expect(rows.map((r) => r?.category)).toEqual(recordedRollouts(ID).map((r) => r.category));
  }, 200_000);

  const run = async (config: string, input: string) => {
    const output = join(dir, `${config}.jsonl`);
    const before = engine.requests.length;
    const result = await runGym(
      ["eval", "run", "--config", `resources_servers/${ID}/configs/${config}.yaml`, "--agent", `${config}_agent`, "--input", `resources_servers/${ID}/data/${input}`, "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", output, "--quiet"],
      { cwd: checkout.root, timeoutMs: 180_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonlFile(output).sort((a, b) => a._ng_task_index - b._ng_task_index);
    const [metrics] = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    // tool_simulation_agent: exactly one model call per row, its tool calls never run.
    expect(engine.requests.length - before).toBe(rows.length);
    expect(rows.every((r) => !r.response.output.some((item: Record<string, unknown>) => item.type === "function_call_output"))).toBe(true);
    return { rows, metrics: metrics! };
  };

  for (const config of CONFIGS) {
    it(`${config}.yaml runs unchanged with tool_simulation_agent: every row back, the recorded rewards`, async () => {
      const { rows, metrics } = await run(config, "example.jsonl");
      expect(rows.map((r) => r.reward)).toEqual([1, 1, 0, 1, 0]);
      expect(rows.map((r) => r.category)).toEqual([
        Category.EXPECTED_TOOL_CALL,
        Category.EXPECTED_CHAT_MESSAGE_FOUND,
        Category.NO_EXPECTED_TOOL_CALL,
        Category.EXPECTED_CHAT_MESSAGE_FOUND,
        Category.NO_EXPECTED_TOOL_CALL,
      ]);
      // Default metrics: the reward's statistics (the category is text, not a measurement).
      expect(metrics.agent_metrics["mean/reward"]).toBeCloseTo(0.6, 12);
      expect(metrics.agent_metrics["median/reward"]).toBe(1);
      expect(Object.keys(metrics.agent_metrics).some((k) => k.includes("category"))).toBe(false);
    }, 200_000);
  }

  it("parallel_tool_calls_….yaml (f1, both gates open) on parallel_example.jsonl: exact sets 1, NVDA alone 2/3, a junk call 4/5", async () => {
    const { rows, metrics } = await run("parallel_tool_calls_single_step_tool_use_with_argument_comparison", "parallel_example.jsonl");
    const rewards = rows.map((r) => r.reward as number);
    [1, 2 / 3, 0.8, 1, 1].forEach((want, i) => expect(rewards[i]).toBeCloseTo(want, 12));
    expect(rows.map((r) => r.category)).toEqual([
      Category.EXPECTED_TOOL_CALL_BATCH,
      Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT,
      Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT,
      Category.EXPECTED_TOOL_CALL,
      Category.EXPECTED_CHAT_MESSAGE_FOUND,
    ]);
    expect(metrics.agent_metrics["mean/reward"]).toBeCloseTo((1 + 2 / 3 + 0.8 + 1 + 1) / 5, 12);
  }, 200_000);
});

describe("agreement with NeMo Gym's comparator (test/fixtures/tools_upstream/single_step.json, made by its verification_utils.py)", () => {
  const cases = JSON.parse(readFileSync(new URL("../../../test/fixtures/tools_upstream/single_step.json", import.meta.url), "utf8")) as Array<{ config: Partial<ComparatorConfig>; expected: unknown; actual: unknown; reward: number; category: string }>;
  it(`${cases.length} cases under 15 configs: the same reward and category for every one`, () => {
    expect(cases.length).toBe(600);
    const disagreements = cases.filter((c) => {
      const result = comparator(c.config).compareAction(ExpectedAction.parse(c.expected), ExpectedAction.parse(c.actual));
      return result.reward !== c.reward || result.category !== c.category;
    });
    expect(disagreements).toEqual([]);
  });
});
