// Several engine replicas behind one model. Each rollout sticks to one replica (its prefix cache
// stays warm); a new rollout goes to the healthy replica with the fewest calls in flight; a replica
// that cannot be reached is taken out at once and the call moves to another one within the retry
// budget; a background probe brings it back when it answers again. Counters per replica are what
// `GET /replicas` serves (and `gym env status --json` shows).
import { AsyncLocalStorage } from "node:async_hooks";
import type { FastifyInstance } from "fastify";
import { call, CallError, describeError, joinUrl, NO_RETRY, truncate, type RetryPolicy } from "../http/client.js";
import { redactUrl } from "../config/url_secrets.js";
import { recordRetry, statusRetryClass, type RetryClass } from "../http/retry_stats.js";
import { backoffMs, sleep } from "../http/timing.js";
import type { RolloutRef } from "../protocol/index.js";

export interface ReplicaStats {
  url: string;
  healthy: boolean;
  in_flight: number;
  /** Attempts sent to this replica. */
  requests: number;
  /** Attempts that got a final answer (2xx, or a status not worth retrying). */
  answered: number;
  /** 429 and 5xx answers (retried after a pause). */
  retryable_errors: number;
  /** Connection refused, reset, or lost mid-reply: the replica is taken out. */
  unreachable: number;
  timeouts: number;
  /** Calls that failed here and moved to another replica. */
  failovers: number;
  /** Times taken out (by a failed call or a failed health check). */
  marked_down: number;
  /** Times brought back (by a health check or a call that succeeded anyway). */
  rejoined: number;
  /** Rollouts currently stuck to this replica. */
  sticky_rollouts: number;
  down_since: string | null;
  last_error: string | null;
}

/** One try against one replica: its answer, and whether that answer is worth another try (429, 5xx). */
export interface Attempt<T> {
  value: T;
  retryable: boolean;
  /** What went wrong when `retryable`, for the error if the budget runs out. */
  detail?: string;
  /** The HTTP status of a retryable answer (429 or 5xx), for the retry counters. */
  status?: number;
}

export class ReplicasExhaustedError extends Error {
  constructor(
    readonly attempts: number,
    readonly failures: string[],
  ) {
    super(`no answer after ${attempts} attempt(s): ${failures.join("; ")}`);
    this.name = "ReplicasExhaustedError";
  }
}

export interface ReplicaPoolOptions {
  /** Who owns the pool (an implementation id or route), for messages. */
  label: string;
  /** Probed under each base URL; any answer below 500 means the server is up. */
  healthPath?: string;
  /** Headers for probes (OpenAI's `/models` wants the key). */
  probeHeaders?: Record<string, string>;
  /** Probe period of a replica that is out. */
  downProbeMs?: number;
  /** Probe period of a replica that is in: catches one that hangs instead of refusing connections. */
  upProbeMs?: number;
  probeTimeoutMs?: number;
  /** Probing stops after this long without calls (and restarts with the next call). */
  idleStopMs?: number;
  /** Rollout → replica entries kept; the oldest are forgotten first. */
  maxStickyRollouts?: number;
}

class Replica {
  healthy = true;
  inFlight = 0;
  requests = 0;
  answered = 0;
  retryableErrors = 0;
  unreachable = 0;
  timeouts = 0;
  failovers = 0;
  markedDown = 0;
  rejoined = 0;
  downSince: number | null = null;
  lastError: string | null = null;
  lastProbe = 0;
  probing = false;

  constructor(readonly url: string) {}
}

const rolloutKey = (rollout: RolloutRef) => `${rollout.task_index}:${rollout.rollout_index}`;

/**
 * Whether a model call opens its rollout: nothing the model produced is in its history yet (Chat
 * Completions `messages` or Responses `input`). Such a call is placed by load, not by the rollout's
 * old replica: trainers reuse (task, rollout) indices every step, and a rollout with a fresh prompt
 * has no prefix cache to go back to — while pinning reused indices forever would starve a replica
 * that rejoins. (Rows with few-shot assistant turns look like continuations; they just stay sticky.)
 */
export function opensRollout(body: unknown): boolean {
  if (!body || typeof body !== "object") return false;
  const { messages, input } = body as { messages?: unknown; input?: unknown };
  if (Array.isArray(messages)) return !messages.some((m: { role?: unknown }) => m?.role === "assistant" || m?.role === "tool");
  if (typeof input === "string") return true;
  if (Array.isArray(input)) {
    return !input.some((item: { type?: unknown; role?: unknown }) => item?.role === "assistant" || (typeof item?.type === "string" && item.type !== "message"));
  }
  return false;
}

export interface CallPlan {
  /** The rollout the call belongs to (sticks it to a replica); null for calls outside rollouts. */
  rollout: RolloutRef | null;
  retry: RetryPolicy;
  signal?: AbortSignal | undefined;
  /** The call opens its rollout (see `opensRollout`): place it by load, then stick. */
  opensRollout?: boolean;
}

/** Pools created while `collectReplicaPools` runs a build, so the builder can serve their counters. */
const buildScope = new AsyncLocalStorage<ReplicaPool[]>();

/**
 * Runs a server build and returns the replica pools its adapters created. Lets the code that starts
 * instances expose `GET /replicas` without every model implementation wiring it by hand.
 */
export async function collectReplicaPools<T>(build: () => Promise<T>): Promise<{ value: T; pools: ReplicaPool[] }> {
  const pools: ReplicaPool[] = [];
  buildsRunning++;
  try {
    const value = await buildScope.run(pools, build);
    return { value, pools };
  } finally {
    // Once any AsyncLocalStorage has run, Node 20 keeps promise hooks on for the whole process: every
    // promise of every rollout then pays for them (a fifth of a microsecond each, thousands per
    // rollout). With no build left running nothing reads the store, so switch them off (run()
    // switches them on again).
    if (--buildsRunning === 0) buildScope.disable();
  }
}

let buildsRunning = 0;

export class ReplicaPool {
  private readonly replicas: Replica[];
  private readonly sticky = new Map<string, Replica>();
  private rotation = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastUse = 0;
  private closed = false;
  private readonly options: Required<ReplicaPoolOptions>;

  constructor(urls: string[], options: ReplicaPoolOptions) {
    if (urls.length === 0) throw new Error(`${options.label}: at least one base URL is required`);
    this.replicas = urls.map((url) => new Replica(url));
    this.options = {
      healthPath: "/models",
      probeHeaders: {},
      downProbeMs: 1_000,
      upProbeMs: 10_000,
      probeTimeoutMs: 5_000,
      idleStopMs: 60_000,
      maxStickyRollouts: 100_000,
      ...options,
    };
    buildScope.getStore()?.push(this);
  }

  get label(): string {
    return this.options.label;
  }

  get urls(): string[] {
    return this.replicas.map((r) => r.url);
  }

  /** Base URLs in the order a call of `rollout` would try them now (no side effects). */
  preference(rollout: RolloutRef | null): string[] {
    const current = rollout ? this.sticky.get(rolloutKey(rollout)) : undefined;
    const rank = (r: Replica) => (r === current && r.healthy ? -1 : r.healthy ? r.inFlight : 1e9 + r.inFlight);
    return [...this.replicas].sort((a, b) => rank(a) - rank(b)).map((r) => r.url);
  }

  /**
   * Runs one call: `attempt` is tried against a replica chosen for `rollout`, and again (on the same
   * replica after a pause, or at once on another) while the budget lasts. Each replica gets
   * `retry.attempts` tries, as a single URL always has. A replica that cannot be reached is taken out
   * and the call moves on; one that times out is not retried (the engine may still be working on it),
   * but another replica may be. Returns the first final answer, else the last retryable one; throws
   * `ReplicasExhaustedError` when no replica answered at all.
   */
  async call<T>(plan: CallPlan, attempt: (baseUrl: string) => Promise<Attempt<T>>, discard?: (value: T) => unknown): Promise<T> {
    this.touch();
    const held: { answer?: { value: T } } = {};
    try {
      return await this.attemptAll(plan, attempt, discard, held);
    } catch (error) {
      // An abort (or the caller's own error) mid-way: release the retryable answer still held.
      if (held.answer) await discard?.(held.answer.value);
      throw error;
    }
  }

  private async attemptAll<T>(
    { rollout, retry, signal, opensRollout: opens }: CallPlan,
    attempt: (baseUrl: string) => Promise<Attempt<T>>,
    discard: ((value: T) => unknown) | undefined,
    held: { answer?: { value: T } },
  ): Promise<T> {
    const budget = Math.max(1, retry.attempts);
    const left = new Map(this.replicas.map((r) => [r, budget]));
    const failedHere = new Set<Replica>();
    const failures: string[] = [];
    let previous: Replica | undefined;
    let attempts = 0;
    // The attempt that just failed, so the one that follows it is counted as a retry with its cost.
    let failed: { retryClass: RetryClass; startedAt: number } | undefined;
    for (;;) {
      const usable = this.replicas.filter((r) => left.get(r)! > 0);
      if (usable.length === 0) break;
      const replica = this.choose(rollout, usable, failedHere, opens === true && attempts === 0);
      const triedHere = budget - left.get(replica)!;
      // A retry on the same replica waits; moving to another one does not (it has not been tried).
      if (triedHere > 0) await sleep(backoffMs(retry, triedHere - 1), { signal });
      if (failed) recordRetry(failed.retryClass, Date.now() - failed.startedAt);
      const startedAt = Date.now();
      if (previous && previous !== replica && failedHere.has(previous)) previous.failovers++;
      left.set(replica, left.get(replica)! - 1);
      attempts++;
      replica.requests++;
      replica.inFlight++;
      let result: Attempt<T>;
      try {
        result = await attempt(replica.url);
      } catch (error) {
        if (signal?.aborted || !(error instanceof CallError) || error.kind === "status") throw error;
        failures.push(error.message);
        failed = { retryClass: error.kind === "timeout" ? "timeout" : "connection", startedAt };
        if (error.kind === "timeout") {
          replica.timeouts++;
          replica.lastError = truncate(error.message, 300);
          // No blind replay on a replica that may still be generating; another replica may answer.
          left.set(replica, 0);
        } else {
          replica.unreachable++;
          this.markDown(replica, error.message);
        }
        failedHere.add(replica);
        previous = replica;
        continue;
      } finally {
        replica.inFlight--;
      }
      if (held.answer) await discard?.(held.answer.value);
      held.answer = undefined;
      if (!result.retryable) {
        replica.answered++;
        // A replica that answers is up, whatever the last probe said.
        if (!replica.healthy) this.markUp(replica);
        return result.value;
      }
      replica.retryableErrors++;
      failed = { retryClass: statusRetryClass(result.status ?? 500), startedAt };
      replica.lastError = truncate(result.detail ?? "retryable status", 300);
      failures.push(result.detail ?? `${redactUrl(replica.url)}: retryable status`);
      held.answer = { value: result.value };
      previous = replica;
    }
    if (held.answer) {
      const { value } = held.answer;
      held.answer = undefined;
      return value;
    }
    throw new ReplicasExhaustedError(attempts, failures);
  }

  /** Healthy, not failed in this call, then the rollout's own replica, else the least busy (rotating ties). */
  private choose(rollout: RolloutRef | null, usable: Replica[], failedHere: ReadonlySet<Replica>, opens: boolean): Replica {
    const untried = usable.filter((r) => !failedHere.has(r));
    const healthy = untried.filter((r) => r.healthy);
    // With nothing healthy left, a replica marked down is still worth a try: the mark may be stale.
    const candidates = healthy.length > 0 ? healthy : untried.length > 0 ? untried : usable;
    const key = rollout ? rolloutKey(rollout) : undefined;
    const current = key && !opens ? this.sticky.get(key) : undefined;
    let chosen: Replica;
    if (current && candidates.includes(current)) {
      chosen = current;
    } else {
      const n = candidates.length;
      const start = this.rotation++ % n;
      chosen = candidates[start]!;
      for (let i = 1; i < n; i++) {
        const c = candidates[(start + i) % n]!;
        if (c.inFlight < chosen.inFlight) chosen = c;
      }
    }
    // One replica has nothing to stick to: keeping an entry per rollout would only grow the map.
    if (key && this.replicas.length > 1) {
      // Re-inserted so the Map's order is least recently used first.
      this.sticky.delete(key);
      this.sticky.set(key, chosen);
      if (this.sticky.size > this.options.maxStickyRollouts) this.sticky.delete(this.sticky.keys().next().value!);
    }
    return chosen;
  }

  private markDown(replica: Replica, reason: string): void {
    replica.lastError = truncate(reason, 300);
    if (!replica.healthy) return;
    replica.healthy = false;
    replica.markedDown++;
    replica.downSince = Date.now();
    this.ensureProbing();
  }

  private markUp(replica: Replica): void {
    if (replica.healthy) return;
    replica.healthy = true;
    replica.rejoined++;
    replica.downSince = null;
  }

  private touch(): void {
    this.lastUse = Date.now();
    this.ensureProbing();
  }

  /** One replica has nowhere to fail over to: it is always tried, so probing it would change nothing. */
  private ensureProbing(): void {
    if (this.timer || this.closed || this.replicas.length < 2) return;
    this.timer = setInterval(() => this.tick(), Math.min(this.options.downProbeMs, this.options.upProbeMs));
    // Never keeps a process alive on its own.
    this.timer.unref();
  }

  private tick(): void {
    const now = Date.now();
    // Idle: stop (the next call restarts probing; a replica still marked out is re-probed within a period).
    if (now - this.lastUse > this.options.idleStopMs) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    for (const replica of this.replicas) {
      const period = replica.healthy ? this.options.upProbeMs : this.options.downProbeMs;
      if (replica.probing || now - replica.lastProbe < period) continue;
      replica.probing = true;
      replica.lastProbe = now;
      void this.probe(replica).finally(() => {
        replica.probing = false;
      });
    }
  }

  private async probe(replica: Replica): Promise<void> {
    let problem: string | undefined;
    try {
      const result = await call(joinUrl(replica.url, this.options.healthPath), {
        headers: this.options.probeHeaders,
        timeoutMs: this.options.probeTimeoutMs,
        retry: NO_RETRY,
      });
      if (result.status >= 500) problem = `health check GET ${this.options.healthPath} answered ${result.status}`;
    } catch (error) {
      problem = `health check: ${describeError(error)}`;
    }
    if (this.closed) return;
    if (problem === undefined) this.markUp(replica);
    else this.markDown(replica, problem);
  }

  stats(): ReplicaStats[] {
    const sticky = new Map<Replica, number>();
    for (const replica of this.sticky.values()) sticky.set(replica, (sticky.get(replica) ?? 0) + 1);
    return this.replicas.map((r) => ({
      // Served at GET /replicas and shown by `gym env status --json`: never with the engine's credentials.
      url: redactUrl(r.url),
      healthy: r.healthy,
      in_flight: r.inFlight,
      requests: r.requests,
      answered: r.answered,
      retryable_errors: r.retryableErrors,
      unreachable: r.unreachable,
      timeouts: r.timeouts,
      failovers: r.failovers,
      marked_down: r.markedDown,
      rejoined: r.rejoined,
      sticky_rollouts: sticky.get(r) ?? 0,
      down_since: r.downSince === null ? null : new Date(r.downSince).toISOString(),
      last_error: r.lastError,
    }));
  }

  /** Stops probing for good (the owner is going away). */
  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** `GET /replicas`: the counters of every pool `pools()` returns, one entry per replica. */
export function serveReplicaStats(app: FastifyInstance, pools: () => ReplicaPool[]): void {
  if (app.hasRoute({ method: "GET", url: "/replicas" })) return;
  app.get("/replicas", async () => ({ replicas: pools().flatMap((pool) => pool.stats().map((stats) => ({ pool: pool.label, ...stats }))) }));
}
