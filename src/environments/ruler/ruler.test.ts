// ruler: substring matching on our own cases, NeMo Gym's recorded rollouts re-verified through
// `gym eval reverify --inputs`, NeMo Gym's config run unchanged through `gym eval run`, default metrics.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ruler, { RULER_SUBSETS } from "./index.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { outputText } from "../../protocol/index.js";
import { recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { exampleRows, longctxExpected, runNemoGymConfig } from "../../../test/helpers/longctx.js";

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(ruler);
});
afterAll(() => env.close());

async function verify(subset: string, outputs: string[], text: string) {
  const body = { responses_create_params: { input: [{ role: "user", content: "Q" }] }, outputs, length: 4096, subset, response: responseWith([assistantMessage(text)]) };
  return env.request("/verify", body);
}
const reward = async (subset: string, outputs: string[], text: string) => {
  const result = await verify(subset, outputs, text);
  expect(result.status, result.text).toBe(200);
  return (result.body as Record<string, any>).reward as number;
};

describe("reward rules", () => {
  it("every subset but qa_1/qa_2: the fraction of references found, case-insensitively", async () => {
    expect(await reward("niah_multikey_1", ["AB12", "cd34"], "values: ab12, CD34")).toBe(1);
    expect(await reward("vt", ["AAA", "BBB", "CCC", "DDD"], "aaa ccc")).toBe(0.5);
    expect(await reward("cwe", ["x"], "no")).toBe(0);
  });
  it("qa_1 / qa_2: one reference found is enough", async () => {
    expect(await reward("qa_1", ["Paris", "paris, france"], "It is PARIS.")).toBe(1);
    expect(await reward("qa_2", ["Paris", "Lyon"], "Marseille")).toBe(0);
  });
  it("trap: a substring of a longer token still counts (plain substring test, as NeMo Gym)", async () => {
    expect(await reward("niah_single_1", ["123"], "41234")).toBe(1);
  });
  it("trap: the answer only in the reasoning does not count", async () => {
    const body = {
      responses_create_params: { input: [{ role: "user", content: "Q" }] }, outputs: ["AAA"], length: 10, subset: "vt",
      response: responseWith([{ type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "AAA" }] }]),
    };
    expect(((await env.request("/verify", body)).body as Record<string, any>).reward).toBe(0);
  });
  it("reports the reward under the subset's name, null under the other twelve", async () => {
    const result = await verify("fwe", ["a", "b"], "a");
    const body = result.body as Record<string, any>;
    expect(body.fwe).toBe(0.5);
    for (const name of RULER_SUBSETS.filter((n) => n !== "fwe")) expect(body[name], name).toBeNull();
    expect(body).toMatchObject({ outputs: ["a", "b"], length: 4096, subset: "fwe" });
  });
  it("an unknown subset is scored with `all` and has no field of its own", async () => {
    const result = await verify("custom", ["a"], "a");
    expect((result.body as Record<string, any>).reward).toBe(1);
    expect(result.body).not.toHaveProperty("custom");
  });
  it("empty outputs: NeMo Gym divides by zero (a server error), so does Gymkit", async () => {
    expect((await verify("vt", [], "a")).status).toBe(500);
  });
});

describe("NeMo Gym's recorded rollouts", () => {
  // The five lines carry no `outputs`, `length` or `subset`; their tasks (16–21) are not NeMo Gym's
  // example.jsonl rows (those are five other vt tasks), and the run's materialized inputs are not in
  // NeMo Gym's repository. Given that file, the recording re-verifies as NeMo Gym's would:
  const inputs = process.env.GYMKIT_RULER_INPUTS;
  it.skipIf(!inputs || !existsSync(inputs))("with the run's materialized inputs (GYMKIT_RULER_INPUTS): the recorded rewards", async () => {
    const { result, recorded, reverified } = await reverifyRecorded("ruler", ["--resources-server", "ruler", "--inputs", inputs!]);
    expect(result.code, result.stderr).toBe(0);
    expect(reverified).toEqual(recorded);
  }, 200_000);

  it("the same code on inputs of the same shape: every recorded rollout stopped in its reasoning, so 0 for any references (5/5)", async () => {
    const rollouts = recordedRollouts("ruler");
    // No output text at all in any of them (the generation ended inside the reasoning).
    expect(rollouts.map((r) => outputText(r.response))).toEqual(["", "", "", "", ""]);
    const examples = exampleRows("ruler");
    const dir = mkdtempSync(join(tmpdir(), "gym-ruler-inputs-"));
    try {
      const path = join(dir, "materialized_inputs.jsonl");
      // Each rollout's own prompt (a variable-tracking question, subset vt), with the references
      // and length of an example vt row.
      const rows = rollouts.map((r, i) => {
        const example = examples[i % examples.length]!;
        return { _ng_task_index: r._ng_task_index, _ng_rollout_index: r._ng_rollout_index, responses_create_params: r.responses_create_params, outputs: example.outputs, length: example.length, subset: "vt" };
      });
      writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
      const { result, recorded, reverified, rows: out } = await reverifyRecorded("ruler", ["--resources-server", "ruler", "--inputs", path]);
      expect(result.code, result.stderr).toBe(0);
      expect(recorded).toEqual([0, 0, 0, 0, 0]);
      expect(reverified).toEqual(recorded);
      expect(out.map((r) => r?.vt)).toEqual([0, 0, 0, 0, 0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 200_000);
});

describe("NeMo Gym's config, unchanged", () => {
  it("configs/ruler.yaml: every example row back, rewards as NeMo Gym's code computes them, default metrics", async () => {
    const expected = longctxExpected.ruler;
    // NeMo Gym's ruler rows carry no agent_ref: the agent is named on the command line, as NeMo Gym's
    // `ng_collect_rollouts +agent_name=ruler_simple_agent` does.
    const run = await runNemoGymConfig("ruler", "ruler.yaml", expected.answers.map((text: string) => ({ text })), ["--agent", "ruler_simple_agent"]);
    expect(run.result.code, run.result.stderr + run.result.stdout).toBe(0);
    expect(run.rows.map((r) => r.reward)).toEqual(expected.rewards);
    expect(run.rows.map((r) => r.vt)).toEqual(expected.rewards);
    const agent = run.metrics[0]!;
    const mean = expected.rewards.reduce((a: number, b: number) => a + b, 0) / 5;
    expect(agent.agent_metrics["mean/reward"]).toBeCloseTo(mean, 12);
    expect(agent.agent_metrics["mean/vt"]).toBeCloseTo(mean, 12);
    expect(agent.agent_metrics["max/reward"]).toBe(1);
    expect(agent.agent_metrics["mean/length"]).toBeCloseTo(exampleRows("ruler").reduce((a, r) => a + r.length, 0) / 5, 9);
    // No compute_metrics override: no pass@k keys; key metrics are every mean/*.
    expect(Object.keys(agent.agent_metrics).some((k) => k.startsWith("pass@"))).toBe(false);
    expect(Object.keys(agent.key_metrics).every((k) => k.startsWith("mean/"))).toBe(true);
    expect(agent.key_metrics["mean/reward"]).toBeCloseTo(mean, 12);
  }, 200_000);
});
