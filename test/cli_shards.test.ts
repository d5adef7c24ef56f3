// Shards, merging, per-agent repeats, seeds and reward profiles through the built `gym` binary.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { runGym, NEMO_GYM_EXAMPLES, readJsonlFile } from "./helpers/cli.js";

const readLines = readJsonlFile;

let engine: FakeEngine;
let dir: string;
beforeAll(async () => {
  engine = await startFakeEngine();
  dir = mkdtempSync(join(tmpdir(), "gym-shards-"));
});
afterAll(async () => engine.close());

const model = () => ["--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "--quiet"];

describe("shards and gym eval aggregate", () => {
  it("runs each shard's tasks only, refuses to merge an incomplete shard, then merges sorted with metrics", async () => {
    const input = join(NEMO_GYM_EXAMPLES, "example_session_state_mgmt", "example.jsonl");
    const common = ["eval", "run", "--resources-server", "example_session_state_mgmt", ...model(), "-i", input, "--num-repeats", "3"];
    const shard0 = join(dir, "out-shard0.jsonl");
    const shard1 = join(dir, "out-shard1.jsonl");
    expect((await runGym([...common, "-o", shard0, "--shard", "0/2"])).code).toBe(0);
    expect(new Set(readLines(shard0).map((r) => r._ng_task_index))).toEqual(new Set([0, 2, 4]));
    expect(readLines(shard0)).toHaveLength(9);
    expect(existsSync(`${shard0}.done`)).toBe(true);

    // Shard 1 "crashed": no .done marker yet.
    expect((await runGym([...common, "-o", shard1, "--shard", "1/2"])).code).toBe(0);
    rmSync(`${shard1}.done`);
    const merged = join(dir, "merged.jsonl");
    const refused = await runGym(["eval", "aggregate", "--input-glob", join(dir, "out-shard*.jsonl"), "-o", merged]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("1 of 2 shards are not complete");
    expect(refused.stderr).toContain(shard1);

    expect((await runGym([...common, "-o", shard1, "--shard", "1/2", "--resume"])).code).toBe(0);
    const result = await runGym(["eval", "aggregate", "--input-glob", join(dir, "out-shard*.jsonl"), "-o", merged]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("merged 2 shards: 15/15 rollouts succeeded");
    const rows = readLines(merged);
    expect(rows.map((r) => [r._ng_task_index, r._ng_rollout_index])).toEqual([0, 1, 2, 3, 4].flatMap((t) => [0, 1, 2].map((r) => [t, r])));
    const metrics = JSON.parse(readFileSync(join(dir, "merged_aggregate_metrics.json"), "utf8"));
    expect(metrics[0].agent_metrics["mean/reward"]).toBe(1);
    expect(metrics[0].group_level_metrics).toHaveLength(5);
  });

  it("rejects a malformed --shard", async () => {
    const result = await runGym(["eval", "run", "--resources-server", "example_single_tool_call", ...model(), "-i", join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl"), "-o", join(dir, "x.jsonl"), "--shard", "2/2"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--shard must be I/N with 0 ≤ I < N");
  });
});

describe("--num-repeats as a per-agent map", () => {
  const quickstartRows = () => readFileSync(join("examples", "quickstart.jsonl"), "utf8");

  it("repeats per agent with a _default, and seeds each repeat with --num-repeats-add-seed", async () => {
    const output = join(dir, "map.jsonl");
    const input = join(dir, "map_in.jsonl");
    writeFileSync(input, quickstartRows());
    const result = await runGym([
      "eval", "run", "--config", "examples/quickstart.yaml", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m",
      "-i", input, "-o", output, "--quiet", "--num-repeats-add-seed",
      "--num-repeats", '{"example_multi_step_simple_agent": 3, "_default": 1}',
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const rows = readLines(output);
    const count = (agent: string) => rows.filter((r) => r.agent_ref.name === agent).length;
    expect(count("example_multi_step_simple_agent")).toBe(15);
    expect(count("example_single_tool_call_simple_agent")).toBe(5);
    const seeds = engine.requests.filter((r) => r.body.seed !== undefined).map((r) => r.body.seed);
    expect(new Set(seeds)).toEqual(new Set([0, 1, 2]));
    for (const row of rows) expect(row.responses_create_params.seed).toBe(row._ng_rollout_index);
  });

  it("names every agent missing from a map without _default in one error, and warns about unused keys", async () => {
    const result = await runGym([
      "eval", "run", "--config", "examples/quickstart.yaml", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m",
      "-o", join(dir, "bad_map.jsonl"), "--quiet", "+num_repeats={example_multi_step_simple_agent: 2, nobody_agent: 4}",
    ]);
    expect(result.code).toBe(2);
    for (const agent of ["example_single_tool_call_simple_agent", "example_session_state_mgmt_simple_agent", "example_tool_call_multireward_simple_agent"]) {
      expect(result.stderr).toContain(agent);
    }
    expect(result.stderr.trim().split("\n")).toHaveLength(1);

    const bad = await runGym(["eval", "run", "--config", "examples/quickstart.yaml", "-o", join(dir, "bad2.jsonl"), "--quiet", "--num-repeats", '{"a": 0, "b": "x", "_default": 1}']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("a=0");
    expect(bad.stderr).toContain('b="x"');

    const unused = await runGym(["eval", "run", "--config", "examples/quickstart.yaml", "-o", join(dir, "unused.jsonl"), "--quiet", "--num-repeats", '{"nobody_agent": 2, "_default": 1}']);
    expect(unused.code).toBe(0);
    expect(unused.stderr).toContain('num_repeats key(s) "nobody_agent" match no input row\'s agent');
  });
});

describe("gym eval profile", () => {
  it("writes per-task reward statistics and a summary", async () => {
    const rollouts = join(dir, "profile_in.jsonl");
    const rows = [
      [0, 1], [0, 1], [1, 0], [1, 1], [2, 0], [2, 0],
    ].map(([task, reward], i) => JSON.stringify({ _ng_task_index: task, _ng_rollout_index: i % 2, reward, agent_ref: { name: "a" } }));
    writeFileSync(rollouts, `${rows.join("\n")}\n`);
    const result = await runGym(["eval", "profile", "--rollouts", rollouts]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("3 tasks, 6 rollouts");
    expect(result.stdout).toMatch(/every rollout passes: 1\n\s+none passes:\s+1\n\s+mixed:\s+1/);
    const profile = readLines(join(dir, "profile_in_reward_profiling.jsonl"));
    expect(profile[1]).toMatchObject({ _ng_task_index: 1, num_rollouts: 2, mean_reward: 0.5, min_reward: 0, max_reward: 1, pass_rate: 0.5 });
    expect(profile[1]!.std_reward).toBeCloseTo(Math.SQRT1_2, 12);
  });
});

describe("NeMo-Skills seeds and growing a finished run", () => {
  const input = () => join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl");
  const run = (...args: string[]) => runGym(["eval", "run", "--resources-server", "example_single_tool_call", ...model(), "-i", input(), ...args]);
  const pairs = (file: string) => readLines(file).map((r) => [r._ng_task_index, r._ng_rollout_index]);

  it("per-seed runs take disjoint rollout indices and merge into one complete run", async () => {
    const seed0 = join(dir, "rs0.jsonl");
    const seeds12 = join(dir, "rs12.jsonl");
    expect((await run("-o", seed0, "--num-repeats", "2", "--random-seeds", "0")).code).toBe(0);
    // Seeds 1 and 2 in one run, started from --starting-seed as NeMo-Skills counts them.
    const second = await run("-o", seeds12, "--num-repeats", "2", "--starting-seed", "1", "--num-random-seeds", "2", "--num-repeats-add-seed");
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(new Set(readLines(seeds12).map((r) => r._ng_rollout_index))).toEqual(new Set([2, 3, 4, 5]));
    for (const row of readLines(seeds12)) expect(row.responses_create_params.seed).toBe(row._ng_rollout_index);

    const merged = join(dir, "seeds_merged.jsonl");
    const result = await runGym(["eval", "aggregate", "--input-glob", join(dir, "rs*.jsonl"), "-o", merged]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("30/30 rollouts succeeded");
    expect(pairs(merged)).toEqual([0, 1, 2, 3, 4].flatMap((t) => [0, 1, 2, 3, 4, 5].map((r) => [t, r])));
  });

  it("--resume --extend adds repeats to a finished run, runs only the new ones and records the growth", async () => {
    const output = join(dir, "grow.jsonl");
    expect((await run("-o", output, "--num-repeats", "1")).code).toBe(0);
    const firstLines = readFileSync(output, "utf8");
    const calls = engine.requests.length;

    const grown = await run("-o", output, "--num-repeats", "3", "--resume", "--extend");
    expect(grown.code).toBe(0);
    expect(grown.stderr).toContain("the plan grew from 5 to 15 rollouts");
    expect(grown.stdout).toContain("15/15 rollouts succeeded");
    expect(readFileSync(output, "utf8").startsWith(firstLines)).toBe(true);
    expect(pairs(output).sort()).toEqual([0, 1, 2, 3, 4].flatMap((t) => [0, 1, 2].map((r) => [t, r])).sort());
    // example_single_tool_call: two model calls per rollout, only for the 10 new rollouts.
    expect(engine.requests.length - calls).toBe(20);
    const fingerprint = JSON.parse(readFileSync(join(dir, "grow_plan_fingerprint.json"), "utf8"));
    expect(fingerprint.settings.num_repeats).toBe(3);
    expect(fingerprint.extensions).toHaveLength(1);
    expect(fingerprint.extensions[0]).toMatchObject({ pairs_before: 5, pairs_after: 15, before: { settings: { num_repeats: 1 } } });

    // A change to requests already made is not growth: refused, the run untouched.
    const plan = readFileSync(join(dir, "grow_materialized_inputs.jsonl"), "utf8");
    const changed = await run("-o", output, "--num-repeats", "3", "--resume", "--extend", "--temperature", "0.3");
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain("would be asked differently than the run already asked it");
    expect(readFileSync(join(dir, "grow_materialized_inputs.jsonl"), "utf8")).toBe(plan);
  });
});
