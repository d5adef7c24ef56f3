// `gym env init ID`: the folder it writes runs as it is — its own test passes under `node --test`,
// and `gym eval run` collects and scores its example rows — and bad requests are refused clearly.
// The folder is made inside the repository so that its `import … from "gymkit"` resolves to this
// package (as it would from an install in node_modules).
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine, type Turn } from "./doubles/fake_engine.js";
import { readJsonlFile, REPO_ROOT, runGym } from "./helpers/cli.js";

const run = promisify(execFile);

/** Looks the capital up with the tool, then names it. */
function capitalPolicy(turns: Turn[]) {
  const tool = turns.find((t) => t.role === "tool");
  if (tool) return { text: `The capital is ${JSON.parse(tool.content).capital}.` };
  const question = turns.find((t) => t.role === "user")!.content;
  return { toolCalls: [{ name: "lookup_capital", arguments: { country: /capital of (\w+)/.exec(question)![1]! } }] };
}

let engine: FakeEngine;
let root: string;
beforeAll(async () => {
  engine = await startFakeEngine({ policy: capitalPolicy });
  root = mkdtempSync(join(REPO_ROOT, ".tmp-init-"));
});
afterAll(async () => {
  await engine.close();
  rmSync(root, { recursive: true, force: true });
});

describe("gym env init", () => {
  it("writes a folder whose test passes and whose rows collect and score", async () => {
    const init = await runGym(["env", "init", "capitals", "--dir", join(root, "capitals")], { cwd: root });
    expect(init.stderr).toBe("");
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("created capitals/: index.mjs, configs/capitals.yaml, data/example.jsonl, test.mjs");
    // The same shape as a built-in environment's folder: scored rollouts of the rows and a README too.
    expect(init.stdout).toContain("created capitals/: index.mjs, configs/capitals.yaml, data/example.jsonl, test.mjs, data/example_rollouts.jsonl, README.md");
    const rollouts = readJsonlFile(join(root, "capitals", "data", "example_rollouts.jsonl"));
    expect(rollouts.map((r) => r.reward)).toEqual([1, 1, 1, 1, 0]);
    expect(readFileSync(join(root, "capitals", "README.md"), "utf8")).toContain("--config capitals/configs/capitals.yaml");

    const tested = await run(process.execPath, ["--test", join(root, "capitals", "test.mjs")], { cwd: root });
    expect(tested.stdout).toContain("# pass 3");
    expect(tested.stdout).toContain("# fail 0");

    const output = join(root, "results", "capitals.jsonl");
    const collected = await runGym(
      ["eval", "run", "--config", "capitals/configs/capitals.yaml", "-i", "capitals/data/example.jsonl", "-o", output, "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "--quiet"],
      { cwd: root },
    );
    expect(collected.stderr).toBe("");
    expect(collected.code).toBe(0);
    const rows = readJsonlFile(output);
    expect(rows.map((r) => r.reward)).toEqual([1, 1, 1, 1, 1]);
    expect(rows.map((r) => r.extracted_answer).sort()).toEqual(["Lima", "Nairobi", "Ottawa", "Paris", "Tokyo"]);
    const metrics = JSON.parse(readFileSync(join(root, "results", "capitals_aggregate_metrics.json"), "utf8"));
    expect(metrics[0].agent_metrics["pass@1/accuracy"]).toBe(100);
  }, 90_000);

  it("refuses a built-in id, a malformed id and a folder that is not empty (exit 2)", async () => {
    const builtin = await runGym(["env", "init", "mcqa", "--dir", join(root, "m")], { cwd: root });
    expect(builtin.code).toBe(2);
    expect(builtin.stderr).toContain('"mcqa" is a built-in environment; choose another id');
    const malformed = await runGym(["env", "init", "My-Env"], { cwd: root });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('environment id "My-Env" must be lower-case letters, digits and underscores');
    const taken = join(root, "taken");
    mkdirSync(taken);
    writeFileSync(join(taken, "notes.txt"), "mine\n");
    const occupied = await runGym(["env", "init", "fresh_env", "--dir", taken], { cwd: root });
    expect(occupied.code).toBe(2);
    expect(occupied.stderr).toContain("already exists and is not empty");
    expect(readFileSync(join(taken, "notes.txt"), "utf8")).toBe("mine\n");
  });
});
