// requestText against undici's own `request` API on the same server: the same status, headers and
// text for every reply shape a socket hop can see, and the same outcome for aborts and lost
// connections (text_request.ts is what `call()` now uses for every socket hop).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { EventEmitter } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newAgent, request } from "./undici_lite.js";
import { decodeChunks, requestText, type TextResponse } from "./text_request.js";

const EURO = Buffer.from("€", "utf8"); // three bytes, sent split across two writes below

let server: http.Server;
let base: string;
const agent = newAgent({ keepAliveTimeout: 5_000, connections: 16 });
const sockets = new Set<import("node:net").Socket>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path === "/echo") {
        res.setHeader("content-type", "application/json");
        res.setHeader("set-cookie", ["a=1; Path=/", "b=2; Path=/"]);
        res.setHeader("x-Mixed-Case", "v");
        res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body }));
      } else if (path === "/bom") {
        res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"b"}')]));
      } else if (path === "/split") {
        // A multi-byte character split across chunks, and a chunked reply with no length.
        res.write(Buffer.concat([Buffer.from('{"x":"'), EURO.subarray(0, 1)]));
        setTimeout(() => res.end(Buffer.concat([EURO.subarray(1), Buffer.from('"}')])), 5);
      } else if (path === "/empty") {
        res.statusCode = 204;
        res.end();
      } else if (path === "/error") {
        res.statusCode = 503;
        res.setHeader("retry-after", "1");
        res.end("busy");
      } else if (path === "/early-hints") {
        res.writeEarlyHints({ link: "</a.css>; rel=preload" });
        res.end("after hints");
      } else if (path === "/hang") {
        // Never answers: only an abort ends the request.
      } else if (path === "/half") {
        res.writeHead(200, { "content-length": "100" });
        res.write("only part");
        setTimeout(() => res.socket?.destroy(), 20);
      } else if (path === "/slow-body") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("first");
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await agent.destroy();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

type Method = "GET" | "POST";

async function viaRequestApi(path: string, method: Method, body?: string): Promise<{ status: number; headers: unknown; text: string }> {
  const response = await request(`${base}${path}`, { method, headers: { "content-type": "application/json" }, ...(body !== undefined ? { body } : {}), dispatcher: agent });
  return { status: response.statusCode, headers: withoutClock(response.headers), text: await response.body.text() };
}

async function viaRequestText(path: string, method: Method, body?: string): Promise<{ status: number; headers: unknown; text: string }> {
  const response: TextResponse = await requestText(`${base}${path}`, { method, headers: { "content-type": "application/json" }, ...(body !== undefined ? { body } : {}), dispatcher: agent });
  return { status: response.statusCode, headers: withoutClock(response.headers), text: await response.body.text() };
}

function withoutClock(headers: Record<string, unknown>): Record<string, unknown> {
  const { date: _date, ...rest } = headers;
  return rest;
}

/** An abort source shaped like `call()`'s (an EventEmitter with `aborted` and `reason`). */
class Signal extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  abort(reason: unknown): void {
    this.aborted = true;
    this.reason = reason;
    this.emit("abort");
  }
}

describe("requestText", () => {
  it.each([
    ["/echo", "POST", JSON.stringify({ q: "é 😀", n: [1, 2.5] })],
    ["/echo?x=1&y=%20", "GET", undefined],
    ["/bom", "GET", undefined],
    ["/split", "GET", undefined],
    ["/empty", "POST", "{}"],
    ["/error", "POST", "{}"],
    ["/early-hints", "GET", undefined],
  ] as const)("gives what undici's request API gives for %s (%s)", async (path, method, body) => {
    const expected = await viaRequestApi(path, method, body);
    const actual = await viaRequestText(path, method, body);
    expect(actual).toEqual(expected);
    if (path === "/echo") expect((expected.headers as Record<string, unknown>)["set-cookie"]).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    if (path === "/split") expect(actual.text).toBe('{"x":"€"}');
    if (path === "/bom") expect(actual.text).toBe('{"a":"b"}');
  });

  it("sends the same request bytes as the request API (the server sees the same method, headers and body)", async () => {
    const body = JSON.stringify({ a: "ü".repeat(3000) });
    const expected = JSON.parse((await viaRequestApi("/echo", "POST", body)).text);
    const actual = JSON.parse((await viaRequestText("/echo", "POST", body)).text);
    expect(actual).toEqual(expected);
    expect(actual.body).toBe(body);
  });

  it("rejects with the signal's reason when aborted before the headers, and before the request is sent", async () => {
    const reason = new Error("stop now");
    const waiting = new Signal();
    const pending = requestText(`${base}/hang`, { method: "GET", headers: {}, dispatcher: agent, signal: waiting });
    setTimeout(() => waiting.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);

    const already = new Signal();
    already.abort(reason);
    await expect(requestText(`${base}/echo`, { method: "GET", headers: {}, dispatcher: agent, signal: already })).rejects.toBe(reason);
    // undici's request API does the same with the same signal.
    await expect(request(`${base}/echo`, { method: "GET", headers: {}, dispatcher: agent, signal: already })).rejects.toBe(reason);
  });

  it("rejects text() with the signal's reason when aborted while the body streams in", async () => {
    const reason = new Error("caller gone");
    const signal = new Signal();
    const response = await requestText(`${base}/slow-body`, { method: "GET", headers: {}, dispatcher: agent, signal });
    expect(response.statusCode).toBe(200);
    signal.abort(reason);
    await expect(response.body.text()).rejects.toBe(reason);
    expect(signal.listenerCount("abort")).toBe(0);
  });

  it("rejects text() when the connection is lost mid-body, as the request API does", async () => {
    const apiResponse = await request(`${base}/half`, { method: "GET", dispatcher: agent });
    const apiError = await apiResponse.body.text().then(
      () => undefined,
      (error: Error) => error,
    );
    const response = await requestText(`${base}/half`, { method: "GET", headers: {}, dispatcher: agent });
    const error = await response.body.text().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(apiError).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error & { code?: string }).code).toBe((apiError as Error & { code?: string }).code);
  });

  it("rejects (no headers) when nothing listens, with undici's connection error", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await requestText(`http://127.0.0.1:${port}/`, { method: "GET", headers: {}, dispatcher: agent }).then(
      () => undefined,
      (e: Error & { code?: string }) => e,
    );
    expect(error?.code).toBe("ECONNREFUSED");
  });

  it("sends each URL's own path and query when the same URLs are called again (their parse is kept)", async () => {
    for (const round of [1, 2]) {
      for (const path of ["/echo?a=1", "/echo?a=2", "/echo", "/echo?a=1#frag"]) {
        const seen = JSON.parse((await viaRequestText(path, "GET")).text) as { url: string };
        expect(seen.url, `round ${round}`).toBe(path.replace(/#.*/, ""));
      }
    }
    // Refused at once, as undici's request API refuses it (call() reports both as a failed attempt).
    expect(() => requestText("ftp://127.0.0.1/x", { method: "GET", headers: {}, dispatcher: agent })).toThrow(/http/);
    expect(() => request("ftp://127.0.0.1/x", { method: "GET", dispatcher: agent })).toThrow(/http/);
  });

  it("removes its abort listener once the reply is complete", async () => {
    const signal = new Signal();
    const response = await requestText(`${base}/echo`, { method: "GET", headers: {}, dispatcher: agent, signal });
    await response.body.text();
    expect(signal.listenerCount("abort")).toBe(0);
  });
});

describe("decodeChunks", () => {
  it("decodes UTF-8 across chunk boundaries and drops only a leading byte-order mark", () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(decodeChunks([], 0)).toBe("");
    expect(decodeChunks([Buffer.from("ab"), EURO.subarray(0, 2), EURO.subarray(2)], 5)).toBe("ab€");
    expect(decodeChunks([bom, Buffer.from("x")], 4)).toBe("x");
    expect(decodeChunks([Buffer.from("x"), bom], 4)).toBe("x\ufeff");
  });
});
