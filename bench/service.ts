// `npm run bench -- service [--rollouts N] [--concurrency 16,64] [--repeats 3]`
// The same work — N distinct example_single_tool_call rows (two model calls and one tool call each)
// against a fast fake engine in its own process — collected four ways, interleaved, median of
// `--repeats` runs each:
//   1. `gym eval run` (starts its servers in its own process, writes files, stops them);
//   2. `gym eval run --no-serve` against `gym env start` (collector in its own process);
//   3. `POST /v1/rollouts` on the head of that same `gym env start` (collector in the servers' process);
//   4. `POST /v1/rollouts` on `gym serve --head-url` (collector in its own process, like 2).
// Rates are wall clock from the request (or process start) to the last row; for `gym eval run` also
// by its own timer (no start-up/shut-down), for the service also the time to the first row. Every run
// must account for every rollout, or the table says so.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { streamRollouts } from "../src/client/rollouts.js";
import { closeDispatcher } from "../src/http/client.js";
import { freePort } from "../src/orchestrate/start.js";
import { GYM, REPO_ROOT, NEMO_GYM_EXAMPLES } from "../test/helpers/cli.js";
import { machineLine, markdownTable } from "./machine.js";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

function inputRows(count: number): Array<Record<string, unknown>> {
  const base = JSON.parse(readFileSync(join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl"), "utf8").split("\n")[0]!);
  return Array.from({ length: count }, (_, i) => {
    const row = structuredClone(base);
    row.responses_create_params.input[1].content = `what's it like in sf? (question ${i})`;
    return row;
  });
}

function gym(args: string[]): ChildProcess {
  return spawn(process.execPath, [GYM, ...args], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
}

/** Resolves with stdout once it contains `marker`; rejects if the process exits first. */
function output(child: ChildProcess, marker: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes(marker)) resolve(out);
    });
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    child.once("exit", (code) => reject(new Error(`gym exited ${code} before "${marker}": ${out.slice(-2000)}`)));
  });
}

function finished(child: ChildProcess): Promise<{ code: number | null; stdout: string }> {
  let stdout = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.resume();
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout })));
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

interface Run {
  seconds: number;
  /** `gym eval run`'s own timer: plan, collection, accounting and metrics, without start-up and shut-down. */
  ownSeconds?: number;
  firstRowSeconds?: number;
  complete: boolean;
}

async function evalRun(args: string[], rollouts: number, dir: string): Promise<Run> {
  const out = join(dir, `out_${Date.now()}.jsonl`);
  const started = performance.now();
  const { code, stdout } = await finished(gym(["eval", "run", ...args, "-o", out, "--quiet"]));
  const seconds = (performance.now() - started) / 1000;
  const lines = readFileSync(out, "utf8").split("\n").filter(Boolean).length;
  rmSync(dir, { recursive: true, force: true });
  const own = /rollouts succeeded.* in (\d+(?:\.\d+)?) s/.exec(stdout)?.[1];
  return { seconds, ...(own ? { ownSeconds: Number(own) } : {}), complete: code === 0 && lines === rollouts };
}

async function service(url: string, rows: Array<Record<string, unknown>>, concurrency: number): Promise<Run> {
  const started = performance.now();
  let first: number | undefined;
  let received = 0;
  for await (const _ of streamRollouts(url, { rows, concurrency })) {
    first ??= performance.now();
    received++;
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, firstRowSeconds: first === undefined ? undefined : (first - started) / 1000, complete: received === rows.length };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};

export default async function main(): Promise<void> {
  const rollouts = Number(arg("rollouts", "4000"));
  const concurrencies = arg("concurrency", "16,64").split(",").map(Number);
  const repeats = Number(arg("repeats", "3"));
  const dir = mkdtempSync(join(tmpdir(), "gym-bench-service-"));
  const rows = inputRows(rollouts);
  const input = join(dir, "input.jsonl");
  writeFileSync(input, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);

  const engine = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "bench", "fake_engine_process.ts")], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const engineUrl = await new Promise<string>((resolve) => engine.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())));
  const model = ["--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engineUrl, "--model", "m"];
  const headPort = await freePort();
  const headUrl = `http://127.0.0.1:${headPort}`;
  const servers = gym(["env", "start", ...model, "--head-port", String(headPort)]);
  await output(servers, "head server:");
  const standalone = gym(["serve", "--head-url", headUrl, "--port", "0"]);
  const serviceUrl = /rollout service: (\S+)/.exec(await output(standalone, "rollout service:"))![1]!;

  const modes: Array<{ name: string; collector: string; run: (c: number) => Promise<Run> }> = [
    { name: "`gym eval run`", collector: "with its servers, one process (start-up included)", run: (c) => evalRun([...model, "-i", input, "--concurrency", String(c)], rollouts, mkdtempSync(join(dir, "e"))) },
    {
      name: "`gym eval run --no-serve`",
      collector: "own process, over HTTP to `gym env start`",
      run: (c) => evalRun(["--no-serve", "--head-url", headUrl, "--agent", "example_single_tool_call_simple_agent", "-i", input, "--concurrency", String(c)], rollouts, mkdtempSync(join(dir, "n"))),
    },
    { name: "`POST /v1/rollouts` on the head", collector: "in the servers' process (`gym env start`)", run: (c) => service(headUrl, rows, c) },
    { name: "`POST /v1/rollouts` on `gym serve --head-url`", collector: "own process, over HTTP to `gym env start`", run: (c) => service(serviceUrl, rows, c) },
  ];

  const table: Array<Array<string | number>> = [];
  try {
    // Warm-up (JIT, keep-alive pools) so the first measured mode is not penalised.
    await service(headUrl, rows.slice(0, 200), 16);
    await service(serviceUrl, rows.slice(0, 200), 16);
    for (const c of concurrencies) {
      const results = modes.map(() => [] as Run[]);
      for (let rep = 0; rep < repeats; rep++) {
        // Rotate the order so no mode always runs first (or last) on a noisy machine.
        for (let k = 0; k < modes.length; k++) {
          const m = (k + rep) % modes.length;
          results[m]!.push(await modes[m]!.run(c));
          process.stderr.write(`concurrency ${c}, run ${rep + 1}/${repeats}: ${modes[m]!.name} done\n`);
        }
      }
      const baseline = rollouts / median(results[0]!.map((r) => r.seconds));
      modes.forEach((mode, m) => {
        const runs = results[m]!;
        const rate = rollouts / median(runs.map((r) => r.seconds));
        const firsts = runs.map((r) => r.firstRowSeconds).filter((v): v is number => v !== undefined);
        const owns = runs.map((r) => r.ownSeconds).filter((v): v is number => v !== undefined);
        table.push([
          c,
          mode.name,
          mode.collector,
          rate.toFixed(0),
          `${(rate / baseline).toFixed(2)}×`,
          owns.length ? (rollouts / median(owns)).toFixed(0) : "—",
          firsts.length ? `${(median(firsts) * 1000).toFixed(0)} ms` : "—",
          runs.every((r) => r.complete) ? "yes" : "NO",
        ]);
      });
    }
  } finally {
    await stop(standalone);
    await stop(servers);
    await stop(engine);
    await closeDispatcher();
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(
    `${machineLine()}\n\n${rollouts} rollouts of example_single_tool_call per run (2 model calls + 1 tool call each), fast fake engine in its own process, median of ${repeats}\n\n` +
      `${markdownTable(["concurrency", "how", "collector runs", "rollouts/s (wall)", "vs eval run", "rollouts/s (its own timer)", "first row", "all rows"], table)}\n`,
  );
}
