// The server factory every Gymkit server shares, over real HTTP on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { FastifyInstance } from "fastify";
import { call, callJson, CallError, NO_RETRY } from "./client.js";
import { CookieJar } from "./cookies.js";
import { parseOr422 } from "./errors.js";
import { createServer, listen, sessionCookieName } from "./server.js";
import { rolloutBodyLimit, requestTimeoutMs } from "./limits.js";
import { rawRequest } from "../../test/helpers/hostile.js";
import { ResponsesCreateParams } from "../protocol/index.js";

let app: FastifyInstance;
let url: string;
let flaky = 0;

beforeAll(async () => {
  app = createServer({ name: "probe" });
  app.post("/validate", async (request) => parseOr422(z.strictObject({ responses_create_params: ResponsesCreateParams, n: z.number() }), request.body));
  app.post("/boom", async () => {
    throw new Error("kaput");
  });
  app.post("/size", async (request) => ({ bytes: JSON.stringify(request.body).length }));
  app.get("/session", async (request) => ({ session: request.sessionId }));
  app.get("/flaky", async (_request, reply) => (++flaky < 3 ? reply.code(503).send({ detail: "busy" }) : { ok: true, attempts: flaky }));
  url = await listen(app);
});
afterAll(async () => app.close());

describe("createServer", () => {
  it("answers health at GET /", async () => {
    expect(await callJson(`${url}/`)).toEqual({ status: "ok" });
  });

  it("reports validation errors as FastAPI 422s: one entry per extra key, missing fields as 'Field required'", async () => {
    const result = await call(`${url}/validate`, { body: { responses_create_params: { input: "x", max_tokens: 5, foo: 1 } }, retry: NO_RETRY });
    expect(result.status).toBe(422);
    const { detail } = JSON.parse(result.text) as { detail: Array<{ type: string; loc: unknown[]; msg: string }> };
    expect(detail).toContainEqual({ type: "extra_forbidden", loc: ["body", "responses_create_params", "max_tokens"], msg: "Extra inputs are not permitted" });
    expect(detail).toContainEqual({ type: "extra_forbidden", loc: ["body", "responses_create_params", "foo"], msg: "Extra inputs are not permitted" });
    expect(detail).toContainEqual({ type: "missing", loc: ["body", "n"], msg: "Field required" });
  });

  it("turns an uncaught error into a 500 whose JSON body is a string, and keeps serving", async () => {
    const result = await call(`${url}/boom`, { body: {}, retry: NO_RETRY });
    expect(result.status).toBe(500);
    expect(JSON.parse(result.text)).toBe("Error: kaput");
    expect(await callJson(`${url}/`)).toEqual({ status: "ok" });
  });

  it("accepts bodies far above Fastify's 1 MiB default (rollouts with token ids)", async () => {
    const ids = Array.from({ length: 400_000 }, (_, i) => i);
    const result = await callJson<{ bytes: number }>(`${url}/size`, { body: { ids } });
    expect(result.bytes).toBeGreaterThan(2 * 1024 * 1024);
  });

  it("sets a session cookie on every response and honours it on later requests", async () => {
    const jar = new CookieJar();
    const first = await callJson<{ session: string }>(`${url}/session`, { cookies: jar });
    const second = await callJson<{ session: string }>(`${url}/session`, { cookies: jar });
    expect(second.session).toBe(first.session);
    expect(Object.keys(jar.toJSON())).toEqual([sessionCookieName("probe")]);
    const other = await callJson<{ session: string }>(`${url}/session`);
    expect(other.session).not.toBe(first.session);
  });
});

describe("call", () => {
  it("retries 5xx within the attempt budget and then succeeds", async () => {
    flaky = 0;
    const result = await callJson<{ attempts: number }>(`${url}/flaky`, { retry: { attempts: 3, initialDelayMs: 1, maxDelayMs: 2 } });
    expect(result.attempts).toBe(3);
  });

  it("gives up after the budget and returns the last status", async () => {
    flaky = -10;
    const result = await call(`${url}/flaky`, { retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 2 } });
    expect(result.status).toBe(503);
  });

  it("reports an unreachable server as a connection error naming the URL", async () => {
    const error = await call("http://127.0.0.1:9/x", { retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 1 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallError);
    expect((error as CallError).kind).toBe("connection");
    expect((error as CallError).message).toContain("http://127.0.0.1:9/x");
  });
});

describe("limits and the Host check", () => {
  it("reads GYM_MAX_BODY_MB and GYM_REQUEST_TIMEOUT_S, and refuses values that make no sense naming the variable", () => {
    expect(rolloutBodyLimit({})).toBe(64 * 1024 * 1024);
    expect(rolloutBodyLimit({ GYM_MAX_BODY_MB: "200" })).toBe(200 * 1024 * 1024);
    expect(requestTimeoutMs({})).toBe(60_000);
    expect(requestTimeoutMs({ GYM_REQUEST_TIMEOUT_S: "2.5" })).toBe(2_500);
    // Above 256 MiB a body could not become a string without throwing where nothing catches it.
    expect(() => rolloutBodyLimit({ GYM_MAX_BODY_MB: "1024" })).toThrow('GYM_MAX_BODY_MB must be a number of MiB above 0 and at most 256, got "1024"');
    expect(() => rolloutBodyLimit({ GYM_MAX_BODY_MB: "lots" })).toThrow("GYM_MAX_BODY_MB");
    expect(() => requestTimeoutMs({ GYM_REQUEST_TIMEOUT_S: "0" })).toThrow("GYM_REQUEST_TIMEOUT_S");
  });

  it("does not check Host on a server bound to all interfaces: it is reached by names it cannot know", async () => {
    const open = createServer({ name: "open" });
    const openUrl = await listen(open, { host: "0.0.0.0" });
    const loopback = createServer({ name: "loopback" });
    const loopbackUrl = await listen(loopback, { host: "127.0.0.1" });
    try {
      const port = new URL(openUrl).port;
      expect((await rawRequest(`http://127.0.0.1:${port}/`, { method: "GET", headers: { host: "node042.cluster:9000" } })).status).toBe(200);
      expect((await rawRequest(`${loopbackUrl}/`, { method: "GET", headers: { host: "node042.cluster:9000" } })).status).toBe(403);
    } finally {
      await open.close();
      await loopback.close();
    }
  });
});
