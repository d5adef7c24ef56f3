// A client of an Open Reward Standard server (openrewardstandard/python-sdk a399408, src/ors/server.py,
// types.py, client/session.py): a session id comes from `POST /create_session` (a server-sent event
// `task_id`), `POST /create` (header X-Session-ID) starts the task's environment, `GET /{env}/prompt`
// and `GET /{env}/task_tools` (else `/{env}/tools`) describe it, `POST /{env}/call` runs a tool and
// streams its RunToolOutput as `chunk`… `end` events, `POST /delete` then `POST /delete_session` end it.
import { call, CallError, truncate, type CallResult } from "../../http/client.js";

export interface OrsBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  detail?: unknown;
}

export interface OrsToolSpec {
  name: string;
  description?: string;
  input_schema?: unknown;
}

export type OrsToolResult =
  | { ok: true; output: { blocks: OrsBlock[]; metadata?: unknown; reward?: number | null; finished?: boolean } }
  | { ok: false; error: string };

/** The events of a server-sent-event body, in order. */
export function sseEvents(body: string): Array<{ event: string; data: string }> {
  const events: Array<{ event: string; data: string }> = [];
  for (const block of body.split(/\r?\n\r?\n/)) {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(":") || line === "") continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0 || event !== "message") events.push({ event, data: data.join("\n") });
  }
  return events;
}

/** The text of a prompt's or a tool output's blocks (images are named, not inlined). */
export function blocksText(blocks: readonly OrsBlock[]): string {
  return blocks.map((b) => (b.type === "text" ? (b.text ?? "") : `[${b.type}${b.mimeType ? ` ${b.mimeType}` : ""}]`)).join("\n");
}

export class OrsClient {
  constructor(
    readonly baseUrl: string,
    private readonly options: { apiKey?: string; timeoutMs: number },
  ) {}

  private headers(sid?: string): Record<string, string> {
    const headers: Record<string, string> = { accept: "application/json, text/event-stream" };
    if (this.options.apiKey) headers["X-API-Key"] = this.options.apiKey;
    if (sid) headers["X-Session-ID"] = sid;
    return headers;
  }

  private async send(method: "GET" | "POST", path: string, body: unknown, sid?: string): Promise<CallResult> {
    const url = `${this.baseUrl.replace(/\/+$/, "")}${path}`;
    // Tool calls are not idempotent: never replayed blindly.
    const result = await call(url, { method, body, headers: this.headers(sid), timeoutMs: this.options.timeoutMs, retry: { attempts: 1, initialDelayMs: 0, maxDelayMs: 0 } });
    if (result.status < 200 || result.status >= 300) {
      throw new CallError(`${method} ${path} answered ${result.status}: ${truncate(result.text, 300)}`, url, "status", result.status, result.text);
    }
    return result;
  }

  private async json(method: "GET" | "POST", path: string, body?: unknown, sid?: string): Promise<unknown> {
    const result = await this.send(method, path, body, sid);
    try {
      return JSON.parse(result.text);
    } catch {
      throw new Error(`${method} ${path} answered a body that is not JSON: ${truncate(result.text, 200)}`);
    }
  }

  /** The result a streamed reply ends with (the `chunk` and `end` data joined), or its `error` event. */
  private async streamed(path: string, body: unknown, sid?: string): Promise<{ taskId?: string; result?: unknown }> {
    const result = await this.send("POST", path, body, sid);
    let taskId: string | undefined;
    const chunks: string[] = [];
    for (const { event, data } of sseEvents(result.text)) {
      if (event === "task_id") taskId = data.trim();
      else if (event === "chunk") chunks.push(data);
      else if (event === "error") throw new Error(`${path} streamed an error: ${data || "(no message)"}`);
      else if (event === "end") {
        chunks.push(data);
        const text = chunks.join("");
        return { taskId, result: text === "" ? undefined : JSON.parse(text) };
      }
    }
    if (taskId !== undefined && path === "/create_session") return { taskId };
    throw new Error(`${path}: the event stream ended without an \`end\` event`);
  }

  async listEnvironments(): Promise<string[]> {
    return (await this.json("GET", "/list_environments")) as string[];
  }

  /** A new session id, and the task's environment started in it. */
  async openSession(task: { env_name?: string; split?: string; index?: number; task_spec?: unknown }): Promise<string> {
    const { taskId, result } = await this.streamed("/create_session", {});
    const sid = (result as { sid?: string } | undefined)?.sid ?? taskId;
    if (!sid) throw new Error("/create_session gave no session id");
    await this.json("POST", "/create", task, sid);
    return sid;
  }

  async prompt(env: string, sid: string): Promise<OrsBlock[]> {
    return (await this.json("GET", `/${encodeURIComponent(env)}/prompt`, undefined, sid)) as OrsBlock[];
  }

  async tools(env: string, sid: string): Promise<OrsToolSpec[]> {
    try {
      return ((await this.json("GET", `/${encodeURIComponent(env)}/task_tools`, undefined, sid)) as { tools: OrsToolSpec[] }).tools;
    } catch (error) {
      if (!(error instanceof CallError && error.status === 404)) throw error;
      return ((await this.json("GET", `/${encodeURIComponent(env)}/tools`, undefined, sid)) as { tools: OrsToolSpec[] }).tools;
    }
  }

  async callTool(env: string, sid: string, name: string, input: Record<string, unknown>): Promise<OrsToolResult> {
    const { result } = await this.streamed(`/${encodeURIComponent(env)}/call`, { name, input }, sid);
    return result as OrsToolResult;
  }

  /** Tears the environment down and ends the session (both attempted; the first failure is thrown). */
  async closeSession(sid: string): Promise<void> {
    const outcomes = await Promise.allSettled([this.send("POST", "/delete", undefined, sid)]);
    const ended = await Promise.allSettled([this.send("POST", "/delete_session", undefined, sid)]);
    const failed = [...outcomes, ...ended].find((o) => o.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }
}
