// The agent's two upstreams — the environment and the model server — as small clients whose
// failures say which side failed. A rollout's caller (the collector) classifies failures by that:
// a model error and an environment error are different problems with different fixes.
import { call, CallError, joinUrl, truncate, NO_RETRY, type CallResult } from "../http/client.js";
import type { CookieJar } from "../http/cookies.js";
import { HttpError } from "../http/errors.js";
import { ResponseObject } from "../protocol/index.js";
import { surelyResponseObject } from "../protocol/fast_check.js";

export type FailureClass = "model_error" | "env_error";

/** What went wrong on the wire: no answer, no answer in time, a non-2xx status, or a body that is not the protocol. */
export interface UpstreamFault {
  kind: "connection" | "timeout" | "status" | "body";
  /** The upstream's HTTP status, for `status`. */
  status?: number;
}

/** An upstream failed: answered by /run as 502 (504 on a timeout) with `{detail, failure_class}`. */
export class UpstreamError extends HttpError {
  constructor(
    readonly failureClass: FailureClass,
    statusCode: number,
    message: string,
    /** How the upstream failed, for agents that treat infrastructure blips apart (undefined when not known). */
    readonly fault?: UpstreamFault,
  ) {
    super(statusCode, message, { detail: message, failure_class: failureClass });
    this.name = "UpstreamError";
  }
}

export interface UpstreamOptions {
  /** Instance name, for messages. */
  name: string;
  url: string;
  /** The rollout's cookies: sent on every call, updated from every reply. */
  cookies: CookieJar;
  timeoutMs: number;
  /** Aborts in-flight calls when the rollout's caller goes away. */
  signal?: AbortSignal;
}

/**
 * One attempt per call. Tool calls are not idempotent (think `increment_counter`), and a 5xx from
 * an environment or from our own model adapter (which already retried the engine) is an answer, not
 * a blip; retrying whole rollouts is the collector's job.
 */
async function send(
  failureClass: FailureClass,
  who: string,
  options: UpstreamOptions,
  path: string,
  body: unknown,
  headers?: Record<string, string>,
  method: "GET" | "POST" = "POST",
): Promise<CallResult> {
  const url = joinUrl(options.url, path);
  try {
    return await call(url, {
      method,
      body: method === "GET" ? undefined : body,
      headers,
      cookies: options.cookies,
      timeoutMs: options.timeoutMs,
      retry: NO_RETRY,
      signal: options.signal,
    });
  } catch (error) {
    if (!(error instanceof CallError)) throw error;
    throw new UpstreamError(failureClass, error.kind === "timeout" ? 504 : 502, `${who}: ${error.message}`, { kind: error.kind === "timeout" ? "timeout" : error.kind === "status" ? "status" : "connection", status: error.status });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class EnvironmentClient {
  constructor(private readonly options: UpstreamOptions) {}

  private get who(): string {
    return `environment "${this.options.name}"`;
  }

  /** A route whose non-2xx reply ends the rollout (seed, verify). Returns the body text. */
  private async required(path: string, body: unknown): Promise<string> {
    const result = await send("env_error", this.who, this.options, path, body);
    if (result.status < 200 || result.status >= 300) {
      throw new UpstreamError("env_error", 502, `${this.who} ${path} answered ${result.status}: ${truncate(result.text, 2000)}`, { kind: "status", status: result.status });
    }
    return result.text;
  }

  /** The reply, parsed (undefined when not JSON): it may carry `attached_tools` (attached_tools.ts). */
  async seedSession(row: unknown): Promise<unknown> {
    return parseJson(await this.required("/seed_session", row));
  }

  /** The `/verify` reply, as JSON text exactly as the environment sent it. */
  async verify(request: unknown): Promise<string> {
    const text = await this.required("/verify", request);
    if (parseJson(text) === undefined) {
      throw new UpstreamError("env_error", 502, `${this.who} /verify answered a body that is not JSON: ${truncate(text, 500)}`);
    }
    return text;
  }

  /**
   * The same environment and session, but calls are not aborted when the rollout's caller goes away
   * (the deadline still holds): for releasing what the rollout holds after it was cancelled.
   */
  detached(): EnvironmentClient {
    return new EnvironmentClient({ ...this.options, signal: undefined });
  }

  /** Any other route of the environment whose non-2xx ends the rollout (a Gymnasium `/reset`, `/step`): its JSON body. */
  async post(path: string, body: unknown): Promise<unknown> {
    const text = await this.required(path, body);
    const json = parseJson(text);
    if (json === undefined) throw new UpstreamError("env_error", 502, `${this.who} ${path} answered a body that is not JSON: ${truncate(text, 500)}`);
    return json;
  }

  /**
   * A tool call. Whatever the status, the body text is the tool's output: a 422 detail or a 500
   * string tells the model what went wrong, so it can try again. Only an unreachable environment throws.
   */
  async tool(name: string, args: unknown): Promise<string> {
    // One path segment whatever the model named the tool: it cannot reach /verify via "../verify".
    const result = await send("env_error", this.who, this.options, `/${encodeURIComponent(name)}`, args);
    return result.text;
  }

  /** Forwarded as is: status and body. */
  async aggregateMetrics(body: unknown): Promise<CallResult> {
    return send("env_error", this.who, this.options, "/aggregate_metrics", body);
  }

  /** `GET /aggregate_metrics_scope`, forwarded as is (a 404 from an environment without the route too). */
  async aggregateMetricsScope(): Promise<CallResult> {
    return send("env_error", this.who, this.options, "/aggregate_metrics_scope", undefined, undefined, "GET");
  }
}

export class ModelClient {
  constructor(
    private readonly options: UpstreamOptions,
    /** Extra headers on every model call, e.g. the rollout key the replay model needs. */
    private readonly headers: Record<string, string> = {},
  ) {}

  async responses(body: Record<string, unknown>): Promise<ResponseObject> {
    const who = `model server "${this.options.name}"`;
    const result = await send("model_error", who, this.options, "/v1/responses", body, this.headers);
    if (result.status < 200 || result.status >= 300) {
      throw new UpstreamError("model_error", 502, `${who} answered ${result.status}: ${truncate(result.text, 2000)}`, { kind: "status", status: result.status });
    }
    const json = parseJson(result.text);
    const parsed = surelyResponseObject(json) ? undefined : ResponseObject.safeParse(json);
    if (parsed && !parsed.success) {
      const problem = parsed.error.issues[0];
      const where = problem ? `${problem.path.join(".") || "(body)"}: ${problem.message}` : "invalid";
      throw new UpstreamError("model_error", 502, `${who} answered a body that is not a Responses object (${where}): ${truncate(result.text, 500)}`);
    }
    // The reply as sent (not zod's copy): token fields and unknown keys pass through untouched.
    return json as ResponseObject;
  }
}
