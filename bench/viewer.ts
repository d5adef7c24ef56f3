// `npm run bench -- viewer [--lines 20000,200000]`
// `gym view` on runs of N rollout lines (the quickstart's real rows, replicated with distinct task
// indices and text): time until it serves (start-up + indexing), its RSS then and at peak, and the
// latency of what the page asks for — the summary, a page deep in the table, a filtered page, one
// full rollout, and a free-text search that has to read the whole file.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GYM, REPO_ROOT } from "../test/helpers/cli.js";
import { machineLine, markdownTable } from "./machine.js";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** The quickstart's 20 scored rows, from a real (offline) run. */
async function quickstartRows(dir: string): Promise<Array<Record<string, unknown>>> {
  const output = join(dir, "quickstart.jsonl");
  const child = spawn(process.execPath, [GYM, "eval", "run", "--config", "examples/quickstart.yaml", "-o", output, "--quiet"], { cwd: REPO_ROOT, stdio: "ignore" });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`the quickstart run exited ${code}`);
  return readFileSync(output, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** `lines` rollout lines: the sample rows in turn, each with its own task index and a marker in its text. */
function writeRun(path: string, sample: Array<Record<string, unknown>>, lines: number): void {
  const chunks: string[] = [];
  for (let i = 0; i < lines; i++) {
    const { _ng_task_index: _t, _ng_rollout_index: _r, ...row } = sample[i % sample.length]!;
    const marked = { ...row, bench_marker: i === lines - 1 ? "needle-in-the-last-line" : `row-${i}` };
    chunks.push(`{"_ng_task_index":${i},"_ng_rollout_index":0,${JSON.stringify(marked).slice(1)}\n`);
    if (chunks.length === 5000) {
      writeFileSync(path, chunks.join(""), { flag: "a" });
      chunks.length = 0;
    }
  }
  writeFileSync(path, chunks.join(""), { flag: "a" });
}

async function timed(url: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

interface Row {
  lines: number;
  fileMb: number;
  readyS: number;
  rssReady: number;
  rssPeak: number;
  summaryMs: number;
  deepPageMs: number;
  filteredMs: number;
  rolloutMs: number;
  searchMs: number;
}

async function measure(path: string, lines: number): Promise<Row> {
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [GYM, "view", "--rollouts", path, "--port", "0"], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(child.pid!));
    } catch {
      // exited
    }
  }, 50);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        const match = /viewer: (\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.on("exit", (code) => reject(new Error(`gym view exited ${code}`)));
    });
    const readyS = (performance.now() - started) / 1000;
    const rssReady = rssMb(child.pid!);
    const summary = await timed(`${url}api/summary`);
    const deep = await timed(`${url}api/rollouts?offset=${Math.floor(lines * 0.9)}&limit=50`);
    const filtered = await timed(`${url}api/rollouts?agent=example_multi_step_simple_agent&min_reward=1&offset=${Math.floor(lines / 8)}&limit=50`);
    const rollout = await timed(`${url}api/rollouts/${lines - 1}/0`);
    const search = await timed(`${url}api/rollouts?q=needle-in-the-last-line&limit=50`);
    for (const r of [summary, deep, filtered, rollout, search]) if (r.status !== 200) throw new Error(`a request answered ${r.status}`);
    peak = Math.max(peak, rssMb(child.pid!));
    return {
      lines,
      fileMb: statSync(path).size / 2 ** 20,
      readyS,
      rssReady,
      rssPeak: peak,
      summaryMs: summary.ms,
      deepPageMs: deep.ms,
      filteredMs: filtered.ms,
      rolloutMs: rollout.ms,
      searchMs: search.ms,
    };
  } finally {
    clearInterval(sampler);
    child.kill("SIGTERM");
  }
}

export default async function main(): Promise<void> {
  const counts = arg("lines", "20000,200000").split(",").map(Number);
  const dir = mkdtempSync(join(tmpdir(), "gym-bench-viewer-"));
  try {
    const sample = await quickstartRows(dir);
    const rows: Row[] = [];
    for (const lines of counts) {
      const path = join(dir, `run_${lines}.jsonl`);
      writeRun(path, sample, lines);
      rows.push(await measure(path, lines));
      process.stderr.write(`${lines} lines: done\n`);
    }
    const headers = ["lines", "file MB", "serving after s", "RSS then MB", "peak RSS MB", "summary ms", "page at 90% ms", "filtered page ms", "one rollout ms", "search (whole file) ms"];
    const fmt = (r: Row) => [r.lines, r.fileMb.toFixed(0), r.readyS.toFixed(2), r.rssReady.toFixed(0), r.rssPeak.toFixed(0), r.summaryMs.toFixed(1), r.deepPageMs.toFixed(1), r.filteredMs.toFixed(1), r.rolloutMs.toFixed(1), r.searchMs.toFixed(0)];
    process.stdout.write(`## viewer\n\n${machineLine()}\n\n${markdownTable(headers, rows.map(fmt))}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
