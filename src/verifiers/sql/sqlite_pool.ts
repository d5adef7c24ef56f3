// SQL queries on worker threads, each under a deadline. sql.js runs a query synchronously and cannot
// be interrupted from outside, so a query that overruns has its worker terminated (and replaced) and
// is answered as failed, like NeMo Gym's `asyncio.wait_for` timeout answers None; the server's event
// loop never runs SQL itself. At most `size` queries run at once (NeMo Gym's `max_concurrency`
// semaphore), the rest wait in order.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { SqlRow } from "./python_sqlite.js";
import type { SqlReply, SqlRequest } from "./sqlite_worker.js";

export type QueryResult = { ok: true; rows: SqlRow[] } | { ok: false; error: string; timeout?: boolean };

interface Job {
  request: SqlRequest;
  timeoutMs: number;
  resolve(result: QueryResult): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
}

/** From src (vitest, tsx) the worker is TypeScript and needs tsx's loader; from dist it is plain .js. */
function workerSpec(): { code: string | URL; eval: boolean } {
  const fromSource = import.meta.url.endsWith(".ts");
  const worker = new URL(fromSource ? "./sqlite_worker.ts" : "./sqlite_worker.js", import.meta.url);
  if (!fromSource) return { code: worker, eval: false };
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href;
  return { code: `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(worker.href)}); })`, eval: true };
}

export class SqlitePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private startupFailures = 0;

  constructor(readonly size: number) {}

  /** Runs one statement of `sql` against the SQLite file at `dbPath` (see python_sqlite.ts). */
  query(dbPath: string, sql: string, timeoutMs: number): Promise<QueryResult> {
    if (this.closed) return Promise.resolve({ ok: false, error: "SQL pool closed" });
    return new Promise((resolve) => {
      this.queue.push({ request: { id: this.nextId++, dbPath, sql }, timeoutMs, resolve });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.resolve({ ok: false, error: "SQL pool closed" });
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        clearTimeout(slot.timer);
        slot.job?.resolve({ ok: false, error: "SQL pool closed" });
        return slot.worker.terminate();
      }),
    );
  }

  private spawn(): void {
    const spec = workerSpec();
    const worker = new Worker(spec.code, { eval: spec.eval });
    const slot: Slot = { worker, ready: false };
    this.slots.push(slot);
    worker.unref();
    worker.on("message", (reply: SqlReply) => this.onReply(slot, reply));
    worker.on("error", (error) => this.onDeath(slot, `SQL worker error: ${error.message}`));
    worker.on("exit", (code) => this.onDeath(slot, `SQL worker exited with code ${code}`));
  }

  private onReply(slot: Slot, reply: SqlReply): void {
    if ("ready" in reply) {
      slot.ready = true;
      this.startupFailures = 0;
    } else if (slot.job && slot.job.request.id === reply.id) {
      this.finish(slot, reply.ok ? { ok: true, rows: reply.rows } : { ok: false, error: reply.error });
    }
    this.dispatch();
  }

  private finish(slot: Slot, result: QueryResult): void {
    const job = slot.job;
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.timer = undefined;
    slot.worker.unref();
    job?.resolve(result);
  }

  private onDeath(slot: Slot, reason: string): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    if (slot.job) this.finish(slot, { ok: false, error: reason });
    if (this.closed) return;
    if (!slot.ready && ++this.startupFailures >= 3) {
      for (const job of this.queue.splice(0)) job.resolve({ ok: false, error: `SQL worker cannot start: ${reason}` });
      this.startupFailures = 0;
      return;
    }
    this.dispatch();
  }

  private timeout(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    this.finish(slot, { ok: false, error: "query timed out", timeout: true });
    void slot.worker.terminate();
    this.dispatch();
  }

  private dispatch(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (!slot.ready || slot.job) continue;
      const job = this.queue.shift();
      if (!job) return;
      slot.job = job;
      slot.worker.ref();
      slot.timer = setTimeout(() => this.timeout(slot), job.timeoutMs);
      slot.worker.postMessage(job.request);
    }
    const starting = this.slots.filter((s) => !s.ready).length;
    for (let i = starting; i < this.queue.length && this.slots.length < this.size; i++) this.spawn();
  }
}
