// The rollout engine: stream the input, expand repeats, drive agents with bounded concurrency, write
// each result the moment it finishes (one synchronous write per line, so a kill loses nothing that
// was reported done), account for every requested rollout, and compute metrics in a streaming pass.
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { AgentMetricsAccumulator, type AggregateResult } from "../metrics/aggregate.js";
import { call, CallError, describeError, joinUrl, truncate, type RetryPolicy } from "../http/client.js";
import { readJsonl, JsonlError } from "./jsonl.js";
import { Materializer, type MaterializedRow } from "./materialize.js";
import { siblingPaths } from "./paths.js";

export interface CollectOptions {
  inputPath: string;
  outputPath: string;
  /** Agent instance name → base URL. */
  agentUrls: ReadonlyMap<string, string>;
  concurrency: number;
  /** Only the first `limit` input rows. */
  limit?: number;
  numRepeats: (agentName: string) => number;
  defaultAgent?: string;
  paramOverrides?: Record<string, unknown>;
  /** Deadline of one `/run` call (one whole rollout). */
  rolloutTimeoutMs?: number;
  retry?: RetryPolicy;
  onProgress?: (progress: Progress) => void;
}

export interface Progress {
  done: number;
  total: number;
  failed: number;
  elapsedMs: number;
  meanReward: Record<string, number>;
}

export interface FailureRecord {
  _ng_task_index: number;
  _ng_rollout_index: number;
  agent_ref: { type: string; name: string };
  _ng_failure_class: string;
  _ng_failure_error: string;
}

export interface CollectSummary {
  requested: number;
  succeeded: number;
  failed: number;
  /** `(task, rollout)` pairs that ended with neither a success nor a recorded failure. */
  missing: Array<[number, number]>;
  metrics: Array<{ agent_ref: { type: string; name: string } } & AggregateResult>;
  paths: ReturnType<typeof siblingPaths>;
  elapsedMs: number;
}

/** A problem with the input found before any rollout ran; lists every offending row. */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InputError";
  }
}

/** First pass: validate every row (JSON, schema, agent) without keeping any; count the rollouts. */
async function validateInput(options: CollectOptions): Promise<number> {
  const materializer = newMaterializer(options);
  const agentProblems: string[] = [];
  let total = 0;
  let rows = 0;
  for await (const line of readJsonl(options.inputPath)) {
    if (options.limit !== undefined && rows >= options.limit) break;
    rows++;
    try {
      total += materializer.expand(line).length;
    } catch (error) {
      if (error instanceof JsonlError && /agent/.test(error.message)) {
        agentProblems.push(error.message);
        continue;
      }
      throw error;
    }
  }
  if (agentProblems.length > 0) {
    const shown = agentProblems.slice(0, 20).join("\n  ");
    const more = agentProblems.length > 20 ? `\n  … and ${agentProblems.length - 20} more rows` : "";
    throw new InputError(`${agentProblems.length} input row(s) cannot be routed to an agent:\n  ${shown}${more}`);
  }
  return total;
}

function newMaterializer(options: CollectOptions): Materializer {
  return new Materializer({
    file: options.inputPath,
    numRepeats: options.numRepeats,
    defaultAgent: options.defaultAgent,
    paramOverrides: options.paramOverrides,
    knownAgents: new Set(options.agentUrls.keys()),
  });
}

async function* materializedRows(options: CollectOptions, materializedFd: number): AsyncGenerator<MaterializedRow> {
  const materializer = newMaterializer(options);
  let rows = 0;
  for await (const line of readJsonl(options.inputPath)) {
    if (options.limit !== undefined && rows >= options.limit) return;
    rows++;
    for (const row of materializer.expand(line)) {
      writeSync(materializedFd, `${JSON.stringify(row)}\n`);
      yield row;
    }
  }
}

/** Classifies a failed `/run` so failures can be counted by cause. */
export function classifyFailure(error: unknown): { failureClass: string; message: string } {
  if (error instanceof CallError) {
    if (error.kind === "timeout") return { failureClass: "timeout", message: error.message };
    if (error.kind === "connection") return { failureClass: "agent_error", message: error.message };
    const body = error.responseText ?? "";
    const failureClass = /"(?:_ng_)?failure_class"\s*:\s*"([a-z_]+)"/.exec(body)?.[1] ?? (/model/i.test(body) ? "model_error" : "env_error");
    return { failureClass, message: error.message };
  }
  return { failureClass: "agent_error", message: describeError(error) };
}

export async function collect(options: CollectOptions): Promise<CollectSummary> {
  const started = Date.now();
  const total = await validateInput(options);
  const paths = siblingPaths(options.outputPath);
  mkdirSync(dirname(paths.output), { recursive: true });
  const outFd = openSync(paths.output, "w");
  const materializedFd = openSync(paths.materialized, "w");
  let failuresFd: number | undefined;

  const perAgent = new Map<string, AgentMetricsAccumulator>();
  const rewardSums = new Map<string, { sum: number; n: number }>();
  // Done-tracking: one bit per (task, rollout) would need a dense index; a set of packed keys is
  // compact enough here and exact. Keys are removed as outcomes arrive, so it holds what is in flight
  // or not yet seen.
  const outstanding = new Set<string>();
  let succeeded = 0;
  let failed = 0;
  let done = 0;

  const progress = () =>
    options.onProgress?.({
      done,
      total,
      failed,
      elapsedMs: Date.now() - started,
      meanReward: Object.fromEntries([...rewardSums].map(([k, v]) => [k, v.n ? v.sum / v.n : 0])),
    });

  const recordFailure = (row: MaterializedRow, error: unknown) => {
    const { failureClass, message } = classifyFailure(error);
    const failure: FailureRecord = {
      _ng_task_index: row._ng_task_index,
      _ng_rollout_index: row._ng_rollout_index,
      agent_ref: row.agent_ref,
      _ng_failure_class: failureClass,
      _ng_failure_error: truncate(message, 4000),
    };
    failuresFd ??= openSync(paths.failures, "w");
    writeSync(failuresFd, `${JSON.stringify(failure)}\n`);
    failed++;
  };

  const runOne = async (row: MaterializedRow) => {
    const agentName = row.agent_ref.name;
    const url = joinUrl(options.agentUrls.get(agentName)!, "/run");
    try {
      const result = await call(url, { body: row, timeoutMs: options.rolloutTimeoutMs ?? 600_000, retry: options.retry });
      if (result.status < 200 || result.status >= 300) {
        throw new CallError(`agent ${agentName} answered ${result.status}: ${truncate(result.text, 2000)}`, url, "status", result.status, result.text);
      }
      const reply = JSON.parse(result.text) as Record<string, unknown>;
      if (typeof reply.reward !== "number") throw new CallError(`agent ${agentName} returned no numeric reward`, url, "status", result.status, result.text);
      const rollout = { ...reply, _ng_task_index: row._ng_task_index, _ng_rollout_index: row._ng_rollout_index, agent_ref: row.agent_ref };
      writeSync(outFd, `${JSON.stringify(rollout)}\n`);
      succeeded++;
      let acc = perAgent.get(agentName);
      if (!acc) perAgent.set(agentName, (acc = new AgentMetricsAccumulator()));
      acc.add(rollout);
      const r = rewardSums.get(agentName) ?? { sum: 0, n: 0 };
      r.sum += reply.reward;
      r.n++;
      rewardSums.set(agentName, r);
    } catch (error) {
      recordFailure(row, error);
    } finally {
      outstanding.delete(`${row._ng_task_index}:${row._ng_rollout_index}`);
      done++;
      progress();
    }
  };

  const rows = materializedRows(options, materializedFd);
  const worker = async () => {
    for (;;) {
      const next = await rows.next();
      if (next.done) return;
      const key = `${next.value._ng_task_index}:${next.value._ng_rollout_index}`;
      outstanding.add(key);
      await runOne(next.value);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  } finally {
    closeSync(outFd);
    closeSync(materializedFd);
    if (failuresFd !== undefined) closeSync(failuresFd);
  }

  const metrics = [...perAgent].map(([name, acc]) => ({ agent_ref: { type: "responses_api_agents", name }, ...acc.result() }));
  writeFileSync(paths.metrics, `${JSON.stringify(metrics, null, 2)}\n`);
  const missing = [...outstanding].map((k) => k.split(":").map(Number) as [number, number]);
  return { requested: total, succeeded, failed, missing, metrics, paths, elapsedMs: Date.now() - started };
}
