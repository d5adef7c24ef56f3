// `npm run bench -- viewer [--lines 20000,200000] [--compare-lines 200000]`
// `gym view` on runs of N rollout lines (the quickstart's real rows, replicated with distinct task
// indices and text): time until it serves (start-up + indexing), its RSS then and at peak, and the
// latency of what the page asks for — the summary, a page deep in the table, a filtered page, one
// full rollout, and a free-text search that has to read the whole file. Then two runs of
// `--compare-lines` lines compared (`gym view --rollouts a --rollouts b`): time until it serves, RSS,
// the comparison API's latency (first call builds the per-task tables, then cached), and how long a
// batch of lines appended to a run takes to show (live index).
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

/** `lines` rollout lines: the sample rows in turn (from `shift`), each with its own task index and a marker in its text. */
function writeRun(path: string, sample: Array<Record<string, unknown>>, lines: number, shift = 0, firstTask = 0): void {
  const chunks: string[] = [];
  for (let i = firstTask; i < firstTask + lines; i++) {
    const { _ng_task_index: _t, _ng_rollout_index: _r, ...row } = sample[(i + shift) % sample.length]!;
    const marked = { ...row, bench_marker: i === firstTask + lines - 1 ? "needle-in-the-last-line" : `row-${i}` };
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
  /** Followed as it grows (the default), or indexed once (--no-live). */
  live: boolean;
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

interface Started {
  url: string;
  child: ChildProcess;
  readyS: number;
  rssReady: number;
  /** Peak RSS so far (sampled every 50 ms). */
  peak(): number;
  stop(): void;
}

async function startView(args: string[]): Promise<Started> {
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [GYM, "view", ...args, "--port", "0"], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let peak = 0;
  const sample = () => {
    try {
      peak = Math.max(peak, rssMb(child.pid!));
    } catch {
      // exited
    }
  };
  const sampler = setInterval(sample, 50);
  const stop = () => {
    clearInterval(sampler);
    child.kill("SIGTERM");
  };
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
    return {
      url,
      child,
      readyS: (performance.now() - started) / 1000,
      rssReady: rssMb(child.pid!),
      peak: () => {
        sample();
        return peak;
      },
      stop,
    };
  } catch (error) {
    stop();
    throw error;
  }
}

async function measure(path: string, lines: number, live: boolean): Promise<Row> {
  const view = await startView(["--rollouts", path, ...(live ? [] : ["--no-live"])]);
  const { url } = view;
  try {
    const summary = await timed(`${url}api/summary`);
    const deep = await timed(`${url}api/rollouts?offset=${Math.floor(lines * 0.9)}&limit=50`);
    const filtered = await timed(`${url}api/rollouts?agent=example_multi_step_simple_agent&min_reward=1&offset=${Math.floor(lines / 8)}&limit=50`);
    const rollout = await timed(`${url}api/rollouts/${lines - 1}/0`);
    const search = await timed(`${url}api/rollouts?q=needle-in-the-last-line&limit=50`);
    for (const r of [summary, deep, filtered, rollout, search]) if (r.status !== 200) throw new Error(`a request answered ${r.status}`);
    return {
      lines,
      live,
      fileMb: statSync(path).size / 2 ** 20,
      readyS: view.readyS,
      rssReady: view.rssReady,
      rssPeak: view.peak(),
      summaryMs: summary.ms,
      deepPageMs: deep.ms,
      filteredMs: filtered.ms,
      rolloutMs: rollout.ms,
      searchMs: search.ms,
    };
  } finally {
    view.stop();
  }
}

interface CompareRow {
  lines: number;
  readyS: number;
  rssReady: number;
  rssPeak: number;
  compareColdMs: number;
  compareWarmMs: number;
  tasksByDeltaMs: number;
  tasksDeepMs: number;
  sideBySideMs: number;
  appended: number;
  appendVisibleMs: number;
  compareAfterAppendMs: number;
}

/** Two runs of `lines` lines compared; then `appended` lines added to the first while it is served. */
async function measureCompare(dir: string, sample: Array<Record<string, unknown>>, lines: number): Promise<CompareRow> {
  const a = join(dir, `compare_a_${lines}.jsonl`);
  const b = join(dir, `compare_b_${lines}.jsonl`);
  writeRun(a, sample, lines);
  // The same tasks, each answered by another sample row: rewards differ task by task.
  writeRun(b, sample, lines, 7);
  const view = await startView(["--rollouts", a, "--rollouts", b]);
  const { url } = view;
  try {
    const cold = await timed(`${url}api/compare`);
    const warm = await timed(`${url}api/compare`);
    const byDelta = await timed(`${url}api/compare/tasks?sort=-delta&limit=50`);
    const deep = await timed(`${url}api/compare/tasks?sort=-delta&offset=${Math.floor(lines * 0.9)}&limit=50`);
    const side = await timed(`${url}api/compare/tasks/${Math.floor(lines / 2)}`);
    for (const r of [cold, warm, byDelta, deep, side]) if (r.status !== 200) throw new Error(`a comparison request answered ${r.status}`);
    const appended = 1000;
    const rolloutsNow = async () => ((await (await fetch(`${url}api/version`)).json()) as { runs: Array<{ rollouts: number }> }).runs[0]!.rollouts;
    const before = await rolloutsNow();
    const appendedAt = performance.now();
    writeRun(a, sample, appended, 0, lines);
    while ((await rolloutsNow()) < before + appended) await new Promise((resolve) => setTimeout(resolve, 10));
    const appendVisibleMs = performance.now() - appendedAt;
    const after = await timed(`${url}api/compare`);
    return {
      lines,
      readyS: view.readyS,
      rssReady: view.rssReady,
      rssPeak: view.peak(),
      compareColdMs: cold.ms,
      compareWarmMs: warm.ms,
      tasksByDeltaMs: byDelta.ms,
      tasksDeepMs: deep.ms,
      sideBySideMs: side.ms,
      appended,
      appendVisibleMs,
      compareAfterAppendMs: after.ms,
    };
  } finally {
    view.stop();
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
      rows.push(await measure(path, lines, true), await measure(path, lines, false));
      process.stderr.write(`${lines} lines: done\n`);
    }
    const headers = ["lines", "mode", "file MB", "serving after s", "RSS then MB", "peak RSS MB", "summary ms", "page at 90% ms", "filtered page ms", "one rollout ms", "search (whole file) ms"];
    const fmt = (r: Row) => [r.lines, r.live ? "live" : "--no-live", r.fileMb.toFixed(0), r.readyS.toFixed(2), r.rssReady.toFixed(0), r.rssPeak.toFixed(0), r.summaryMs.toFixed(1), r.deepPageMs.toFixed(1), r.filteredMs.toFixed(1), r.rolloutMs.toFixed(1), r.searchMs.toFixed(0)];
    process.stdout.write(`## viewer\n\n${machineLine()}\n\n${markdownTable(headers, rows.map(fmt))}\n`);
    const compareLines = Number(arg("compare-lines", "200000"));
    if (compareLines > 0) {
      const c = await measureCompare(dir, sample, compareLines);
      const compareHeaders = ["lines per run", "serving after s", "RSS then MB", "peak RSS MB", "compare, first ms", "compare, again ms", "tasks by Δ ms", "tasks by Δ at 90% ms", "one task side by side ms", "lines appended", "appended → visible ms", "compare after append ms"];
      const row = [c.lines, c.readyS.toFixed(2), c.rssReady.toFixed(0), c.rssPeak.toFixed(0), c.compareColdMs.toFixed(0), c.compareWarmMs.toFixed(1), c.tasksByDeltaMs.toFixed(0), c.tasksDeepMs.toFixed(1), c.sideBySideMs.toFixed(1), c.appended, c.appendVisibleMs.toFixed(0), c.compareAfterAppendMs.toFixed(0)];
      process.stdout.write(`\n### two runs compared\n\n${markdownTable(compareHeaders, [row])}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
