// Collection under failure: an engine that injects 500s, connection resets and hangs from a seed,
// and a `kill -9` of the whole process group mid-run followed by `--resume`. Either way every
// requested (task, rollout) pair must end with exactly one final outcome, and the exit code must
// say whether all succeeded.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { GYM, REPO_ROOT, runGym, NEMO_GYM_EXAMPLES, readJsonlFile } from "./helpers/cli.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gym-faults-"));
});

/** N distinct tasks of example_single_tool_call (two model calls and one tool call each). */
function writeInput(path: string, tasks: number): void {
  const base = JSON.parse(readFileSync(join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl"), "utf8").split("\n")[0]!) as {
    responses_create_params: { input: Array<{ content: string; role: string }> };
  };
  const lines: string[] = [];
  for (let i = 0; i < tasks; i++) {
    const row = structuredClone(base);
    row.responses_create_params.input[1]!.content = `what's it like in sf? (question ${i})`;
    lines.push(JSON.stringify(row));
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
}

const readLines = readJsonlFile;

/** Checks the invariant: exactly one success per pair or, without one, a failure; none missing. */
function checkOutcomes(output: string, tasks: number, repeats: number): { successes: number; finalFailures: number } {
  const successes = readLines(output);
  const failures = readLines(output.replace(/\.jsonl$/, "_failures.jsonl"));
  const seen = new Map<string, number>();
  for (const row of successes) {
    const key = `${row._ng_task_index}:${row._ng_rollout_index}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    expect(row.reward).toBe(1);
  }
  expect([...seen.values()].filter((n) => n > 1)).toEqual([]);
  const failed = new Set(failures.map((f) => `${f._ng_task_index}:${f._ng_rollout_index}`));
  let finalFailures = 0;
  for (let t = 0; t < tasks; t++) {
    for (let r = 0; r < repeats; r++) {
      const key = `${t}:${r}`;
      if (seen.has(key)) continue;
      expect(failed.has(key), `pair ${key} has no outcome`).toBe(true);
      finalFailures++;
    }
  }
  for (const f of failures) {
    expect(typeof f._ng_failure_class).toBe("string");
    expect(typeof f._ng_failure_error).toBe("string");
  }
  return { successes: seen.size, finalFailures };
}

function modelArgs(engine: FakeEngine, timeoutS: number, modelRetries = 3): string[] {
  return [
    "--resources-server",
    "example_single_tool_call",
    "--model-type",
    "vllm_model",
    "--model-url",
    engine.baseUrl,
    "--model",
    "m",
    `++policy_model.responses_api_models.vllm_model.request_timeout_s=${timeoutS}`,
    "++policy_model.responses_api_models.vllm_model.retry_backoff_s=0.01",
    `++policy_model.responses_api_models.vllm_model.max_retries=${modelRetries}`,
  ];
}

describe("collection with injected engine faults", () => {
  let engine: FakeEngine;
  beforeAll(async () => {
    engine = await startFakeEngine({ faults: { seed: 7, error: 0.1, reset: 0.05, hang: 0.02 } });
  });
  afterAll(async () => engine.close());

  it("gives every pair exactly one final outcome and an exit code that says whether all succeeded", async () => {
    const input = join(dir, "faults_in.jsonl");
    const output = join(dir, "faults_out.jsonl");
    // 60 tasks x 2 repeats: some 250 model calls, enough for every kind of fault to strike several
    // times (checked below), at well under half the cost of a bigger run that shows nothing more.
    const tasks = 60;
    const pairs = tasks * 2;
    writeInput(input, tasks);
    // The adapter does not retry here, so faults reach the collector, whose /run retries are bounded.
    const args = ["eval", "run", ...modelArgs(engine, 1, 0), "-i", input, "--num-repeats", "2", "--concurrency", "16", "--quiet"];
    const result = await runGym([...args, "-o", output, "--max-failures", "100%"], { timeoutMs: 180_000 });
    const { successes, finalFailures } = checkOutcomes(output, tasks, 2);
    expect(successes + finalFailures).toBe(pairs);
    expect(successes).toBeGreaterThan(pairs / 2);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${successes}/${pairs} rollouts succeeded, ${finalFailures} failed`);
    // The run met every kind of fault, so the accounting above held under each of them.
    expect(engine.faultsServed.error).toBeGreaterThan(0);
    expect(engine.faultsServed.reset).toBeGreaterThan(0);
    expect(engine.faultsServed.hang).toBeGreaterThan(0);

    // Without a failure allowance, the same accounting turns any failure into exit code 4.
    const strictOut = join(dir, "faults_strict.jsonl");
    const strict = await runGym([...args, "-o", strictOut], { timeoutMs: 180_000 });
    const again = checkOutcomes(strictOut, tasks, 2);
    expect(again.successes + again.finalFailures).toBe(pairs);
    expect(strict.code).toBe(again.finalFailures > 0 ? 4 : 0);
  }, 400_000); // two full runs of up to 180 s each on a busy machine

  it("an engine that always fails: every rollout is a classified failure, exit 4; --max-failures stops early", async () => {
    const broken = await startFakeEngine({ respond: () => ({ status: 500, body: { error: { message: "GPU on fire" } } }) });
    try {
      const input = join(dir, "broken_in.jsonl");
      writeInput(input, 6);
      const output = join(dir, "broken_out.jsonl");
      const common = ["eval", "run", ...modelArgs(broken, 5, 0), "-i", input, "--quiet", "++policy_model.responses_api_models.vllm_model.retry_backoff_s=0.01"];
      const result = await runGym([...common, "-o", output], { timeoutMs: 120_000 });
      expect(result.code).toBe(4);
      expect(readLines(output)).toEqual([]);
      const failures = readLines(output.replace(".jsonl", "_failures.jsonl"));
      expect(failures).toHaveLength(6);
      expect(new Set(failures.map((f) => f._ng_failure_class))).toEqual(new Set(["model_error"]));
      expect(failures[0]!._ng_failure_error).toContain("GPU on fire");
      expect(result.stderr).toContain("6 rollouts failed (allowed: 0)");
      const metrics = JSON.parse(readFileSync(output.replace(".jsonl", "_aggregate_metrics.json"), "utf8"));
      expect(metrics).toEqual([]);

      // Resume against a healthy engine re-runs the failed pairs as attempt 1 and appends; the
      // failures file stays as the attempt log.
      const healthy = await startFakeEngine();
      try {
        const resumed = await runGym(["eval", "run", ...modelArgs(healthy, 5, 0), "-i", input, "--quiet", "-o", output, "--resume"], { timeoutMs: 120_000 });
        expect(resumed.code).toBe(0);
        const rows = readLines(output);
        expect(rows).toHaveLength(6);
        expect(rows.every((r) => r._ng_attempt_index === 1)).toBe(true);
        expect(readLines(output.replace(".jsonl", "_failures.jsonl"))).toHaveLength(6);
        // Nothing left to do: a second resume runs nothing and still exits 0.
        const idle = await runGym(["eval", "run", ...modelArgs(healthy, 5, 0), "-i", input, "--quiet", "-o", output, "--resume"]);
        expect(idle.code).toBe(0);
        expect(readLines(output)).toHaveLength(6);
      } finally {
        await healthy.close();
      }

      // With --max-attempts 1 a failure is final at once: resume leaves it alone.
      const capped = join(dir, "broken_capped.jsonl");
      expect((await runGym([...common, "-o", capped], { timeoutMs: 120_000 })).code).toBe(4);
      const cappedResume = await runGym([...common, "-o", capped, "--resume", "--max-attempts", "1"], { timeoutMs: 120_000 });
      expect(cappedResume.code).toBe(4);
      expect(readLines(capped.replace(".jsonl", "_failures.jsonl"))).toHaveLength(6);

      const early = await runGym([...common, "-o", join(dir, "broken_early.jsonl"), "--max-failures", "1", "--concurrency", "1"], { timeoutMs: 120_000 });
      expect(early.code).toBe(4);
      expect(early.stderr).toContain("stopped early");
      expect(readLines(join(dir, "broken_early_failures.jsonl"))).toHaveLength(2);
    } finally {
      await broken.close();
    }
  }, 600_000); // several CLI runs of up to 120 s each on a busy machine
});

describe("kill -9 of the whole process group mid-run, then --resume", () => {
  let engine: FakeEngine;
  beforeAll(async () => {
    engine = await startFakeEngine({ delayMs: 15 });
  });
  afterAll(async () => engine.close());

  it("keeps exactly one final outcome per pair with no duplicate success lines", async () => {
    const input = join(dir, "kill_in.jsonl");
    const output = join(dir, "kill_out.jsonl");
    writeInput(input, 100);
    const args = ["eval", "run", ...modelArgs(engine, 30), "-i", input, "-o", output, "--num-repeats", "2", "--concurrency", "4", "--quiet"];
    const child = spawn(process.execPath, [GYM, ...args], { cwd: REPO_ROOT, detached: true, stdio: "ignore" });
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    const deadline = Date.now() + 60_000;
    // Whole lines counted, not parsed: the line being written while we look is torn.
    const written = () => (existsSync(output) ? readFileSync(output, "utf8").split("\n").length - 1 : 0);
    while (Date.now() < deadline && written() < 30) await new Promise((r) => setTimeout(r, 50));
    process.kill(-child.pid!, "SIGKILL");
    await exited;
    // Killed mid-write, the last line may be torn (--resume repairs it): whole lines only.
    const before = written();
    expect(before).toBeGreaterThanOrEqual(30);
    expect(before).toBeLessThan(200);

    const resumed = await runGym([...args, "--resume"], { timeoutMs: 120_000 });
    expect(resumed.stderr).not.toContain("error");
    expect(resumed.code).toBe(0);
    const { successes, finalFailures } = checkOutcomes(output, 100, 2);
    expect(successes).toBe(200);
    expect(finalFailures).toBe(0);
    expect(resumed.stdout).toContain("200/200 rollouts succeeded");
    expect(existsSync(`${output}.done`)).toBe(true);
  }, 240_000); // the resume alone may take up to 120 s on a busy machine

  it("repairs a torn last line and re-runs that rollout", async () => {
    const input = join(dir, "torn_in.jsonl");
    const output = join(dir, "torn_out.jsonl");
    writeInput(input, 5);
    const args = ["eval", "run", ...modelArgs(engine, 30), "-i", input, "-o", output, "--quiet"];
    expect((await runGym(args)).code).toBe(0);
    const text = readFileSync(output, "utf8");
    const lines = text.trimEnd().split("\n");
    // Simulate a writer killed mid-line: drop the last line's second half and its newline.
    const last = lines.pop()!;
    writeFileSync(output, `${lines.join("\n")}\n${last.slice(0, Math.floor(last.length / 2))}`);
    const resumed = await runGym([...args, "--resume"]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain("removed a torn last line");
    const { successes } = checkOutcomes(output, 5, 1);
    expect(successes).toBe(5);
  });
});

describe("--rollout-timeout", () => {
  it("fails a rollout past its deadline as a timeout instead of waiting on it", async () => {
    // An engine that never answers: the 1 s rollout deadline ends these rollouts as "timeout"; were
    // it not enforced, they would end at the model client's 30 s timeout, classified otherwise.
    const slow = await startFakeEngine({ faults: { seed: 1, hang: 1 } });
    try {
      const input = join(dir, "slow_in.jsonl");
      writeInput(input, 3);
      const output = join(dir, "slow_out.jsonl");
      const result = await runGym(["eval", "run", ...modelArgs(slow, 30, 0), "-i", input, "-o", output, "--rollout-timeout", "1", "--max-attempts", "1", "--quiet"], { timeoutMs: 60_000 });
      expect(result.code).toBe(4);
      const failures = readLines(output.replace(".jsonl", "_failures.jsonl"));
      expect(failures).toHaveLength(3);
      expect(failures.every((f) => f._ng_failure_class === "timeout")).toBe(true);
      expect(failures[0]!._ng_failure_error).toContain("rollout deadline of 1 s passed");
    } finally {
      await slow.close();
    }
  });
});

describe("--resume without a plan file", () => {
  it("plans again and keeps the results already written instead of starting over", async () => {
    const engine = await startFakeEngine();
    try {
      const input = join(dir, "noplan_in.jsonl");
      const output = join(dir, "noplan_out.jsonl");
      writeInput(input, 4);
      const args = ["eval", "run", ...modelArgs(engine, 30), "-i", input, "-o", output, "--quiet"];
      expect((await runGym(args)).code).toBe(0);
      const before = readLines(output);
      // Lose the plan and one result line.
      rmSync(output.replace(".jsonl", "_materialized_inputs.jsonl"));
      writeFileSync(output, before.slice(0, 3).map((r) => JSON.stringify(r)).join("\n") + "\n");
      const calls = engine.requests.length;
      const resumed = await runGym([...args, "--resume"]);
      expect(resumed.code).toBe(0);
      expect(resumed.stderr).toContain("no plan at");
      expect(readLines(output)).toHaveLength(4);
      // Only the lost rollout ran again: two model calls.
      expect(engine.requests.length - calls).toBe(2);
    } finally {
      await engine.close();
    }
  });
});
