// `npm run bench -- cpu [--baseline DIR] [--rollouts 20000] [--big 200000] [--big-models vllm_model,openai_model] [--big-only] [--ratio-rollouts 2000] [--rounds 1] [--concurrency 64] [--startup-only]`
// Issue 23's CPU figures, for this build and (with --baseline, a built checkout of another commit)
// a baseline, run alternately in one session so both see the same machine:
//   - start-up: CPU-s of a one-row, one-environment `gym eval run` (example_single_tool_call);
//   - CPU ms per rollout of example_single_tool_call on the vllm_model and openai_model paths, in one
//     process (`gym eval run`) and with a process per server (`gym env start --process-per-server` +
//     `gym eval run --no-serve`), with peak RSS; "net" takes out the fixed cost (one process: the
//     start-up run's CPU; process per server: the collector's one-row run against the same servers,
//     the servers' own start-up is never counted);
//   - at --big rollouts, one process and a process per server on each of --big-models (default
//     vllm_model): the scaling run (flat CPU per rollout, bounded memory); `--big-only` skips the
//     --rollouts and per-model-call cells (start-up is still measured, for the net figures);
//   - collector CPU per model call of a judged environment (math_with_judge, judge on: one policy and
//     two judge calls per rollout) and of a tool-heavy multi-turn one (example_multi_step) against a
//     plain rollout's, net of start-up, one process, vllm_model.
// `--startup-only` measures the first figure alone (three runs per build and round, median kept).
// Model calls are counted by the fake engine, which runs in this process (its CPU is not Gymkit's: the
// meter reads only the `gym` process trees). The judge engine is bench/judge_engine_process.ts.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { TreeMeter, waitFor, writeInput } from "./collect.js";
import { arg, startEngine as startJudgeEngine } from "./judged.js";
import { machineLine, markdownTable } from "./machine.js";
import { REPO_ROOT, NEMO_GYM_EXAMPLES } from "../test/helpers/cli.js";
import { examplePolicy, startFakeEngine, type Policy } from "../test/doubles/fake_engine.js";

interface Build {
  name: string;
  root: string;
}

function gymOf(build: Build, args: string[]): ChildProcess {
  return spawn(process.execPath, [join(build.root, "dist", "cli", "main.js"), ...args], { cwd: build.root, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
}

let modelCalls = 0;
const countingPolicy: Policy = (turns, tools, request) => {
  modelCalls++;
  return examplePolicy(turns, tools, request);
};

interface Run {
  cpuMs: number;
  peakRssMb: number;
  modelCalls: number;
  ok: boolean;
}

let runs = 0;

async function oneProcess(build: Build, engineUrl: string, modelType: string, args: string[], dir: string): Promise<Run> {
  const output = join(dir, `out_${++runs}.jsonl`);
  const before = modelCalls;
  const child = gymOf(build, ["eval", "run", ...args, "--model-type", modelType, "--model-url", engineUrl, "--model", "m", "-o", output, "--concurrency", arg("concurrency", "64"), "--quiet"]);
  const meter = new TreeMeter(() => [child.pid!]);
  meter.start();
  const code = await waitFor(child);
  meter.sample();
  meter.stop();
  rmSync(output, { force: true });
  rmSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), { force: true });
  return { cpuMs: meter.cpuMs(), peakRssMb: meter.peakRssKb / 1024, modelCalls: modelCalls - before, ok: code === 0 };
}

async function perServer(build: Build, engineUrl: string, modelType: string, input: string, oneRow: string, dir: string, port: number): Promise<{ run: Run; fixedMs: number }> {
  const servers = gymOf(build, ["env", "start", "--resources-server", "example_single_tool_call", "--model-type", modelType, "--model-url", engineUrl, "--model", "m", "--head-port", String(port), "--process-per-server"]);
  await waitFor(servers, "head server:");
  let collector: ChildProcess | undefined = undefined;
  const collect = async (file: string): Promise<{ cpuMs: number; peak: number; ok: boolean }> => {
    const output = join(dir, `http_${++runs}.jsonl`);
    const meter = new TreeMeter(() => [servers.pid!, ...(collector?.pid ? [collector.pid] : [])]);
    meter.sample();
    const start = meter.cpuMs();
    meter.start();
    collector = gymOf(build, ["eval", "run", "--no-serve", "--head-url", `http://127.0.0.1:${port}`, "--agent", "example_single_tool_call_simple_agent", "-i", file, "-o", output, "--concurrency", arg("concurrency", "64"), "--quiet"]);
    const code = await waitFor(collector);
    meter.sample();
    meter.stop();
    collector = undefined;
    rmSync(output, { force: true });
    rmSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), { force: true });
    return { cpuMs: meter.cpuMs() - start, peak: meter.peakRssKb / 1024, ok: code === 0 };
  };
  try {
    const fixed = await collect(oneRow);
    const before = modelCalls;
    const main = await collect(input);
    return { run: { cpuMs: main.cpuMs, peakRssMb: main.peak, modelCalls: modelCalls - before, ok: main.ok && fixed.ok }, fixedMs: fixed.cpuMs };
  } finally {
    servers.kill("SIGTERM");
    await new Promise((r) => servers.once("exit", r));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const fmt = (xs: number[], digits = 2) => xs.map((x) => x.toFixed(digits)).join(", ");

export default async function main(): Promise<void> {
  const rollouts = Number(arg("rollouts", "20000"));
  const big = Number(arg("big", "0"));
  const ratioRollouts = Number(arg("ratio-rollouts", "2000"));
  const rounds = Number(arg("rounds", "1"));
  const startupOnly = process.argv.includes("--startup-only");
  const bigOnly = process.argv.includes("--big-only");
  const bigModels = arg("big-models", "vllm_model").split(",");
  const baselineDir = process.argv.includes("--baseline") ? resolve(arg("baseline", "")) : undefined;
  const builds: Build[] = [...(baselineDir ? [{ name: "baseline", root: baselineDir }] : []), { name: "this build", root: REPO_ROOT }];
  const dir = mkdtempSync(join(tmpdir(), "gym-bench-cpu-"));
  const engine = await startFakeEngine({ policy: countingPolicy, recordRequests: false });
  const log = (text: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${text}\n`);
  // results[build][key] = list over rounds
  const results = new Map<string, Map<string, number[]>>(builds.map((b) => [b.name, new Map()]));
  const put = (build: Build, key: string, value: number) => {
    const m = results.get(build.name)!;
    m.set(key, [...(m.get(key) ?? []), value]);
  };
  const failures: string[] = [];
  try {
    const oneRow = join(dir, "one.jsonl");
    writeInput(oneRow, 1);
    const input = join(dir, "input.jsonl");
    writeInput(input, rollouts);
    const ratioInput = join(dir, "ratio.jsonl");
    writeInput(ratioInput, ratioRollouts);
    const mathInput = join(dir, "math.jsonl");
    writeFileSync(mathInput, Array.from({ length: ratioRollouts }, (_, i) => JSON.stringify({ responses_create_params: { input: [{ role: "user", content: `(${i}) What is 21 plus 21?` }] }, question: `(${i}) What is 21 plus 21?`, expected_answer: "42" })).join("\n") + "\n");
    const multiStep = join(NEMO_GYM_EXAMPLES, "example_multi_step", "example.jsonl");
    const multiRepeats = Math.ceil(ratioRollouts / 5);
    const check = (build: Build, what: string, run: Run) => {
      if (!run.ok) failures.push(`${build.name}: ${what} did not exit 0`);
    };

    for (let round = 0; round < rounds; round++) {
      // Alternate which build goes first, round by round.
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        const start: number[] = [];
        for (let i = 0; i < 3; i++) {
          const run = await oneProcess(build, engine.baseUrl, "vllm_model", ["--resources-server", "example_single_tool_call", "-i", oneRow], dir);
          check(build, "start-up run", run);
          start.push(run.cpuMs);
        }
        put(build, "startup", median(start));
        log(`${build.name}: start-up ${fmt(start.map((s) => s / 1000))} CPU-s`);
      }
      if (startupOnly || bigOnly) continue;
      for (const modelType of ["vllm_model", "openai_model"]) {
        for (const build of order) {
          const run = await oneProcess(build, engine.baseUrl, modelType, ["--resources-server", "example_single_tool_call", "-i", input], dir);
          check(build, `one process ${modelType}`, run);
          const startup = results.get(build.name)!.get("startup")!.at(-1)!;
          put(build, `one ${modelType} gross`, run.cpuMs / rollouts);
          put(build, `one ${modelType} net`, (run.cpuMs - startup) / rollouts);
          put(build, `one ${modelType} rss`, run.peakRssMb);
          put(build, `one ${modelType} calls`, run.modelCalls / rollouts);
          log(`${build.name}: one process ${modelType}: ${(run.cpuMs / rollouts).toFixed(2)} ms/rollout, ${run.peakRssMb.toFixed(0)} MB`);
        }
        for (const build of order) {
          const { run, fixedMs } = await perServer(build, engine.baseUrl, modelType, input, oneRow, dir, 21500 + runs);
          check(build, `process per server ${modelType}`, run);
          put(build, `http ${modelType} gross`, run.cpuMs / rollouts);
          put(build, `http ${modelType} net`, (run.cpuMs - fixedMs) / rollouts);
          put(build, `http ${modelType} rss`, run.peakRssMb);
          log(`${build.name}: process per server ${modelType}: ${(run.cpuMs / rollouts).toFixed(2)} ms/rollout, ${run.peakRssMb.toFixed(0)} MB`);
        }
      }
      // Per model call: plain, tool-heavy multi-turn, judged.
      for (const build of order) {
        const startup = results.get(build.name)!.get("startup")!.at(-1)!;
        const plain = await oneProcess(build, engine.baseUrl, "vllm_model", ["--resources-server", "example_single_tool_call", "-i", ratioInput], dir);
        check(build, "plain ratio run", plain);
        const multi = await oneProcess(build, engine.baseUrl, "vllm_model", ["--resources-server", "example_multi_step", "-i", multiStep, "--num-repeats", String(multiRepeats)], dir);
        check(build, "multi-step run", multi);
        const judge = await startJudgeEngine(0);
        const judged = await oneProcess(build, judge.url, "vllm_model", ["--resources-server", "math_with_judge", "++math_with_judge.resources_servers.math_with_judge.should_use_judge=true", "-i", mathInput], dir);
        const { judgeCalls } = await judge.stop();
        check(build, "judged run", judged);
        judged.modelCalls = ratioRollouts + judgeCalls; // one policy call per rollout, and the judge's
        const perCall = (run: Run) => (run.cpuMs - startup) / run.modelCalls;
        put(build, "per call plain", perCall(plain));
        put(build, "per call multi", perCall(multi));
        put(build, "per call judged", perCall(judged));
        put(build, "calls multi", multi.modelCalls / (multiRepeats * 5));
        put(build, "calls judged", judged.modelCalls / ratioRollouts);
        log(`${build.name}: per model call plain ${perCall(plain).toFixed(2)}, multi-step ${perCall(multi).toFixed(2)}, judged ${perCall(judged).toFixed(2)} ms`);
      }
    }
    if (big > 0) {
      const bigInput = join(dir, "big.jsonl");
      writeInput(bigInput, big);
      for (const modelType of bigModels) {
        for (const build of builds) {
          const startup = median(results.get(build.name)!.get("startup")!);
          const run = await oneProcess(build, engine.baseUrl, modelType, ["--resources-server", "example_single_tool_call", "-i", bigInput], dir);
          check(build, `${big} rollouts, one process, ${modelType}`, run);
          put(build, `big one ${modelType} gross`, run.cpuMs / big);
          put(build, `big one ${modelType} net`, (run.cpuMs - startup) / big);
          put(build, `big one ${modelType} rss`, run.peakRssMb);
          log(`${build.name}: ${big} rollouts, one process ${modelType}: ${(run.cpuMs / big).toFixed(2)} ms/rollout, ${run.peakRssMb.toFixed(0)} MB`);
        }
        for (const build of builds) {
          const { run, fixedMs } = await perServer(build, engine.baseUrl, modelType, bigInput, oneRow, dir, 21500 + runs);
          check(build, `${big} rollouts, process per server, ${modelType}`, run);
          put(build, `big http ${modelType} gross`, run.cpuMs / big);
          put(build, `big http ${modelType} net`, (run.cpuMs - fixedMs) / big);
          put(build, `big http ${modelType} rss`, run.peakRssMb);
          log(`${build.name}: ${big} rollouts, process per server ${modelType}: ${(run.cpuMs / big).toFixed(2)} ms/rollout, ${run.peakRssMb.toFixed(0)} MB`);
        }
      }
    }

    const rows: Array<Array<string | number>> = [];
    const add = (what: string, key: string, digits = 2, scale = 1) =>
      rows.push([what, ...builds.map((b) => fmt((results.get(b.name)!.get(key) ?? []).map((x) => x * scale), digits))]);
    add("start-up, one-row run (CPU-s)", "startup", 2, 1 / 1000);
    if (!startupOnly && !bigOnly) addRolloutRows();
    if (big > 0) addBigRows();
    function addBigRows(): void {
      for (const m of bigModels) {
        add(`one process, ${m}, ${big}: CPU ms / rollout (gross)`, `big one ${m} gross`);
        add(`one process, ${m}, ${big}: CPU ms / rollout (net of start-up)`, `big one ${m} net`);
        add(`one process, ${m}, ${big}: peak RSS MB`, `big one ${m} rss`, 0);
        add(`process per server, ${m}, ${big}: CPU ms / rollout (servers' start-up excluded)`, `big http ${m} gross`);
        add(`process per server, ${m}, ${big}: CPU ms / rollout (net of the collector's start-up)`, `big http ${m} net`);
        add(`process per server, ${m}: peak RSS MB (${big})`, `big http ${m} rss`, 0);
      }
    }
    function addRolloutRows(): void {
      for (const m of ["vllm_model", "openai_model"]) {
        add(`one process, ${m}, ${rollouts}: CPU ms / rollout (gross)`, `one ${m} gross`);
        add(`one process, ${m}, ${rollouts}: CPU ms / rollout (net of start-up)`, `one ${m} net`);
        add(`one process, ${m}: peak RSS MB`, `one ${m} rss`, 0);
        add(`process per server, ${m}, ${rollouts}: CPU ms / rollout (servers' start-up excluded)`, `http ${m} gross`);
        add(`process per server, ${m}, ${rollouts}: CPU ms / rollout (net of the collector's start-up)`, `http ${m} net`);
        add(`process per server, ${m}: peak RSS MB`, `http ${m} rss`, 0);
      }
      add(`plain rollout (${ratioRollouts}): CPU ms per model call, net`, "per call plain");
      add(`example_multi_step (${multiRepeats * 5}): CPU ms per model call, net`, "per call multi");
      add(`math_with_judge, judge on (${ratioRollouts}): CPU ms per model call, net`, "per call judged");
      rows.push(["multi-turn / plain per model call", ...builds.map((b) => (results.get(b.name)!.get("per call multi") ?? []).map((x, i) => (x / results.get(b.name)!.get("per call plain")![i]!).toFixed(2)).join(", "))]);
      rows.push(["judged / plain per model call", ...builds.map((b) => (results.get(b.name)!.get("per call judged") ?? []).map((x, i) => (x / results.get(b.name)!.get("per call plain")![i]!).toFixed(2)).join(", "))]);
      add("model calls per rollout: example_multi_step", "calls multi");
      add("model calls per rollout: math_with_judge, judge on", "calls judged");
    }
    const headers = ["measure (rounds separated by commas)", ...builds.map((b) => (b.name === "baseline" ? `baseline (${baselineDir})` : b.name))];
    process.stdout.write(`## cpu\n\n${machineLine()} · concurrency ${arg("concurrency", "64")} · ${rounds} round(s), builds alternated\n\n${markdownTable(headers, rows)}\n`);
    if (failures.length > 0) process.stdout.write(`\nFailed runs:\n${failures.map((f) => `- ${f}`).join("\n")}\n`);
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
