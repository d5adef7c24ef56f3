// Waiting, for everything that retries or polls: one sleep that an abort cuts short, and one retry
// backoff, so every retry loop (the HTTP client's, the replica pool's) spaces its tries the same way.

/** Where the backoff starts and where it stops growing (a RetryPolicy is one). */
export interface BackoffPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
}

/**
 * The wait before retry number `retry` (0 for the first retry): the initial delay doubled per retry
 * up to the cap, then a random point in the upper half of that, so many rollouts that failed
 * together do not retry in lock-step against a recovering engine.
 */
export function backoffMs(policy: BackoffPolicy, retry: number): number {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  return base / 2 + Math.random() * (base / 2);
}

export interface SleepOptions {
  /** Rejects with the signal's reason when it aborts (at once if it already has), instead of waiting on. */
  signal?: AbortSignal;
  /** Lets the process exit while this waits: for a wait raced against other work that may win. */
  unref?: boolean;
}

export function sleep(ms: number, options: SleepOptions = {}): Promise<void> {
  const { signal } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (options.unref) timer.unref();
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
