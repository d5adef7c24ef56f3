// `gym eval reverify` re-scores stored rollouts through the environment's real /verify, offline.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { runGym, NEMO_GYM_EXAMPLES, readJsonlFile } from "./helpers/cli.js";

const readLines = readJsonlFile;

let engine: FakeEngine;
let dir: string;
let rollouts: string;

beforeAll(async () => {
  engine = await startFakeEngine();
  dir = mkdtempSync(join(tmpdir(), "gym-reverify-"));
  rollouts = join(dir, "multi_step.jsonl");
  const run = await runGym(["eval", "run", "--resources-server", "example_multi_step", "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "-i", join(NEMO_GYM_EXAMPLES, "example_multi_step", "example.jsonl"), "-o", rollouts, "--num-repeats", "2", "--quiet"]);
  expect(run.code).toBe(0);
});
afterAll(async () => engine.close());

describe("gym eval reverify", () => {
  it("refuses an environment whose reverify mode is not stateless, naming it", async () => {
    const result = await runGym(["eval", "reverify", "--resources-server", "example_multi_step", "--rollouts", rollouts, "-o", join(dir, "refused.jsonl"), "--quiet"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('environment "example_multi_step" says its reverify mode is "unknown"');
    expect(result.stderr).toContain("--force");
  });

  it("re-scores stored rollouts with no model, and a tampered answer loses its reward", async () => {
    const rows = readLines(rollouts);
    // A rollout line keeps only what the verify response declares; the row it was made from is in the
    // run's materialized inputs, which reverify pairs with it (as NeMo Gym's reverify does).
    const materialized = rollouts.replace(/\.jsonl$/, "_materialized_inputs.jsonl");
    const inputOf = new Map(readLines(materialized).map((r) => [`${r._ng_task_index}:${r._ng_rollout_index}`, r]));
    // Tamper with one stored rollout: its last extract call now lists the values in the wrong order.
    const tampered = rows.map((row, i) => {
      if (i !== 3) return row;
      const copy = structuredClone(row);
      const call = [...copy.response.output].reverse().find((item: any) => item.type === "function_call" && item.name === "extract_synonym_values");
      call.arguments = JSON.stringify({ synonym_values: [...inputOf.get(`${row._ng_task_index}:${row._ng_rollout_index}`)!.expected_synonym_values].reverse() });
      return copy;
    });
    const input = join(dir, "tampered.jsonl");
    writeFileSync(input, tampered.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const output = join(dir, "reverified.jsonl");
    // No model flags at all: reverify never calls a model.
    const result = await runGym(["eval", "reverify", "--resources-server", "example_multi_step", "--rollouts", input, "--materialized-inputs", materialized, "-o", output, "--force", "--quiet"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const out = readLines(output);
    expect(out).toHaveLength(10);
    const byPair = new Map(out.map((r) => [`${r._ng_task_index}:${r._ng_rollout_index}`, r]));
    const target = tampered[3]!;
    for (const row of rows) {
      const again = byPair.get(`${row._ng_task_index}:${row._ng_rollout_index}`)!;
      if (row === rows[3]) continue;
      expect(again.reward).toBe(row.reward);
      expect(again.response).toEqual(row.response);
    }
    const redone = byPair.get(`${target._ng_task_index}:${target._ng_rollout_index}`)!;
    expect(redone.reward).toBe(0);
    expect(redone.order_instruction_following_failure).toBe(true);
    expect(result.stdout).toContain("10/10 rollouts succeeded");
  });

  it("scores NeMo Gym rollout files (no indices): each line becomes its own task", async () => {
    const output = join(dir, "nemo_single.jsonl");
    const result = await runGym(["eval", "reverify", "--resources-server", "example_single_tool_call", "--rollouts", join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example_rollouts.jsonl"), "-o", output, "--force", "--quiet"]);
    expect(result.code).toBe(0);
    const out = readLines(output);
    const pairs = out.map((r) => [r._ng_task_index, r._ng_rollout_index, r.reward]).sort((a, b) => a[0] - b[0]);
    expect(pairs).toEqual([0, 1, 2, 3, 4].map((t) => [t, 0, 1]));
  });
});
