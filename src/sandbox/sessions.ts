// Stateful Python sessions by id (the `X-Session-ID` of the /execute service, or a rollout's session
// in an environment): created on first use, expired when idle, the least recently used idle one
// evicted when every session slot is taken. A session that ended without being asked to (evicted,
// expired, stopped with its cell) is remembered, so the first cell of its replacement carries a
// warning that the state is gone instead of failing later with a puzzling NameError.
import type { Sandbox } from "./runner.js";
import { PythonSession, type CellResult, type SessionOptions } from "./session.js";

export interface SessionManagerOptions extends SessionOptions {
  /** A session unused for this long is closed. Default 10 minutes. */
  idleMs?: number;
}

export interface SessionInfo {
  session_id: string;
  created_at: string;
  last_used_at: string;
  cells: number;
}

export class SessionsExhaustedError extends Error {
  constructor(max: number) {
    super(`all ${max} session slots are busy running cells; retry later or delete a session`);
    this.name = "SessionsExhaustedError";
  }
}

/** Ended sessions remembered for their warning; the oldest are forgotten first. */
const MAX_REMEMBERED_ENDS = 10_000;

export class SessionManager {
  private readonly sessions = new Map<string, PythonSession>();
  /** Why a session id's interpreter ended unasked, until a new one starts under that id. */
  private readonly ended = new Map<string, string>();
  /** The warning the first cell of a replacement session carries. */
  private readonly startWarnings = new WeakMap<PythonSession, string>();
  private readonly busy = new Map<string, number>();
  private readonly creating = new Map<string, Promise<PythonSession>>();
  private readonly timer: NodeJS.Timeout;
  private readonly idleMs: number;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly options: SessionManagerOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 600_000;
    this.timer = setInterval(() => void this.expire(), Math.min(30_000, Math.max(1000, this.idleMs / 4)));
    this.timer.unref();
  }

  /** Runs a cell in session `id`, starting the session if it does not exist (or has ended). */
  async execute(id: string, code: string, timeoutMs: number): Promise<CellResult> {
    this.busy.set(id, (this.busy.get(id) ?? 0) + 1);
    try {
      const session = await this.sessionFor(id);
      const warning = this.startWarnings.get(session);
      this.startWarnings.delete(session);
      const result = await session.execute(code, timeoutMs);
      if (!session.alive || result.status === "timeout" || result.status === "output_limit" || result.status === "memory") {
        if (this.sessions.get(id) === session) {
          this.sessions.delete(id);
          this.remember(id, `its interpreter was stopped after a cell ended with ${result.status}${result.reason ? ` (${result.reason})` : ""}`);
        }
        await session.close();
      }
      return warning ? { ...result, warning } : result;
    } finally {
      const left = (this.busy.get(id) ?? 1) - 1;
      if (left === 0) this.busy.delete(id);
      else this.busy.set(id, left);
    }
  }

  list(): SessionInfo[] {
    return [...this.sessions.entries()].map(([id, s]) => ({
      session_id: id,
      created_at: new Date(s.createdAt).toISOString(),
      last_used_at: new Date(s.lastUsedAt).toISOString(),
      cells: s.cells,
    }));
  }

  has(id: string): boolean {
    return this.sessions.has(id);
  }

  /** Ends a session on request: its next cell starts a fresh one without a warning. */
  async delete(id: string): Promise<boolean> {
    this.ended.delete(id);
    return this.end(id);
  }

  private async end(id: string, why?: string): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    if (why) this.remember(id, why);
    await session.close();
    return true;
  }

  private remember(id: string, why: string): void {
    this.ended.delete(id);
    this.ended.set(id, why);
    if (this.ended.size > MAX_REMEMBERED_ENDS) this.ended.delete(this.ended.keys().next().value!);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.sessions.keys()].map((id) => this.delete(id)));
  }

  /** Concurrent first cells of one id must share one new session, not start two. */
  private sessionFor(id: string): Promise<PythonSession> {
    let pending = this.creating.get(id);
    if (!pending) {
      pending = this.createOrReuse(id).finally(() => this.creating.delete(id));
      this.creating.set(id, pending);
    }
    return pending;
  }

  private async createOrReuse(id: string): Promise<PythonSession> {
    const existing = this.sessions.get(id);
    if (existing?.alive) return existing;
    if (existing) await this.end(id, "its interpreter exited");
    let lease = this.sandbox.tryAcquireSessionSlot();
    if (!lease) {
      const victim = this.leastRecentlyUsedIdle();
      if (!victim) throw new SessionsExhaustedError(this.sandbox.maxSessions);
      // Not naming the newcomer: a session id is all it takes to use a session.
      await this.end(victim, `it was evicted, least recently used, to free a slot for another session (all ${this.sandbox.maxSessions} session slots were in use)`);
      lease = this.sandbox.tryAcquireSessionSlot();
      if (!lease) throw new SessionsExhaustedError(this.sandbox.maxSessions);
    }
    let session: PythonSession;
    try {
      session = new PythonSession(lease.machine, lease.slot, lease.release, this.options);
    } catch (error) {
      lease.release();
      throw error;
    }
    this.sessions.set(id, session);
    const why = this.ended.get(id);
    if (why) {
      this.ended.delete(id);
      this.startWarnings.set(session, `session "${id}" was restarted empty: ${why}; variables and imports of earlier cells are gone`);
    }
    return session;
  }

  private leastRecentlyUsedIdle(): string | null {
    let best: [string, number] | null = null;
    for (const [id, s] of this.sessions) {
      if (this.busy.has(id)) continue;
      if (!best || s.lastUsedAt < best[1]) best = [id, s.lastUsedAt];
    }
    return best?.[0] ?? null;
  }

  private async expire(): Promise<void> {
    const now = Date.now();
    for (const [id, s] of [...this.sessions]) {
      if (!this.busy.has(id) && now - s.lastUsedAt > this.idleMs) await this.end(id, `it expired after ${Math.round(this.idleMs / 1000)} s idle`);
    }
  }
}
