// The hop from remote_agent to the agent service a user hosts (NeMo Gym 07d6b0d
// responses_api_agents/remote_agent/app.py, `_post_agent_responses` and `normalize_remote_url`):
// one `POST {agent_base_url}/v1/responses` per loop step, the service's own cookies kept for the
// rollout, no redirects followed, connection failures tried three times, and every other problem
// (a deadline, an HTTP error, a body that is not a Responses object) thrown as a RemoteAgentError
// whose message says what to fix. A reply of the wrong shape will not mend itself on a retry: it is
// a RemoteAgentTerminalError, and the rollout's failure line is marked final.
import { request, type Dispatcher } from "../http/undici_lite.js";
import { z } from "zod";
import { dispatcher, truncate } from "../http/client.js";
import { CookieJar } from "../http/cookies.js";
import { recordRetry } from "../http/retry_stats.js";
import { sleep } from "../http/timing.js";
import { ResponseObject } from "../protocol/index.js";

/** How a failed rollout of this agent is classed, as NeMo Gym writes it (`_ng_failure_class`). */
export const REMOTE_AGENT_FAILURE_CLASS = "remote_agent_error";

/** Connection attempts per call before the rollout fails, and the pause between them (NeMo Gym's). */
export const REMOTE_MAX_TRIES = 3;
const RETRY_PAUSE_MS = 500;

/** A rollout-level failure of the remote hop; a later attempt (`--resume`) may succeed. */
export class RemoteAgentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RemoteAgentError";
  }
}

/** A failure that will not fix itself on a retry (a reply that is not a Responses object). */
export class RemoteAgentTerminalError extends RemoteAgentError {
  constructor(message: string) {
    super(message);
    this.name = "RemoteAgentTerminalError";
  }
}

/**
 * `agent_base_url` without its trailing slash, or the reason it cannot be used: it must be an
 * absolute http(s) URL, and carry no query string, fragment or `user:pass@` (the path
 * `/v1/responses` is appended to it as text, and the URL is shown in logs and failure lines).
 */
export function normalizeRemoteUrl(url: string): { url: string } | { error: string } {
  const normalized = url.trim().replace(/\/+$/, "");
  if (normalized === "???") {
    return { error: "is NeMo Gym's placeholder `???`: set it to your service's address, e.g. `++<agent instance>.responses_api_agents.remote_agent.agent_base_url=http://your-agent-host:9000`" };
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(normalized);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.host === "") {
    return { error: `must be an absolute http:// or https:// URL, got ${JSON.stringify(url)}` };
  }
  // Credentials are checked first: the URL itself is never echoed when it holds them.
  if (parsed.username !== "" || parsed.password !== "") {
    return { error: "must not embed credentials (user:pass@host); give your service its credentials through its own configuration" };
  }
  if (normalized.includes("?") || normalized.includes("#") || normalized.includes(";")) {
    return { error: `must not carry a query string or fragment, got ${JSON.stringify(url)}; give your service its credentials through its own configuration` };
  }
  return { url: normalized };
}

/** Usage as NeMo Gym's response model requires it when present: every count, details included. */
const FullUsage = z.looseObject({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  total_tokens: z.number().int(),
  input_tokens_details: z.looseObject({ cached_tokens: z.number().int() }),
  output_tokens_details: z.looseObject({ reasoning_tokens: z.number().int() }),
});

/**
 * What the service must answer: a Responses object with the fields NeMo Gym's `NeMoGymResponse`
 * requires (unknown extra fields are kept), `usage` complete or absent.
 */
export const RemoteResponse = ResponseObject.extend({
  parallel_tool_calls: z.boolean(),
  tool_choice: z.union([z.string(), z.looseObject({})]),
  tools: z.array(z.unknown()),
  usage: FullUsage.nullish(),
});

/** Python's name of a JSON value's type, as NeMo Gym's message names it. */
function pythonType(value: unknown): string {
  if (value === null) return "NoneType";
  if (Array.isArray(value)) return "list";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  return "dict";
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: unknown }).cause;
  const detail = error.message || (typeof code === "string" ? code : "");
  return `${error.name}: ${detail}${cause instanceof Error && cause.message && !detail.includes(cause.message) ? ` (${cause.message})` : ""}`;
}

export interface RemoteServiceOptions {
  /** `agent_base_url`, normalized. */
  baseUrl: string;
  /** `remote_responses_timeout_secs`, in ms: the whole of one call (headers and body). */
  timeoutMs: number;
  /** Aborts a call in flight (the rollout's deadline, or its caller hanging up). */
  signal?: AbortSignal;
  /** Pause between connection attempts; NeMo Gym's 0.5 s unless a test shortens it. */
  retryPauseMs?: number;
}

/** One rollout's conversation with the service: its cookies live as long as the rollout. */
export class RemoteService {
  private readonly cookies = new CookieJar();

  constructor(private readonly options: RemoteServiceOptions) {}

  /** One call: the validated reply, exactly as the service sent it (token fields and unknown keys kept). */
  async responses(body: Record<string, unknown>): Promise<ResponseObject> {
    const { baseUrl, timeoutMs, signal } = this.options;
    const url = `${baseUrl}/v1/responses`;
    const payload = JSON.stringify(body);
    const timeoutS = timeoutMs / 1000;
    const timedOut = () =>
      new RemoteAgentError(`remote /v1/responses timed out after ${timeoutS}s (remote_responses_timeout_secs; raise it if agent calls legitimately run longer)`);
    let lastConnectError: unknown;
    for (let attempt = 1; attempt <= REMOTE_MAX_TRIES; attempt++) {
      const startedAt = Date.now();
      const controller = new AbortController();
      let expired = false;
      const timer = setTimeout(() => {
        expired = true;
        controller.abort(new Error("remote_responses_timeout_secs"));
      }, timeoutMs);
      const forward = () => controller.abort(signal!.reason);
      if (signal?.aborted) forward();
      else signal?.addEventListener("abort", forward, { once: true });
      try {
        const headers: Record<string, string> = { "content-type": "application/json" };
        const cookie = this.cookies.header();
        if (cookie) headers.cookie = cookie;
        let response: Dispatcher.ResponseData;
        try {
          // undici's request follows no redirects: a 3xx comes back as it is.
          response = await request(url, { method: "POST", headers, body: payload, dispatcher: dispatcher(), signal: controller.signal });
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          if (expired) throw timedOut();
          // Refused, reset, unreachable: connection noise worth another try.
          lastConnectError = error;
          if (attempt < REMOTE_MAX_TRIES) {
            await sleep(this.options.retryPauseMs ?? RETRY_PAUSE_MS, { signal });
            recordRetry("connection", Date.now() - startedAt);
          }
          continue;
        }
        let text: string;
        try {
          text = await response.body.text();
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          if (expired) throw timedOut();
          throw new RemoteAgentError(`reading the response body failed: ${describe(error)}`);
        }
        this.cookies.update(response.headers["set-cookie"]);
        return this.validate(response.statusCode, response.headers, text);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener("abort", forward);
      }
    }
    throw new RemoteAgentError(
      `could not reach the remote service after ${REMOTE_MAX_TRIES} tries (${describe(lastConnectError)}). Is your service running at ${baseUrl}?`,
    );
  }

  private validate(status: number, headers: Record<string, string | string[] | undefined>, text: string): ResponseObject {
    if (status < 200 || status >= 300) {
      const location = headers.location;
      const where = typeof location === "string" && location !== "" ? ` (redirect to ${location}; fix agent_base_url to point at the final address)` : "";
      throw new RemoteAgentError(`HTTP ${status}${where}: ${text.slice(0, 500)}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new RemoteAgentError(`response is not valid JSON: ${(error as Error).message}: ${truncate(text, 200)}`);
    }
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      throw new RemoteAgentError(`expected a JSON object from /v1/responses, got ${pythonType(json)}`);
    }
    const parsed = RemoteResponse.safeParse(json);
    if (!parsed.success) {
      const problems = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`);
      throw new RemoteAgentTerminalError(`remote service returned an invalid Responses API object: ${truncate(problems.join("; "), 500)}`);
    }
    return json as ResponseObject;
  }
}
