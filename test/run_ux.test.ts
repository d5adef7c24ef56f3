// `gym eval run` as a user sees it when things go slowly or wrong: retried calls counted in the live
// line and the summary (in one process and across a process per server), a heartbeat naming what is
// in flight, the default whole-rollout deadline that really aborts the in-flight calls, and a resume
// whose progress counts only its own work.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../src/orchestrate/start.js";
import { engineOf } from "./helpers/scope.js";
import { readJsonlFile, REPO_ROOT, runGym, startGym, waitForOutput } from "./helpers/cli.js";
import type { FakeEngine } from "./doubles/fake_engine.js";

const EXAMPLE = join(REPO_ROOT, "src", "environments", "example_single_tool_call", "data", "example.jsonl");
const AGENT = "example_single_tool_call_simple_agent";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gym-runux-"));
});

/** N distinct tasks of example_single_tool_call (two model calls and one tool call each). */
function writeInput(name: string, tasks: number): string {
  const base = JSON.parse(readFileSync(EXAMPLE, "utf8").split("\n")[0]!) as { responses_create_params: { input: Array<{ content: string }> } };
  const lines: string[] = [];
  for (let i = 0; i < tasks; i++) {
    const row = structuredClone(base);
    row.responses_create_params.input[1]!.content = `what's it like in sf? (question ${i})`;
    lines.push(JSON.stringify(row));
  }
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

function modelArgs(engine: FakeEngine, options: { timeoutS?: number; retries?: number } = {}): string[] {
  return [
    "--resources-server",
    "example_single_tool_call",
    "--model-type",
    "vllm_model",
    "--model-url",
    engine.baseUrl,
    "--model",
    "m",
    `++policy_model.responses_api_models.vllm_model.request_timeout_s=${options.timeoutS ?? 30}`,
    "++policy_model.responses_api_models.vllm_model.retry_backoff_s=0.01",
    `++policy_model.responses_api_models.vllm_model.max_retries=${options.retries ?? 3}`,
  ];
}

describe("retried calls are counted and shown", () => {
  for (const layout of ["one process", "process per server"]) {
    it(`${layout}: the summary's retry counts equal the faults the engine served, and the run still succeeds`, async () => {
      // Seeded 500s and connection resets; a budget of 30 retries per model call means none runs out.
      const engine = await engineOf({ faults: { seed: 11, error: 0.2, reset: 0.05 } });
      const input = writeInput(`retry_in_${layout.replace(/ /g, "_")}.jsonl`, 30);
      const output = join(dir, `retry_out_${layout.replace(/ /g, "_")}.jsonl`);
      const args = ["eval", "run", ...modelArgs(engine, { retries: 30 }), "-i", input, "-o", output, "--num-repeats", "2", "--concurrency", "8"];
      if (layout === "process per server") args.push("--process-per-server");
      const result = await runGym(args, { timeoutMs: 180_000 });
      expect(result.stderr).not.toContain("error");
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("60/60 rollouts succeeded, 0 failed");
      const { error, reset } = engine.faultsServed;
      expect(error).toBeGreaterThan(0);
      expect(reset).toBeGreaterThan(0);
      const line = /retried (\d+) calls \(([^)]*)\); ([\d.]+ s|\d+ min \d+ s) of call time lost to them/.exec(result.stdout);
      expect(line, result.stdout).not.toBeNull();
      expect(Number(line![1])).toBe(error + reset);
      expect(line![2]).toBe(`5xx ${error}, connection ${reset}`);
      if (layout === "one process") {
        // The live line (plain lines here: stderr is not a terminal) counts them as they happen.
        const last = result.stderr.trimEnd().split("\n").filter((l) => l.startsWith("[gym]")).at(-1)!;
        expect(last).toContain(`retried ${error + reset} (5xx ${error}, connection ${reset};`);
      }
    });
  }

  it("a clean run prints no retry line", async () => {
    const engine = await engineOf();
    const output = join(dir, "clean_out.jsonl");
    const result = await runGym(["eval", "run", ...modelArgs(engine), "-i", writeInput("clean_in.jsonl", 3), "-o", output, "--quiet"]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("retried");
  });
});

describe("no silent hangs", () => {
  it("prints a heartbeat naming the oldest rollouts in flight when none finishes for a while (stderr not a terminal)", async () => {
    const engine = await engineOf({ delayMs: 2_500 });
    const output = join(dir, "heartbeat_out.jsonl");
    const result = await runGym(["eval", "run", ...modelArgs(engine), "-i", writeInput("heartbeat_in.jsonl", 2), "-o", output, "--quiet", "--heartbeat", "1"], { timeoutMs: 120_000 });
    expect(result.code).toBe(0);
    const beat = result.stderr.split("\n").find((l) => l.includes("no rollout finished in the last"));
    expect(beat, result.stderr).toBeDefined();
    expect(beat).toMatch(/^gym: no rollout finished in the last [\d.]+ s; 2 in flight, the oldest: \(task [01], rollout 0, agent example_single_tool_call_simple_agent, [\d.]+ s\), \(task [01], rollout 0, agent example_single_tool_call_simple_agent, [\d.]+ s\)$/);
    const quiet = await runGym(["eval", "run", ...modelArgs(engine), "-i", writeInput("heartbeat_off_in.jsonl", 1), "-o", join(dir, "heartbeat_off.jsonl"), "--quiet", "--heartbeat", "0"], { timeoutMs: 120_000 });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("");
  });

  it("--rollout-timeout fails a stuck rollout as `timeout` and aborts its in-flight calls down to the engine", async () => {
    // Every model call hangs. Servers run in `gym env start`, so they outlive the collection and
    // what they still hold open afterwards can be seen.
    const engine = await engineOf({ faults: { seed: 1, hang: 1 } });
    const headPort = await freePort();
    const server = startGym(["env", "start", ...modelArgs(engine, { timeoutS: 600, retries: 0 }), "--head-port", String(headPort)]);
    try {
      await waitForOutput(server, (t) => t.includes("head server:"));
      const output = join(dir, "deadline_out.jsonl");
      const run = await runGym(
        ["eval", "run", "--no-serve", "--head-url", `http://127.0.0.1:${headPort}`, "--agent", AGENT, "-i", writeInput("deadline_in.jsonl", 2), "-o", output, "--quiet", "--rollout-timeout", "1"],
        { timeoutMs: 120_000 },
      );
      expect(run.code).toBe(4);
      const failures = readJsonlFile(join(dir, "deadline_out_failures.jsonl"));
      expect(failures.map((f) => f._ng_failure_class)).toEqual(["timeout", "timeout"]);
      expect(failures[0]!._ng_failure_error).toBe("rollout deadline of 1 s passed");
      expect(engine.faultsServed.hang).toBe(2);
      // The collector's abort reached the agent, which dropped its model call, which dropped the engine's.
      const deadline = Date.now() + 30_000;
      while (engine.hangingNow() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(engine.hangingNow()).toBe(0);
    } finally {
      const exited = new Promise((resolve) => server.on("exit", resolve));
      server.kill("SIGTERM");
      await exited;
    }
  });

  it("--rollout-timeout takes seconds, 0 or none; anything else is a usage error naming the flag", async () => {
    const engine = await engineOf();
    for (const value of ["none", "0"]) {
      const result = await runGym(["eval", "run", ...modelArgs(engine), "-i", writeInput(`off_${value}.jsonl`, 1), "-o", join(dir, `off_${value}_out.jsonl`), "--quiet", "--rollout-timeout", value]);
      expect(result.code).toBe(0);
    }
    const bad = await runGym(["eval", "run", ...modelArgs(engine), "-i", writeInput("bad_timeout.jsonl", 1), "-o", join(dir, "bad_timeout_out.jsonl"), "--rollout-timeout", "soon"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('gym: error: --rollout-timeout must be a number ≥ 0, got "soon"');
    const help = (await runGym(["eval", "run", "--help"])).stdout.replace(/\s+/g, " ");
    expect(help).toContain("default 3600");
    expect(help).toContain("0 or none: no deadline");
  });
});

describe("--resume progress", () => {
  it("counts the pairs done before as done from the first line, and not in the rate", async () => {
    const engine = await engineOf();
    const input = writeInput("resume_in.jsonl", 10);
    const output = join(dir, "resume_out.jsonl");
    const first = await runGym(["eval", "run", ...modelArgs(engine), "-i", input, "-o", output, "--quiet"]);
    expect(first.code).toBe(0);
    const lines = readFileSync(output, "utf8").trimEnd().split("\n");
    writeFileSync(output, `${lines.slice(0, 8).join("\n")}\n`);
    const resumed = await runGym(["eval", "run", ...modelArgs(engine), "-i", input, "-o", output, "--resume", "--concurrency", "1"]);
    expect(resumed.code).toBe(0);
    const progress = resumed.stderr.split("\n").filter((l) => l.startsWith("[gym]"));
    expect(progress.length).toBeGreaterThan(0);
    for (const line of progress) expect(line).toMatch(/^\[gym\] (9|10)\/10 rollouts \(8 done before this run\) /);
    expect(progress.at(-1)).toMatch(/^\[gym\] 10\/10 rollouts/);
  });
});
