// Every long-running command exits promptly on SIGTERM and on SIGINT, leaving no process behind,
// also with a process per server; an idle `gym env start` uses (almost) no CPU (measured on the same
// processes the SIGTERM case then stops, so no extra start-up is paid for it). "Promptly" is only
// bounded by a generous timeout: the machine may be busy.
import { execFileSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { engineOf } from "./helpers/scope.js";
import { readJsonlFile, REPO_ROOT, runGym, startGym, stopChild, waitForOutput, processAlive as alive } from "./helpers/cli.js";
import type { FakeEngine } from "./doubles/fake_engine.js";

const EXAMPLE = join(REPO_ROOT, "src", "environments", "example_single_tool_call", "data", "example.jsonl");
const EXIT_TIMEOUT_MS = 30_000;

let dir: string;
let engine: FakeEngine;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gym-signals-"));
  // Slow enough that `eval run` is mid-collection when the signal comes.
  engine = await engineOf({ delayMs: 300 });
});

/** Every descendant of `pid` (Linux), children first. */
function descendants(pid: number): number[] {
  let children: number[];
  try {
    children = execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

async function stopWith(child: ChildProcess, signal: NodeJS.Signals): Promise<{ code: number | null; leftovers: number[]; before: number[] }> {
  const before = descendants(child.pid!);
  const exited = new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no exit within ${EXIT_TIMEOUT_MS} ms of ${signal}`)), EXIT_TIMEOUT_MS);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  child.kill(signal);
  let code: number | null;
  try {
    code = await exited;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  const deadline = Date.now() + EXIT_TIMEOUT_MS;
  while (before.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return { code, leftovers: before.filter(alive), before };
}

/** CPU time (s) used so far by `pid` (utime + stime; fields 14 and 15 of /proc/<pid>/stat). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A ready `gym env start` and its servers idle: a quiet stretch costs them next to no CPU. */
async function expectIdle(child: ChildProcess): Promise<void> {
  // Let start-up work (JIT, first timers) settle, then measure a quiet stretch.
  await new Promise((r) => setTimeout(r, 1_000));
  const pids = [child.pid!, ...descendants(child.pid!)];
  const used = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const windowS = 3;
  const before = used();
  await new Promise((r) => setTimeout(r, windowS * 1000));
  // A busy loop would use the whole window per process; idle servers a few hundredths of it.
  expect(used() - before).toBeLessThan(windowS * 0.2 * pids.length);
}

const model = () => ["--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m"];

function rollouts(): string {
  const path = join(dir, "view_rollouts.jsonl");
  writeFileSync(path, `${JSON.stringify({ _ng_task_index: 0, _ng_rollout_index: 0, reward: 1, agent_ref: { name: "a" }, response: { output: [] } })}\n`);
  return path;
}

interface Command {
  name: string;
  args: () => string[];
  ready: RegExp;
  /** Processes the command runs besides itself while ready (a process per server). */
  children: number;
  exitCode: number;
  /** Checked to idle (next to no CPU) once ready, before the SIGTERM that stops it. */
  idle?: boolean;
}

const COMMANDS: Command[] = [
  { name: "env start", args: () => ["env", "start", "--resources-server", "example_single_tool_call", ...model(), "--head-port", "0"], ready: /head server:/, children: 0, exitCode: 0, idle: true },
  { name: "env start --process-per-server", args: () => ["env", "start", "--resources-server", "example_single_tool_call", ...model(), "--head-port", "0", "--process-per-server"], ready: /head server:/, children: 3, exitCode: 0, idle: true },
  { name: "serve", args: () => ["serve", "--resources-server", "example_single_tool_call", ...model(), "--port", "0"], ready: /rollout service:/, children: 0, exitCode: 0 },
  { name: "serve --process-per-server", args: () => ["serve", "--resources-server", "example_single_tool_call", ...model(), "--port", "0", "--process-per-server"], ready: /rollout service:/, children: 3, exitCode: 0 },
  { name: "view", args: () => ["view", "--rollouts", rollouts(), "--port", "0"], ready: /viewer: http/, children: 0, exitCode: 0 },
  { name: "sandbox serve", args: () => ["sandbox", "serve", "--port", "0"], ready: /sandbox service: http/, children: -1, exitCode: 0 },
];

describe.each(["SIGTERM", "SIGINT"] as const)("on %s", (signal) => {
  for (const command of COMMANDS) {
    const idle = command.idle === true && signal === "SIGTERM";
    it(`gym ${command.name} ${idle ? "uses next to no CPU when idle, then " : ""}exits ${command.exitCode} and leaves no process`, async () => {
      const child = startGym(command.args());
      try {
        await waitForOutput(child, (text) => command.ready.test(text), 60_000);
        if (idle) await expectIdle(child);
        const { code, leftovers, before } = await stopWith(child, signal);
        if (command.children >= 0) expect(before).toHaveLength(command.children);
        expect(code).toBe(command.exitCode);
        expect(leftovers).toEqual([]);
      } finally {
        await stopChild(child, "SIGKILL");
      }
    });
  }

  for (const layout of ["one process", "process per server"]) {
    it(`gym eval run (${layout}) mid-collection exits 130, keeps what it wrote and leaves no process`, async () => {
      const row = readFileSync(EXAMPLE, "utf8").split("\n")[0]!;
      const input = join(dir, `signal_in_${signal}_${layout.replace(/ /g, "_")}.jsonl`);
      writeFileSync(input, `${Array.from({ length: 200 }, () => row).join("\n")}\n`);
      const output = join(dir, `signal_out_${signal}_${layout.replace(/ /g, "_")}.jsonl`);
      const args = ["eval", "run", "--resources-server", "example_single_tool_call", ...model(), "-i", input, "-o", output, "--concurrency", "4", "--quiet"];
      if (layout === "process per server") args.push("--process-per-server");
      const child = startGym(args);
      let stderr = "";
      child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
      const seen = engine.requests.length;
      const deadline = Date.now() + 60_000;
      while (engine.requests.length < seen + 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const { code, leftovers, before } = await stopWith(child, signal);
      expect(before).toHaveLength(layout === "process per server" ? 3 : 0);
      expect(code).toBe(130);
      expect(leftovers).toEqual([]);
      // Whatever was written is whole lines of results (a resume picks up from them).
      expect(readJsonlFile(output).every((r) => r.reward === 1)).toBe(true);
      expect(stderr).toContain(`gym: ${signal}: stopping servers; the rollouts written so far are kept in ${output}; continue with --resume`);
    });
  }
});

describe("usage", () => {
  it("a bad --heartbeat is a usage error naming the flag", async () => {
    const result = await runGym(["eval", "run", "--resources-server", "example_single_tool_call", ...model(), "-i", EXAMPLE, "-o", join(dir, "hb.jsonl"), "--heartbeat", "-1"]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('gym: error: --heartbeat must be a number ≥ 0, got "-1"');
  });
});
