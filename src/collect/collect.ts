// `gym eval run` end to end: plan → (resume: read what is done) → run the rest → account for every
// requested pair from the files on disk → metrics. Each step is its own module; this one wires them.
import { existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import { call, CallError, joinUrl, truncate, type RetryPolicy } from "../http/client.js";
import { accountFor, type Accounting } from "./accounting.js";
import { runScheduler, type EngineGate, type Execute, type FailureLimit, type Outcome, type Progress, type Stall, type WorkItem } from "./scheduler.js";
import { ensureParentFolder } from "../config/file_errors.js";
import { extendPlan } from "./extend.js";
import { fingerprintOf, writeFingerprint, type PlanFingerprint } from "./fingerprint.js";
import { hasTornLine, readLedger, repairTornLine, type Ledger } from "./ledger.js";
import { scanLines } from "./line_scan.js";
import { pairKey, pairOfLine } from "./lines.js";
import { planRows, writePlan, type RepeatsSpec, type Shard } from "./plan.js";
import type { PromptConfig } from "./prompt_config.js";
import { siblingPaths } from "./paths.js";
import { checkRunFiles, once, type RunFiles } from "./run_files.js";
import { computeRunMetrics, MetricsSpool, type AgentMetricsSummary, type RunMetrics, type RunMetricsOptions } from "./run_metrics.js";

export type { EngineGate, Progress, Stall } from "./scheduler.js";

/**
 * The default deadline of one whole rollout. Without one, a wedged agent or tool holds its slot for
 * the 24 h stop of the `/run` call below and a run looks alive while doing nothing. An hour is far
 * beyond any healthy rollout of the shipped environments (each model call has its own 600 s stop),
 * yet bounds a stuck one; long agentic rollouts raise it (or turn it off with 0).
 */
export const DEFAULT_ROLLOUT_TIMEOUT_S = 3600;

export interface CollectOptions {
  inputPath: string;
  outputPath: string;
  /** Agent instance name → base URL. */
  agentUrls: ReadonlyMap<string, string>;
  concurrency: number;
  /** `--concurrency auto`: rollouts that may be in flight now, `concurrency` the ceiling (see the scheduler). */
  admit?: (inFlight: number) => number;
  /** Only the first `limit` input rows. */
  limit?: number;
  repeats: RepeatsSpec;
  defaultAgent?: string;
  paramOverrides?: Record<string, unknown>;
  addSeed?: boolean;
  /** NeMo-Skills random seeds (see plan.ts): undefined = one set of repeats, as seed 0. */
  seeds?: readonly number[];
  shard?: Shard;
  /** Builds each row's input from a prompt template (`prompt_config`). */
  prompt?: PromptConfig;
  /** Skip the environments' `/aggregate_metrics` (`disable_aggregation`); the collector's own statistics remain. */
  disableAggregation?: boolean;
  /** Deadline of one whole rollout; undefined = none (each call the agent makes has its own). Callers default it to DEFAULT_ROLLOUT_TIMEOUT_S. */
  rolloutTimeoutMs?: number;
  retry?: RetryPolicy;
  maxFailures?: FailureLimit;
  /** Attempts per pair across resumes before a failure is final. */
  maxAttempts?: number;
  resume?: boolean;
  /** With `resume`: grow the plan to these settings (more repeats, seeds or rows; never a changed request). */
  extend?: boolean;
  /** Replace the results of an earlier run with this output (without it, they are never removed). */
  overwrite?: boolean;
  /**
   * `collectRunFiles` of these same options, already passed through `checkRunFiles` by the caller (which
   * checks before starting servers): not checked twice, and the input is hashed once.
   */
  checkedFiles?: RunFiles;
  onProgress?: (progress: Progress) => void;
  onNotice?: (message: string) => void;
  /** See `onStall`: how long without a finished rollout before it is called. */
  stallMs?: number;
  onStall?: (stall: Stall) => void;
  /** Stops the run at once when the engine is gone, leaving the rest unrun (see EngineGate). */
  engine?: EngineGate;
}

export interface CollectSummary {
  accounting: Accounting;
  /** Rollouts run by this invocation. */
  ran: { succeeded: number; failed: number };
  stoppedEarly: boolean;
  /** Why the run stopped because its engine became unavailable. */
  engineDown?: string;
  /** Rollouts in flight when the engine went away: not recorded, left to `--resume`. */
  dropped: number;
  metrics: AgentMetricsSummary[];
  paths: ReturnType<typeof siblingPaths>;
  elapsedMs: number;
}

/** A `/run` with no rollout deadline still gets a (very) long stop so a wedged agent cannot hang a run forever. */
const NO_DEADLINE_CALL_TIMEOUT_MS = 24 * 3600 * 1000;

/** Whether a pair already has a final outcome: a success, or a failure that will not be retried. */
function isFinal(ledger: Ledger, key: number, maxAttempts: number): boolean {
  if (ledger.successes.count(key) > 0) return true;
  const failure = ledger.failures.get(key);
  return failure !== undefined && (failure.terminal || failure.attempt + 1 >= maxAttempts);
}

/**
 * How far the run at `outputPath` is, read from its files alone (nothing is written): the planned
 * pairs and those without a final outcome. Undefined when there is no plan yet.
 */
export async function planProgress(outputPath: string, maxAttempts: number): Promise<{ planned: number; pending: number } | undefined> {
  const paths = siblingPaths(outputPath);
  if (!existsSync(paths.materialized)) return undefined;
  // A torn last line is a rollout that will run again once the line is cut off.
  const torn = hasTornLine(paths.output) || hasTornLine(paths.failures) ? 1 : 0;
  const ledger = await readLedger(paths.output, paths.failures);
  let planned = 0;
  let pending = 0;
  for (const { text } of scanLines(paths.materialized)) {
    planned++;
    const pair = pairOfLine(text);
    if (!pair || !isFinal(ledger, pairKey(pair[0], pair[1]), maxAttempts)) pending++;
  }
  return { planned, pending: Math.min(planned, pending + torn) };
}

/**
 * A `--resume` with nothing left to run (every planned pair has its final outcome and the metrics
 * were written): its summary from the files, so the caller can report and exit without starting any
 * server or the engine. Undefined when there is work (or metrics) left, or no plan. Writes only the
 * `.done` marker, when the run is complete and it is missing.
 */
export async function finishedRun(outputPath: string, maxAttempts: number, shardLabel?: string): Promise<CollectSummary | undefined> {
  const started = Date.now();
  const paths = siblingPaths(outputPath);
  const progress = await planProgress(outputPath, maxAttempts);
  if (!progress || progress.pending > 0 || !existsSync(paths.metrics)) return undefined;
  const accounting = await accountFor(paths.materialized, await readLedger(paths.output, paths.failures));
  const complete = accounting.missing.count === 0 && accounting.duplicated.count === 0;
  if (complete && !existsSync(paths.done)) writeFileSync(paths.done, `${JSON.stringify({ shard: shardLabel ?? null, ...accounting }, null, 2)}\n`);
  return { accounting, ran: { succeeded: 0, failed: 0 }, stoppedEarly: false, dropped: 0, metrics: [], paths, elapsedMs: Date.now() - started };
}

/** Streams the plan, skipping pairs with a final outcome, and numbering re-attempts. */
async function* pendingWork(planPath: string, ledger: Ledger | undefined, maxAttempts: number): AsyncGenerator<WorkItem> {
  for await (const row of planRows(planPath)) {
    const key = pairKey(row._ng_task_index, row._ng_rollout_index);
    let attempt = 0;
    if (ledger) {
      if (isFinal(ledger, key, maxAttempts)) continue;
      const failure = ledger.failures.get(key);
      if (failure) attempt = failure.attempt + 1;
    }
    yield { task: row._ng_task_index, rollout: row._ng_rollout_index, agent: row.agent_ref.name, attempt, row };
  }
}

export function agentRunner(agentUrls: ReadonlyMap<string, string>, options: { retry?: RetryPolicy; callTimeoutMs?: number }) {
  // Each agent's `/run` URL, joined once rather than per rollout.
  const runUrls = new Map<string, string>();
  return async (item: WorkItem, signal: AbortSignal): Promise<Record<string, unknown>> => {
    let url = runUrls.get(item.agent);
    if (url === undefined) {
      const base = agentUrls.get(item.agent);
      if (!base) throw new CallError(`no running agent named "${item.agent}"`, item.agent, "status", 404);
      runUrls.set(item.agent, (url = joinUrl(base, "/run")));
    }
    const result = await call(url, { body: item.row, signal, timeoutMs: options.callTimeoutMs ?? NO_DEADLINE_CALL_TIMEOUT_MS, retry: options.retry });
    if (result.status < 200 || result.status >= 300) {
      throw new CallError(`agent ${item.agent} answered ${result.status}: ${truncate(result.text, 2000)}`, url, "status", result.status, result.text);
    }
    return JSON.parse(result.text) as Record<string, unknown>;
  };
}

export interface PlannedRunOptions {
  /** The files the plan is made from: never written, and no output may be one of them. */
  inputs: RunFiles["inputs"];
  outputPath: string;
  /** What decides the plan; recorded beside it and compared on `--resume`. */
  fingerprint: () => PlanFingerprint;
  /** Writes the plan file (all requested rows) and returns how many rows it holds. */
  writePlan: (planPath: string) => Promise<number>;
  execute: Execute;
  concurrency: number;
  admit?: (inFlight: number) => number;
  aggregateUrlOf?: (agent: string) => string | undefined;
  rolloutTimeoutMs?: number;
  maxFailures?: FailureLimit;
  maxAttempts?: number;
  resume?: boolean;
  /** With `resume`: grow the plan to the current settings (only adding pairs; see extend.ts). */
  extend?: boolean;
  overwrite?: boolean;
  preflighted?: boolean;
  shardLabel?: string;
  onProgress?: (progress: Progress) => void;
  onNotice?: (message: string) => void;
  stallMs?: number;
  onStall?: (stall: Stall) => void;
  engine?: EngineGate;
  /**
   * `execute`'s replies are JSON.parse results, so a success line reads back as the row it was
   * written from: the metrics of a fresh run are then gathered as the lines are written instead of
   * by reading the whole output again (checked against the file's size at the end).
   */
  metricsWhileRunning?: boolean;
}

/**
 * The metrics of a fresh run, fed with every success line as it is written. Used at the end only if
 * the output holds exactly those lines (its size is the sum of theirs): anything else that wrote to
 * it, or a row the spool could not take, sends the run back to reading the file.
 */
class LiveMetrics {
  private readonly spool = new MetricsSpool();
  private bytes = 0;
  private usable = true;

  constructor(private readonly outputPath: string) {}

  take(outcome: Outcome): void {
    if (!outcome.ok || !this.usable) return;
    try {
      this.spool.addWritten(outcome.item.task, outcome.item.rollout, outcome.row);
      this.bytes += Buffer.byteLength(outcome.line);
    } catch {
      this.usable = false;
    }
  }

  /** The run's metrics, or undefined (and the spool removed) when the file must be read instead. */
  async finish(options: RunMetricsOptions): Promise<RunMetrics | undefined> {
    if (!this.usable || !existsSync(this.outputPath) || statSync(this.outputPath).size !== this.bytes) {
      this.dispose();
      return undefined;
    }
    return this.spool.finish(options);
  }

  dispose(): void {
    this.spool.dispose();
  }
}

/** Plan → (resume: read what is done) → run the rest → account from disk → metrics. */
export async function runPlanned(options: PlannedRunOptions): Promise<CollectSummary> {
  const started = Date.now();
  const paths = siblingPaths(options.outputPath);
  const files: RunFiles = { inputs: options.inputs, outputPath: options.outputPath, resume: options.resume, extend: options.extend, overwrite: options.overwrite, fingerprint: options.fingerprint };
  if (!options.preflighted) checkRunFiles(files, options.onNotice);
  ensureParentFolder(paths.output);
  const maxAttempts = options.maxAttempts ?? 3;

  let ledger: Ledger | undefined;
  let total: number;
  let alreadyDone = 0;
  if (options.resume) {
    // Never delete results on --resume: without a plan (e.g. it was removed, or the run died while
    // planning) plan again from the input and count whatever results exist as done.
    if (!existsSync(paths.materialized)) {
      options.onNotice?.(`no plan at ${paths.materialized}; planning from the input and keeping the results already in ${paths.output}`);
      await options.writePlan(paths.materialized);
      writeFingerprint(paths.fingerprint, options.fingerprint());
    } else if (options.extend) {
      const grown = await extendPlan({ planPath: paths.materialized, fingerprintPath: paths.fingerprint, requested: options.fingerprint(), writePlan: options.writePlan });
      options.onNotice?.(`--extend: the plan grew from ${grown.before} to ${grown.after} rollouts`);
    }
    for (const file of [paths.output, paths.failures]) {
      const cut = repairTornLine(file);
      if (cut > 0) options.onNotice?.(`repaired ${file}: removed a torn last line of ${cut} bytes (that rollout will run again)`);
    }
    writeFileSync(paths.output, "", { flag: "a" });
    rmSync(paths.done, { force: true });
    ledger = await readLedger(paths.output, paths.failures);
    total = 0;
    // Counted up front (off each line's prefix, nothing parsed) so that from the first progress line
    // on, the rate and ETA are this run's alone.
    for (const { text } of scanLines(paths.materialized)) {
      total++;
      const pair = pairOfLine(text);
      if (pair && isFinal(ledger, pairKey(pair[0], pair[1]), maxAttempts)) alreadyDone++;
    }
  } else {
    // Plan first: if planning fails (a bad row, an empty input) the earlier files are all still there.
    total = await options.writePlan(paths.materialized);
    for (const file of [paths.output, paths.failures, paths.metrics, paths.done, paths.fingerprint]) rmSync(file, { force: true });
    writeFingerprint(paths.fingerprint, options.fingerprint());
    // Create the output now: an empty run still leaves an (empty) file, never a missing one.
    writeFileSync(paths.output, "", { flag: "a" });
  }

  // A fresh run's metrics are gathered as its lines are written (see LiveMetrics); a resumed run's
  // come from the whole output file, earlier runs' lines included.
  const live = options.metricsWhileRunning && !options.resume ? new LiveMetrics(paths.output) : undefined;
  let scheduled: Awaited<ReturnType<typeof runScheduler>>;
  let accounting: Accounting;
  try {
    scheduled = await runScheduler({
      items: pendingWork(paths.materialized, ledger, maxAttempts),
      execute: options.execute,
      outputPath: paths.output,
      failuresPath: paths.failures,
      concurrency: options.concurrency,
      ...(options.admit ? { admit: options.admit } : {}),
      total,
      alreadyDone,
      deadlineMs: options.rolloutTimeoutMs,
      maxFailures: options.maxFailures,
      onProgress: options.onProgress,
      stallMs: options.stallMs,
      onStall: options.onStall,
      engine: options.engine,
      ...(live ? { onOutcome: (outcome: Outcome) => live.take(outcome) } : {}),
    });
    accounting = await accountFor(paths.materialized, await readLedger(paths.output, paths.failures));
  } catch (error) {
    live?.dispose();
    throw error;
  }
  const metricsOptions = { aggregateUrlOf: options.aggregateUrlOf };
  const computed = (await live?.finish(metricsOptions)) ?? (await computeRunMetrics(paths.output, metricsOptions));
  try {
    computed.write(paths.metrics);
  } finally {
    computed.dispose();
  }
  const metrics = computed.summaries;
  const complete = accounting.missing.count === 0 && accounting.duplicated.count === 0;
  if (complete) writeFileSync(paths.done, `${JSON.stringify({ shard: options.shardLabel ?? null, ...accounting }, null, 2)}\n`);
  return {
    accounting,
    ran: { succeeded: scheduled.succeeded, failed: scheduled.failed },
    stoppedEarly: scheduled.stoppedEarly,
    ...(scheduled.engineDown !== undefined ? { engineDown: scheduled.engineDown } : {}),
    dropped: scheduled.dropped,
    metrics,
    paths,
    elapsedMs: Date.now() - started,
  };
}

/** The input, output and plan-deciding settings of `collect`, for checking them before servers start. */
export type CollectFileOptions = Pick<CollectOptions, "inputPath" | "outputPath" | "limit" | "repeats" | "defaultAgent" | "paramOverrides" | "addSeed" | "seeds" | "shard" | "prompt" | "resume" | "extend" | "overwrite">;

export function collectRunFiles(options: CollectFileOptions): RunFiles {
  return {
    inputs: [{ path: options.inputPath, role: "the input file" }],
    outputPath: options.outputPath,
    resume: options.resume,
    extend: options.extend,
    overwrite: options.overwrite,
    fingerprint: once(() =>
      fingerprintOf("eval run", options.inputPath, {
        limit: options.limit,
        num_repeats: options.repeats,
        shard: options.shard ? `${options.shard.index}/${options.shard.count}` : undefined,
        num_repeats_add_seed: options.addSeed || undefined,
        seeds: options.seeds ? [...options.seeds] : undefined,
        responses_create_params: options.paramOverrides,
        agent_name: options.defaultAgent,
        // The templates, not the file: a prompt moved elsewhere plans the same rows.
        prompt_config: options.prompt ? { system: options.prompt.system, user: options.prompt.user } : undefined,
      }),
    ),
  };
}

export async function collect(options: CollectOptions): Promise<CollectSummary> {
  const files = options.checkedFiles ?? collectRunFiles(options);
  return runPlanned({
    ...options,
    preflighted: options.checkedFiles !== undefined,
    inputs: files.inputs,
    fingerprint: files.fingerprint,
    writePlan: async (planPath) => {
      const plan = await writePlan({
        inputPath: options.inputPath,
        planPath,
        knownAgents: new Set(options.agentUrls.keys()),
        defaultAgent: options.defaultAgent,
        repeats: options.repeats,
        limit: options.limit,
        paramOverrides: options.paramOverrides,
        addSeed: options.addSeed,
        seeds: options.seeds,
        shard: options.shard,
        prompt: options.prompt,
      });
      for (const warning of plan.warnings) options.onNotice?.(warning);
      return plan.total;
    },
    execute: agentRunner(options.agentUrls, { retry: options.retry }),
    // agentRunner's replies are JSON.parse results.
    metricsWhileRunning: true,
    aggregateUrlOf: (agent) => {
      if (options.disableAggregation) return undefined;
      const base = options.agentUrls.get(agent);
      return base ? joinUrl(base, "/aggregate_metrics") : undefined;
    },
    shardLabel: options.shard ? `${options.shard.index}/${options.shard.count}` : undefined,
  });
}
