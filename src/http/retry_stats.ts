// Process-wide counters of retried HTTP calls, so a run that only succeeded after many retries says
// so. Every retry loop in the process (the client's own, the replica pool's) records here; servers
// serve these counters at `GET /retries` so a collector can add up the ones of other processes
// (`--process-per-server`, or `--no-serve` against a running head).

/** Why an attempt was retried ("4xx": a 408, 409 or 425, which judge calls retry as NeMo Gym's do). */
export type RetryClass = "5xx" | "429" | "4xx" | "connection" | "timeout";

export const RETRY_CLASSES: readonly RetryClass[] = ["5xx", "429", "4xx", "connection", "timeout"];

export interface RetryClassStats {
  /** Attempts made again after one of this class failed. */
  retries: number;
  /** The failed attempts' duration plus the backoff before the next one, summed over calls. */
  lost_ms: number;
}

export type RetryStats = Record<RetryClass, RetryClassStats>;

export const RETRIES_PATH = "/retries";

export function emptyRetryStats(): RetryStats {
  return { "5xx": { retries: 0, lost_ms: 0 }, "429": { retries: 0, lost_ms: 0 }, "4xx": { retries: 0, lost_ms: 0 }, connection: { retries: 0, lost_ms: 0 }, timeout: { retries: 0, lost_ms: 0 } };
}

const counters = emptyRetryStats();

/** The class of a retryable HTTP status. */
export function statusRetryClass(status: number): RetryClass {
  return status === 429 ? "429" : status >= 500 ? "5xx" : "4xx";
}

/** Counts one retry: the attempt that failed took (with the wait before the next) `lostMs`. */
export function recordRetry(retryClass: RetryClass, lostMs: number): void {
  const entry = counters[retryClass];
  entry.retries++;
  entry.lost_ms += Math.max(0, lostMs);
}

/** A copy of this process's counters since it started. */
export function retryStats(): RetryStats {
  return addRetryStats(emptyRetryStats(), counters);
}

export function addRetryStats(into: RetryStats, other: Partial<Record<string, Partial<RetryClassStats>>>): RetryStats {
  for (const name of RETRY_CLASSES) {
    const entry = other[name];
    if (!entry) continue;
    into[name].retries += Number(entry.retries) || 0;
    into[name].lost_ms += Number(entry.lost_ms) || 0;
  }
  return into;
}

/** `after - before`, per class (counters only grow, so this is what happened in between). */
export function retryStatsSince(after: RetryStats, before: RetryStats): RetryStats {
  const out = emptyRetryStats();
  for (const name of RETRY_CLASSES) {
    out[name].retries = Math.max(0, after[name].retries - before[name].retries);
    out[name].lost_ms = Math.max(0, after[name].lost_ms - before[name].lost_ms);
  }
  return out;
}

export function totalRetries(stats: RetryStats): { retries: number; lostMs: number } {
  let retries = 0;
  let lostMs = 0;
  for (const name of RETRY_CLASSES) {
    retries += stats[name].retries;
    lostMs += stats[name].lost_ms;
  }
  return { retries, lostMs };
}
