// A client of one OpenEnv WebSocket session (huggingface/OpenEnv 385de5eb,
// src/openenv/core/env_server/http_server.py `/ws` and types.py): the server makes one environment
// instance per connection; the client sends `{type: reset|step|state|close, data}` and gets back, one
// for one and in order, `{type: observation|state, data}` or `{type: error, data: {message, code}}`.
// A message the server sends unasked (CAPACITY_REACHED, SESSION_ERROR when the connection is refused)
// answers the next request.
import WebSocket from "ws";

export interface OpenEnvReply {
  type: string;
  data: Record<string, unknown>;
}

/** An OpenEnv `{type: "error"}` reply, with its code (VALIDATION_ERROR, EXECUTION_ERROR, …). */
export class OpenEnvError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`OpenEnv ${code}: ${message}`);
    this.name = "OpenEnvError";
  }
}

/** `http://host:port/prefix` → `ws://host:port/prefix/ws`. */
export function socketUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/ws`;
  return url.toString();
}

export class OpenEnvSocket {
  private readonly waiting: Array<{ resolve: (reply: OpenEnvReply) => void; reject: (error: Error) => void }> = [];
  private readonly unasked: OpenEnvReply[] = [];
  private closedBecause: string | undefined;

  private constructor(
    private readonly socket: WebSocket,
    private readonly timeoutMs: number,
  ) {
    socket.on("message", (raw) => {
      let reply: OpenEnvReply;
      try {
        reply = JSON.parse(String(raw)) as OpenEnvReply;
      } catch {
        reply = { type: "error", data: { code: "INVALID_JSON", message: `the server sent a frame that is not JSON: ${String(raw).slice(0, 200)}` } };
      }
      const next = this.waiting.shift();
      if (next) next.resolve(reply);
      else this.unasked.push(reply);
    });
    socket.on("close", (code) => this.fail(`the connection closed (code ${code})`));
    socket.on("error", (error) => this.fail(error.message));
  }

  private fail(reason: string): void {
    this.closedBecause ??= reason;
    for (const pending of this.waiting.splice(0)) pending.reject(new Error(`OpenEnv session: ${this.closedBecause}`));
  }

  static open(baseUrl: string, timeoutMs: number): Promise<OpenEnvSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(socketUrl(baseUrl), { handshakeTimeout: timeoutMs });
      socket.once("open", () => resolve(new OpenEnvSocket(socket, timeoutMs)));
      socket.once("error", (error) => reject(new Error(`could not open an OpenEnv session at ${socketUrl(baseUrl)}: ${error.message}`)));
    });
  }

  /** Sends one message and waits for its reply; an error reply throws OpenEnvError. */
  async request(type: string, data?: Record<string, unknown>): Promise<OpenEnvReply> {
    const early = this.unasked.shift();
    const reply = early ?? (await this.exchange(type, data));
    if (reply.type === "error") throw new OpenEnvError(String(reply.data?.code ?? "ERROR"), String(reply.data?.message ?? JSON.stringify(reply.data)));
    return reply;
  }

  private exchange(type: string, data?: Record<string, unknown>): Promise<OpenEnvReply> {
    if (this.closedBecause !== undefined) return Promise.reject(new Error(`OpenEnv session: ${this.closedBecause}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`OpenEnv session: no reply to "${type}" within ${Math.round(this.timeoutMs / 1000)} s`));
        this.socket.terminate();
      }, this.timeoutMs);
      this.waiting.push({
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.socket.send(JSON.stringify(data === undefined ? { type } : { type, data }));
    });
  }

  /** Ends the session as OpenEnv's client does: a `close` message, then the socket. */
  close(): void {
    if (this.closedBecause === undefined && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ type: "close" }));
    this.closedBecause ??= "closed by the client";
    this.socket.close();
  }
}
