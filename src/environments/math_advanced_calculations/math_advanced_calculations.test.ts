// math_advanced_calculations over HTTP: every calculator against NeMo Gym's own tools run by Python
// (tools.json, 1,506 calls made by testdata/generate.py from the tools file at 07d6b0d: solutions bit
// for bit, and 500 wherever NeMo Gym's route fails), the reward rule and its traps, NeMo Gym's recorded
// rollouts re-verified against inputs rebuilt from their prompts, and NeMo Gym's config run unchanged by
// `gym eval run` with the engine double calling the tools.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMessage, functionCall, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, reverifyRecorded, type NemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import mathAdvanced from "./index.js";

interface ToolCase {
  tool: string;
  args: Record<string, number>;
  status: number;
  solution?: number;
  error?: string;
}
const tools = JSON.parse(readFileSync(new URL("./testdata/tools.json", import.meta.url), "utf8")) as { cases: ToolCase[] };

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(mathAdvanced);
});
afterAll(() => env.close());

const output = (solution: unknown) => ({ type: "function_call_output", call_id: "c", output: JSON.stringify({ solution }) });
async function verify(outputs: Array<Record<string, unknown>>, groundTruth: unknown) {
  return env.request("/verify", { responses_create_params: { input: [{ role: "user", content: "q" }] }, ground_truth: groundTruth, id: 7, depth: 1, breadth: 1, response: responseWith(outputs) });
}

describe("the calculators against NeMo Gym's tools run by Python (tools.json)", () => {
  for (const name of [...new Set(tools.cases.map((c) => c.tool))]) {
    it(name, async () => {
      for (const c of tools.cases.filter((x) => x.tool === name)) {
        const result = await env.request(`/${name}`, c.args);
        const label = `${name}(${JSON.stringify(c.args)})`;
        expect(result.status, `${label}: ${result.text}`).toBe(c.status);
        if (c.status === 200) expect(result.body.solution === c.solution, `${label} = ${result.body.solution}, Python ${c.solution}`).toBe(true);
      }
    });
  }
  it("an unknown tool is 404; arguments may be numeric strings or booleans, as pydantic reads floats", async () => {
    expect((await env.request("/sqrt", { a: 4 })).status).toBe(404);
    expect((await env.request("/add", { a: "1.5", b: true })).body).toEqual({ solution: 3.7 });
    expect((await env.request("/add", { a: "one", b: 1 })).status).toBe(422);
  });
});

describe("reward rules", () => {
  it("every ground-truth value must be among the tool outputs' solutions", async () => {
    expect((await verify([output(-3.0), output(0.5)], "[-3.0, 0.5]")).body.reward).toBe(1);
    expect((await verify([output(0.5), output(-3.0), output(99)], "[-3.0, 0.5]")).body.reward).toBe(1);
    expect((await verify([output(-3.0)], "[-3.0, 0.5]")).body.reward).toBe(0);
  });
  it("traps: the right number said in text, a tool's arguments, or a near value do not count", async () => {
    expect((await verify([assistantMessage("The answers are -3.0 and 0.5")], "[-3.0, 0.5]")).body.reward).toBe(0);
    expect((await verify([functionCall("subtract", { a: -3.0, b: 0.5 })], "[-3.0, 0.5]")).body.reward).toBe(0);
    expect((await verify([output(0.5000000000000001)], "[0.5]")).body.reward).toBe(0);
  });
  it("Python's `in` and float(): numeric strings and true read as numbers, null matches an unreadable output, an empty list rewards", async () => {
    expect((await verify([output("2.5")], "[2.5]")).body.reward).toBe(1);
    expect((await verify([output(1)], "[true]")).body.reward).toBe(1);
    expect((await verify([{ type: "function_call_output", call_id: "c", output: "oops" }], "[null]")).body.reward).toBe(1);
    expect((await verify([], "[]")).body.reward).toBe(1);
  });
  it("the reply echoes ground_truth, id, depth and breadth; a ground truth that is a list (not a JSON string) fails as in NeMo Gym", async () => {
    const r = await verify([output(1)], "[1]");
    expect([r.body.ground_truth, r.body.id, r.body.depth, r.body.breadth]).toEqual(["[1]", 7, 1, 1]);
    expect((await verify([output(1)], [1.0])).status).toBe(500);
    expect((await env.request("/verify", { responses_create_params: { input: [] }, ground_truth: "[]", response: responseWith([]) })).status).toBe(422);
  });
});

describe("strict: true (Gymkit's): only solutions computed from the question count", () => {
  let strict: RunningInstance;
  beforeAll(async () => {
    strict = await startInstance(mathAdvanced, { config: { strict: true } });
  });
  afterAll(() => strict.close());
  const question = "Get me the values for (9.0 - 9.0) and (4.0 ** 6.0 / pi) using only the given tools.";
  const call = (name: string, args: Record<string, unknown>, id: string, solution: number) => [functionCall(name, args, id), { type: "function_call_output", call_id: id, output: JSON.stringify({ solution }) }];
  const reward = async (outputs: Array<Record<string, unknown>>, groundTruth: string) =>
    (await strict.request("/verify", { responses_create_params: { input: [{ role: "user", content: question }] }, ground_truth: groundTruth, id: 7, depth: 1, breadth: 1, response: responseWith(outputs) })).body.reward;
  const computed = [...call("subtract", { a: 9, b: 9 }, "c1", -3), ...call("power", { a: 4, b: 6 }, "c2", 65536), ...call("pi", {}, "c3", Math.E), ...call("divide", { a: 65536, b: Math.E }, "c4", 12054.673528305822)];

  it("rewards values computed through the tools from the question's numbers and earlier solutions", async () => {
    expect(await reward(computed, "[-3.0, 12054.673528305822]")).toBe(1);
    // NeMo Gym's reward gives the same rollout 1 too
    expect((await verify(computed, "[-3.0, 12054.673528305822]")).body.reward).toBe(1);
  });

  it("does not count values the policy wrote itself: return_constant or add with a shifted argument, with the gold among candidates", async () => {
    const candidates = [-4, -3, 3].flatMap((v, i) => call("return_constant", { a: v }, `r${i}`, v));
    expect(await reward(candidates, "[-3.0]")).toBe(0);
    expect((await verify(candidates, "[-3.0]")).body.reward).toBe(1); // NeMo Gym's reward: any solution counts
    expect(await reward(call("add", { a: -4.2, b: 0 }, "a1", -3), "[-3.0]")).toBe(0);
    // a number the question names is fine through return_constant (the gold "3.0" of "the values for 3.0, ...")
    expect(await reward(call("return_constant", { a: "9.0" }, "k", 9), "[9.0]")).toBe(1);
    // an output without its call, or with unreadable arguments, does not count
    expect(await reward([{ type: "function_call_output", call_id: "zz", output: JSON.stringify({ solution: -3 }) }], "[-3.0]")).toBe(0);
    expect(await reward([functionCall("subtract", "{bad", "b1"), { type: "function_call_output", call_id: "b1", output: JSON.stringify({ solution: -3 }) }], "[-3.0]")).toBe(0);
  });
});

/** The engine's moves per example row (by prompt): tool calls computing the row's values, or none. */
const PLAYS: Array<Array<{ name: string; arguments: Record<string, number> }>> = [
  // (9-9), (1/1), (1*9), sin(5): all four → 1.
  [{ name: "subtract", arguments: { a: 9, b: 9 } }, { name: "divide", arguments: { a: 1, b: 1 } }, { name: "multiply", arguments: { a: 1, b: 9 } }, { name: "sin", arguments: { radians: 5 } }],
  // Only the first of four values → 0.
  [{ name: "return_constant", arguments: { a: 3 } }],
  // 4 ** 6 / pi, intermediate values worked out by the engine: power, pi, then divide → 1.
  [{ name: "power", arguments: { a: 4, b: 6 } }, { name: "pi", arguments: {} }, { name: "divide", arguments: { a: 65536, b: Math.E } }],
  // pi, (4+2), 2 ** 10, (4/1), pi → 1.
  [{ name: "pi", arguments: {} }, { name: "add", arguments: { a: 4, b: 2 } }, { name: "power", arguments: { a: 2, b: 10 } }, { name: "divide", arguments: { a: 4, b: 1 } }],
  // No tools at all (own arithmetic) → 0.
  [],
];

describe("NeMo Gym's recordings and config", () => {
  let checkout: NemoGymCheckout;
  let engine: FakeEngine;
  let dir: string;
  beforeAll(async () => {
    checkout = nemoGymCheckout(["math_advanced_calculations"]);
    const rows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
    const plays = new Map(rows.map((row, i) => [row.responses_create_params.input[0].content as string, PLAYS[i]!]));
    engine = await startFakeEngine({
      policy: (turns: Turn[]) => {
        if (turns.at(-1)?.role === "tool") return { text: "Here are the values." };
        const play = plays.get(turns.findLast((t) => t.role === "user")?.content ?? "") ?? [];
        return play.length ? { toolCalls: play } : { text: "By my own arithmetic: 42." };
      },
    });
    dir = mkdtempSync(join(tmpdir(), "gym-math-advanced-"));
  });
  afterAll(async () => {
    checkout.remove();
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // The recorded rollouts answer training-set tasks and keep no ground truth; their input rows are
  // rebuilt from their prompts with NeMo Gym's tools (testdata/generate_recorded_inputs.py).
  it("recorded rollouts re-verify to the recorded rewards (5/5) with inputs rebuilt from their prompts", async () => {
    const inputs = new URL("./testdata/recorded_inputs.jsonl", import.meta.url).pathname;
    const { result, recorded, reverified } = await reverifyRecorded("math_advanced_calculations", ["--resources-server", "math_advanced_calculations", "--inputs", inputs]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(recorded).toEqual([1, 1, 1, 1, 1]);
    expect(reverified).toEqual(recorded);
  }, 200_000);

  it("math_advanced_calculations.yaml runs unchanged: tools called through the agent, rewards by the ground truth", async () => {
    const out = join(dir, "mac.jsonl");
    const result = await runGym(
      ["eval", "run", "--config", "resources_servers/math_advanced_calculations/configs/math_advanced_calculations.yaml", "--input", "resources_servers/math_advanced_calculations/data/example.jsonl", "--agent", "math_advanced_calculations_simple_agent", "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", out, "--quiet"],
      { cwd: checkout.root, timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonlFile(new URL(`file://${out}`)).sort((a, b) => a._ng_task_index - b._ng_task_index);
    expect(rows).toHaveLength(5);
    expect(rows.map((r) => r.reward)).toEqual([1, 0, 1, 1, 0]);
    expect(rows.map((r) => r.id)).toEqual([0, 1, 2, 3, 4]);
    const metrics = JSON.parse(readFileSync(out.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    const agent = metrics[0]!.agent_metrics as Record<string, number>;
    expect(agent["mean/reward"]).toBeCloseTo(0.6, 12);
    // The default profiler aggregates every numeric field of the verify response, id/depth/breadth included.
    expect(agent["mean/depth"]).toBeCloseTo(12 / 5, 12);
    expect(agent["max/breadth"]).toBe(5);
  }, 200_000);
});
