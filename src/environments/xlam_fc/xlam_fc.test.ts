// xlam_fc: the reward rules on our own cases (traps included), NeMo Gym's recorded rollouts
// re-verified through `gym eval reverify`, NeMo Gym's own config run unchanged through `gym eval run`
// with the engine double replaying the recorded model outputs, and the default metrics of that run.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import xlam from "./index.js";
import { normalizeArguments, score } from "./calls.js";
import { functionCall, assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine } from "../../../test/doubles/fake_engine.js";
import { runGym, readJsonlFile } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded, type NemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";
import { recordedInputsFile } from "../../../test/helpers/recorded_inputs_by_prompt.js";
import { recordedPolicy } from "../../../test/helpers/recorded_policy.js";

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(xlam);
});
afterAll(() => env.close());

type Expected = Array<{ name: string; arguments: unknown }>;

async function verify(expected: Expected, output: Array<Record<string, unknown>>) {
  const body = { responses_create_params: { input: [{ role: "user", content: "Do it." }] }, expected_answers: expected, response: responseWith(output) };
  return env.request("/verify", body);
}

async function reward(expected: Expected, output: Array<Record<string, unknown>>): Promise<number> {
  const result = await verify(expected, output);
  expect(result.status, result.text).toBe(200);
  return result.body.reward;
}

const call = (name: string, args: string | Record<string, unknown>, id = `${name}_${Math.random()}`) => functionCall(name, args, id);

describe("reward rules", () => {
  const giveaways: Expected = [
    { name: "live_giveaways_by_type", arguments: { type: "beta" } },
    { name: "live_giveaways_by_type", arguments: { type: "game" } },
  ];
  it("the expected calls, in any order → 1", async () => {
    expect(await reward(giveaways, [call("live_giveaways_by_type", { type: "game" }), call("live_giveaways_by_type", { type: "beta" })])).toBe(1);
  });
  it("one expected call made twice does not cover two expected calls → 0", async () => {
    expect(await reward(giveaways, [call("live_giveaways_by_type", { type: "beta" }), call("live_giveaways_by_type", { type: "beta" })])).toBe(0);
  });
  it("a call left over → 0; a call missing → 0", async () => {
    const one: Expected = [{ name: "f", arguments: { a: 1 } }];
    expect(await reward(one, [call("f", { a: 1 }), call("g", {})])).toBe(0);
    expect(await reward(giveaways, [call("live_giveaways_by_type", { type: "beta" })])).toBe(0);
  });
  it("extra predicted arguments are allowed; a missing expected argument is not", async () => {
    expect(await reward([{ name: "f", arguments: { a: 1 } }], [call("f", { a: 1, b: 2 })])).toBe(1);
    expect(await reward([{ name: "f", arguments: { a: 1, b: 2 } }], [call("f", { a: 1 })])).toBe(0);
  });
  it("trap: the number 98765 is not the string \"98765\"", async () => {
    expect(await reward([{ name: "s", arguments: { is_id: 98765 } }], [call("s", '{"is_id": "98765"}')])).toBe(0);
  });
  it("Python equality: 14 == 14.0 and 1 == true (True == 1 in Python), nested containers compared deeply", async () => {
    expect(await reward([{ name: "f", arguments: { n: 14 } }], [call("f", '{"n": 14.0}')])).toBe(1);
    expect(await reward([{ name: "f", arguments: { n: 1 } }], [call("f", '{"n": true}')])).toBe(1);
    expect(await reward([{ name: "f", arguments: { n: 2 } }], [call("f", '{"n": true}')])).toBe(0);
    expect(await reward([{ name: "f", arguments: { x: { a: [1, "b"] } } }], [call("f", '{"x": {"a": [1, "b"]}}')])).toBe(1);
    expect(await reward([{ name: "f", arguments: { x: { a: [1, "b"] } } }], [call("f", '{"x": {"a": ["b", 1]}}')])).toBe(0);
  });
  it("trap: a wrong function name with the right arguments → 0", async () => {
    expect(await reward([{ name: "f", arguments: { a: 1 } }], [call("g", { a: 1 })])).toBe(0);
  });
  it("no expected calls: 1 only when the model calls nothing", async () => {
    expect(await reward([], [assistantMessage("No tool fits.")])).toBe(1);
    expect(await reward([], [call("f", {})])).toBe(0);
  });
  it("arguments that are not JSON count as none: they match only an expected call without arguments", async () => {
    expect(await reward([{ name: "f", arguments: {} }], [call("f", "{not json")])).toBe(1);
    expect(await reward([{ name: "f", arguments: { a: 1 } }], [call("f", "{not json")])).toBe(0);
    // Python's json.loads reads NaN; NaN never equals itself.
    expect(await reward([{ name: "f", arguments: { a: 1 } }], [call("f", '{"a": NaN}')])).toBe(0);
  });
  it("text that only describes the call earns nothing", async () => {
    expect(await reward([{ name: "f", arguments: { a: 1 } }], [assistantMessage('f(a=1) {"name": "f", "arguments": {"a": 1}}')])).toBe(0);
  });
  it("the reply: counts and the decoded predicted calls, no row fields echoed", async () => {
    const result = await verify(giveaways, [assistantMessage("x"), call("live_giveaways_by_type", '{"type": "beta"}'), call("nope", "[1")]);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      reward: 0,
      num_expected: 2,
      num_predicted: 2,
      num_correct: 1,
      predicted_calls: [
        { name: "live_giveaways_by_type", arguments: { type: "beta" } },
        { name: "nope", arguments: {} },
      ],
    });
    expect(Object.keys(result.body).sort()).toEqual(["num_correct", "num_expected", "num_predicted", "predicted_calls", "response", "responses_create_params", "reward"]);
    expect(result.text).toContain('"reward":0.0');
  });
  it("arguments decoding to a list: a key found in it fails the request as Python's TypeError does; a key absent → 0", async () => {
    expect((await verify([{ name: "f", arguments: { a: 1 } }], [call("f", '["a"]')])).status).toBe(500);
    expect(await reward([{ name: "f", arguments: { a: 1 } }], [call("f", '["b"]')])).toBe(0);
  });
  it("reverify mode is NeMo Gym's default, unknown", async () => {
    expect((await env.request("/reverify_mode")).body).toBe("unknown");
  });
});

describe("NeMo Gym's recordings and config (07d6b0d)", () => {
  let dir: string;
  let checkout: NemoGymCheckout;
  let engine: FakeEngine;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gym-xlam-"));
    checkout = nemoGymCheckout(["xlam_fc"]);
    engine = await startFakeEngine({ policy: recordedPolicy(recordedRollouts("xlam_fc")) });
  });
  afterAll(async () => {
    await engine.close();
    checkout.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the five recorded rollouts re-verify to their recorded rewards (and counts)", async () => {
    // The rollout lines omit expected_answers: joined with their example rows, as --inputs does.
    const inputs = recordedInputsFile("xlam_fc", dir);
    const { result, recorded, reverified, rows } = await reverifyRecorded("xlam_fc", ["--resources-server", "xlam_fc", "--inputs", inputs, "--force"]);
    expect(result.code, result.stderr).toBe(0);
    expect(recorded).toEqual([1, 1, 1, 0, 0]);
    expect(reverified).toEqual(recorded);
    const recordings = recordedRollouts("xlam_fc");
    for (const [i, row] of rows.entries()) {
      const { num_expected, num_predicted, num_correct, predicted_calls } = recordings[i]!;
      expect(row).toMatchObject({ num_expected, num_predicted, num_correct, predicted_calls });
    }
  }, 200_000);

  it("configs/xlam_fc.yaml runs unchanged on example.jsonl; metrics are NeMo Gym's defaults", async () => {
    const output = join(dir, "run.jsonl");
    const result = await runGym(
      ["eval", "run", "--config", "resources_servers/xlam_fc/configs/xlam_fc.yaml", "--input", "resources_servers/xlam_fc/data/example.jsonl", "--agent", "xlam_fc_simple_agent", "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", output, "--quiet"],
      { cwd: checkout.root, timeoutMs: 180_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonlFile(output).sort((a, b) => a._ng_task_index - b._ng_task_index);
    // Rows 0, 1 and 4 were answered right in the recording; 2 (t3ma's time_period as a string) and 3 (list_titles' arguments) wrong.
    expect(rows.map((r) => r.reward)).toEqual([1, 1, 0, 0, 1]);
    expect(rows.map((r) => r.num_expected)).toEqual([2, 1, 1, 1, 1]);
    const [metrics] = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    const m = metrics!.agent_metrics;
    expect(m["mean/reward"]).toBeCloseTo(0.6, 12);
    expect(m["mean/num_expected"]).toBeCloseTo(1.2, 12);
    expect(m["mean/num_correct"]).toBeCloseTo(0.8, 12);
    expect(m["max/num_predicted"]).toBe(2);
    expect(m["median/reward"]).toBe(1);
    expect(Object.keys(metrics!.key_metrics)).toContain("mean/reward");
  }, 200_000);
});

describe("agreement with NeMo Gym's matching (test/fixtures/tools_upstream/xlam_fc.json, made by its app.py)", () => {
  const cases = JSON.parse(readFileSync(new URL("../../../test/fixtures/tools_upstream/xlam_fc.json", import.meta.url), "utf8")) as Array<{ expected: Expected; predicted: Array<{ name: string; arguments: string }>; reward: number; num_correct: number }>;
  it(`${cases.length} cases: the same reward and number correct for every one`, () => {
    expect(cases.length).toBe(400);
    const disagreements = cases.filter((c) => {
      const predicted = c.predicted.map((p) => ({ name: p.name, arguments: normalizeArguments(p.arguments) }));
      const expected = c.expected.map((e) => ({ name: e.name, arguments: normalizeArguments(e.arguments ?? {}) }));
      const result = score(predicted, expected);
      return result.reward !== c.reward || result.numCorrect !== c.num_correct;
    });
    expect(disagreements).toEqual([]);
  });
});
