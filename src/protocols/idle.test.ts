// Idle-session timeout for MCP and ORS (`--session-timeout`, ProtocolSettings.sessionTimeout): real
// servers on 127.0.0.1 — a Gymnasium-style environment holding one slot per episode until its /close
// (a stand-in for a sandbox), behind a real gateway — driven by the MCP SDK's client and by ORS
// requests as its reference client sends them. Every wait is on a condition (the environment's held
// slots), polled; the timeout is short, never an assertion bound.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { defineEnvironment } from "../environment_kit/define.js";
import { startInstance, type RunningInstance } from "../environment_kit/testing.js";
import { EnvironmentBridge } from "./episode.js";
import { startGateway, type RunningGateway } from "./gateway.js";
import { IdleSessions } from "./idle.js";
import { mcpLayer } from "./mcp/server.js";
import { ORS_SESSION_TIMEOUT, orsLayer } from "./ors/server.js";
import { DatasetRows } from "./rows.js";

/** Environment sessions holding a slot: taken at reset, given back at /close. */
const held = new Set<string>();

const slotHolder = defineEnvironment({
  id: "slot_holder",
  description: "holds a slot per episode until /close",
  reset: (_metadata, ctx) => {
    held.add(ctx.sessionId);
    return { observation: "a slot is yours", info: {} };
  },
  step: () => ({ observation: "done", reward: 1, terminated: true, truncated: false }),
  close: (ctx) => {
    held.delete(ctx.sessionId);
    return {};
  },
});

const ROWS = [{ responses_create_params: { input: "hold a slot" } }];
let environment: RunningInstance;
let gateway: RunningGateway;

beforeAll(async () => {
  environment = await startInstance(slotHolder);
  const bridge = new EnvironmentBridge({ name: "slot_holder", url: environment.url, rows: new DatasetRows(ROWS) });
  // 2 s, not less: a session's first request must reach the server before the session counts as idle, on a loaded machine too.
  gateway = await startGateway(bridge, [mcpLayer, orsLayer], { settings: { maxSessions: 8, sessionTimeout: 2, reapEvery: 0.1 } });
});

afterAll(async () => {
  await gateway?.close();
  await environment?.close();
});

const heldSlots = () => held.size;

describe("MCP: an idle session is closed", () => {
  it("frees the episode's environment slot, and a request in the session is the SDK's 404 saying it timed out", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`));
    const client = new Client({ name: "idle", version: "1.0.0" });
    await client.connect(transport);
    await client.callTool({ name: "start_episode", arguments: { row_index: 0 } });
    expect(held.size).toBe(1);
    await expect.poll(heldSlots, { timeout: 30_000 }).toBe(0);
    const late = await client.callTool({ name: "submit_answer", arguments: { answer: "x" } }).catch((error: unknown) => error);
    expect(late).toBeInstanceOf(StreamableHTTPError);
    expect((late as StreamableHTTPError).code).toBe(404);
    expect((late as Error).message).toMatch(/Session not found: .* \(closed after 2 s without activity \(the server's session timeout\)\); initialize a new one/);
    await client.close();

    // A new session is served as usual.
    const again = new Client({ name: "idle", version: "1.0.0" });
    const againTransport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`));
    await again.connect(againTransport);
    const started = (await again.callTool({ name: "start_episode", arguments: {} })) as { isError?: boolean };
    expect(started.isError).toBeFalsy();
    await againTransport.terminateSession();
    await again.close();
    await expect.poll(heldSlots, { timeout: 30_000 }).toBe(0);
  });
});

/** One ORS session as the reference client opens it (create_session's task_id, then /create). */
async function orsSession(): Promise<{ sid: string; post(path: string, body?: unknown): Promise<{ status: number; text: string }> }> {
  const base = `${gateway.url}/ors`;
  const created = await (await fetch(`${base}/create_session`, { method: "POST" })).text();
  const sid = /event: task_id\r?\ndata: (\S+)/.exec(created)![1]!;
  const post = async (path: string, body: unknown = {}) => {
    const response = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-session-id": sid }, body: JSON.stringify(body) });
    return { status: response.status, text: await response.text() };
  };
  expect((await post("/create", { split: "test", index: 0 })).status).toBe(200);
  return { sid, post };
}

describe("ORS: an idle session is deleted", () => {
  it("frees the idle one's slot while a pinged one lives on; the idle one's requests are 404s saying it timed out", async () => {
    const idle = await orsSession();
    const pinged = await orsSession();
    expect(held.size).toBe(2);
    // The reference client pings its session to keep it; here each poll pings one of the two.
    await expect
      .poll(async () => {
        expect((await pinged.post("/ping")).status).toBe(200);
        return held.size;
      }, { timeout: 30_000, interval: 50 })
      .toBe(1);
    const call = await idle.post("/slot_holder/call", { name: "submit_answer", input: { answer: "x" } });
    expect(call.status).toBe(404);
    expect(JSON.parse(call.text)).toEqual({ detail: `Active environment not found: session ${idle.sid} was closed after 2 s without activity (the server's session timeout); create a new one` });
    expect((await idle.post("/ping")).status).toBe(404);
    const scored = await pinged.post("/slot_holder/call", { name: "submit_answer", input: { answer: "x" } });
    expect(scored.text).toContain('"reward":1');
    await pinged.post("/delete");
    await expect.poll(heldSlots, { timeout: 30_000 }).toBe(0);
  });

  it("without --session-timeout ORS keeps its reference server's 900 s; MCP and OpenEnv keep sessions", () => {
    expect(IdleSessions.from({ maxSessions: 1 }, () => undefined, ORS_SESSION_TIMEOUT).timeout).toBe(900);
    expect(IdleSessions.from({ maxSessions: 1 }, () => undefined).timeout).toBeUndefined();
    expect(IdleSessions.from({ maxSessions: 1, sessionTimeout: 7 }, () => undefined, ORS_SESSION_TIMEOUT).timeout).toBe(7);
  });
});
