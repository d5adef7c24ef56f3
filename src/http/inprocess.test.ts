// The in-process call path (inprocess.ts) against the socket it replaces: the same requests, made
// through `call()` with GYM_INPROCESS_CALLS on and off, must give the same statuses, bodies and
// headers, and the in-process ones must open no connection. Real servers on 127.0.0.1; no doubles.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { FastifyInstance } from "fastify";
import { call, CallError, dispatcher, NO_RETRY, type CallResult } from "./client.js";
import { CookieJar } from "./cookies.js";
import { parseOr422 } from "./errors.js";
import { dispatchInProcess, INPROCESS_ENV, localTarget, rereadInProcessSetting } from "./inprocess.js";
import { request } from "./undici_lite.js";
import { EventEmitter } from "node:events";
import { Readable } from "node:stream";
import { abortOnHangUp } from "./reply.js";
import { createServer, listen } from "./server.js";

let app: FastifyInstance;
let url: string;
let connections = 0;
/** Resolves when the next request to /hang sees its caller hang up. */
let hungUp: Promise<string> = Promise.resolve("");
let onHangUp: (reason: string) => void = () => {};
/** Called when a request to /hang reaches its handler. */
let onHangEnter: () => void = () => {};

beforeAll(async () => {
  app = createServer({ name: "inproc", bodyLimit: 1024 });
  app.post("/echo", async (request) => {
    const body = request.body as { n?: number; text?: string };
    body.n = (body.n ?? 0) + 1; // mutating what the server got must not touch what the caller sent
    return { body, headers: request.headers, session: request.sessionId, ip: request.ip, host: request.host, protocol: request.protocol };
  });
  app.post("/validate", async (request) => parseOr422(z.strictObject({ n: z.number() }), request.body));
  app.post("/boom", async () => {
    throw new Error("kaput");
  });
  app.get("/text", async (_request, reply) => reply.type("text/plain; charset=utf-8").send("é \ud800 ✓"));
  app.get("/empty", async (_request, reply) => reply.code(204).send());
  app.post("/busy", async () => {
    // Synchronous work a handler might do (parse, score): a few ms of the thread.
    for (const until = performance.now() + 3; performance.now() < until; );
    return { done: true };
  });
  app.get("/query", async (request) => ({ url: request.url, query: request.query }));
  app.post("/hang", async (request, reply) => {
    const signal = abortOnHangUp(reply.raw);
    onHangEnter();
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    onHangUp(String((signal.reason as Error).message));
    return { never: "read" };
  });
  app.server.on("connection", () => connections++);
  url = await listen(app);
});
afterAll(async () => app.close());
afterEach(() => {
  delete process.env[INPROCESS_ENV];
  rereadInProcessSetting();
});

/** Switches the in-process path as a user would, by the environment, for the calls that follow. */
function inProcessCalls(on: boolean): void {
  process.env[INPROCESS_ENV] = on ? "1" : "0";
  rereadInProcessSetting();
}

function expectHangUp(): void {
  hungUp = new Promise((resolve) => {
    onHangUp = resolve;
  });
}

/** Runs `act` with the in-process path on or off; returns its result and the connections it opened. */
async function via<T>(inProcess: boolean, act: () => Promise<T>): Promise<{ result: T; opened: number }> {
  inProcessCalls(inProcess);
  const before = connections;
  const result = await act();
  return { result, opened: connections - before };
}

/** What a caller may depend on: status, body, and every header but the clock's. */
function visible(result: CallResult): { status: number; text: string; headers: Record<string, unknown> } {
  const { date, ...headers } = result.headers;
  expect(date).toMatch(/ GMT$/);
  return { status: result.status, text: result.text, headers };
}

const cases: Array<[string, () => Promise<CallResult>]> = [
  ["a JSON echo with non-ASCII text", () => call(`${url}/echo`, { body: { text: "héllo ✓ \u2028" }, retry: NO_RETRY })],
  ["a JSON echo with a lone surrogate, astral and escaped characters", () => call(`${url}/echo`, { body: { text: "\ud800 😀 \udfff é \"q\" \\ \n \u0000" }, retry: NO_RETRY })],
  ["a JSON echo of a string alone", () => call(`${url}/echo`, { body: "just text ✓", retry: NO_RETRY })],
  ["a 422 from zod", () => call(`${url}/validate`, { body: { n: "x", extra: 1 }, retry: NO_RETRY })],
  ["a 500 whose body is the error as a string", () => call(`${url}/boom`, { body: {}, retry: NO_RETRY })],
  ["a 404 naming the route", () => call(`${url}/nowhere?x=1`, { retry: NO_RETRY })],
  ["a 413 naming the limit", () => call(`${url}/echo`, { body: { text: "x".repeat(2000) }, retry: NO_RETRY })],
  ["a POST without a body", () => call(`${url}/echo`, { method: "POST", headers: { "content-type": "application/json" }, retry: NO_RETRY })],
  ["a 403 for a foreign Host", () => call(`${url}/echo`, { body: {}, headers: { Host: "evil.example" }, retry: NO_RETRY })],
  ["a text reply with a lone surrogate", () => call(`${url}/text`, { retry: NO_RETRY })],
  ["a 204 without a body", () => call(`${url}/empty`, { retry: NO_RETRY })],
  ["a path with dot segments and a query", () => call(`${url}/a/../query?q=%20x&r=é`, { retry: NO_RETRY })],
];

describe("a run of in-process calls still lets the event loop turn", () => {
  it("timers and immediates run between calls that never touch a socket", async () => {
    inProcessCalls(true);
    let turns = 0;
    let counting = true;
    const tick = () => {
      turns++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    await new Promise((resolve) => setImmediate(resolve));
    const before = turns;
    const opened = connections;
    try {
      // 40 calls of ≥ 3 ms each, one after another: ≥ 120 ms in promise jobs alone without the turns.
      for (let i = 0; i < 40; i++) expect((await call(`${url}/busy`, { body: {}, retry: NO_RETRY })).status).toBe(200);
    } finally {
      counting = false;
    }
    expect(connections).toBe(opened);
    expect(turns - before).toBeGreaterThanOrEqual(5);
  });
});

describe("in-process calls answer what the socket answers", () => {
  it.each(cases)("%s", async (_name, make) => {
    const wire = await via(false, make);
    const local = await via(true, make);
    expect(local.opened).toBe(0);
    const [w, l] = [visible(wire.result), visible(local.result)];
    if (w.headers["set-cookie"]) {
      // Fresh session ids differ from call to call; the cookie's name and attributes do not.
      const shape = (v: unknown) => String(v).replace(/=[0-9a-f-]{36};/, "=<id>;");
      w.headers["set-cookie"] = shape(w.headers["set-cookie"]);
      l.headers["set-cookie"] = shape(l.headers["set-cookie"]);
      if (w.text.includes('"session"')) {
        w.text = w.text.replace(/"session":"[0-9a-f-]{36}"/, '"session":"<id>"');
        l.text = l.text.replace(/"session":"[0-9a-f-]{36}"/, '"session":"<id>"');
      }
    }
    expect(l).toEqual(w);
  });

  it("opens no connection in-process, and does over the socket", async () => {
    const wire = await via(false, () => call(`${url}/echo`, { body: { n: 1 }, retry: NO_RETRY }));
    // undici's pool may reuse a connection the cases above opened; a fresh port forces one.
    const other = createServer({ name: "other" });
    let otherConnections = 0;
    other.server.on("connection", () => otherConnections++);
    const otherUrl = await listen(other);
    try {
      await via(true, () => call(`${otherUrl}/`, { retry: NO_RETRY }));
      expect(otherConnections).toBe(0);
      await via(false, () => call(`${otherUrl}/`, { retry: NO_RETRY }));
      expect(otherConnections).toBe(1);
    } finally {
      await other.close();
    }
    expect(wire.result.status).toBe(200);
  });

  it("sends JSON text, not the caller's object, and round-trips the session cookie", async () => {
    const jar = new CookieJar();
    const sent = { n: 1 };
    const first = JSON.parse((await via(true, () => call(`${url}/echo`, { body: sent, cookies: jar }))).result.text) as { body: { n: number }; session: string; headers: Record<string, string> };
    const second = JSON.parse((await via(true, () => call(`${url}/echo`, { body: sent, cookies: jar }))).result.text) as { session: string; headers: Record<string, string> };
    expect(sent).toEqual({ n: 1 });
    expect(first.body).toEqual({ n: 2 });
    expect(second.session).toBe(first.session);
    expect(second.headers.cookie).toBe(`gymkit___inproc=${first.session}`);
    expect(second.headers).toMatchObject({ host: url.slice("http://".length), "content-type": "application/json", "content-length": "7", connection: "keep-alive" });
  });

  it("the server sees the same request headers, address and host either way", async () => {
    const seen = async (inProcess: boolean) => {
      const { result } = await via(inProcess, () => call(`${url}/echo`, { body: { n: 1 }, headers: { "X-Rollout": "r1", Authorization: "Bearer t" }, retry: NO_RETRY }));
      return JSON.parse(result.text) as Record<string, unknown>;
    };
    const [wire, local] = [await seen(false), await seen(true)];
    delete wire.session;
    delete local.session;
    expect(local).toEqual(wire);
  });

  it("a body text with a raw lone surrogate reaches the server as its UTF-8 bytes decode, as over the socket", async () => {
    inProcessCalls(true);
    const body = '{"text":"a\ud800b"}';
    const target = localTarget(`${url}/echo`, "POST")!;
    const local = await dispatchInProcess(target.server, { method: "POST", path: target.path, headers: { "content-type": "application/json" }, body, signal: Object.assign(new EventEmitter(), { aborted: false, reason: undefined }) });
    const wire = await request(`${url}/echo`, { method: "POST", headers: { "content-type": "application/json" }, body, dispatcher: dispatcher() });
    const [l, w] = [JSON.parse(local.text) as { body: { text: string } }, JSON.parse(await wire.body.text()) as { body: { text: string } }];
    expect(l.body.text).toBe("a\ufffdb");
    expect(l.body).toEqual(w.body);
  });

  it("a preParsing hook that replaces the payload is honoured in-process as over the socket", async () => {
    const transforming = createServer({ name: "transforming" });
    transforming.addHook("preParsing", async (_request, _reply, _payload) => Readable.from([Buffer.from('{"replaced":2}')]));
    transforming.post("/body", async (request) => ({ got: request.body }));
    const transformingUrl = await listen(transforming);
    try {
      const send = () => call(`${transformingUrl}/body`, { body: { original: 1 }, retry: NO_RETRY });
      const [wire, local] = [await via(false, send), await via(true, send)];
      expect(local.opened).toBe(0);
      // As long as the original (the Content-Length check passes), so only the bytes can tell them apart.
      expect(local.result.text).toBe('{"got":{"replaced":2}}');
      expect(local.result.text).toBe(wire.result.text);
    } finally {
      await transforming.close();
    }
  });

  it("a streamed route is reached over the socket even with the in-process path on", async () => {
    // A server of its own: undici's pool may reuse a connection that earlier tests opened to `app`.
    const streaming = createServer({ name: "streaming" });
    streaming.get("/stream", { config: { streams: true } }, (_request, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, { "content-type": "application/x-ndjson" });
      reply.raw.write('{"line":1}\n');
      reply.raw.end('{"line":2}\n');
    });
    let opened = 0;
    streaming.server.on("connection", () => opened++);
    const streamingUrl = await listen(streaming);
    try {
      const { result } = await via(true, () => call(`${streamingUrl}/stream`, { retry: NO_RETRY }));
      expect(result.text).toBe('{"line":1}\n{"line":2}\n');
      expect(result.headers["transfer-encoding"]).toBe("chunked");
      expect(opened).toBe(1);
      await via(true, () => call(`${streamingUrl}/`, { retry: NO_RETRY }));
      expect(opened).toBe(1);
    } finally {
      await streaming.close();
    }
  });
});

describe("in-process calls that end early", () => {
  it("an abort reaches the server as a hang-up and rejects the call with the reason", async () => {
    inProcessCalls(true);
    expectHangUp();
    const controller = new AbortController();
    const pending = call(`${url}/hang`, { body: {}, signal: controller.signal, retry: NO_RETRY });
    // Wait until the handler runs: the exchange is in flight once the hook has set the cookie.
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error("caller gave up"));
    await expect(pending).rejects.toThrow("caller gave up");
    expect(await hungUp).toBe("the caller closed the connection");
  });

  it.each([true, false])("one caller's signal over several calls (in-process %s): calls already answered stay answered, those in flight end with its reason", async (inProcess) => {
    inProcessCalls(inProcess);
    const controller = new AbortController();
    const answered = await call(`${url}/echo`, { body: { n: 1 }, signal: controller.signal, retry: NO_RETRY });
    let seen = 0;
    let allSeen: () => void = () => {};
    const hungUpThrice = new Promise<void>((resolve) => {
      allSeen = resolve;
    });
    onHangUp = () => {
      if (++seen === 3) allSeen();
    };
    let entered = 0;
    const allEntered = new Promise<void>((resolve) => {
      onHangEnter = () => {
        if (++entered === 3) resolve();
      };
    });
    const pending = [1, 2, 3].map(() => call(`${url}/hang`, { body: {}, signal: controller.signal, retry: NO_RETRY }).catch((e: unknown) => e));
    await allEntered;
    onHangEnter = () => {};
    // A call that ends before the abort leaves nothing behind that the abort could reach.
    const between = await call(`${url}/echo`, { body: { n: 2 }, signal: controller.signal, retry: NO_RETRY });
    const reason = new Error("rollout cancelled");
    controller.abort(reason);
    for (const error of await Promise.all(pending)) expect(error).toBe(reason);
    await hungUpThrice;
    expect(seen).toBe(3);
    expect([answered.status, between.status]).toEqual([200, 200]);
    // The same signal, already aborted, stops a new call before it is sent.
    await expect(call(`${url}/echo`, { body: {}, signal: controller.signal, retry: NO_RETRY })).rejects.toBe(reason);
  });

  it("a per-call timeout is a CallError of kind timeout, and the server sees the hang-up", async () => {
    inProcessCalls(true);
    expectHangUp();
    const error = await call(`${url}/hang`, { body: {}, timeoutMs: 50, retry: NO_RETRY }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallError);
    expect((error as CallError).kind).toBe("timeout");
    expect((error as CallError).message).toMatch(/did not answer within/);
    expect(await hungUp).toBe("the caller closed the connection");
  });

  it("a server that closes under a call fails it as a lost connection, and later calls are refused", async () => {
    inProcessCalls(true);
    const doomed = createServer({ name: "doomed" });
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    doomed.post("/wait", async () => {
      entered();
      await new Promise(() => {});
    });
    const doomedUrl = await listen(doomed);
    const pending = call(`${doomedUrl}/wait`, { body: {}, retry: NO_RETRY }).catch((e: unknown) => e);
    await inside;
    await doomed.close();
    const error = await pending;
    expect(error).toBeInstanceOf(CallError);
    expect((error as CallError).kind).toBe("connection");
    expect((error as CallError).message).toMatch(/other side closed/);
    const later = await call(`${doomedUrl}/`, { retry: NO_RETRY }).catch((e: unknown) => e);
    expect((later as CallError).message).toMatch(/could not reach .*ECONNREFUSED/);
  });
});
