// Issue 18, fail fast: a dead engine stops the run at once with exit 5 and leaves the rest for
// `--resume` (nothing recorded as failed because of it); everything that needs no server is checked
// before the engine starts; a finished `--resume` starts nothing; `--dry-run` prints the plan.
// The engine double is the fake OpenAI-compatible engine, in its own process when gym starts it.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runScheduler, type WorkItem } from "../src/collect/scheduler.js";
import { call, joinUrl, NO_RETRY } from "../src/http/client.js";
import { EngineWatch } from "../src/orchestrate/engine_watch.js";
import { checkPlan, checkPortsFree } from "../src/orchestrate/run_preflight.js";
import { startFakeEngine } from "./doubles/fake_engine.js";
import { NEMO_GYM_EXAMPLES, readJsonlFile, REPO_ROOT, runGym, startGym } from "./helpers/cli.js";

const FAKE_ENGINE = join(REPO_ROOT, "bench", "fake_engine_process.ts");
const INPUT = join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl");
const AGENT = "example_single_tool_call_simple_agent";
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gym-fail-fast-"));
});

function runArgs(input: string, output: string, ...extra: string[]): string[] {
  return ["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model", "m", "-i", input, "-o", output, "--quiet", ...extra];
}

/** The fake engine as a server command; `marker` is an ignored extra argument pgrep finds it by. */
function engineCommand(marker: string, delayMs: number): string {
  return `${process.execPath} --import tsx ${FAKE_ENGINE} {port} ${delayMs} ${marker}`;
}

function pidsOf(marker: string): number[] {
  try {
    return execFileSync("pgrep", ["-f", `fake_engine_process.ts [0-9]+ [0-9]+ ${marker}$`], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function lineCount(path: string): number {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean).length : 0;
}

const pairsOf = (rows: Array<Record<string, any>>) => rows.map((r) => `${r._ng_task_index}:${r._ng_rollout_index}`);

describe("gym eval run: a dead engine", () => {
  const output = () => join(dir, "run.jsonl");
  const failures = () => join(dir, "run_failures.jsonl");
  // 5 rows × 4 repeats.
  const args = (...extra: string[]) => runArgs(INPUT, output(), "--num-repeats", "4", "--concurrency", "2", ...extra);

  it("SIGKILLed mid-run: exit 5 at once, the rest left unrun and nothing recorded as failed", async () => {
    const marker = `gym-ff-kill-${process.pid}`;
    // Each engine reply takes 400 ms, so the run is surely mid-way when the engine is killed.
    const child = startGym(args("--model-server-cmd", engineCommand(marker, 400)));
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    while (lineCount(output()) < 3 && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    const pids = pidsOf(marker);
    expect(pids, stderr).toHaveLength(1);
    process.kill(pids[0]!, "SIGKILL");
    const killedAt = Date.now();
    const code = await exited;
    // The bound, checked generously: retries through every remaining rollout took minutes.
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    expect(code, stderr).toBe(5);
    expect(stderr).toContain("engine unavailable: the model server (--model-server-cmd) was killed by SIGKILL");
    expect(stderr).toContain("--resume");
    const done = lineCount(output());
    expect(done).toBeGreaterThanOrEqual(3);
    expect(done).toBeLessThan(20);
    expect(stderr).toContain(`${20 - done} of 20 requested rollouts are left unrun`);
    expect(lineCount(failures())).toBe(0);
    expect(existsSync(`${output()}.done`)).toBe(false);
  });

  it("--resume against a restarted engine runs exactly the rest", async () => {
    const before = pairsOf(readJsonlFile(output()));
    const result = await runGym(args("--resume", "--model-server-cmd", engineCommand(`gym-ff-again-${process.pid}`, 0)));
    expect(result.code, result.stderr).toBe(0);
    const pairs = pairsOf(readJsonlFile(output()));
    expect(pairs).toHaveLength(20);
    expect(new Set(pairs).size).toBe(20);
    // What was done before the death is kept as it was, not run again.
    expect(pairs.slice(0, before.length)).toEqual(before);
    expect(lineCount(failures())).toBe(0);
    expect(existsSync(`${output()}.done`)).toBe(true);
  });

  it("a finished --resume exits 0 without starting the engine or any server", async () => {
    const marker = join(dir, "engine-started");
    const result = await runGym(args("--resume", "--model-server-cmd", `touch ${marker}; sleep 60`));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("nothing to run");
    expect(result.stdout).toContain("20/20 rollouts succeeded");
    expect(existsSync(marker)).toBe(false);
    expect(lineCount(output())).toBe(20);
  });
});

describe("gym eval run: checked before anything starts", () => {
  it("a bad input line is named before the engine starts", async () => {
    const rows = readFileSync(INPUT, "utf8").split("\n").filter(Boolean);
    const input = join(dir, "bad.jsonl");
    writeFileSync(input, `${[rows[0], rows[1], '{"responses_create_params": {"input": 5}}', ...rows.slice(2)].join("\n")}\n`);
    const marker = join(dir, "bad-engine-started");
    const result = await runGym(runArgs(input, join(dir, "bad_out.jsonl"), "--model-server-cmd", `touch ${marker}; sleep 60`));
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${input}:3: invalid row`);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(dir, "bad_out_materialized_inputs.jsonl"))).toBe(false);
  });

  it("--dry-run prints the plan, the commands and the config with secrets hidden, and starts and writes nothing", async () => {
    const out = join(dir, "dry", "out.jsonl");
    const result = await runGym([
      ...runArgs(INPUT, out, "--num-repeats", "3", "--model-api-key", "sk-dry-secret-1"),
      "--dry-run",
      "--model-server-cmd",
      "vllm serve Qwen/Qwen3-8B --port {port} --api-key sk-dry-secret-1",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("5 tasks, 15 rollouts");
    expect(result.stdout).toMatch(new RegExp(`${AGENT}\\s+5\\s+15`));
    expect(result.stdout).toMatch(/model server: bash -c "vllm serve Qwen\/Qwen3-8B --port \d+ --api-key \*\*\*"/);
    expect(result.stdout).toContain(`responses_api_agents ${AGENT} (simple_agent)`);
    expect(result.stdout).toContain("resolved config (secrets hidden):");
    expect(result.stdout).not.toContain("sk-dry-secret-1");
    expect(existsSync(join(dir, "dry"))).toBe(false);
  });

  it("a num_repeats map missing an agent the input uses is one error naming it (what eval run and eval submit check first)", async () => {
    const plan = { inputPath: INPUT, knownAgents: new Set([AGENT]), defaultAgent: AGENT };
    await expect(checkPlan({ ...plan, repeats: { other_agent: 2 } })).rejects.toThrow(`num_repeats has no entry for agent(s) "${AGENT}"`);
    const preview = await checkPlan({ ...plan, repeats: { [AGENT]: 2 }, shard: { index: 1, count: 2 } });
    expect(preview.tasks).toBe(2);
    expect(preview.total).toBe(4);
    expect(preview.agents.get(AGENT)).toEqual({ tasks: 2, rollouts: 4 });
  });

  it("a fixed port already in use is named", async () => {
    const holder: Server = createServer();
    const port = await new Promise<number>((resolve) => holder.listen(0, "127.0.0.1", () => resolve((holder.address() as { port: number }).port)));
    try {
      await expect(checkPortsFree([], [{ what: "--model-server-port", port }])).rejects.toThrow(`--model-server-port: 127.0.0.1:${port} is already in use`);
    } finally {
      await new Promise((r) => holder.close(r));
    }
    await checkPortsFree([], [{ what: "--model-server-port", port }]);
  });
});

describe("EngineWatch with the scheduler", () => {
  const items = (n: number): WorkItem[] => Array.from({ length: n }, (_, i) => ({ task: i, rollout: 0, agent: "a", attempt: 0, row: { agent_ref: { type: "responses_api_agents", name: "a" } } }));

  it("an engine whose only replica stays unreachable for the window stops the run; failures it caused are not written", async () => {
    const engine = await startFakeEngine();
    const watch = new EngineWatch({ engines: [{ instance: "policy_model", url: engine.baseUrl }], unreachableWindowMs: 300, probeDownEveryMs: 100 });
    const outputPath = join(dir, "watch.jsonl");
    const failuresPath = join(dir, "watch_failures.jsonl");
    let calls = 0;
    const result = await runScheduler({
      items: (async function* () {
        yield* items(10);
      })(),
      execute: async (_item, signal) => {
        // The engine goes away after two rollouts.
        if (++calls === 3) await engine.close();
        await call(joinUrl(engine.baseUrl, "/models"), { retry: NO_RETRY, signal });
        return { reward: 1 };
      },
      outputPath,
      failuresPath,
      concurrency: 1,
      total: 10,
      engine: watch,
    });
    expect(result.succeeded).toBe(2);
    expect(result.failed).toBe(0);
    expect(result.dropped).toBe(1);
    expect(result.engineDown).toContain('model "policy_model": its engine');
    expect(result.engineDown).toContain("unreachable for 0.3 s");
    expect(lineCount(outputPath)).toBe(2);
    expect(existsSync(failuresPath)).toBe(false);
  });

  it("a rollout's own failure while the engine answers is written as always", async () => {
    const engine = await startFakeEngine();
    const watch = new EngineWatch({ engines: [{ instance: "policy_model", url: engine.baseUrl }], unreachableWindowMs: 300, probeDownEveryMs: 100 });
    const failuresPath = join(dir, "own_failures.jsonl");
    try {
      const result = await runScheduler({
        items: (async function* () {
          yield* items(3);
        })(),
        execute: async (item) => {
          if (item.task === 1) throw new Error("the environment broke");
          return { reward: 1 };
        },
        outputPath: join(dir, "own.jsonl"),
        failuresPath,
        concurrency: 1,
        total: 3,
        engine: watch,
      });
      expect(result).toMatchObject({ succeeded: 2, failed: 1, dropped: 0 });
      expect(result.engineDown).toBeUndefined();
      expect(lineCount(failuresPath)).toBe(1);
    } finally {
      await engine.close();
    }
  });
});
