// The one HTTP client: `undici.request` over a single pooled keep-alive dispatcher (Node 20's global
// fetch bundles an older undici and opens more sockets), with per-call timeouts and bounded retries.
// A URL of a server listening in this same process is served without a socket (inprocess.ts).
import { EventEmitter } from "node:events";
import { newAgent, type Agent } from "./undici_lite.js";
import { requestText, type TextResponse } from "./text_request.js";
import { dispatchInProcess, localTarget, type LocalResponse } from "./inprocess.js";
import type { CookieJar } from "./cookies.js";
import { redactUrl, redactUrlsIn, urlCredentials } from "../config/url_secrets.js";
import { recordRetry, statusRetryClass, type RetryClass } from "./retry_stats.js";
import { backoffMs, sleep } from "./timing.js";

let sharedDispatcher: Agent | undefined;

/** One keep-alive pool for the whole process; connections are reused across calls. */
export function dispatcher(): Agent {
  sharedDispatcher ??= newAgent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    connections: 1024,
    // Long model calls: the per-call timeout below is the one that matters.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  return sharedDispatcher;
}

export async function closeDispatcher(): Promise<void> {
  const d = sharedDispatcher;
  sharedDispatcher = undefined;
  if (d) await d.close();
}

export interface RetryPolicy {
  /** Total attempts including the first (1 = no retry). */
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  /** The statuses tried again; default 429 and 5xx. */
  retryStatus?: (status: number) => boolean;
  /** Whether an attempt past its deadline is tried again (default not: see `call`). */
  retryTimeouts?: boolean;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, initialDelayMs: 500, maxDelayMs: 8_000 };
export const NO_RETRY: RetryPolicy = { attempts: 1, initialDelayMs: 0, maxDelayMs: 0 };

export interface CallOptions {
  method?: "GET" | "POST" | "DELETE" | "PUT";
  body?: unknown;
  headers?: Record<string, string>;
  cookies?: CookieJar;
  /** Per-attempt deadline. Default 600 s. */
  timeoutMs?: number;
  retry?: RetryPolicy;
  signal?: AbortSignal;
}

export interface CallResult {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A call that failed in a way a caller can classify: transport error, timeout, or HTTP status.
 * Its message and `url` show the URL with secrets redacted: errors end up in logs, failure files
 * and replies to other servers.
 */
export class CallError extends Error {
  readonly url: string;

  constructor(
    message: string,
    url: string,
    readonly kind: "connection" | "timeout" | "status",
    readonly status?: number,
    readonly responseText?: string,
  ) {
    super(message);
    this.name = "CallError";
    this.url = redactUrl(url);
  }
}

function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * The abort signal of one attempt, as undici accepts it: an EventEmitter with `aborted` and `reason`.
 * An AbortController is an EventTarget, several times dearer to make and to listen to, and every
 * hop of every rollout makes one.
 */
class CallSignal extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit("abort");
  }
}

/**
 * Sends one HTTP request, retrying connection errors, 429 and 5xx within `retry.attempts`.
 * Returns the final response whatever its status (callers decide what a 4xx means);
 * throws CallError only when no response came back at all within the budget.
 */
export async function call(url: string, options: CallOptions = {}): Promise<CallResult> {
  // `user:pass@` in the URL is sent as Basic auth (undici would drop it); messages show it redacted.
  const target = urlCredentials(url);
  const shown = () => redactUrl(url);
  const policy = options.retry ?? DEFAULT_RETRY;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  let lastError: CallError | undefined;
  // The failed attempt a retry follows: its class and start, so the retry's cost can be counted.
  let failed: { retryClass: RetryClass; startedAt: number } | undefined;
  for (let attempt = 0; attempt < policy.attempts; attempt++) {
    if (attempt > 0) await sleep(backoffMs(policy, attempt - 1), { signal: options.signal });
    if (failed) recordRetry(failed.retryClass, Date.now() - failed.startedAt);
    const startedAt = Date.now();
    const headers: Record<string, string> = { ...options.headers };
    if (target.authorization) {
      for (const name of Object.keys(headers)) if (name.toLowerCase() === "authorization") delete headers[name];
      headers.authorization = target.authorization;
    }
    if (payload !== undefined) headers["content-type"] = "application/json";
    const cookie = options.cookies?.header();
    if (cookie) headers.cookie = cookie;
    // One signal and one timer per attempt: AbortSignal.timeout + AbortSignal.any cost several times
    // more, and this runs for every hop of every rollout.
    const signal = new CallSignal();
    const timeout = { aborted: false };
    const timer = setTimeout(() => {
      timeout.aborted = true;
      signal.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const forward = () => signal.abort(options.signal!.reason);
    if (options.signal) {
      if (options.signal.aborted) forward();
      else options.signal.addEventListener("abort", forward, { once: true });
    }
    const method = options.method ?? (payload === undefined ? "GET" : "POST");
    // A server of this process is reached without a socket, with the same bytes in and out (inprocess.ts).
    const local = localTarget(target.url, method);
    try {
    let response: LocalResponse | TextResponse;
    try {
      response = local
        ? await dispatchInProcess(local.server, { method, path: local.path, headers, body: payload, signal })
        : await requestText(target.url, { method, headers, body: payload, dispatcher: dispatcher(), signal });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      if (timeout.aborted) {
        // Not retried unless the policy says so: the server may still be working on it, and a blind
        // replay of a slow POST multiplies the worst case by the attempt count. The caller's deadline decides.
        const timedOut = new CallError(`${shown()} did not answer within ${Math.round(timeoutMs / 1000)} s`, url, "timeout");
        if (!policy.retryTimeouts) throw timedOut;
        lastError = timedOut;
        failed = { retryClass: "timeout", startedAt };
        continue;
      }
      lastError = new CallError(`could not reach ${shown()}: ${describeError(error)}`, url, "connection");
      failed = { retryClass: "connection", startedAt };
      continue;
    }
    let text: string;
    try {
      text = "text" in response ? response.text : await response.body.text();
    } catch (error) {
      lastError = new CallError(`${shown()}: connection lost while reading the reply: ${describeError(error)}`, url, "connection");
      failed = { retryClass: "connection", startedAt };
      continue;
    }
    options.cookies?.update(response.headers["set-cookie"]);
    const result = { status: response.statusCode, text, headers: response.headers };
    if ((policy.retryStatus ?? isRetryableStatus)(response.statusCode) && attempt + 1 < policy.attempts) {
      lastError = new CallError(`${shown()} answered ${response.statusCode}`, url, "status", response.statusCode, text);
      failed = { retryClass: statusRetryClass(response.statusCode), startedAt };
      continue;
    }
    return result;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", forward);
    }
  }
  throw lastError ?? new CallError(`${shown()}: no attempt made`, url, "connection");
}

/** `call` for JSON endpoints: a non-2xx reply becomes a CallError carrying the status and body. */
export async function callJson<T = unknown>(url: string, options: CallOptions = {}): Promise<T> {
  const result = await call(url, options);
  if (result.status < 200 || result.status >= 300) {
    throw new CallError(
      `${options.method ?? (options.body === undefined ? "GET" : "POST")} ${redactUrl(url)} answered ${result.status}: ${truncate(result.text, 500)}`,
      url,
      "status",
      result.status,
      result.text,
    );
  }
  try {
    return JSON.parse(result.text) as T;
  } catch {
    throw new CallError(`${redactUrl(url)} answered ${result.status} with a body that is not JSON: ${truncate(result.text, 200)}`, url, "status", result.status, result.text);
  }
}

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: string }).code;
  const cause = (error as { cause?: unknown }).cause;
  const causeText = cause instanceof Error ? ` (${cause.message})` : "";
  // Transport errors may quote the URL they failed on; it must not carry its secrets into a message.
  return redactUrlsIn(`${code ? `${code}: ` : ""}${error.message}${causeText}`);
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;
}

/** Joins a base URL and a path without doubling or dropping slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
