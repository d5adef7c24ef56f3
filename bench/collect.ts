// `npm run bench -- collect [--rollouts N] [--scaling-rows A,B] [--concurrency 16,64,256]`
// Collects rollouts of example_single_tool_call (two model calls and one tool call each) against a
// fast fake engine running in its own process, and prints, per layout and concurrency: rollouts/s,
// CPU-ms per rollout of Gymkit's whole process tree (the engine excluded), and peak RSS of that tree.
// Layouts: one process (`gym eval run`), and all-HTTP (`gym env start --process-per-server` +
// `gym eval run --no-serve`); at concurrency 64 also one process with V8's default heap growth
// (GYM_HEAP_GROWING_PERCENT=0), to show what Gymkit's setting costs and saves. Then a memory-scaling
// run over distinct input rows.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { machineLine, markdownTable } from "./machine.js";
import { GYM, REPO_ROOT, NEMO_GYM_EXAMPLES } from "../test/helpers/cli.js";

const TICKS = 100; // USER_HZ on Linux
const PAGE_KB = 4;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

/** Every descendant of `root` (and root), from /proc. */
function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // exited while we looked
    }
  }
  const out: number[] = [];
  const visit = (pid: number) => {
    out.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return out;
}

function cpuAndRss(pid: number): { cpuMs: number; rssKb: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cpu = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    return { cpuMs: (cpu / TICKS) * 1000, rssKb: Number(fields[21]) * PAGE_KB };
  } catch {
    return undefined;
  }
}

/** Samples a process tree until stopped: CPU (last seen per pid, incl. reaped children) and peak RSS. */
export class TreeMeter {
  private readonly lastCpu = new Map<number, number>();
  peakRssKb = 0;
  private timer?: NodeJS.Timeout;

  constructor(private readonly roots: () => number[]) {}

  start(): void {
    this.timer = setInterval(() => this.sample(), 100);
  }

  sample(): void {
    let rss = 0;
    for (const root of this.roots()) {
      for (const pid of tree(root)) {
        const m = cpuAndRss(pid);
        if (!m) continue;
        // cutime/cstime are included, so a parent's figure already covers children it reaped.
        this.lastCpu.set(pid, m.cpuMs);
        rss += m.rssKb;
      }
    }
    this.peakRssKb = Math.max(this.peakRssKb, rss);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** CPU of the roots (their reaped children included) plus descendants still alive at the end. */
  cpuMs(): number {
    let total = 0;
    for (const value of this.lastCpu.values()) total += value;
    return total;
  }
}

export function writeInput(path: string, rows: number): void {
  const base = JSON.parse(readFileSync(join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl"), "utf8").split("\n")[0]!);
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    base.responses_create_params.input[1].content = `what's it like in sf? (question ${i})`;
    lines.push(JSON.stringify(base));
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
}

export function gym(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [GYM, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
}

export function waitFor(child: ChildProcess, marker?: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (marker && out.includes(marker)) resolve(null);
    });
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    child.on("exit", (code) => (code === 0 || !marker ? resolve(code) : reject(new Error(`gym exited ${code}: ${out.slice(-2000)}`))));
  });
}

interface Measurement {
  layout: string;
  concurrency: number;
  rollouts: number;
  seconds: number;
  cpuMsPerRollout: number;
  peakRssMb: number;
  ok: boolean;
}

async function startEngine(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "bench", "fake_engine_process.ts")], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve) => child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())));
  return { url, child };
}

/** `heapGrowingPercent` overrides Gymkit's heap growing factor (0 = V8's own heuristic). */
let runs = 0;

async function oneProcess(engineUrl: string, input: string, rollouts: number, concurrency: number, dir: string, heapGrowingPercent?: number): Promise<Measurement> {
  // A fresh output per run: gym refuses to replace an earlier run's results (and this bench compares them with older builds, which know no --overwrite).
  const output = join(dir, `one_${concurrency}_${rollouts}_${heapGrowingPercent ?? "gym"}_${++runs}.jsonl`);
  const started = Date.now();
  const env = heapGrowingPercent === undefined ? {} : { GYM_HEAP_GROWING_PERCENT: String(heapGrowingPercent) };
  const child = gym(["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engineUrl, "--model", "m", "-i", input, "-o", output, "--concurrency", String(concurrency), "--quiet"], env);
  const meter = new TreeMeter(() => [child.pid!]);
  meter.start();
  const code = await waitFor(child);
  meter.stop();
  const seconds = (Date.now() - started) / 1000;
  rmSync(output, { force: true });
  const layout = heapGrowingPercent === 0 ? "one process, V8's default heap growth" : "one process";
  return { layout, concurrency, rollouts, seconds, cpuMsPerRollout: meter.cpuMs() / rollouts, peakRssMb: meter.peakRssKb / 1024, ok: code === 0 };
}

async function allHttp(engineUrl: string, input: string, rollouts: number, concurrency: number, dir: string, headPort: number): Promise<Measurement> {
  const servers = gym(["env", "start", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engineUrl, "--model", "m", "--head-port", String(headPort), "--process-per-server"]);
  await waitFor(servers, "head server:");
  const output = join(dir, `http_${concurrency}.jsonl`);
  let collector: ChildProcess | undefined = undefined;
  const meter = new TreeMeter(() => [servers.pid!, ...(collector?.pid ? [collector.pid] : [])]);
  meter.sample();
  const baseline = meter.cpuMs(); // start-up of the servers is not per-rollout work
  meter.start();
  const started = Date.now();
  collector = gym(["eval", "run", "--no-serve", "--head-url", `http://127.0.0.1:${headPort}`, "--agent", "example_single_tool_call_simple_agent", "-i", input, "-o", output, "--concurrency", String(concurrency), "--quiet"]);
  const code = await waitFor(collector);
  meter.sample();
  meter.stop();
  const seconds = (Date.now() - started) / 1000;
  servers.kill("SIGTERM");
  await new Promise((r) => servers.once("exit", r));
  rmSync(output, { force: true });
  return { layout: "all HTTP (process per server)", concurrency, rollouts, seconds, cpuMsPerRollout: (meter.cpuMs() - baseline) / rollouts, peakRssMb: meter.peakRssKb / 1024, ok: code === 0 };
}

export default async function main(): Promise<void> {
  const rollouts = Number(arg("rollouts", "20000"));
  const concurrencies = arg("concurrency", "16,64,256").split(",").map(Number);
  const scaling = arg("scaling-rows", "20000,200000").split(",").map(Number);
  const dir = mkdtempSync(join(tmpdir(), "gym-bench-collect-"));
  const engine = await startEngine();
  const ulimit = execFileSync("bash", ["-c", "ulimit -n"], { encoding: "utf8" }).trim();
  try {
    const input = join(dir, "input.jsonl");
    writeInput(input, rollouts);
    const rows: Measurement[] = [];
    for (const c of concurrencies) {
      rows.push(await oneProcess(engine.url, input, rollouts, c, dir));
      process.stderr.write(`one process, concurrency ${c}: done\n`);
      if (c === 64) {
        // The price and the gain of Gymkit's heap growing factor, side by side.
        rows.push(await oneProcess(engine.url, input, rollouts, c, dir, 0));
        process.stderr.write(`one process with V8's default heap growth, concurrency ${c}: done\n`);
      }
      rows.push(await allHttp(engine.url, input, rollouts, c, dir, 21000 + c));
      process.stderr.write(`all HTTP, concurrency ${c}: done\n`);
    }
    const scale: Measurement[] = [];
    for (const n of scaling) {
      const scaled = join(dir, `scale_${n}.jsonl`);
      writeInput(scaled, n);
      scale.push(await oneProcess(engine.url, scaled, n, 64, dir));
      process.stderr.write(`memory scaling, ${n} rows: done\n`);
    }
    const fmt = (m: Measurement) => [m.layout, m.concurrency, m.rollouts, (m.rollouts / m.seconds).toFixed(0), m.cpuMsPerRollout.toFixed(2), m.peakRssMb.toFixed(0), m.ok ? "yes" : "NO"];
    const headers = ["layout", "concurrency", "rollouts", "rollouts/s", "CPU ms / rollout", "peak RSS MB", "exit 0"];
    let slope = "";
    if (scale.length >= 2) {
      const [a, b] = [scale[0]!, scale[scale.length - 1]!];
      slope = `\nPeak RSS slope: ${(((b.peakRssMb - a.peakRssMb) / (b.rollouts - a.rollouts)) * 10_000).toFixed(2)} MB per 10,000 distinct rows (${a.rollouts} → ${b.rollouts}).`;
    }
    process.stdout.write(
      `## collect\n\n${machineLine()} · ulimit -n ${ulimit}\n\n${markdownTable(headers, rows.map(fmt))}\n\n` +
        `Memory scaling (one process, concurrency 64, distinct rows):\n\n${markdownTable(headers, scale.map(fmt))}\n${slope}\n`,
    );
  } finally {
    engine.child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}
