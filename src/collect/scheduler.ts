// The scheduling loop shared by `eval run` and `eval reverify`: pull work lazily (so at most
// `concurrency` items are admitted and in flight), run each under its deadline, and write every
// outcome the moment it is known with one synchronous write — a success line to the output, or a
// classified failure line to the failures log. Nothing per item is kept once it is written.
// Callers that stream results elsewhere (the rollout service) receive each outcome through
// `onOutcome` — the very line a file would get — with or without files. When nothing finishes for
// `stallMs`, `onStall` hears what is in flight (oldest first), so a hang is never silent.
import { closeSync, openSync, writeSync } from "node:fs";
import { CallError, describeError, truncate } from "../http/client.js";
import { resultLine } from "./lines.js";

export interface WorkItem {
  task: number;
  rollout: number;
  agent: string;
  /** Which attempt this is (0 the first; resume increments). */
  attempt: number;
  row: Record<string, unknown>;
}

export type Execute = (item: WorkItem, signal: AbortSignal) => Promise<Record<string, unknown>>;

export interface FailureLimit {
  count?: number;
  /** Percentage of the requested rollouts. */
  percent?: number;
}

/**
 * One finished item: `line` is exactly what the output (success) or failures log (failure) gets; a
 * success's `row` is what its line was written from (less the pair, which the line puts first).
 */
export type Outcome = { ok: true; item: WorkItem; line: string; reward: number; row: Record<string, unknown> } | { ok: false; item: WorkItem; line: string; failure: Failure };

export interface SchedulerOptions {
  items: AsyncIterable<WorkItem>;
  execute: Execute;
  /** Success lines are appended here; omit to receive them only through `onOutcome`. */
  outputPath?: string;
  /** Failure lines are appended here (created on the first failure); omit likewise. */
  failuresPath?: string;
  /** Called synchronously with every outcome, in completion order, after it is written. */
  onOutcome?: (outcome: Outcome) => void;
  concurrency: number;
  /**
   * `--concurrency auto`: how many items may be in flight now, asked before each is admitted (and
   * again while any wait); `concurrency` stays the ceiling. Without it, `concurrency` items run.
   */
  admit?: (inFlight: number) => number;
  /** Requested rollouts in the whole run (for percentages and progress). */
  total: number;
  /** Rollouts already done before this run (resume), for progress. */
  alreadyDone?: number;
  /** Per-item deadline in ms; 0 or undefined = none. */
  deadlineMs?: number;
  maxFailures?: FailureLimit;
  onProgress?: (progress: Progress) => void;
  /** After this long with no item finishing, `onStall` is told what is in flight (again every as long); 0 or undefined = never. */
  stallMs?: number;
  onStall?: (stall: Stall) => void;
  /** Stops the run when the engine is gone (see EngineGate); without it every item runs. */
  engine?: EngineGate;
}

/**
 * What the scheduler knows of the engine behind the agents. Once `signal` is aborted no more work is
 * admitted, the items in flight are aborted, and their failures are not written: the pairs stay
 * unrun (missing), so `--resume` after a restart runs exactly them. A failure while the engine is
 * reachable is the rollout's own and is written as always.
 */
export interface EngineGate {
  /** Aborted, with an Error saying why, when the engine is declared unavailable. */
  readonly signal: AbortSignal;
  /**
   * Asked after an item failed: resolves true when the engine is (or is then declared) unavailable,
   * so the failure was the engine's; false when the engine answers.
   */
  failedBecauseDown(): Promise<boolean>;
}

export interface Progress {
  /** Finished, counting the `alreadyDone` of earlier runs. */
  done: number;
  total: number;
  /** Of `done`, finished before this run (resume): not part of this run's rate. */
  alreadyDone: number;
  failed: number;
  elapsedMs: number;
  meanReward: Record<string, number>;
}

/** What is in flight when nothing has finished for a while. */
export interface Stall {
  /** Since the last item finished (or the run started). */
  quietMs: number;
  inFlight: number;
  /** The longest-running items first. */
  oldest: Array<{ task: number; rollout: number; agent: string; ageMs: number }>;
}

/** How many of the oldest in-flight items a stall report names. */
const STALL_SHOWN = 3;

export interface SchedulerResult {
  succeeded: number;
  failed: number;
  /** The run stopped admitting work because failures passed `maxFailures`. */
  stoppedEarly: boolean;
  /** Why the engine was declared unavailable, when that stopped the run. */
  engineDown?: string;
  /** Items that failed because the engine went away: not written, left to a resume. */
  dropped: number;
  elapsedMs: number;
}

export interface Failure {
  failureClass: string;
  /** Retrying cannot help (e.g. the agent rejected the row): resume will not re-run it. */
  terminal: boolean;
  message: string;
  status?: number;
  /**
   * The reply of a reported failure (e.g. a verify response tagged `judge_failed`): it holds the
   * model's output, which the failures file keeps so `reverify --judge-failed-only` can score it again
   * without running the model twice.
   */
  reply?: Record<string, unknown>;
}

/** A reply that came back 200 but reports an infrastructure failure (e.g. `judge_failed`). */
export class ReportedFailure extends Error {
  constructor(
    readonly failureClass: string,
    message: string,
    readonly reply?: Record<string, unknown>,
    /** The server says a retry would not help (`_ng_failure_terminal`, e.g. remote_agent's invalid reply). */
    readonly terminal = false,
  ) {
    super(message);
    this.name = "ReportedFailure";
  }
}

export class DeadlineError extends Error {
  constructor(ms: number) {
    super(`rollout deadline of ${ms / 1000} s passed`);
    this.name = "DeadlineError";
  }
}

/** Classifies why an item failed, so failures can be counted, retried or not, and never hidden. */
export function classifyFailure(error: unknown): Failure {
  if (error instanceof ReportedFailure) return { failureClass: error.failureClass, terminal: error.terminal, message: error.message, reply: error.reply };
  if (error instanceof DeadlineError) return { failureClass: "timeout", terminal: false, message: error.message };
  if (error instanceof CallError) {
    if (error.kind === "timeout") return { failureClass: "timeout", terminal: false, message: error.message };
    if (error.kind === "connection") return { failureClass: "agent_error", terminal: false, message: error.message };
    const body = error.responseText ?? "";
    const named = /"(?:_ng_)?failure_class"\s*:\s*"([a-z_]+)"/.exec(body)?.[1];
    const status = error.status ?? 0;
    if (status >= 400 && status < 500 && status !== 429 && status !== 408) {
      return { failureClass: named ?? "invalid_request", terminal: true, message: error.message, status };
    }
    return { failureClass: named ?? (status === 504 ? "timeout" : "agent_error"), terminal: false, message: error.message, status };
  }
  return { failureClass: "agent_error", terminal: false, message: describeError(error) };
}

/** A reported failure's reply without the keys the failure line sets itself (indices, failure fields, reward). */
function withoutBookkeeping(reply: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!reply) return {};
  return Object.fromEntries(Object.entries(reply).filter(([key]) => !/^(_ng_|reward$)/.test(key)));
}

function* take<K, V>(map: Map<K, V>, n: number): Generator<[K, V]> {
  if (n <= 0) return;
  for (const entry of map) {
    yield entry;
    if (--n <= 0) return;
  }
}

function limitReached(failed: number, total: number, limit: FailureLimit | undefined): boolean {
  if (!limit) return false;
  if (limit.count !== undefined && failed > limit.count) return true;
  if (limit.percent !== undefined && total > 0 && (failed / total) * 100 > limit.percent) return true;
  return false;
}

export async function runScheduler(options: SchedulerOptions): Promise<SchedulerResult> {
  const started = Date.now();
  const outFd = options.outputPath === undefined ? undefined : openSync(options.outputPath, "a");
  let failuresFd: number | undefined;
  let succeeded = 0;
  let failed = 0;
  let stoppedEarly = false;
  let dropped = 0;
  const engine = options.engine;
  const rewards = new Map<string, { sum: number; n: number }>();
  const iterator = options.items[Symbol.asyncIterator]();

  // Insertion order is start order, so the first entries are the oldest. Each item's controller is
  // kept beside its start so the engine going away can abort every item in flight.
  const inFlight = new Map<WorkItem, { since: number; controller: AbortController }>();
  let lastFinished = started;
  let lastStallReport = started;
  const stallTimer =
    options.stallMs && options.onStall
      ? setInterval(
          () => {
            const now = Date.now();
            if (inFlight.size === 0 || now - lastFinished < options.stallMs! || now - lastStallReport < options.stallMs!) return;
            lastStallReport = now;
            const oldest = [...take(inFlight, STALL_SHOWN)].map(([item, { since }]) => ({ task: item.task, rollout: item.rollout, agent: item.agent, ageMs: now - since }));
            options.onStall!({ quietMs: now - lastFinished, inFlight: inFlight.size, oldest });
          },
          Math.min(options.stallMs, 1_000),
        )
      : undefined;
  // The check must never keep a finished process alive.
  stallTimer?.unref();
  // The engine going away aborts every item in flight: one listener for the run (removed at its
  // end), not one added and removed per item, and nothing accumulates on the run-long signal.
  const abortInFlight = () => {
    for (const { controller } of inFlight.values()) controller.abort(engine!.signal.reason);
  };
  engine?.signal.addEventListener("abort", abortInFlight, { once: true });

  const progress = () =>
    options.onProgress?.({
      done: (options.alreadyDone ?? 0) + succeeded + failed,
      total: options.total,
      alreadyDone: options.alreadyDone ?? 0,
      failed,
      elapsedMs: Date.now() - started,
      meanReward: Object.fromEntries([...rewards].map(([k, v]) => [k, v.n ? v.sum / v.n : 0])),
    });

  const writeFailure = (item: WorkItem, failure: Failure) => {
    if (options.failuresPath !== undefined) failuresFd ??= openSync(options.failuresPath, "a");
    const line = resultLine(item.task, item.rollout, {
      ...withoutBookkeeping(failure.reply),
      agent_ref: item.row.agent_ref,
      _ng_attempt_index: item.attempt,
      _ng_failure_class: failure.failureClass,
      _ng_failure_terminal: failure.terminal,
      ...(failure.status !== undefined ? { _ng_failure_status: failure.status } : {}),
      _ng_failure_error: truncate(failure.message, 4000),
    });
    if (failuresFd !== undefined) writeSync(failuresFd, line);
    failed++;
    return line;
  };

  const runItem = async (item: WorkItem) => {
    let outcome: Outcome | undefined;
    const controller = new AbortController();
    const timer = options.deadlineMs ? setTimeout(() => controller.abort(new DeadlineError(options.deadlineMs!)), options.deadlineMs) : undefined;
    inFlight.set(item, { since: Date.now(), controller });
    try {
      const reply = await options.execute(item, controller.signal);
      if (typeof reply._ng_failure_class === "string") {
        // NeMo Gym's remote_agent gives its reason as `error`.
        const detail = reply._ng_failure_judge_error ?? reply._ng_failure_error ?? (typeof reply.error === "string" ? reply.error : "");
        const who = reply._ng_failure_class === "judge_failed" ? "the environment" : "the agent";
        throw new ReportedFailure(reply._ng_failure_class, `${who} reported ${reply._ng_failure_class}${detail ? `: ${String(detail)}` : ""}`, reply, reply._ng_failure_terminal === true);
      }
      if (typeof reply.reward !== "number" || !Number.isFinite(reply.reward)) {
        throw new ReportedFailure("invalid_reply", `the reply has no numeric reward (keys: ${Object.keys(reply).slice(0, 20).join(", ")})`);
      }
      const row: Record<string, unknown> = { ...reply, agent_ref: item.row.agent_ref };
      if (item.attempt > 0) row._ng_attempt_index = item.attempt;
      const line = resultLine(item.task, item.rollout, row);
      if (outFd !== undefined) writeSync(outFd, line);
      succeeded++;
      outcome = { ok: true, item, line, reward: reply.reward, row };
      const r = rewards.get(item.agent) ?? { sum: 0, n: 0 };
      r.sum += reply.reward;
      r.n++;
      rewards.set(item.agent, r);
    } catch (error) {
      const deadlinePassed = controller.signal.aborted && controller.signal.reason instanceof DeadlineError;
      if (engine && (engine.signal.aborted || (!deadlinePassed && (await engine.failedBecauseDown())))) {
        // The engine's failure, not the rollout's: nothing is written, the pair stays for a resume.
        dropped++;
      } else {
        const failure = classifyFailure(controller.signal.aborted ? controller.signal.reason : error);
        outcome = { ok: false, item, line: writeFailure(item, failure), failure };
        if (limitReached(failed, options.total, options.maxFailures)) stoppedEarly = true;
      }
    } finally {
      if (timer) clearTimeout(timer);
      inFlight.delete(item);
      lastFinished = Date.now();
      lastStallReport = lastFinished;
      progress();
    }
    // Outside the try: a listener's own error must not turn a written success into a failure line.
    if (outcome) options.onOutcome?.(outcome);
  };

  const room = options.admit ? new Admission(options.admit) : undefined;
  const worker = async () => {
    while (!stoppedEarly && !engine?.signal.aborted) {
      await room?.enter();
      try {
        const next = await iterator.next();
        // An item pulled while the engine went away stays unrun.
        if (next.done || engine?.signal.aborted) return;
        await runItem(next.value);
      } finally {
        room?.leave();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  } finally {
    engine?.signal.removeEventListener("abort", abortInFlight);
    if (stallTimer) clearInterval(stallTimer);
    room?.close();
    await iterator.return?.(undefined);
    if (outFd !== undefined) closeSync(outFd);
    if (failuresFd !== undefined) closeSync(failuresFd);
  }
  const engineDown = engine?.signal.aborted ? describeReason(engine.signal.reason) : undefined;
  return { succeeded, failed, stoppedEarly, ...(engineDown !== undefined ? { engineDown } : {}), dropped, elapsedMs: Date.now() - started };
}

/** How often waiting workers look again whether the admission limit grew (it also moves when an item finishes). */
const ADMISSION_RECHECK_MS = 25;

/** A gate whose size `limit()` may change at any time: workers wait in FIFO order for room. */
class Admission {
  private inside = 0;
  private readonly waiting: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly limit: (inside: number) => number) {}

  enter(): Promise<void> {
    if (this.waiting.length === 0 && this.inside < this.limit(this.inside)) {
      this.inside++;
      return Promise.resolve();
    }
    const entered = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.timer ??= setInterval(() => this.pump(), ADMISSION_RECHECK_MS);
    return entered;
  }

  leave(): void {
    this.inside--;
    this.pump();
  }

  private pump(): void {
    const limit = this.limit(this.inside);
    while (this.waiting.length > 0 && this.inside < limit) {
      this.inside++;
      this.waiting.shift()!();
    }
    if (this.waiting.length === 0) this.close();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

function describeReason(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
