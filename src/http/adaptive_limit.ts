// `--concurrency auto`: limits that find their own ceiling. Each layer that calls something which can
// be overloaded — the engine behind a model server, an environment's judge, the code sandbox — gets
// its own AdaptiveLimit, a gate of `limit` calls in flight whose limit moves by AIMD:
//
// - it grows while the gate is full: at first by one per call that finished with the gate in use
//   (slow start: ×2 per call latency), until the first cut or the first round slower than the
//   tolerance; after a cut, each round halves the distance back to the limit it was cut from (a
//   binary search between the cut and where it came from), and past that limit it probes by 1, 2,
//   4, … per round (up to a quarter of the limit) — so the ceiling is found again in a few call
//   latencies at 8 or at 500, where +1 per round would take hundreds. A round is as many finished
//   calls as the limit (about one call's latency);
// - it is cut ×0.7 when a call is refused for overload (429, 503, 504, a timeout), once per window
//   (refusals of calls let in before a cut do not cut again); ×0.85 when, two rounds in a row, the
//   round's latency (its lower quartile) passed `tolerance` × the best round's while the throughput
//   it implies (calls in flight / latency) is no new best — slower without more getting done: past
//   the engine's knee; ×0.85 when this process's event loop lags (the collector is the bottleneck) —
//   once per spell of lag unless it gets worse: lag that a cut did not relieve is not this gate's
//   doing (other processes' load on a shared machine), and cutting on would only starve the run.
//
// Every change is kept in a trajectory (time, limit, why) for tests, benchmarks and the live line.
// Nothing here is NeMo Gym's (it has fixed `num_samples_in_parallel` and semaphores only); no upstream
// code was matched.
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";

/** `--concurrency auto:MIN-MAX`. */
export interface AutoBounds {
  min: number;
  max: number;
}

/** The bounds of a bare `--concurrency auto`. */
export const DEFAULT_AUTO_BOUNDS: AutoBounds = { min: 4, max: 512 };

/** The environment variable that carries the bounds to servers in other processes (`--process-per-server`). */
export const AUTO_ENV = "GYM_CONCURRENCY_AUTO";

/**
 * `auto`, `auto:MIN-MAX` or `auto:MAX` as the CLI and config key take it; undefined when `value` is
 * not an auto setting at all (a plain number is the caller's business).
 */
export function parseAutoConcurrency(value: unknown, name = "--concurrency"): AutoBounds | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.trim().toLowerCase();
  if (text !== "auto" && !text.startsWith("auto:")) return undefined;
  if (text === "auto") return { ...DEFAULT_AUTO_BOUNDS };
  const spec = text.slice("auto:".length);
  const match = /^(?:(\d+)-)?(\d+)$/.exec(spec);
  const max = match ? Number(match[2]) : NaN;
  const min = match ? (match[1] === undefined ? Math.min(DEFAULT_AUTO_BOUNDS.min, max) : Number(match[1])) : NaN;
  if (!match || min < 1 || max < min) {
    throw new RangeError(`${name} ${value}: expected auto, auto:MAX or auto:MIN-MAX with 1 ≤ MIN ≤ MAX (e.g. auto:8-256)`);
  }
  return { min, max };
}

/** What one finished call says about the thing behind the gate. */
export type Sample =
  | { kind: "ok"; latencyMs: number }
  /** Refused or timed out because it is overloaded (429, 503, 504, a timeout). */
  | { kind: "overload" }
  /** Neither: an error of the request itself, an abort. Frees the slot, moves nothing. */
  | { kind: "other" };

export type SampleKind = Sample["kind"];

export type ChangeReason = "start" | "increase" | "overload" | "latency" | "lag";

export interface TrajectoryPoint {
  /** Since the limiter was made. */
  atMs: number;
  limit: number;
  reason: ChangeReason;
  /** Calls in flight at the change. */
  inFlight: number;
}

export interface AdaptiveLimitOptions {
  /** Shown on the live line (e.g. `model`, `judge`, `sandbox`). */
  name: string;
  min: number;
  max: number;
  /** Where it starts; default `min`. */
  initial?: number;
  /** A round's median latency past this many times the best round's is a cut (when throughput did not grow). Default 1.2. */
  tolerance?: number;
  /** Event-loop delay (mean over ~¼ s) past this is a cut. Default 100 ms. */
  lagLimitMs?: number;
  /** Where the event-loop delay comes from; default this process's (see `eventLoopLagMs`). */
  lag?: () => number;
}

const OVERLOAD_CUT = 0.7;
const SOFT_CUT = 0.85;
const MIN_ROUND = 8;
/** A round grows the limit only when this share of it was in use on average (not held back by the callers). */
const FULL = 0.9;
/** Rounds in a row that must be slow before latency cuts (one alone may be noise). */
const SLOW_ROUNDS = 2;
/** Trajectory points kept (the oldest dropped first): a long run does not grow memory. */
const MAX_POINTS = 20_000;
/** The best latency and throughput forget slowly (per round), so a lasting change of the engine is learnt. */
const BEST_DRIFT = 0.001;
/** A round this much slower than the best, whose implied throughput fell under LESS_DONE × the best, is slow too. */
const SOMEWHAT_SLOWER = 1.1;
const LESS_DONE = 0.95;
/** Past the limit of the last cut, growth per round doubles from 1 up to this share of the limit. */
const PROBE_MAX_SHARE = 0.25;
/** Lag this many times the lag of the last lag cut cuts again within the same spell of lag. */
const LAG_WORSE = 1.5;

export class AdaptiveLimit {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  private value: number;
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly started = Date.now();
  private readonly tolerance: number;
  private readonly lagLimitMs: number;
  private readonly lag: () => number;
  private slowStart = true;
  // The current round.
  private roundLatencies: number[] = [];
  /** Calls in flight when each of the round's calls finished, summed. */
  private roundInFlight = 0;
  private roundFull = false;
  /** Calls that end the round: the limit when it began (slow start grows it while the round goes). */
  private roundSize = MIN_ROUND;
  /** Calls let in so far (each call's ticket is its number). */
  private tickets = 0;
  /** Calls with a smaller ticket were let in before the last cut. */
  private cutTicket = 0;
  /** Calls with a smaller ticket were let in before the last increase after slow start: they say nothing of the new limit. */
  private roundTicket = 0;
  private bestLatency = Infinity;
  /** Latencies of every call that answered, by blocks of MIN_ROUND, for the best latency only. */
  private block: number[] = [];
  private bestThroughput = 0;
  /** Rounds in a row whose median latency was past the tolerance. */
  private slowRounds = 0;
  /** The limit when it was last cut (0 before any cut): where growth slows down and then probes. */
  private cutFrom = 0;
  /** Past `cutFrom`: the next round's growth. */
  private probeStep = 1;
  /** The lag that made the last lag cut, while the lag lasts; undefined once it is gone. */
  private lagAtCut: number | undefined;
  /** Calls that finished, by kind, since the start. */
  readonly counts = { ok: 0, overload: 0, other: 0 };
  readonly trajectory: TrajectoryPoint[] = [];

  constructor(options: AdaptiveLimitOptions) {
    if (!Number.isInteger(options.min) || !Number.isInteger(options.max) || options.min < 1 || options.max < options.min) {
      throw new RangeError(`adaptive limit "${options.name}": bounds must be whole numbers with 1 ≤ min ≤ max, got ${options.min}-${options.max}`);
    }
    this.name = options.name;
    this.min = options.min;
    this.max = options.max;
    this.value = clamp(options.initial ?? options.min, options.min, options.max);
    this.tolerance = options.tolerance ?? 1.2;
    this.lagLimitMs = options.lagLimitMs ?? 100;
    this.lag = options.lag ?? eventLoopLagMs;
    this.roundSize = Math.max(MIN_ROUND, this.limit);
    this.record("start");
  }

  /** The whole-number limit the gate holds to now. */
  get limit(): number {
    return Math.max(1, Math.floor(this.value));
  }

  get inFlight(): number {
    return this.active;
  }

  /** Since it was made. */
  get ageMs(): number {
    return Date.now() - this.started;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Waits for a slot. Call the returned function once the call is done, with what it said; an `ok`
   * call's latency is measured from when the slot was granted unless given.
   */
  async acquire(signal?: AbortSignal): Promise<(kind: SampleKind, latencyMs?: number) => void> {
    if (this.active >= this.limit) await this.wait(signal);
    else this.active++;
    if (this.active >= this.limit) this.roundFull = true;
    const startedAt = Date.now();
    const ticket = this.tickets++;
    let released = false;
    return (kind, latencyMs) => {
      if (released) return;
      released = true;
      this.observe(kind === "ok" ? { kind, latencyMs: latencyMs ?? Date.now() - startedAt } : { kind }, ticket);
      this.active--;
      this.admit();
    };
  }

  /** Queued until `admit` hands this waiter a slot (already counted in `active`); an abort leaves the queue. */
  private wait(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiting.indexOf(admitted);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal!.reason);
      };
      const admitted = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(admitted);
    });
  }

  /** Runs `task` inside the gate; `classify` says what its outcome tells of the load. */
  async run<T>(task: () => Promise<T>, classify: (outcome: { ok: true; value: T } | { ok: false; error: unknown }) => SampleKind): Promise<T> {
    const release = await this.acquire();
    try {
      const value = await task();
      release(classify({ ok: true, value }));
      return value;
    } catch (error) {
      release(classify({ ok: false, error }));
      throw error;
    }
  }

  /** Lets waiters in while there is room (the limit may have grown). */
  private admit(): void {
    while (this.active < this.limit && this.waiting.length > 0) {
      this.active++;
      this.waiting.shift()!();
    }
    if (this.waiting.length > 0) this.roundFull = true;
  }

  private observe(sample: Sample, ticket: number): void {
    this.counts[sample.kind]++;
    // Calls let in before the last cut answer for the old limit: they neither cut again nor judge the new one.
    if (sample.kind === "ok") {
      // The best latency learns from every answer, also of calls let in before a cut: a slow start
      // cut at once for overload must still learn what the engine does when it is not overloaded.
      this.block.push(sample.latencyMs);
      if (this.block.length >= MIN_ROUND) {
        this.bestLatency = Math.min(this.bestLatency, lowQuartile(this.block));
        this.block = [];
      }
    }
    if (sample.kind === "other" || ticket < this.cutTicket) return;
    if (sample.kind === "overload") {
      this.cut(OVERLOAD_CUT, "overload");
      return;
    }
    if (ticket < this.roundTicket) return;
    this.roundLatencies.push(sample.latencyMs);
    this.roundInFlight += this.active;
    // Slow start: one more per call that finished with the gate in use (×2 per call latency, without
    // waiting for rounds to end; the round's latency still ends it).
    if (this.slowStart && this.value < this.max && (this.waiting.length > 0 || this.active >= this.limit * FULL)) {
      this.value = Math.min(this.max, this.value + 1);
      this.record("increase");
    }
    if (this.roundLatencies.length >= this.roundSize) this.endRound();
  }

  private endRound(): void {
    const latency = lowQuartile(this.roundLatencies);
    // Little's law: calls in flight over their latency is the rate the engine gets through them. Not
    // measured over the round's few seconds (too noisy to steer by), but implied by the two averages.
    const throughput = this.roundInFlight / this.roundLatencies.length / Math.max(1, latency);
    const newBestThroughput = throughput > this.bestThroughput * 1.05;
    // Slow: past the tolerance; or somewhat slower while the throughput it implies fell — more in
    // flight that gets less done (a knee of 8 is passed by one call, which the tolerance alone misses).
    const slow =
      Number.isFinite(this.bestLatency) &&
      (latency > this.bestLatency * this.tolerance || (latency > this.bestLatency * SOMEWHAT_SLOWER && throughput < this.bestThroughput * LESS_DONE));
    // Past the tolerance twice over is no noise: no second round to confirm it.
    const verySlow = slow && latency > this.bestLatency * this.tolerance ** 2;
    const lag = this.lag();
    if (lag <= this.lagLimitMs) this.lagAtCut = undefined;
    if (lag > this.lagLimitMs && (this.lagAtCut === undefined || lag > this.lagAtCut * LAG_WORSE)) {
      this.cut(SOFT_CUT, "lag");
      this.lagAtCut = lag;
    } else if (slow && !newBestThroughput && (this.slowStart || verySlow)) {
      // Slow start overshoots by a call latency's growth: the first slow round ends it. (Cutting deeper
      // the slower the round was found the knee sooner in a quiet test, but on a busy machine the
      // collector's own delays made rounds look far too slow: measured 76% of the best fixed, not 97%.)
      this.cut(SOFT_CUT, "latency");
    } else if (slow && !newBestThroughput && ++this.slowRounds >= SLOW_ROUNDS) {
      this.cut(SOFT_CUT, "latency");
    } else if (this.slowRounds > 0 && slow) {
      // One slow round may be noise: the next decides.
    } else if (!this.slowStart && this.roundFull && this.roundInFlight / this.roundLatencies.length >= this.limit * FULL && this.value < this.max) {
      this.value = Math.min(this.max, this.value + this.step());
      this.record("increase");
      this.roundTicket = this.tickets;
    }
    this.bestLatency = Math.min(this.bestLatency * (1 + BEST_DRIFT), latency);
    this.bestThroughput = Math.max(this.bestThroughput * (1 - BEST_DRIFT), throughput);
    this.roundLatencies = [];
    this.roundInFlight = 0;
    this.roundFull = this.active >= this.limit || this.waiting.length > 0;
    this.roundSize = Math.max(MIN_ROUND, this.limit);
    if (!slow) this.slowRounds = 0;
    this.admit();
  }

  /** After a cut: half the way back to where it was cut from, then probing past it by 1, 2, 4, … */
  private step(): number {
    if (this.value < this.cutFrom - 1) return Math.max(1, (this.cutFrom - this.value) / 2);
    const step = this.probeStep;
    this.probeStep = Math.min(this.probeStep * 2, Math.max(1, this.value * PROBE_MAX_SHARE));
    return step;
  }

  private cut(factor: number, reason: ChangeReason): void {
    this.slowStart = false;
    this.cutFrom = this.value;
    this.probeStep = 1;
    this.slowRounds = 0;
    this.cutTicket = this.tickets;
    // A new round, of calls let in under the new limit only.
    this.roundLatencies = [];
    this.roundInFlight = 0;
    this.roundFull = false;
    const next = Math.max(this.min, this.value * factor);
    this.roundSize = Math.max(MIN_ROUND, Math.floor(next));
    if (next === this.value) return;
    this.value = next;
    this.record(reason);
  }

  private record(reason: ChangeReason): void {
    if (this.trajectory.length >= MAX_POINTS) this.trajectory.splice(0, MAX_POINTS / 2);
    this.trajectory.push({ atMs: Date.now() - this.started, limit: this.value, reason, inFlight: this.active });
  }

  /** The limit averaged over time from `fromMs` (since the start) to now: what a run settled at. */
  meanLimitSince(fromMs: number): number {
    const end = Date.now() - this.started;
    let sum = 0;
    let span = 0;
    for (let i = 0; i < this.trajectory.length; i++) {
      const point = this.trajectory[i]!;
      const until = this.trajectory[i + 1]?.atMs ?? end;
      const from = Math.max(point.atMs, fromMs);
      if (until <= from) continue;
      sum += point.limit * (until - from);
      span += until - from;
    }
    return span > 0 ? sum / span : this.value;
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/**
 * A round's latency: its lower quartile. Delays of the caller's own (a busy event loop, a GC pause)
 * only ever add, to some calls; an engine past its knee slows every call down.
 */
function lowQuartile(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 4)] ?? 0;
}

/** Whether an HTTP status says "too much load, later": 429, 503 and a gateway's 504. */
export function isOverloadStatus(status: number | undefined): boolean {
  return status === 429 || status === 503 || status === 504;
}

// The event loop's delay, sampled by one histogram per process, read as the mean of the last ~¼ s.
let histogram: IntervalHistogram | undefined;
let lagTimer: NodeJS.Timeout | undefined;
let lastLagMs = 0;

/** This process's event-loop delay now (ms, mean over the last quarter second); starts measuring on first use. */
export function eventLoopLagMs(): number {
  if (!histogram) {
    histogram = monitorEventLoopDelay({ resolution: 20 });
    histogram.enable();
    lagTimer = setInterval(() => {
      const mean = histogram!.mean / 1e6;
      // The histogram counts the resolution's own wait: what is past it is the lag.
      lastLagMs = Number.isFinite(mean) ? Math.max(0, mean - 20) : 0;
      histogram!.reset();
    }, 250);
    lagTimer.unref();
  }
  return lastLagMs;
}

// The process's limiters, by key: made when auto concurrency is on, so the live line can list them.
let bounds: AutoBounds | undefined;
let boundsRead = false;
let tuning: Tuning = {};

/** What a caller may set of every limiter's rules (tests and benchmarks isolate one signal with it). */
export type Tuning = Partial<Pick<AdaptiveLimitOptions, "tolerance" | "lagLimitMs">>;
const limiters = new Map<string, AdaptiveLimit>();

/** Turns auto concurrency on (bounds) or off (undefined) for this process, and for servers it starts. */
export function setAutoConcurrency(value: AutoBounds | undefined, rules: Tuning = {}): void {
  bounds = value;
  tuning = rules;
  boundsRead = true;
  limiters.clear();
  if (value) process.env[AUTO_ENV] = `${value.min}-${value.max}`;
  else delete process.env[AUTO_ENV];
}

/** The bounds when auto concurrency is on: set by the run, or inherited through GYM_CONCURRENCY_AUTO. */
export function autoConcurrency(): AutoBounds | undefined {
  if (!boundsRead) {
    boundsRead = true;
    const inherited = process.env[AUTO_ENV];
    bounds = inherited ? parseAutoConcurrency(`auto:${inherited}`, AUTO_ENV) : undefined;
  }
  return bounds;
}

/**
 * The limiter of `key` when auto concurrency is on (made at its first use), else undefined: callers
 * then run as before. `max` caps the run's bounds (e.g. the sandbox's slots).
 */
export function adaptiveLimit(key: string, name: string, max?: number): AdaptiveLimit | undefined {
  const auto = autoConcurrency();
  if (!auto) return undefined;
  let limiter = limiters.get(key);
  if (!limiter) {
    const upper = Math.max(1, Math.min(auto.max, max ?? auto.max));
    limiter = new AdaptiveLimit({ ...tuning, name, min: Math.min(auto.min, upper), max: upper });
    limiters.set(key, limiter);
  }
  return limiter;
}

/** Every limiter this process made, in the order they were made. */
export function adaptiveLimits(): AdaptiveLimit[] {
  return [...limiters.values()];
}

/** Where a limit settled: its time-weighted mean over the last half of its life, and the range it moved in there. */
export interface SettledLimit {
  name: string;
  mean: number;
  low: number;
  high: number;
}

/** This process's limiters' settled values (also served at `GET /retries`, for a collector in another process). */
export function settledLimits(list: readonly AdaptiveLimit[] = adaptiveLimits()): SettledLimit[] {
  return list.map((l) => {
    const from = l.ageMs / 2;
    const inForce = l.trajectory.filter((p) => p.atMs < from).at(-1);
    const seen = [...(inForce ? [inForce] : []), ...l.trajectory.filter((p) => p.atMs >= from)].map((p) => Math.max(1, Math.floor(p.limit)));
    return { name: l.name, mean: l.meanLimitSince(from), low: Math.min(l.limit, ...seen), high: Math.max(l.limit, ...seen) };
  });
}

/** E.g. `model 63 (57-71), judge 12 (10-14)`, names numbered as on the live line when repeated. For the end of a run. */
export function describeSettled(list: readonly SettledLimit[] = settledLimits()): string {
  const names = numberedNames(list);
  return list.map((l, i) => `${names[i]} ${l.mean.toFixed(0)} (${l.low}-${l.high})`).join(", ");
}

/** Each limiter's name, with `#n` when several share it (two model servers, say). */
function numberedNames(list: readonly { name: string }[]): string[] {
  const counts = new Map<string, number>();
  for (const l of list) counts.set(l.name, (counts.get(l.name) ?? 0) + 1);
  const seen = new Map<string, number>();
  return list.map((l) => {
    const n = (seen.get(l.name) ?? 0) + 1;
    seen.set(l.name, n);
    return `${l.name}${counts.get(l.name)! > 1 ? `#${n}` : ""}`;
  });
}

/** A limiter's name and current limit: what another process reports of its own (`GET /retries`). */
export interface LimitNow {
  name: string;
  limit: number;
}

/** This process's limiters as they stand, for other processes' live lines. */
export function limitsNow(): LimitNow[] {
  return adaptiveLimits().map((l) => ({ name: l.name, limit: l.limit }));
}

/** E.g. `limits model 18, judge 12`: for the live line; empty when auto concurrency made no limiter. */
export function describeLimits(list: readonly LimitNow[] = adaptiveLimits()): string {
  if (list.length === 0) return "";
  const names = numberedNames(list);
  return `limits ${list.map((l, i) => `${names[i]} ${l.limit}`).join(", ")}`;
}
