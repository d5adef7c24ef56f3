// Metrics of a finished run, computed from the output file itself (so a resumed run's metrics cover
// every rollout, not just this process's), in bounded memory:
//  1. one streaming pass keeps only numbers per rollout (for the exact overall statistics) and spools a
//     compact copy of each row (scalars + token usage) to a temporary file with a 20-byte index entry
//     (a fresh `eval run` feeds the same spool as it writes each line, so it never reads the file back:
//     MetricsSpool.addWritten);
//  2. the spool is read back in task order; per task the default statistics are computed, and, when the
//     environment is running, its `/aggregate_metrics` is called per chunk of whole tasks (pass@k,
//     majority@k, …), and the chunks' results are merged into what one call would give (metrics/chunk_merge.ts)
//     — or, when the environment says its metrics need every rollout at once (`GET
//     /aggregate_metrics_scope` answers "whole_run", e.g. a fitted rating), called once over the whole run;
//  3. per-task results stream to a temporary file and are copied into the metrics file at the end.
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BufferedFile } from "./buffered_file.js";
import { scanLines } from "./line_scan.js";
import { call, CallError, callJson } from "../http/client.js";
import { BODY_LIMIT_ENV } from "../http/limits.js";
import { groupEntry, keyMetrics, MetricsAccumulator, rolloutInfoIntKeys, type AggregateMetricsScope, type AggregateResult } from "../metrics/aggregate.js";
import { ChunkedMetricsMerger } from "../metrics/chunk_merge.js";
import { pairKey, pairOf } from "./lines.js";
import { agentMetricsFloats, groupMetricsFloats, stringifyWithFloats } from "../protocol/python_json.js";

export interface AgentMetricsSummary {
  agent_ref: { type: string; name: string };
  agent_metrics: Record<string, number>;
  key_metrics: Record<string, number>;
  /** Tasks with group-level metrics (the entries themselves are in the metrics file). */
  tasks: number;
  /**
   * Other keys the environment's `/aggregate_metrics` returned: all of them, as returned, when the
   * tasks fit one chunk; over several chunks only `per_sample_aggregate` (merged exactly).
   */
  extras?: Record<string, unknown>;
  /** Environment metrics that several chunks could only approximate (see metrics/chunk_merge.ts). */
  approximated?: string[];
  /** How the environment's `/aggregate_metrics` was called: per chunk of tasks, or once over the whole run. */
  scope?: AggregateMetricsScope;
}

export interface RunMetricsOptions {
  /** Where to POST `/aggregate_metrics` for an agent (its agent server forwards to the environment). */
  aggregateUrlOf?: (agent: string) => string | undefined;
  /**
   * Rollouts per `/aggregate_metrics` call (whole tasks: a larger task goes alone), for an environment
   * whose scope is "chunked"; a "whole_run" one gets every rollout in one call whatever this says.
   */
  chunkRollouts?: number;
}

/**
 * Small enough that a chunk (sent, parsed by the environment, answered with per-task entries, parsed
 * back — all in this process when the servers run here) stays a few MB; the merge keeps the metrics
 * exact however many chunks a run takes.
 */
const DEFAULT_CHUNK_ROLLOUTS = 2_000;

/** `GET …/aggregate_metrics_scope` beside an `…/aggregate_metrics` URL (undefined for any other URL). */
export function aggregateScopeUrl(aggregateUrl: string): string | undefined {
  try {
    const url = new URL(aggregateUrl);
    if (!url.pathname.endsWith("/aggregate_metrics")) return undefined;
    url.pathname += "_scope";
    return url.toString();
  } catch {
    return undefined;
  }
}

/**
 * The environment's `/aggregate_metrics` scope, asked through the same server the metrics go to (an
 * agent forwards it). A server without the route (a NeMo Gym Python environment or agent: 404), or any
 * other answer than "whole_run", is "chunked": the merge then names what it could only approximate.
 */
export async function aggregateScopeOf(aggregateUrl: string): Promise<AggregateMetricsScope> {
  const url = aggregateScopeUrl(aggregateUrl);
  if (!url) return "chunked";
  try {
    const result = await call(url, { method: "GET" });
    return result.status === 200 && JSON.parse(result.text) === "whole_run" ? "whole_run" : "chunked";
  } catch {
    // Unreachable or not JSON: the `/aggregate_metrics` call that follows reports an unreachable server.
    return "chunked";
  }
}

/** Keys the collector computes exactly itself; an environment's values for them are ignored. */
const DEFAULT_STAT = /^(mean|max|min|median|std)\//;

/** Scalars and token usage: what metrics read. Large nested values (the conversation) are dropped. */
export function compactRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (typeof value === "number" || typeof value === "boolean" || value === null) out[key] = value;
    else if (typeof value === "string" && value.length <= 1024) out[key] = value;
    else if (key === "agent_ref" || key === "reward_components") out[key] = value;
    // Judged environments' metrics ask whether (not what) the judge was asked: one stub per call.
    else if (key === "judge_evaluations" && Array.isArray(value)) out[key] = value.map(() => ({}));
    else if (key === "details") {
      // competitive_coding_challenges' metrics read each subtask's score (not the per-test outputs).
      const results = (value as { test_case_results?: unknown } | null)?.test_case_results;
      if (results && typeof results === "object" && !Array.isArray(results)) {
        const scores = Object.entries(results as Record<string, { score?: unknown } | null>).map(([name, r]) => [name, { score: r?.score ?? null }]);
        out.details = { test_case_results: Object.fromEntries(scores) };
      }
    }
  }
  const usage = (row.response as { usage?: unknown } | undefined)?.usage;
  if (usage) out.response = { usage };
  return out;
}

/** Index of one agent's spooled rows: key, byte offset, byte length — 20 bytes per rollout. */
class SpoolIndex {
  keys = new Float64Array(1024);
  offsets = new Float64Array(1024);
  lengths = new Uint32Array(1024);
  length = 0;

  push(key: number, offset: number, length: number): void {
    if (this.length === this.keys.length) {
      const grow = <T extends Float64Array | Uint32Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.keys = grow(this.keys);
      this.offsets = grow(this.offsets);
      this.lengths = grow(this.lengths);
    }
    this.keys[this.length] = key;
    this.offsets[this.length] = offset;
    this.lengths[this.length] = length;
    this.length++;
  }

  /** Positions in key order. */
  order(): Uint32Array {
    const order = new Uint32Array(this.length);
    for (let i = 0; i < this.length; i++) order[i] = i;
    return order.sort((a, b) => this.keys[a]! - this.keys[b]!);
  }
}

interface AgentState {
  name: string;
  overall: MetricsAccumulator;
  spoolPath: string;
  spoolFd: number;
  spool: BufferedFile;
  spoolBytes: number;
  index: SpoolIndex;
  groupsPath: string;
}

export interface RunMetrics {
  summaries: AgentMetricsSummary[];
  /** Writes `<stem>_aggregate_metrics.json` (the list of `{agent_ref, agent_metrics, key_metrics, group_level_metrics}`). */
  write(path: string): void;
  /** Removes the temporary files. */
  dispose(): void;
}

/** Bytes of the spool read at a time while rows are read back in about the order they were written. */
const SPOOL_WINDOW = 1 << 20;
/** How far before a row a window starts (rows that finished a little earlier than their task's neighbours), and how far past a window's end a row may lie to move it on. */
const SPOOL_SLACK = 64 * 1024;

/**
 * Reads spooled rows by position. Task order is nearly the order of writing in a fresh run (they
 * differ by the rollouts in flight), so rows are served from a window of the file that moves on when
 * the reading passes its end: one read per window instead of one per row. A row far from the window
 * (a resumed run's later lines, an extended plan's new rollouts) is read alone, as every row was.
 */
class SpoolReader {
  private window = Buffer.allocUnsafe(SPOOL_WINDOW);
  private start = 0;
  private end = 0;
  private single = Buffer.allocUnsafe(4096);

  constructor(private readonly fd: number) {}

  text(offset: number, length: number): string {
    if (offset >= this.start && offset + length <= this.end) return this.window.toString("utf8", offset - this.start, offset - this.start + length);
    if (offset >= this.end && offset < this.end + SPOOL_SLACK && length + SPOOL_SLACK <= this.window.length) {
      this.start = Math.max(0, offset - SPOOL_SLACK);
      this.end = this.start + readSync(this.fd, this.window, 0, this.window.length, this.start);
      if (offset + length <= this.end) return this.window.toString("utf8", offset - this.start, offset - this.start + length);
    }
    if (length > this.single.length) this.single = Buffer.allocUnsafe(Math.max(length, this.single.length * 2));
    readSync(this.fd, this.single, 0, length, offset);
    return this.single.toString("utf8", 0, length);
  }
}

/** Streams the rows of one agent's spool in task order, grouped by task. */
function* tasksInOrder(state: AgentState): Generator<{ task: number; rows: Array<Record<string, unknown>> }> {
  const fd = openSync(state.spoolPath, "r");
  try {
    const order = state.index.order();
    const reader = new SpoolReader(fd);
    let current: { task: number; rows: Array<Record<string, unknown>> } | undefined;
    for (const at of order) {
      const [task] = pairOf(state.index.keys[at]!);
      if (current && current.task !== task) {
        yield current;
        current = undefined;
      }
      current ??= { task, rows: [] };
      current.rows.push(JSON.parse(reader.text(state.index.offsets[at]!, state.index.lengths[at]!)) as Record<string, unknown>);
    }
    if (current) yield current;
  } finally {
    closeSync(fd);
  }
}

/**
 * The per-agent spools and exact overall statistics of a run's rows, fed one row at a time in the
 * output file's order. A temporary folder holds the spools until `dispose` (also at process exit, so
 * an interrupted run leaves none behind).
 */
export class MetricsSpool {
  private readonly dir = mkdtempSync(join(tmpdir(), "gym-metrics-"));
  private readonly agents = new Map<string, AgentState>();
  private readonly removeAtExit = () => this.dispose();

  constructor() {
    process.once("exit", this.removeAtExit);
  }

  /** A row as its output line parses. */
  add(row: Record<string, unknown>): void {
    const state = this.stateOf(row);
    state.overall.add(row);
    this.spool(state, row, JSON.stringify(compactRow(row)));
  }

  /**
   * The row `resultLine(task, rollout, written)` wrote, without reading its line back. `written`'s
   * values must be JSON.parse results (as a reply's are). The metrics see the compact row as JSON
   * reads it, which is what the full line gives them (-0, non-finite numbers and absent values come
   * out as the file has them).
   */
  addWritten(task: number, rollout: number, written: Record<string, unknown>): void {
    // The line puts the pair first, whatever the row said (its own pair keys keep that place).
    const row: Record<string, unknown> = { _ng_task_index: task, _ng_rollout_index: rollout, ...written };
    row._ng_task_index = task;
    row._ng_rollout_index = rollout;
    const state = this.stateOf(row);
    const compact = JSON.stringify(compactRow(row));
    state.overall.add(JSON.parse(compact) as Record<string, unknown>);
    this.spool(state, row, compact);
  }

  private stateOf(row: Record<string, unknown>): AgentState {
    const name = (row.agent_ref as { name?: string } | undefined)?.name ?? "unknown";
    let state = this.agents.get(name);
    if (!state) {
      const n = this.agents.size;
      const spoolPath = join(this.dir, `${n}.spool.jsonl`);
      const spoolFd = openSync(spoolPath, "w");
      state = { name, overall: new MetricsAccumulator(), spoolPath, spoolFd, spool: new BufferedFile(spoolFd), spoolBytes: 0, index: new SpoolIndex(), groupsPath: join(this.dir, `${n}.groups.jsonl`) };
      this.agents.set(name, state);
    }
    return state;
  }

  private spool(state: AgentState, row: Record<string, unknown>, compact: string): void {
    const bytes = Buffer.byteLength(compact);
    state.spool.write(compact);
    state.index.push(pairKey(Number(row._ng_task_index), Number(row._ng_rollout_index)), state.spoolBytes, bytes);
    state.spoolBytes += bytes;
  }

  /** The statistics and per-task entries of every row added (the spool takes no rows after this). */
  async finish(options: RunMetricsOptions = {}): Promise<RunMetrics> {
    try {
      const summaries: AgentMetricsSummary[] = [];
      for (const state of this.agents.values()) {
        state.spool.flush();
        closeSync(state.spoolFd);
        state.spoolFd = -1;
        summaries.push(await summarizeAgent(state, options));
      }
      return {
        summaries,
        write: (path) => writeMetricsFile(path, summaries, [...this.agents.values()].map((s) => s.groupsPath)),
        dispose: () => this.dispose(),
      };
    } catch (error) {
      this.dispose();
      throw error;
    }
  }

  dispose(): void {
    process.off("exit", this.removeAtExit);
    for (const state of this.agents.values()) {
      if (state.spoolFd >= 0) closeSync(state.spoolFd);
      state.spoolFd = -1;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function computeRunMetrics(outputPath: string, options: RunMetricsOptions = {}): Promise<RunMetrics> {
  const spool = new MetricsSpool();
  try {
    if (existsSync(outputPath)) {
      for (const { text } of scanLines(outputPath)) {
        let row: Record<string, unknown>;
        try {
          row = JSON.parse(text) as Record<string, unknown>;
        } catch {
          continue; // accounted (and reported) by the ledger; metrics read what is readable
        }
        spool.add(row);
      }
    }
  } catch (error) {
    spool.dispose();
    throw error;
  }
  return spool.finish(options);
}

async function summarizeAgent(state: AgentState, options: RunMetricsOptions): Promise<AgentMetricsSummary> {
  const exact = state.overall.summary();
  const url = options.aggregateUrlOf?.(state.name);
  const scope = url ? await aggregateScopeOf(url) : undefined;
  // A whole-run environment gets every task in one call (compact rows: a few hundred bytes each).
  const chunkRollouts = scope === "whole_run" ? Number.POSITIVE_INFINITY : (options.chunkRollouts ?? DEFAULT_CHUNK_ROLLOUTS);
  const groupsFd = openSync(state.groupsPath, "w");
  const groups = new BufferedFile(groupsFd);
  const merger = new ChunkedMetricsMerger();
  const skip = (key: string) => DEFAULT_STAT.test(key) && key in exact; // the collector's own are exact
  let keyMetricNames: string[] | undefined;
  let firstExtras: Record<string, unknown> = {};
  let chunks = 0;
  let tasks = 0;
  let chunk: Array<Record<string, unknown>> = [];
  let rolloutsPerTask: number[] = [];
  // The task's own rows say which of its rollout_infos numbers are ints (see rolloutInfoIntKeys).
  const writeGroup = (group: Record<string, unknown>, rows: Iterable<Record<string, unknown>>) => {
    groups.write(`${tasks++ === 0 ? "" : ",\n"}${stringifyWithFloats(group, groupMetricsFloats(rolloutInfoIntKeys(rows)))}`);
  };
  const flush = async () => {
    if (chunk.length === 0) return;
    const result = await aggregate(url!, chunk, scope);
    merger.add(result, rolloutsPerTask, skip);
    keyMetricNames ??= Object.keys(result.key_metrics ?? {});
    if (chunks++ === 0) {
      // metric_weights only serve the merge; they are not metrics.
      const { agent_metrics: _a, key_metrics: _k, group_level_metrics: _g, metric_weights: _w, ...rest } = result as Record<string, unknown>;
      firstExtras = rest;
    }
    const rowsOfTask = new Map<number, Array<Record<string, unknown>>>();
    for (const row of chunk) {
      const task = Number(row._ng_task_index ?? 0);
      const rows = rowsOfTask.get(task);
      if (rows) rows.push(row);
      else rowsOfTask.set(task, [row]);
    }
    for (const group of result.group_level_metrics ?? []) writeGroup(group as Record<string, unknown>, rowsOfTask.get(Number(group._ng_task_index)) ?? []);
    chunk = [];
    rolloutsPerTask = [];
  };
  try {
    for (const { task, rows } of tasksInOrder(state)) {
      if (url) {
        if (chunk.length > 0 && chunk.length + rows.length > chunkRollouts) await flush();
        for (const row of rows) chunk.push(row);
        rolloutsPerTask.push(rows.length);
      } else {
        const stats = new MetricsAccumulator();
        for (const row of rows) stats.add(row);
        writeGroup(groupEntry(task, stats.summary(), rows), rows);
      }
    }
    if (url) await flush();
    groups.flush();
  } finally {
    closeSync(groupsFd);
  }
  const merged = merger.agentMetrics();
  const agent_metrics = { ...exact, ...merged.metrics };
  const key_metrics = keyMetricNames
    ? Object.fromEntries(keyMetricNames.map((k) => [k, agent_metrics[k]]).filter(([, v]) => v !== undefined))
    : keyMetrics(exact);
  // One chunk: whatever else the environment returned, as returned. Several: what can be merged.
  const perSample = merger.perSampleAggregate();
  const extras = chunks === 1 ? firstExtras : perSample ? { per_sample_aggregate: perSample } : {};
  return {
    agent_ref: { type: "responses_api_agents", name: state.name },
    agent_metrics,
    key_metrics: key_metrics as Record<string, number>,
    tasks,
    ...(Object.keys(extras).length > 0 ? { extras } : {}),
    ...(merged.approximate.length > 0 ? { approximated: merged.approximate } : {}),
    ...(scope ? { scope } : {}),
  };
}

/** One `/aggregate_metrics` call; a body the server refuses as too large says how to allow it. */
async function aggregate(url: string, rows: Array<Record<string, unknown>>, scope: AggregateMetricsScope | undefined): Promise<Partial<AggregateResult>> {
  try {
    return await callJson<Partial<AggregateResult>>(url, { body: { verify_responses: rows } });
  } catch (error) {
    if (error instanceof CallError && error.status === 413) {
      const why = scope === "whole_run" ? "the environment's metrics need the whole run in one call" : "one chunk of tasks";
      throw new CallError(
        `POST ${error.url} refused ${rows.length} rollouts as too large (413; ${why}); raise ${BODY_LIMIT_ENV} (MiB, at most 256) for the servers, or skip the environment's metrics with --disable-aggregation`,
        url,
        "status",
        413,
        error.responseText,
      );
    }
    throw error;
  }
}

/** Streams the metrics JSON: small summaries in memory, per-task entries copied from their temp files. */
function writeMetricsFile(path: string, summaries: AgentMetricsSummary[], groupFiles: string[]): void {
  const out = openSync(path, "w");
  try {
    writeSync(out, "[");
    summaries.forEach((summary, i) => {
      // Approximations are named in the file too, not only on the terminal of the run that made it.
      const approximated = summary.approximated ? { approximate_metrics: summary.approximated } : {};
      const head = stringifyWithFloats({ agent_ref: summary.agent_ref, agent_metrics: summary.agent_metrics, key_metrics: summary.key_metrics, ...summary.extras, ...approximated }, agentMetricsFloats(), 2);
      writeSync(out, `${i === 0 ? "\n" : ",\n"}${head.slice(0, -2)},\n  "group_level_metrics": [\n`);
      const fd = openSync(groupFiles[i]!, "r");
      try {
        const buffer = Buffer.alloc(1 << 20);
        for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) writeSync(out, buffer.subarray(0, n));
      } finally {
        closeSync(fd);
      }
      writeSync(out, "\n  ]\n}");
    });
    writeSync(out, summaries.length ? "\n]\n" : "]\n");
  } finally {
    closeSync(out);
  }
}
