// `gym eval run --model-server-cmd`: the real CLI starts an inference server for the run (the fake
// engine in its own process stands in for vLLM), points the policy at it, and leaves nothing behind —
// after success, after a start-up failure, after a ready timeout, and after SIGTERM mid-run.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readJsonlFile, REPO_ROOT, runGym, NEMO_GYM_EXAMPLES, startGym } from "./helpers/cli.js";

const FAKE_ENGINE = join(REPO_ROOT, "bench", "fake_engine_process.ts");
const INPUT = join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl");
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gym-model-server-"));
});

function runArgs(output: string, ...extra: string[]): string[] {
  return ["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model", "m", "-i", INPUT, "-o", output, "--quiet", ...extra];
}

/** The fake engine as a server command; `marker` is an ignored extra argument that pgrep can find. */
function engineCommand(marker: string, delayMs = 0): string {
  return `${process.execPath} --import tsx ${FAKE_ENGINE} {port} ${delayMs} ${marker}`;
}

/** Pids of live processes whose command line contains `marker` (the test's own pgrep excluded). */
function pids(marker: string): number[] {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** The port gym chose, from its start-up notice. */
function portOf(stderr: string): number {
  const match = /starting the model server on port (\d+)/.exec(stderr);
  expect(match, stderr).not.toBeNull();
  return Number(match![1]);
}

describe("gym eval run --model-server-cmd", () => {
  it("starts the server, points the policy at it, scores every row, and stops it", async () => {
    const marker = `gym-ms-ok-${process.pid}`;
    const output = join(dir, "ok.jsonl");
    const result = await runGym(runArgs(output, "--model-server-cmd", engineCommand(marker)));
    expect(result.code, result.stderr).toBe(0);
    const rows = readJsonlFile(output);
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(row.reward).toBe(1);
    const log = join(dir, "ok_model_server.log");
    expect(result.stderr).toContain(log);
    expect(existsSync(log)).toBe(true);
    const port = portOf(result.stderr);
    // The fake engine prints its base URL: proof the command ran with {port} replaced.
    expect(readFileSync(log, "utf8")).toContain(`http://127.0.0.1:${port}/v1`);
    expect(pids(marker)).toEqual([]);
    expect(await portIsFree(port)).toBe(true);
  });

  it("fails at once with exit 2 when the command exits, naming the code and showing its output", async () => {
    // At once: on the exit itself, not at the 600 s ready timeout (runGym would kill gym long before).
    const result = await runGym(runArgs(join(dir, "boom.jsonl"), "--model-server-cmd", "echo boom; exit 3", "--model-server-ready-timeout", "600"));
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).not.toContain("was not ready within");
    expect(result.stderr).toContain("exited with code 3");
    expect(result.stderr).toContain("  boom");
    expect(result.stderr).toContain("echo boom; exit 3");
  });

  it("gives up after --model-server-ready-timeout, exit 2, and stops the command", async () => {
    // A sleep length unique to this test: both bash's and sleep's command lines contain it.
    const marker = `sleep 600.${process.pid}`;
    // The command never becomes ready nor ends by itself: only the 2 s ready timeout can end the run
    // (runGym kills gym after 60 s, which fails the exit code).
    const result = await runGym(runArgs(join(dir, "sleep.jsonl"), "--model-server-cmd", `echo loading; ${marker}; echo done`, "--model-server-ready-timeout", "2"));
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain("was not ready within 2 s");
    expect(result.stderr).toContain("  loading");
    // bash and its sleep child are both gone.
    expect(pids(marker)).toEqual([]);
  });

  it("stops the server's whole process group when gym gets SIGTERM mid-run", async () => {
    const marker = `gym-ms-term-${process.pid}`;
    // Every engine reply takes 30 s: the run is surely in the middle of collecting when signalled.
    const child = startGym(runArgs(join(dir, "term.jsonl"), "--model-server-cmd", engineCommand(marker, 30_000)));
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const deadline = Date.now() + 20_000;
    while (!/starting the model server on port \d+/.test(stderr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const port = portOf(stderr);
    // Ready: gym then starts its own servers and the rollouts (each stuck on the slow engine).
    while (Date.now() < deadline && (await fetch(`http://127.0.0.1:${port}/v1/models`).then((r) => r.status).catch(() => 0)) !== 200) {
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 1_000));
    expect(pids(marker).length).toBeGreaterThan(0);
    child.kill("SIGTERM");
    expect(await exited).toBe(130);
    expect(pids(marker)).toEqual([]);
    expect(await portIsFree(port)).toBe(true);
  });
});

describe("gym eval submit --model-server-cmd", () => {
  it("forwards the server flags to every array task, {port} intact, and resolves without --model-url", async () => {
    const result = await runGym([
      "eval", "submit", "--shards", "2", "--dry-run",
      "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model", "m",
      "-i", INPUT, "-o", join(dir, "submit", "out.jsonl"),
      "--model-server-cmd", "vllm serve Qwen/Qwen3-8B --port {port}", "--model-server-ready-timeout", "1200",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("--model-server-cmd 'vllm serve Qwen/Qwen3-8B --port {port}'");
    expect(result.stdout).toContain("--model-server-ready-timeout 1200");
    // Each task picks its own free port; no fixed --model-server-port or --model-url is forwarded to it.
    const shardScript = result.stdout.split("merge.sbatch")[0]!;
    expect(shardScript).not.toContain("--model-server-port");
    expect(shardScript).not.toContain("--model-url");
  });
});
