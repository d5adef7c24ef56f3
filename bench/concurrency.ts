// `npm run bench -- concurrency [--knee 32] [--latency-ms 1000] [--settings 8,16,32,64,128] [--seconds 45]`
// `--concurrency auto` against fixed settings, side by side in one run, on one engine with a ceiling:
// the degrading fake engine (test/doubles/degrading_engine.ts) in its own process, whose calls take
// `latency-ms` up to `knee` in flight, slow down as (in flight / knee)² past it (throughput falls)
// and are refused with 503 past 1.5 × knee. Each setting is one `gym eval run` of
// example_single_tool_call (two model calls per rollout), sized to take about `seconds` at that
// setting's best possible rate, so small settings do not take minutes; rollouts/s are taken from the
// run's own collection time. Prints rollouts/s, failed rollouts, and where auto's limits settled.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { machineLine, markdownTable } from "./machine.js";
import { writeInput } from "./collect.js";
import { GYM, REPO_ROOT } from "../test/helpers/cli.js";

function arg(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
}

async function startEngine(knee: number, latencyMs: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "bench", "degrading_engine_process.ts"), String(knee), String(latencyMs)], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve) => child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())));
  return { url, child };
}

interface Result {
  setting: string;
  rollouts: number;
  succeeded: number;
  failed: number;
  seconds: number;
  settled?: string;
}

function run(engineUrl: string, input: string, output: string, setting: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [GYM, "eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engineUrl, "--model", "m", "-i", input, "-o", output, "--concurrency", setting, "--quiet", "--max-failures", "100%"],
      { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    child.on("exit", (code) => {
      const done = /(\d+)\/(\d+) rollouts succeeded, (\d+) failed.* in ([\d.]+) s/.exec(out);
      if (!done) return reject(new Error(`gym exited ${code}: ${out.slice(-2000)}`));
      const settled = /limits settled at (.*) \(mean over/.exec(out)?.[1];
      resolve({ setting, succeeded: Number(done[1]), rollouts: Number(done[2]), failed: Number(done[3]), seconds: Number(done[4]), ...(settled ? { settled } : {}) });
    });
  });
}

export default async function concurrencyBench(args: string[]): Promise<void> {
  const knee = Number(arg(args, "knee", "32"));
  const latencyMs = Number(arg(args, "latency-ms", "1000"));
  const seconds = Number(arg(args, "seconds", "45"));
  const settings = arg(args, "settings", "8,16,32,64,128").split(",").map(Number);
  const dir = mkdtempSync(join(tmpdir(), "gym-bench-concurrency-"));
  const engine = await startEngine(knee, latencyMs);
  // The engine's best: `knee` calls per `latencyMs`; a rollout makes two calls.
  const bestRate = (Math.min(knee, Math.max(...settings)) * 1000) / latencyMs / 2;
  const results: Result[] = [];
  try {
    const plan = [...settings.map((c) => ({ setting: String(c), rate: Math.min(c, knee) })), { setting: "auto", rate: knee }];
    for (const { setting, rate } of plan) {
      const rollouts = Math.max(200, Math.round(((rate * 1000) / latencyMs / 2) * seconds));
      const input = join(dir, `in_${setting}.jsonl`);
      writeInput(input, rollouts);
      const result = await run(engine.url, input, join(dir, `out_${setting}.jsonl`), setting);
      process.stderr.write(`concurrency ${setting}: ${result.succeeded}/${result.rollouts} in ${result.seconds} s${result.settled ? `; settled at ${result.settled}` : ""}\n`);
      results.push(result);
    }
  } finally {
    engine.child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
  const rate = (r: Result) => r.succeeded / r.seconds;
  const bestFixed = Math.max(...results.filter((r) => r.setting !== "auto").map(rate));
  process.stdout.write(`\n${machineLine()}\n`);
  process.stdout.write(`engine: ${latencyMs} ms per call up to ${knee} in flight, (in flight / ${knee})² × that past it, 503 past ${Math.floor(knee * 1.5)}; at best ${bestRate.toFixed(0)} rollouts/s\n\n`);
  process.stdout.write(
    `${markdownTable(
      ["--concurrency", "rollouts", "failed", "rollouts/s", "vs best fixed", "settled at (auto)"],
      results.map((r) => [r.setting, r.rollouts, r.failed, rate(r).toFixed(1), `${((rate(r) / bestFixed) * 100).toFixed(0)}%`, r.settled ?? ""]),
    )}\n`,
  );
}
