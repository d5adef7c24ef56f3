// Metrics of a finished run, computed from the output file itself (so a resumed run's metrics cover
// every rollout, not just this process's). One streaming pass keeps only numbers per rollout; the
// environment's own metrics (pass@k, majority@k, …) come from its `/aggregate_metrics`, called in
// chunks of whole tasks on compact rows read back in task order from a temporary spool.
import { closeSync, createReadStream, existsSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { callJson } from "../http/client.js";
import { AgentMetricsAccumulator, keyMetrics, type AggregateResult } from "../metrics/aggregate.js";
import { pairKey } from "./lines.js";

export interface AgentMetricsEntry extends AggregateResult {
  agent_ref: { type: string; name: string };
}

export interface RunMetricsOptions {
  /** Where to POST `/aggregate_metrics` for an agent (its agent server forwards to the environment). */
  aggregateUrlOf?: (agent: string) => string | undefined;
  /** Tasks per `/aggregate_metrics` call. Environment metrics are exact within a chunk. */
  chunkTasks?: number;
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
  }
  const usage = (row.response as { usage?: unknown } | undefined)?.usage;
  if (usage) out.response = { usage };
  return out;
}

/** Index of one agent's spooled rows: key, byte offset, byte length — 24 bytes per rollout. */
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
  accumulator: AgentMetricsAccumulator;
  spoolPath: string;
  spoolFd: number;
  spoolBytes: number;
  index: SpoolIndex;
}

export async function computeRunMetrics(outputPath: string, options: RunMetricsOptions = {}): Promise<AgentMetricsEntry[]> {
  const dir = mkdtempSync(join(tmpdir(), "gym-metrics-"));
  const agents = new Map<string, AgentState>();
  try {
    if (existsSync(outputPath)) {
      const reader = createInterface({ input: createReadStream(outputPath, { encoding: "utf8" }), crlfDelay: Infinity });
      for await (const line of reader) {
        if (!line.trim()) continue;
        let row: Record<string, unknown>;
        try {
          row = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue; // accounted (and reported) by the ledger; metrics read what is readable
        }
        const agent = (row.agent_ref as { name?: string } | undefined)?.name ?? "unknown";
        let state = agents.get(agent);
        if (!state) {
          const spoolPath = join(dir, `${agents.size}.jsonl`);
          state = { accumulator: new AgentMetricsAccumulator(), spoolPath, spoolFd: openSync(spoolPath, "w"), spoolBytes: 0, index: new SpoolIndex() };
          agents.set(agent, state);
        }
        state.accumulator.add(row);
        const compact = Buffer.from(JSON.stringify(compactRow(row)));
        writeSync(state.spoolFd, compact);
        state.index.push(pairKey(Number(row._ng_task_index), Number(row._ng_rollout_index)), state.spoolBytes, compact.length);
        state.spoolBytes += compact.length;
      }
    }
    const entries: AgentMetricsEntry[] = [];
    for (const [agent, state] of agents) {
      closeSync(state.spoolFd);
      state.spoolFd = -1;
      const exact = state.accumulator.result();
      const url = options.aggregateUrlOf?.(agent);
      const env = url ? await environmentMetrics(url, state.spoolPath, state.index, options.chunkTasks ?? 10_000) : undefined;
      entries.push({
        agent_ref: { type: "responses_api_agents", name: agent },
        agent_metrics: { ...exact.agent_metrics, ...(env?.agentMetrics ?? {}) },
        key_metrics: env?.keyMetricNames
          ? Object.fromEntries(env.keyMetricNames.map((k) => [k, exact.agent_metrics[k] ?? env.agentMetrics[k]]).filter(([, v]) => v !== undefined))
          : keyMetrics(exact.agent_metrics),
        group_level_metrics: env?.groupLevel ?? exact.group_level_metrics,
      });
    }
    return entries;
  } finally {
    for (const state of agents.values()) if (state.spoolFd >= 0) closeSync(state.spoolFd);
    rmSync(dir, { recursive: true, force: true });
  }
}

interface EnvironmentMetrics {
  agentMetrics: Record<string, number>;
  keyMetricNames?: string[];
  groupLevel: Array<Record<string, unknown>>;
}

/** Reads the spool back in task order, calls `/aggregate_metrics` per chunk, merges by task weight. */
async function environmentMetrics(url: string, spoolPath: string, index: SpoolIndex, chunkTasks: number): Promise<EnvironmentMetrics> {
  const fd = openSync(spoolPath, "r");
  const order = index.order();
  const sums = new Map<string, { weighted: number; tasks: number }>();
  const groupLevel: Array<Record<string, unknown>> = [];
  let keyMetricNames: string[] | undefined;
  let chunk: Array<Record<string, unknown>> = [];
  let tasksInChunk = 0;
  let lastTask = -1;
  const flush = async () => {
    if (chunk.length === 0) return;
    const result = await callJson<Partial<AggregateResult>>(url, { body: { verify_responses: chunk } });
    for (const [key, value] of Object.entries(result.agent_metrics ?? {})) {
      if (DEFAULT_STAT.test(key) || typeof value !== "number" || !Number.isFinite(value)) continue;
      const s = sums.get(key) ?? { weighted: 0, tasks: 0 };
      s.weighted += value * tasksInChunk;
      s.tasks += tasksInChunk;
      sums.set(key, s);
    }
    keyMetricNames ??= Object.keys(result.key_metrics ?? {});
    groupLevel.push(...(result.group_level_metrics ?? []));
    chunk = [];
    tasksInChunk = 0;
  };
  try {
    for (let i = 0; i < order.length; i++) {
      const at = order[i]!;
      const task = Math.floor(index.keys[at]! / 2 ** 21);
      if (task !== lastTask) {
        if (tasksInChunk >= chunkTasks) await flush();
        tasksInChunk++;
        lastTask = task;
      }
      const buffer = Buffer.alloc(index.lengths[at]!);
      readSync(fd, buffer, 0, buffer.length, index.offsets[at]!);
      chunk.push(JSON.parse(buffer.toString("utf8")) as Record<string, unknown>);
    }
    await flush();
  } finally {
    closeSync(fd);
  }
  const agentMetrics = Object.fromEntries([...sums].map(([k, s]) => [k, s.weighted / s.tasks]));
  return { agentMetrics, keyMetricNames, groupLevel };
}
