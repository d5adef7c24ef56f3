// Idle-session reaping shared by the MCP, ORS and OpenEnv layers (`gym env start --session-timeout S`).
// A session counts as active when a request names it (touch) and while one of its requests is still
// running (during); a request that must not count as activity (OpenEnv's `state`) only keeps it from
// being reaped while it runs (holding). Every `reapEvery` seconds (default as OpenEnv's reaper: a quarter of the timeout,
// at least 5 s) the sessions untouched for longer than the timeout and not busy are handed to the
// layer's `close`, and their ids are remembered so that a client coming back with one is told why it
// is gone instead of getting a bare "not found".
import type { ProtocolSettings } from "./gateway.js";

/** How often idle sessions are looked for, in seconds. */
export function reapInterval(timeout: number, reapEvery?: number): number {
  return reapEvery ?? Math.max(timeout / 4, 5);
}

/** The sentence a client using a reaped session gets (each protocol wraps it in its own error shape). */
export function expiredText(timeout: number): string {
  return `closed after ${timeout} s without activity (the server's session timeout)`;
}

/** Ids of reaped sessions kept for the message above; the oldest are forgotten past this many. */
const REMEMBERED = 10_000;

interface Activity {
  last: number;
  busy: number;
}

export class IdleSessions<K> {
  private readonly activity = new Map<K, Activity>();
  private readonly reaped = new Set<K>();
  private readonly timer: ReturnType<typeof setInterval> | undefined;

  /**
   * @param timeout seconds without activity before a session is closed (undefined: never)
   * @param close frees the session (the layer forgets it and ends its episode); errors are ignored
   */
  constructor(
    readonly timeout: number | undefined,
    private readonly close: (key: K) => void | Promise<void>,
    reapEvery?: number,
  ) {
    if (timeout === undefined) return;
    this.timer = setInterval(() => this.reap(), 1000 * reapInterval(timeout, reapEvery));
    this.timer.unref();
  }

  static from<K>(settings: ProtocolSettings, close: (key: K) => void | Promise<void>, fallbackTimeout?: number): IdleSessions<K> {
    return new IdleSessions<K>(settings.sessionTimeout ?? fallbackTimeout, close, settings.reapEvery);
  }

  /** A new session (active now). */
  add(key: K): void {
    this.activity.set(key, { last: Date.now(), busy: 0 });
    this.reaped.delete(key);
  }

  /** A request named the session: it is active now. */
  touch(key: K): void {
    const entry = this.activity.get(key);
    if (entry) entry.last = Date.now();
  }

  /** Marks the session busy until `work` settles (it is not reaped meanwhile), then touches it. */
  async during<T>(key: K, work: () => Promise<T>): Promise<T> {
    return this.run(key, work, true);
  }

  /** Keeps the session from being reaped while `work` runs, without counting it as activity. */
  async holding<T>(key: K, work: () => Promise<T>): Promise<T> {
    return this.run(key, work, false);
  }

  private async run<T>(key: K, work: () => Promise<T>, touchAfter: boolean): Promise<T> {
    const entry = this.activity.get(key);
    if (entry) entry.busy += 1;
    try {
      return await work();
    } finally {
      if (entry) {
        entry.busy -= 1;
        if (touchAfter) entry.last = Date.now();
      }
    }
  }

  /** The session ended by its client or the server (not reaped): forgotten. */
  remove(key: K): void {
    this.activity.delete(key);
  }

  /** Whether `key` names a session this reaper closed. */
  wasReaped(key: K): boolean {
    return this.reaped.has(key);
  }

  /** Closes every session idle past the timeout; runs on the timer (exposed for the layers' clean-up). */
  reap(): void {
    if (this.timeout === undefined) return;
    const cutoff = Date.now() - this.timeout * 1000;
    for (const [key, entry] of [...this.activity]) {
      if (entry.busy > 0 || entry.last >= cutoff) continue;
      this.activity.delete(key);
      this.reaped.add(key);
      if (this.reaped.size > REMEMBERED) this.reaped.delete(this.reaped.values().next().value as K);
      void Promise.resolve()
        .then(() => this.close(key))
        .catch(() => undefined);
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.activity.clear();
  }
}
