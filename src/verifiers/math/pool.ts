// A pool of worker threads for math verification, each job under a hard deadline. A verification
// that overruns (or crashes its worker) is answered with reward 0 at the deadline, and its worker
// is terminated and replaced: SymPy-style evaluation cannot be interrupted from inside, so the only
// reliable stop is killing the thread. The event loop never runs verification itself.
import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { DEFAULT_OPTIONS, type EquivalenceOptions } from "./equivalence.js";
import type { LibraryVerdict } from "./verify.js";
import type { WorkerReply, WorkerRequest } from "./worker.js";

export interface PoolOptions {
  /** Worker threads; capped at the machine's cores (CPU-bound work gains nothing past that). */
  size?: number;
  /** Hard deadline per verification, from the moment a worker starts it. Default 10 s. */
  timeoutMs?: number;
  equivalence?: EquivalenceOptions;
}

export interface PoolVerdict extends LibraryVerdict {
  /** ok: verified; timeout: deadline hit, worker replaced; crash: worker died; error: verification threw. */
  outcome: "ok" | "timeout" | "crash" | "error";
  error?: string;
  /** Time the verification took on its worker, in ms. */
  elapsedMs: number;
}

interface Job {
  id: number;
  expected: string;
  generated: string;
  resolve(verdict: PoolVerdict): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
  startedAt: number;
}

/**
 * From src (vitest, tsx) the worker is the .ts file and needs tsx's loader, which a worker does not
 * inherit from `--import`; from dist it is plain .js. Decided by this module's own extension.
 */
function workerSpec(): { code: string | URL; eval: boolean } {
  const fromSource = import.meta.url.endsWith(".ts");
  const worker = new URL(fromSource ? "./worker.ts" : "./worker.js", import.meta.url);
  if (!fromSource) return { code: worker, eval: false };
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href;
  const code = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(worker.href)}); })`;
  return { code, eval: true };
}

export class MathVerifierPool {
  readonly size: number;
  readonly timeoutMs: number;
  private readonly equivalence: EquivalenceOptions;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** Workers replaced after a timeout or crash (for tests and operators). */
  replaced = 0;
  /** Workers that died before becoming ready, in a row: a broken worker module must not respawn forever. */
  private startupFailures = 0;

  constructor(options: PoolOptions = {}) {
    this.size = Math.max(1, Math.min(options.size ?? availableParallelism(), availableParallelism()));
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.equivalence = options.equivalence ?? DEFAULT_OPTIONS;
  }

  verify(expected: string, generated: string): Promise<PoolVerdict> {
    if (this.closed) return Promise.resolve({ reward: 0, extracted: null, outcome: "error", error: "pool closed", elapsedMs: 0 });
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, expected, generated, resolve });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.resolve({ reward: 0, extracted: null, outcome: "error", error: "pool closed", elapsedMs: 0 });
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        clearTimeout(slot.timer);
        slot.job?.resolve({ reward: 0, extracted: null, outcome: "error", error: "pool closed", elapsedMs: 0 });
        return slot.worker.terminate();
      }),
    );
  }

  private spawn(): void {
    const spec = workerSpec();
    const worker = new Worker(spec.code, {
      eval: spec.eval,
      // A runaway allocation kills this worker, not the server.
      resourceLimits: { maxOldGenerationSizeMb: 1024 },
    });
    const slot: Slot = { worker, ready: false, startedAt: 0 };
    this.slots.push(slot);
    worker.unref();
    worker.on("message", (reply: WorkerReply) => this.onReply(slot, reply));
    worker.on("error", (error) => this.onDeath(slot, `worker error: ${error.message}`));
    worker.on("exit", (code) => this.onDeath(slot, `worker exited with code ${code}`));
  }

  private onReply(slot: Slot, reply: WorkerReply): void {
    if ("ready" in reply) {
      slot.ready = true;
      this.startupFailures = 0;
      this.dispatch();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    this.finish(slot, reply.ok ? { reward: reply.reward, extracted: reply.extracted, outcome: "ok" } : { reward: 0, extracted: null, outcome: "error", error: reply.error });
    this.dispatch();
  }

  private finish(slot: Slot, verdict: Omit<PoolVerdict, "elapsedMs">): void {
    const job = slot.job;
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.timer = undefined;
    slot.worker.unref();
    job?.resolve({ ...verdict, elapsedMs: performance.now() - slot.startedAt });
  }

  /** The worker died or was killed: answer its job, and put a fresh worker in its place. */
  private onDeath(slot: Slot, reason: string): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    if (slot.job) this.finish(slot, { reward: 0, extracted: null, outcome: "crash", error: reason });
    if (this.closed) return;
    if (!slot.ready && ++this.startupFailures >= 3) {
      // The worker cannot start (e.g. a broken build): answer what waits instead of respawning in a loop.
      for (const job of this.queue.splice(0)) job.resolve({ reward: 0, extracted: null, outcome: "error", error: `math worker cannot start: ${reason}`, elapsedMs: 0 });
      this.startupFailures = 0;
      return;
    }
    this.replaced++;
    if (this.queue.length > 0 || this.slots.length === 0) this.spawn();
    this.dispatch();
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.job) continue;
      const job = this.queue.shift();
      if (!job) return;
      slot.job = job;
      slot.startedAt = performance.now();
      slot.worker.ref();
      slot.timer = setTimeout(() => this.timeout(slot), this.timeoutMs);
      const request: WorkerRequest = { id: job.id, expected: job.expected, generated: job.generated, options: this.equivalence };
      slot.worker.postMessage(request);
    }
    // Work is waiting beyond what starting workers will take: grow, up to the size.
    const starting = this.slots.filter((s) => !s.ready).length;
    for (let i = starting; i < this.queue.length && this.slots.length < this.size; i++) this.spawn();
  }

  private timeout(slot: Slot): void {
    if (!slot.job) return;
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    this.finish(slot, { reward: 0, extracted: null, outcome: "timeout", error: `verification exceeded ${this.timeoutMs} ms` });
    void slot.worker.terminate();
    if (this.closed) return;
    this.replaced++;
    this.spawn();
    this.dispatch();
  }
}
