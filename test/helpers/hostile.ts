// Hostile HTTP clients for tests and benchmarks: bodies streamed from a generator (so a test can send
// hundreds of MB without holding them), connections that never finish their request, and the RSS of
// a process, read from /proc.
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { readFileSync } from "node:fs";

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Body bytes the client got to write before the reply (or the server closing) stopped it. */
  sent: number;
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  /** A whole body, or chunks to stream (sent chunked unless a content-length header is given). */
  body?: string | Buffer | Iterable<Buffer> | AsyncIterable<Buffer>;
}

/**
 * One request over a fresh connection. Unlike fetch, the reply is taken whenever it comes, also
 * while the body is still being written (a 413 arrives mid-upload), and write errors after it are ignored.
 */
export function rawRequest(url: string, options: RawRequest = {}): Promise<RawReply> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request(
      {
        host: target.hostname.replace(/^\[|\]$/g, ""),
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? "POST",
        headers: { "content-type": "application/json", ...options.headers },
        agent: false,
      },
      (res) => {
        answered = true;
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, sent }));
        res.on("error", reject);
      },
    );
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const body = options.body;
    if (body === undefined || typeof body === "string" || Buffer.isBuffer(body)) {
      sent = body === undefined ? 0 : Buffer.byteLength(body);
      req.end(body);
      return;
    }
    void (async () => {
      try {
        for await (const chunk of body as AsyncIterable<Buffer>) {
          if (answered || req.destroyed) return;
          sent += chunk.length;
          if (!req.write(chunk)) await writable(req);
        }
        if (!answered && !req.destroyed) req.end();
      } catch {
        // The server closed the connection mid-upload: its reply (or the error) settles the promise.
      }
    })();
  });
}

/** Resolves when a request can take more body, or is gone. */
function writable(req: ReturnType<typeof request>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off("drain", done);
      req.off("close", done);
      resolve();
    };
    req.on("drain", done);
    req.on("close", done);
  });
}

/**
 * The start of a body, then nothing until `waitMs` passes: for a reply that must come before the
 * body does (a limit checked against content-length), without racing the server closing the socket.
 */
export async function* bodyStartOnly(waitMs = 10_000): AsyncGenerator<Buffer> {
  yield Buffer.from('{"pad":"');
  await new Promise((resolve) => setTimeout(resolve, waitMs).unref());
}

/** `total` bytes of a JSON object `{"pad":"xxx…"}`, made 1 MiB at a time. */
export function* jsonBodyOf(total: number, chunk = 1024 * 1024): Generator<Buffer> {
  const head = Buffer.from('{"pad":"');
  const tail = Buffer.from('"}');
  yield head;
  let left = total - head.length - tail.length;
  const block = Buffer.alloc(chunk, 0x78);
  while (left > 0) {
    const n = Math.min(left, chunk);
    yield n === chunk ? block : block.subarray(0, n);
    left -= n;
  }
  yield tail;
}

/** JSON nested `depth` levels: `[[[…]]]`. */
export function deepJson(depth: number): string {
  return `${"[".repeat(depth)}${"]".repeat(depth)}`;
}

export interface SlowClient {
  /** Resolves when the server closes the connection, with the first line it answered (if any). */
  closed: Promise<string>;
  socket: Socket;
}

/**
 * A slow-loris client: sends the request line and headers (all, or only `partialHeaders`), then at most
 * a first byte of a body it announced as `contentLength`, and then nothing, ever. Only the server can end it.
 */
export function slowClient(url: string, options: { path: string; partialHeaders?: boolean; contentLength?: number }): SlowClient {
  const target = new URL(url);
  const socket = connect(Number(target.port), target.hostname);
  let answer = "";
  socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
  socket.on("error", () => {});
  socket.on("connect", () => {
    const headers = `POST ${options.path} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\n`;
    if (options.partialHeaders) socket.write(headers);
    else socket.write(`${headers}Content-Length: ${options.contentLength ?? 1000}\r\n\r\n{`);
  });
  const closed = new Promise<string>((resolve) => socket.on("close", () => resolve(answer.split("\r\n")[0] ?? "")));
  return { closed, socket };
}

/** Resident set size of a process, in MB (Linux). */
export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) / 1024;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** An `example_single_tool_call` row (as in its example.jsonl): two model calls and one tool call. */
export function weatherRow(question = "what's it like in sf?"): Record<string, unknown> {
  return {
    responses_create_params: {
      input: [
        { content: "You are a helpful personal assistant.", role: "developer" },
        { content: question, role: "user" },
      ],
      tools: [
        {
          name: "get_weather",
          parameters: { type: "object", properties: { city: { type: "string", description: "" } }, required: ["city"], additionalProperties: false },
          strict: true,
          type: "function",
          description: "",
        },
      ],
    },
  };
}
