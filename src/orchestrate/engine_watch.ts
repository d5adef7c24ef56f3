// Deciding that the engine is gone, so a run stops at once instead of pushing every remaining
// rollout through retries (issue 18). Two ways an engine is declared unavailable:
// - the self-hosted engine (`--model-server-cmd`) ends by itself after it was ready: at once;
// - every replica (base URL) of a model instance has refused connections for the whole of
//   `--model-unreachable-timeout` seconds. Only connection errors count: any HTTP answer, even a 500
//   or a 401, proves something is listening, and a slow answer is a busy engine, not a dead one.
// The replicas are probed with `GET <base>/models` every few seconds (every second while one is
// unreachable), and at once whenever a rollout fails, so the scheduler can tell a rollout's own
// failure from one the engine caused. (No upstream counterpart: NeMo Gym at 07d6b0d has no such stop.)
import { setMaxListeners } from "node:events";
import { call, CallError, joinUrl, NO_RETRY } from "../http/client.js";
import { sleep } from "../http/timing.js";
import { redactUrl } from "../config/url_secrets.js";
import type { EngineGate } from "../collect/scheduler.js";

export interface EngineWatchOptions {
  /** Engine base URLs by model instance (readiness.ts `engineUrls`). */
  engines: Array<{ instance: string; url: string }>;
  /** How long every replica of an instance must have been unreachable; 0 = never stop for that. */
  unreachableWindowMs: number;
  /** Probe period while every replica answers. */
  probeEveryMs?: number;
  /** Probe period while a replica is unreachable. */
  probeDownEveryMs?: number;
  probeTimeoutMs?: number;
  onNotice?: (message: string) => void;
}

interface Replica {
  instance: string;
  url: string;
  /** When it first refused a connection since it last answered; undefined while it answers. */
  unreachableSince?: number;
  lastError?: string;
}

export class EngineUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EngineUnavailableError";
  }
}

/** A run-long signal that every rollout in flight listens to (one listener each, removed after it). */
function runLongController(): AbortController {
  const controller = new AbortController();
  // As many listeners as rollouts in flight (--concurrency): not a leak, so no warning past Node's 10.
  setMaxListeners(0, controller.signal);
  return controller;
}

export class EngineWatch implements EngineGate {
  private readonly controller = runLongController();
  private readonly replicas: Replica[];
  private readonly options: Required<Omit<EngineWatchOptions, "onNotice">> & Pick<EngineWatchOptions, "onNotice">;
  private timer: NodeJS.Timeout | undefined;
  private probing: Promise<void> | undefined;
  private lastRound = 0;

  constructor(options: EngineWatchOptions) {
    this.options = { probeEveryMs: 5_000, probeDownEveryMs: 1_000, probeTimeoutMs: 5_000, ...options };
    this.replicas = options.engines.map((e) => ({ instance: e.instance, url: e.url }));
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the engine was declared unavailable, once it was. */
  get reason(): string | undefined {
    return this.signal.aborted ? (this.signal.reason as Error).message : undefined;
  }

  /** Declares the engine unavailable (the first reason wins). */
  down(reason: string): void {
    if (this.signal.aborted) return;
    this.controller.abort(new EngineUnavailableError(reason));
    this.stop();
  }

  /** Starts probing in the background (never keeps the process alive). */
  start(): void {
    if (this.timer || this.replicas.length === 0 || this.options.unreachableWindowMs <= 0) return;
    this.timer = setInterval(() => {
      const period = this.anyUnreachable() ? this.options.probeDownEveryMs : this.options.probeEveryMs;
      if (Date.now() - this.lastRound >= period) void this.probeAll();
    }, Math.min(this.options.probeEveryMs, this.options.probeDownEveryMs));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  async failedBecauseDown(): Promise<boolean> {
    if (this.signal.aborted) return true;
    if (this.replicas.length === 0 || this.options.unreachableWindowMs <= 0) return false;
    await this.probeAll();
    // While a whole instance is unreachable the failure is held: the window decides whether the
    // engine is gone (true) or was only away a moment (false, and the failure is the rollout's).
    while (!this.signal.aborted && this.someInstanceUnreachable()) {
      await sleep(this.options.probeDownEveryMs);
      await this.probeAll();
    }
    return this.signal.aborted;
  }

  private anyUnreachable(): boolean {
    return this.replicas.some((r) => r.unreachableSince !== undefined);
  }

  private someInstanceUnreachable(): boolean {
    const byInstance = new Map<string, boolean>();
    for (const r of this.replicas) byInstance.set(r.instance, (byInstance.get(r.instance) ?? true) && r.unreachableSince !== undefined);
    return [...byInstance.values()].some(Boolean);
  }

  /** One probe of every replica (concurrent callers share the round in progress), then the verdict. */
  probeAll(): Promise<void> {
    this.probing ??= (async () => {
      this.lastRound = Date.now();
      await Promise.all(this.replicas.map((r) => this.probe(r)));
      this.judge();
    })().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  private async probe(replica: Replica): Promise<void> {
    try {
      await call(joinUrl(replica.url, "/models"), { timeoutMs: this.options.probeTimeoutMs, retry: NO_RETRY });
      if (replica.unreachableSince !== undefined) this.options.onNotice?.(`model "${replica.instance}" answers again at ${redactUrl(replica.url)}`);
      replica.unreachableSince = undefined;
    } catch (error) {
      // A timeout is an engine too busy to answer quickly, not a missing one.
      if (!(error instanceof CallError) || error.kind !== "connection") return;
      if (replica.unreachableSince === undefined) {
        replica.unreachableSince = Date.now();
        this.options.onNotice?.(
          `model "${replica.instance}" at ${redactUrl(replica.url)} is unreachable (${error.message}); the run stops if every replica of it stays so for ${this.options.unreachableWindowMs / 1000} s (--model-unreachable-timeout)`,
        );
      }
      replica.lastError = error.message;
    }
  }

  private judge(): void {
    const now = Date.now();
    const instances = [...new Set(this.replicas.map((r) => r.instance))];
    for (const instance of instances) {
      const replicas = this.replicas.filter((r) => r.instance === instance);
      if (!replicas.every((r) => r.unreachableSince !== undefined && now - r.unreachableSince >= this.options.unreachableWindowMs)) continue;
      const urls = replicas.map((r) => redactUrl(r.url)).join(", ");
      const plural = replicas.length === 1 ? "its engine" : `all ${replicas.length} replicas of it`;
      this.down(`model "${instance}": ${plural} (${urls}) unreachable for ${this.options.unreachableWindowMs / 1000} s (${replicas[0]!.lastError ?? "connection refused"})`);
      return;
    }
  }
}
