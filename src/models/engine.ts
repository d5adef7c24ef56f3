// Calls to the engine behind a model server: one or more base URLs (replicas: sticky per rollout,
// balanced, health-checked, with failover — see replicas.ts), bearer auth, bounded retries with
// backoff for transient failures, and errors that name the engine URL and what it said.
import { call, CallError, describeError, joinUrl, NO_RETRY, truncate, type RetryPolicy } from "../http/client.js";
import { adaptiveLimit, isOverloadStatus } from "../http/adaptive_limit.js";
import { recordRetry, statusRetryClass } from "../http/retry_stats.js";
import { sleep } from "../http/timing.js";
import { HttpError } from "../http/errors.js";
import { redactUrl } from "../config/url_secrets.js";
import { opensRollout, ReplicaPool, ReplicasExhaustedError, type Attempt } from "./replicas.js";
import type { RolloutRef } from "../protocol/index.js";

export interface EngineOptions {
  /** Base URLs including `/v1`; with several, each rollout sticks to one and fails over to the next. */
  baseUrls: string[];
  apiKey?: string | null;
  /** Sent with every request to the engine (NeMo Gym's `default_headers`); they win over the bearer header. */
  headers?: Readonly<Record<string, string>>;
  timeoutMs: number;
  retry: RetryPolicy;
  /** Implementation id, for error messages. */
  label: string;
}

/** `url` is the called URL as messages show it (credentials redacted). */
export type EngineReply =
  | { ok: true; baseUrl: string; url: string; status: number; json: unknown }
  | { ok: false; baseUrl: string; url: string; status: number; text: string };

/** Overload refusals tried again behind the adaptive gate before one counts against the retry budget. */
const OVERLOAD_RETRIES = 30;
const OVERLOAD_BACKOFF_MS = 50;
const OVERLOAD_BACKOFF_MAX_MS = 2_000;

export class Engine {
  /** The replicas behind `baseUrls`, with their counters (served at `GET /replicas`). */
  readonly pool: ReplicaPool;

  constructor(readonly options: EngineOptions) {
    if (options.baseUrls.length === 0) throw new Error(`${options.label}: at least one base URL is required`);
    this.headers = engineHeaders(options.apiKey, options.headers);
    this.pool = new ReplicaPool(options.baseUrls, { label: options.label, probeHeaders: this.headers });
  }

  private readonly headers: Record<string, string>;

  /** Base URLs in the order a call of `rollout` would try them now: its sticky replica first. */
  order(rollout: RolloutRef | null): string[] {
    return this.pool.preference(rollout);
  }

  /** POSTs JSON to `path` on the rollout's replica. A non-2xx reply is returned, not thrown: callers classify it. */
  async post(path: string, body: unknown, rollout: RolloutRef | null, signal?: AbortSignal): Promise<EngineReply> {
    try {
      const plan = { rollout, retry: this.options.retry, signal, opensRollout: opensRollout(body) };
      return await this.pool.call(plan, (baseUrl) => this.attempt(baseUrl, path, body, signal));
    } catch (error) {
      if (!(error instanceof ReplicasExhaustedError)) throw error;
      throw new HttpError(502, `${this.options.label}: could not get an answer from the engine after ${error.attempts} attempt(s): ${error.failures.join("; ")}`);
    }
  }

  /**
   * One try on one replica, through the replica's adaptive gate when `--concurrency auto` is on: at
   * most its limit of calls in flight, each call's latency and overload fed back to the limit, and a
   * call refused for overload (429, 503, 504) tried again behind the gate, which by then admits fewer,
   * without spending the retry budget (the refusal is the engine asking for less, not a fault).
   */
  private async attempt(baseUrl: string, path: string, body: unknown, signal?: AbortSignal): Promise<Attempt<EngineReply>> {
    const gate = adaptiveLimit(`engine ${baseUrl}`, "model");
    if (!gate) return this.attemptOnce(baseUrl, path, body, signal);
    for (let refused = 0; ; refused++) {
      const release = await gate.acquire(signal);
      const startedAt = Date.now();
      let result: Attempt<EngineReply>;
      try {
        result = await this.attemptOnce(baseUrl, path, body, signal);
      } catch (error) {
        release(error instanceof CallError && error.kind === "timeout" ? "overload" : "other");
        throw error;
      }
      const overloaded = result.retryable && isOverloadStatus(result.status);
      release(overloaded ? "overload" : result.value.ok ? "ok" : "other");
      if (!overloaded || refused >= OVERLOAD_RETRIES || signal?.aborted) return result;
      await sleep(Math.min(OVERLOAD_BACKOFF_MAX_MS, OVERLOAD_BACKOFF_MS * 2 ** Math.min(refused, 6)) * (0.5 + Math.random() / 2), signal ? { signal } : {});
      recordRetry(statusRetryClass(result.status ?? 503), Date.now() - startedAt);
    }
  }

  /** One try on one replica; connection errors and timeouts are thrown (as CallError) for the pool to handle. */
  private async attemptOnce(baseUrl: string, path: string, body: unknown, signal?: AbortSignal): Promise<Attempt<EngineReply>> {
    const url = joinUrl(baseUrl, path);
    const shown = redactUrl(url);
    const result = await call(url, {
      method: "POST",
      body,
      headers: this.headers,
      timeoutMs: this.options.timeoutMs,
      retry: NO_RETRY,
      ...(signal ? { signal } : {}),
    });
    if (result.status < 200 || result.status >= 300) {
      const retryable = result.status === 429 || result.status >= 500;
      return { value: { ok: false, baseUrl, url: shown, status: result.status, text: result.text }, retryable, status: result.status, detail: `${shown} answered ${result.status}` };
    }
    try {
      return { value: { ok: true, baseUrl, url: shown, status: result.status, json: JSON.parse(result.text) }, retryable: false };
    } catch {
      throw new HttpError(502, `${this.options.label}: engine ${shown} answered ${result.status} with a body that is not JSON: ${truncate(result.text, 300)}`);
    }
  }

  /** Like `post`, against one known base URL (e.g. a follow-up call to the engine that just answered). */
  async postTo(baseUrls: string[], path: string, body: unknown, signal?: AbortSignal): Promise<EngineReply> {
    const failures: string[] = [];
    for (const baseUrl of baseUrls) {
      const url = joinUrl(baseUrl, path);
      const shown = redactUrl(url);
      try {
        const result = await call(url, {
          method: "POST",
          body,
          headers: this.headers,
          timeoutMs: this.options.timeoutMs,
          retry: this.options.retry,
          ...(signal ? { signal } : {}),
        });
        if (result.status < 200 || result.status >= 300) return { ok: false, baseUrl, url: shown, status: result.status, text: result.text };
        try {
          return { ok: true, baseUrl, url: shown, status: result.status, json: JSON.parse(result.text) };
        } catch {
          throw new HttpError(502, `${this.options.label}: engine ${shown} answered ${result.status} with a body that is not JSON: ${truncate(result.text, 300)}`);
        }
      } catch (error) {
        if (error instanceof HttpError || signal?.aborted) throw error;
        failures.push(describeError(error));
      }
    }
    throw new HttpError(
      502,
      `${this.options.label}: could not get an answer from the engine after ${this.options.retry.attempts} attempt(s) per URL: ${failures.join("; ")}`,
    );
  }
}

/** Bearer auth, then the configured headers (names lower-cased, so `Authorization` replaces the bearer one). */
export function engineHeaders(apiKey: string | null | undefined, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  for (const [name, value] of Object.entries(extra)) headers[name.toLowerCase()] = value;
  return headers;
}

/** The engine's own error message, from OpenAI (`error.message`), vLLM (`message`) or FastAPI (`detail`) bodies. */
export function engineMessage(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, any>;
    const message = body?.error?.message ?? body?.message ?? body?.detail;
    if (message !== undefined) return truncate(typeof message === "string" ? message : JSON.stringify(message), 1000);
  } catch {
    // Not JSON: show the raw text.
  }
  return truncate(text, 1000);
}

/** A failed engine reply as the 502 the model server answers with. */
export function engineError(label: string, reply: { url: string; status: number; text: string }): HttpError {
  return new HttpError(502, `${label}: engine POST ${reply.url} answered ${reply.status}: ${engineMessage(reply.text)}`);
}
