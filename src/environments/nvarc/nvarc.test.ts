// nvarc over HTTP and through the CLI: both modes' rules on our own cases (traps included), each scored
// exactly as NeMo Gym's own nvarc code scores it (testdata/expected.json, made by
// testdata/make_fixture.py running NeMo Gym's problem.py and app.py functions at 07d6b0d); NeMo Gym's
// recorded rollouts re-verified with `gym eval reverify --inputs`; both NeMo Gym configs run unchanged.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import nvarc from "./index.js";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import { runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";

interface Case {
  name: string;
  mode: string;
  text: string;
  test_input: number[][];
  expected_output: number[][];
  timeout?: number;
}
interface Verdict {
  predicted_output: number[][] | null;
  extraction_successful: boolean;
  exact_match: boolean;
  reward: number;
}
const rows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const cases = JSON.parse(readFileSync(new URL("./testdata/cases.json", import.meta.url), "utf8")) as Case[];
const expected = JSON.parse(readFileSync(new URL("./testdata/expected.json", import.meta.url), "utf8")) as { cases: Verdict[] };
const recordings = recordedRollouts("nvarc");
const recordedText = (i: number) => recordings[i]!.response.output.at(-1).content[0].text as string;

let env: RunningInstance;
let quick: RunningInstance;
beforeAll(async () => {
  env = await startInstance(nvarc);
  quick = await startInstance(nvarc, { name: "nvarc_quick", config: { python_timeout_seconds: 1 } });
});
afterAll(async () => {
  await Promise.all([env.close(), quick.close()]);
});

describe("the rules, against NeMo Gym's code (testdata/expected.json)", () => {
  cases.forEach((c, i) => {
    it(`${c.mode}: ${c.name}`, async () => {
      const instance = c.timeout ? quick : env;
      const body = { responses_create_params: { input: "solve" }, test_input: c.test_input, expected_output: c.expected_output, agent_mode: c.mode, response: responseWith([assistantMessage(c.text)]) };
      const result = await instance.request("/verify", body);
      expect(result.status, result.text).toBe(200);
      const v = result.body as Verdict & { agent_mode: string };
      expect({ predicted_output: v.predicted_output, extraction_successful: v.extraction_successful, exact_match: v.exact_match, reward: v.reward }).toEqual(expected.cases[i]);
      expect(v.agent_mode).toBe(c.mode);
    }, 60_000);
  });

  it("the row's agent_mode wins over the config's; without one, the config's decides", async () => {
    const inductive = await startInstance(nvarc, { name: "nvarc_inductive", config: { agent_mode: "inductive" } });
    try {
      const body = { responses_create_params: { input: "q" }, test_input: [[0]], expected_output: [[1]], response: responseWith([assistantMessage("\\boxed{1}")]) };
      expect((await inductive.request("/verify", body)).body).toMatchObject({ agent_mode: "inductive", reward: 0, extraction_successful: false });
      expect((await inductive.request("/verify", { ...body, agent_mode: "transductive" })).body).toMatchObject({ agent_mode: "transductive", reward: 1 });
    } finally {
      await inductive.close();
    }
  });

  it("answers NeMo Gym's NVARCVerifyResponse fields, in its order", async () => {
    const r = await env.request("/verify", { ...rows[0], response: responseWith([assistantMessage("\\boxed{1}")]) });
    expect(Object.keys(r.body)).toEqual(["responses_create_params", "response", "reward", "expected_output", "predicted_output", "extraction_successful", "exact_match", "agent_mode"]);
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl, 07d6b0d)", () => {
  it("re-verify to the recorded rewards and grids with `gym eval reverify --inputs` (the inductive ones run their programs)", async () => {
    const checkout = nemoGymCheckout(["nvarc"]);
    try {
      const { result, recorded, reverified, rows: out } = await reverifyRecorded("nvarc", ["--config", "resources_servers/nvarc/configs/transductive.yaml", "--inputs", "resources_servers/nvarc/data/example.jsonl"], {
        cwd: checkout.root,
      });
      expect(result.code, result.stderr + result.stdout).toBe(0);
      expect(recorded).toEqual([1, 1, 1, 1, 1]);
      expect(reverified).toEqual(recorded);
      expect(out.map((r) => r?.predicted_output)).toEqual(recordings.map((r) => r.predicted_output));
      expect(out.map((r) => r?.agent_mode)).toEqual(["transductive", "transductive", "transductive", "inductive", "inductive"]);
    } finally {
      checkout.remove();
    }
  }, 180_000);
});

describe("NeMo Gym's configs, unchanged", () => {
  let engine: FakeEngine;
  let dir: string;
  const answers = new Map(rows.map((row, i) => [row.responses_create_params.input.at(-1).content as string, recordedText(i)]));
  beforeAll(async () => {
    engine = await startFakeEngine({ policy: (turns: Turn[]) => ({ text: answers.get(turns.findLast((t) => t.role === "user")?.content ?? "") ?? "?" }) });
    dir = mkdtempSync(join(tmpdir(), "gym-nvarc-"));
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const name of ["inductive", "transductive"]) {
    it(`configs/${name}.yaml runs every example row (the recorded answers replayed; each row names its mode) with default metrics`, async () => {
      const checkout = nemoGymCheckout(["nvarc"]);
      try {
        const output = join(dir, `${name}.jsonl`);
        const result = await runGym(
          [
            "eval",
            "run",
            "--config",
            `resources_servers/nvarc/configs/${name}.yaml`,
            "--config",
            "responses_api_models/vllm_model/configs/vllm_model.yaml",
            "--agent",
            `nvarc_${name}_simple_agent`,
            "--input",
            "resources_servers/nvarc/data/example.jsonl",
            "--model-url",
            engine.baseUrl,
            "--model",
            "m",
            "-o",
            output,
            "--quiet",
          ],
          { cwd: checkout.root, timeoutMs: 150_000 },
        );
        expect(result.code, result.stderr + result.stdout).toBe(0);
        const out = readFileSync(output, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
        out.sort((a, b) => a._ng_task_index - b._ng_task_index);
        expect(out.map((r) => r.reward)).toEqual([1, 1, 1, 1, 1]);
        const metrics = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
        expect(metrics[0]!.agent_metrics["mean/reward"]).toBe(1);
        expect(metrics[0]!.agent_metrics["mean/exact_match"]).toBe(1);
        expect(metrics[0]!.agent_metrics["mean/extraction_successful"]).toBe(1);
      } finally {
        checkout.remove();
      }
    }, 180_000);
  }
});
