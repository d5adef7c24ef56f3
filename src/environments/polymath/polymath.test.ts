// polymath over HTTP: math-verify's verdicts with the row's weight and language carried through, the
// aggregate metrics equal to NeMo Gym's own functions' (reference.json, made by testdata/generate.py
// from reward_profile.py and polymath/app.py at 07d6b0d), NeMo Gym's recorded rollouts re-verified,
// and NeMo Gym's polymath.yaml run unchanged by `gym eval run` with the recorded answers replayed.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded, type NemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import polymath from "./index.js";

interface Scenario {
  tasks: Array<Array<Record<string, unknown>>>;
  metrics: Record<string, number>;
  per_sample_aggregate: Record<string, number[]>;
  key_metrics: Record<string, number>;
}
const reference = JSON.parse(readFileSync(new URL("./testdata/reference.json", import.meta.url), "utf8")) as { scenarios: Record<string, Scenario> };

const CONFIG = { judge_model_server: { type: "responses_api_models", name: "policy_model" }, judge_responses_create_params: { input: [] }, should_use_judge: false };

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(polymath, { config: CONFIG });
});
afterAll(() => env.close());

async function verify(text: string, expected: string, extra: Record<string, unknown> = {}) {
  const body = { responses_create_params: { input: [{ role: "user", content: "q" }] }, question: "q", expected_answer: expected, ...extra, response: responseWith([assistantMessage(text)]) };
  const result = await env.request("/verify", body);
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

/** Every key of `expected` present with the same value (to 1e-9 relative), and no key beyond it. */
function expectSameMetrics(actual: Record<string, number>, expected: Record<string, number>) {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [key, value] of Object.entries(expected)) expect(actual[key], key).toBeCloseTo(value, 9);
}

describe("reward rules", () => {
  it("a right boxed answer earns 1 with weight and language carried into the reply", async () => {
    const r = await verify("So \\boxed{7}.", "7", { weight: 2.0, language: "en", difficulty: "medium" });
    expect(r).toMatchObject({ reward: 1, library_reward: 1, extracted_answer: "7", expected_answer: "7", judge_evaluations: null, weight: 2, language: "en" });
    expect(r.difficulty).toBeUndefined();
  });
  it("traps: a wrong number, an unboxed bare number beside a wrong box, and no answer earn 0", async () => {
    expect((await verify("\\boxed{8}", "7")).reward).toBe(0);
    expect((await verify("7 is tempting but \\boxed{6}", "7")).reward).toBe(0);
    expect((await verify("I cannot solve this.", "7")).reward).toBe(0);
  });
  it("rows without weight or language verify (both null)", async () => {
    const r = await verify("\\boxed{\\frac{1}{2}}", "0.5");
    expect([r.reward, r.weight, r.language]).toEqual([1, null, null]);
  });
  it("question and expected_answer are required (422)", async () => {
    expect((await env.request("/verify", { responses_create_params: { input: [] }, expected_answer: "1", response: responseWith([]) })).status).toBe(422);
  });
});

describe("/aggregate_metrics equals NeMo Gym's compute_metrics and get_key_metrics (reference.json)", () => {
  for (const [name, scenario] of Object.entries(reference.scenarios)) {
    it(name, async () => {
      const result = (await env.request("/aggregate_metrics", { verify_responses: scenario.tasks.flat() })).body as Record<string, any>;
      const custom = Object.fromEntries(Object.entries(result.agent_metrics as Record<string, number>).filter(([key]) => key.includes("@")));
      expectSameMetrics(custom, scenario.metrics);
      expectSameMetrics(result.key_metrics, scenario.key_metrics);
      expect(Object.keys(result.per_sample_aggregate).sort()).toEqual(Object.keys(scenario.per_sample_aggregate).sort());
      for (const [score, values] of Object.entries(scenario.per_sample_aggregate)) expect(result.per_sample_aggregate[score]).toEqual(values);
    });
  }
});

describe("NeMo Gym's recordings and config", () => {
  let checkout: NemoGymCheckout;
  let engine: FakeEngine;
  let dir: string;
  beforeAll(async () => {
    checkout = nemoGymCheckout(["polymath"]);
    const answers = new Map<string, string>();
    for (const rollout of recordedRollouts("polymath")) {
      const message = (rollout.response.output as Array<Record<string, any>>).findLast((item) => item.type === "message");
      answers.set(rollout.responses_create_params.input[0].content as string, message ? message.content.map((p: { text: string }) => p.text).join("") : "");
    }
    engine = await startFakeEngine({ policy: (turns: Turn[]) => ({ text: answers.get(turns.findLast((t) => t.role === "user")?.content ?? "") ?? "no idea" }) });
    dir = mkdtempSync(join(tmpdir(), "gym-polymath-"));
  });
  afterAll(async () => {
    checkout.remove();
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("recorded rollouts re-verify to the recorded rewards (5/5)", async () => {
    const { result, recorded, reverified, rows } = await reverifyRecorded("polymath", ["--resources-server", "polymath"]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(recorded).toEqual([1, 1, 0, 1, 1]);
    expect(reverified).toEqual(recorded);
    expect(rows.map((r) => r?.extracted_answer)).toEqual(recordedRollouts("polymath").map((r) => r.extracted_answer));
  }, 200_000);

  it("polymath.yaml runs unchanged: every row back, the recorded rewards, NeMo Gym's metrics", async () => {
    const out = join(dir, "polymath.jsonl");
    const result = await runGym(
      ["eval", "run", "--config", "resources_servers/polymath/configs/polymath.yaml", "--input", "resources_servers/polymath/data/example.jsonl", "--agent", "polymath_simple_agent", "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", out, "--quiet"],
      { cwd: checkout.root, timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonlFile(new URL(`file://${out}`)).sort((a, b) => a._ng_task_index - b._ng_task_index);
    expect(rows).toHaveLength(5);
    expect(rows.map((r) => r.reward)).toEqual([1, 1, 0, 1, 1]);
    expect(rows.map((r) => [r.weight, r.language])).toEqual(readJsonlFile(new URL("./data/example.jsonl", import.meta.url)).map((r) => [r.weight, r.language]));
    const metrics = JSON.parse(readFileSync(out.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    const expected = reference.scenarios.example_rollouts!;
    const custom = Object.fromEntries(Object.entries(metrics[0]!.agent_metrics as Record<string, number>).filter(([key]) => key.includes("@")));
    expectSameMetrics(custom, expected.metrics);
    const key = Object.fromEntries(Object.entries(metrics[0]!.key_metrics as Record<string, number>).filter(([k]) => !k.startsWith("mean/")));
    expectSameMetrics(key, expected.key_metrics);
  }, 200_000);
});
