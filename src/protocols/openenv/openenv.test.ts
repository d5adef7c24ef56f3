// OpenEnv conformance, spoken as OpenEnv's EnvClient speaks it (a WebSocket at `<base>/ws` with
// reset/step/state/close messages; HTTP /reset /step /state /metadata /schema /health; JSON-RPC at
// /mcp), against real Gymkit environment servers on 127.0.0.1 behind a real protocol gateway: a
// single-tool environment, math_with_judge with its judge (a vllm_model server in front of the fake
// engine), and a multi-turn Gymnasium-style one. Wire shapes from huggingface/OpenEnv 385de5eb.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { call, NO_RETRY } from "../../http/client.js";
import vllmModel from "../../models/vllm_model.js";
import singleTool from "../../environments/example_single_tool_call/index.js";
import mathWithJudge from "../../environments/math_with_judge/index.js";
import multiTurn from "../../environments/example_multi_turn_gymnasium/index.js";
import { EnvironmentBridge } from "../episode.js";
import { startGateway, type ProtocolSettings, type RunningGateway } from "../gateway.js";
import { DatasetRows } from "../rows.js";
import { openEnvLayer } from "./server.js";
import { engineOf, onTeardown } from "../../../test/helpers/scope.js";

const rowsOf = (env: string) =>
  readFileSync(new URL(`../../environments/${env}/data/example.jsonl`, import.meta.url), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** A sequential OpenEnv WebSocket client: each `send` gets the next message back. */
class OpenEnvSocket {
  private readonly inbox: unknown[] = [];
  private readonly waiting: Array<(message: unknown) => void> = [];
  readonly closed: Promise<void>;

  private constructor(private readonly socket: WebSocket) {
    socket.on("message", (raw) => {
      const message = JSON.parse(String(raw)) as unknown;
      const next = this.waiting.shift();
      if (next) next(message);
      else this.inbox.push(message);
    });
    this.closed = new Promise((resolve) => socket.once("close", () => resolve()));
  }

  static open(baseUrl: string): Promise<OpenEnvSocket> {
    // EnvClient's rule: the http base URL becomes ws://…, and /ws is appended.
    const socket = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/ws`);
    const client = new OpenEnvSocket(socket);
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(client));
      socket.once("error", reject);
    });
  }

  next(): Promise<any> {
    const queued = this.inbox.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  post(message: unknown): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  send(message: unknown): Promise<any> {
    this.post(message);
    return this.next();
  }

  close(): void {
    this.socket.close();
  }
}

async function http(method: "GET" | "POST", url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const result = await call(url, { method, body, retry: NO_RETRY });
  return { status: result.status, body: JSON.parse(result.text) };
}

const verdicts: string[] = [];
let weather: RunningInstance;
let math: RunningInstance;
let turns: RunningInstance;
let judge: RunningInstance;
const gateways: RunningGateway[] = [];
let weatherUrl: string;
let mathUrl: string;
let turnsUrl: string;

async function serve(instance: RunningInstance, rows: Record<string, unknown>[], maxSessions = 64, idle: Omit<ProtocolSettings, "maxSessions"> = {}): Promise<string> {
  const bridge = new EnvironmentBridge({ name: instance.name, url: instance.url, rows: new DatasetRows(rows), description: `${instance.name} for the conformance test` });
  const gateway = await startGateway(bridge, [openEnvLayer], { settings: { maxSessions, ...idle } });
  gateways.push(gateway);
  return gateway.endpoints[0]!.url;
}

beforeAll(async () => {
  const engine = await engineOf({ model: "judge", policy: () => ({ text: verdicts.shift() ?? "no label" }) });
  judge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: engine.baseUrl, model: "judge" } });
  weather = await startInstance(singleTool);
  math = await startInstance(mathWithJudge, {
    config: { judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_responses_create_params: { input: [] }, should_use_judge: true },
    servers: { judge_model: judge.url },
  });
  turns = await startInstance(multiTurn);
  weatherUrl = await serve(weather, rowsOf("example_single_tool_call"));
  mathUrl = await serve(math, rowsOf("math_with_judge"));
  turnsUrl = await serve(turns, rowsOf("example_multi_turn_gymnasium"));
  onTeardown(async () => {
    await Promise.all(gateways.map((g) => g.close()));
    await Promise.all([weather, math, turns, judge].map((i) => i.close()));
  });
});
afterAll(() => undefined);

describe("OpenEnv over WebSocket", () => {
  it("single tool: reset shows the prompt and tools, a tool call answers in the session, the answer is scored and ends the episode", async () => {
    const env = await OpenEnvSocket.open(weatherUrl);
    const reset = await env.send({ type: "reset", data: { row_index: 0, episode_id: "ep-1" } });
    expect(reset.type).toBe("observation");
    expect(reset.data).toMatchObject({ reward: null, done: false });
    expect(reset.data.observation.messages.at(-1)).toEqual({ role: "user", content: "what's it like in sf?" });
    expect(reset.data.observation.tools).toEqual([expect.objectContaining({ name: "get_weather", input_schema: expect.objectContaining({ required: ["city"] }) })]);
    const listed = await env.send({ type: "step", data: { type: "list_tools" } });
    expect(listed.data.observation.tools.map((t: { name: string }) => t.name)).toEqual(["get_weather"]);
    const called = await env.send({ type: "step", data: { type: "call_tool", tool_name: "get_weather", arguments: { city: "San Francisco" } } });
    expect(called.data).toMatchObject({ done: false, observation: { tool_name: "get_weather", result: { city: "San Francisco", weather_description: "The weather in San Francisco is cold." }, error: null } });
    const state = await env.send({ type: "state" });
    expect(state).toEqual({ type: "state", data: expect.objectContaining({ episode_id: "ep-1", step_count: 1, status: "running", row_index: 0, done: false }) });
    const answered = await env.send({ type: "step", data: { type: "submit_answer", answer: "It is cold in San Francisco." } });
    expect(answered.data).toMatchObject({ reward: 1, done: true, observation: { verify: { reward: 1 } } });
    // Over: a further step is an execution error, and a new reset starts again on the same connection.
    const after = await env.send({ type: "step", data: { type: "submit_answer", answer: "again" } });
    expect(after).toMatchObject({ type: "error", data: { code: "EXECUTION_ERROR", reason: "done" } });
    expect((await env.send({ type: "reset", data: { row_index: 1 } })).data.observation.row_index).toBe(1);
    // `close` ends the session: the server closes the connection without a reply.
    env.post({ type: "close" });
    await env.closed;
  });

  it("math_with_judge: the library verifier's reward, and the judge's when the library cannot tell", async () => {
    const env = await OpenEnvSocket.open(mathUrl);
    await env.send({ type: "reset", data: { row_index: 0 } });
    const right = await env.send({ type: "step", data: { type: "submit_answer", answer: "So the count is \\boxed{32}." } });
    expect(right.data).toMatchObject({ reward: 1, done: true, observation: { verify: { library_reward: 1, extracted_answer: "32" } } });
    await env.send({ type: "reset", data: { row_index: 0 } });
    expect((await env.send({ type: "step", data: { type: "submit_answer", answer: "\\boxed{31}" } })).data.reward).toBe(0);
    await env.send({ type: "reset", data: { row_index: 4 } });
    // -3 written so that the library verifier does not match it; the judge says both ways it is the same.
    verdicts.push("[[A=B]]", "[[A=B]]");
    const judged = await env.send({ type: "step", data: { type: "submit_answer", answer: "\\boxed{minus three}" } });
    expect(judged.data).toMatchObject({ reward: 1, done: true, observation: { verify: { library_reward: 0 } } });
    expect(judged.data.observation.verify.judge_evaluations).toHaveLength(2);
    env.close();
    await env.closed;
  });

  it("multi-turn: each answer gets the next follow-up as the observation until the last is scored", async () => {
    const env = await OpenEnvSocket.open(turnsUrl);
    const reset = await env.send({ type: "reset", data: { row_index: 1 } });
    expect(reset.data.observation.messages).toEqual([{ role: "user", content: "What is 15 multiplied by 8?" }]);
    const first = await env.send({ type: "step", data: { type: "submit_answer", answer: "120" } });
    expect(first.data).toEqual(expect.objectContaining({ reward: 0, done: false, observation: expect.objectContaining({ text: "Now divide that result by 6." }) }));
    const last = await env.send({ type: "step", data: { type: "submit_answer", answer: "That makes 20." } });
    expect(last.data).toMatchObject({ reward: 1, done: true });
    expect((await env.send({ type: "state" })).data).toMatchObject({ step_count: 2, total_reward: 1, status: "done" });
    env.close();
    await env.closed;
  });

  it("concurrent sessions are isolated: each connection its own episode", async () => {
    const sockets = await Promise.all(Array.from({ length: 12 }, () => OpenEnvSocket.open(turnsUrl)));
    // Half play row 1 (one follow-up), half row 0 (two): interleaved, each sees only its own progress.
    await Promise.all(sockets.map((s, i) => s.send({ type: "reset", data: { row_index: i % 2 } })));
    const firsts = await Promise.all(sockets.map((s) => s.send({ type: "step", data: { type: "submit_answer", answer: "first" } })));
    expect(firsts.map((m) => m.data.observation.text)).toEqual(sockets.map((_, i) => (i % 2 === 1 ? "Now divide that result by 6." : "What is the approximate population of that city?")));
    const seconds = await Promise.all(sockets.map((s, i) => s.send({ type: "step", data: { type: "submit_answer", answer: i % 2 === 1 ? "20" : "about two million" } })));
    expect(seconds.map((m) => [m.data.done, m.data.reward])).toEqual(sockets.map((_, i) => (i % 2 === 1 ? [true, 1] : [false, 0])));
    for (const s of sockets) s.close();
    await Promise.all(sockets.map((s) => s.closed));
  });

  it("errors come back in OpenEnv's shape and the connection lives on", async () => {
    const env = await OpenEnvSocket.open(weatherUrl);
    expect(await env.send({ type: "step", data: { type: "call_tool", tool_name: "get_weather", arguments: { city: "SF" } } })).toMatchObject({ type: "error", data: { code: "EXECUTION_ERROR", reason: "not_reset" } });
    expect(await env.send("{not json")).toMatchObject({ type: "error", data: { code: "INVALID_JSON" } });
    expect(await env.send({ type: "dance" })).toEqual({ type: "error", data: { message: "Unknown message type: dance", code: "UNKNOWN_TYPE" } });
    const malformed = await env.send({ type: "step", data: { type: "call_tool", arguments: {} } });
    expect(malformed).toMatchObject({ type: "error", data: { code: "VALIDATION_ERROR", errors: [expect.objectContaining({ loc: ["tool_name"] })] } });
    expect(await env.send({ type: "step", data: { type: "fly" } })).toMatchObject({ type: "error", data: { code: "VALIDATION_ERROR" } });
    expect(await env.send({ type: "reset", data: { row_index: 99 } })).toMatchObject({ type: "error", data: { code: "EXECUTION_ERROR", reason: "bad_row" } });
    await env.send({ type: "reset", data: { row_index: 0 } });
    const unknown = await env.send({ type: "step", data: { type: "call_tool", tool_name: "get_time", arguments: {} } });
    expect(unknown.data).toMatchObject({ done: false, observation: { tool_name: "get_time", error: { error_type: "tool_not_found" } } });
    const badArgs = await env.send({ type: "step", data: { type: "call_tool", tool_name: "get_weather", arguments: { town: "SF" } } });
    expect(badArgs.data.observation.error).toMatchObject({ error_type: "invalid_args", message: expect.stringContaining("city") });
    // Still playable after every error.
    expect((await env.send({ type: "step", data: { type: "submit_answer", answer: "cold" } })).data.reward).toBe(1);
    env.close();
    await env.closed;
  });

  it("past the concurrency cap a connection gets CAPACITY_REACHED and is closed; a freed slot is reused", async () => {
    const url = await serve(weather, rowsOf("example_single_tool_call"), 2);
    const held = await Promise.all([OpenEnvSocket.open(url), OpenEnvSocket.open(url)]);
    await Promise.all(held.map((s) => s.send({ type: "state" })));
    expect((await http("GET", `${url}/capacity`)).body).toEqual({ active_sessions: 2, max_sessions: 2 });
    const refused = await OpenEnvSocket.open(url);
    expect(await refused.next()).toMatchObject({ type: "error", data: { code: "CAPACITY_REACHED", active_sessions: 2, max_sessions: 2 } });
    await refused.closed;
    held[0]!.close();
    await held[0]!.closed;
    const again = await OpenEnvSocket.open(url);
    expect((await again.send({ type: "reset", data: { row_index: 0 } })).type).toBe("observation");
    again.close();
    held[1]!.close();
  });
});

describe("idle sessions (OpenEnv's session_timeout)", () => {
  it("reaps a session idle past the timeout: its slot is freed, the connection stays, a step there is an EXECUTION_ERROR, an MCP session's id is unknown", async () => {
    // 2 s, not less: the reset below must reach the server before its new session counts as idle, on a loaded machine too.
    const url = await serve(weather, rowsOf("example_single_tool_call"), 1, { sessionTimeout: 2, reapEvery: 0.1 });
    const active = async () => ((await http("GET", `${url}/capacity`)).body as { active_sessions: number }).active_sessions;
    const idle = await OpenEnvSocket.open(url);
    expect((await idle.send({ type: "reset", data: { row_index: 0 } })).type).toBe("observation");
    await expect.poll(active, { timeout: 30_000 }).toBe(0);
    const step = await idle.send({ type: "step", data: { type: "call_tool", tool_name: "get_weather", arguments: { city: "Rome" } } });
    expect(step).toMatchObject({ type: "error", data: { code: "EXECUTION_ERROR", reason: "closed", message: expect.stringContaining("2 s without activity") } });
    expect(await idle.send({ type: "state" })).toMatchObject({ type: "state", data: { row_index: 0, status: "closed" } });
    // The freed slot takes a new connection (refused at the cap of 1 otherwise: its first message would be CAPACITY_REACHED).
    const next = await OpenEnvSocket.open(url);
    expect((await next.send({ type: "state" })).type).toBe("state");
    next.close();
    idle.close();
    await Promise.all([next.closed, idle.closed]);

    await expect.poll(active, { timeout: 30_000 }).toBe(0);
    const created = await http("POST", `${url}/mcp`, { jsonrpc: "2.0", id: 1, method: "openenv/session/create", params: { row_index: 1 } });
    const sessionId = created.body.result.session_id as string;
    await expect.poll(active, { timeout: 30_000 }).toBe(0);
    const call = await http("POST", `${url}/mcp`, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_weather", arguments: { city: "Lima" }, session_id: sessionId } });
    expect(call.body.error).toMatchObject({ code: -32602, message: `Unknown session_id: ${sessionId}` });
  });

  it("does not count `state` as activity (OpenEnv's reaper does not): a session asked only for its state is reaped", async () => {
    const url = await serve(weather, rowsOf("example_single_tool_call"), 1, { sessionTimeout: 2, reapEvery: 0.1 });
    const active = async () => ((await http("GET", `${url}/capacity`)).body as { active_sessions: number }).active_sessions;
    const socket = await OpenEnvSocket.open(url);
    expect((await socket.send({ type: "reset", data: { row_index: 0 } })).type).toBe("observation");
    // Ask for the state between every look at the slot: were it activity, the session would never go idle.
    await expect
      .poll(
        async () => {
          expect((await socket.send({ type: "state" })).type).toBe("state");
          return active();
        },
        { timeout: 30_000 },
      )
      .toBe(0);
    expect(await socket.send({ type: "state" })).toMatchObject({ type: "state", data: { status: "closed" } });
    socket.close();
    await socket.closed;
  });
});

describe("MCP over WebSocket", () => {
  it("answers `mcp` messages on /ws in the session, and JSON-RPC on the /mcp WebSocket", async () => {
    const env = await OpenEnvSocket.open(weatherUrl);
    await env.send({ type: "reset", data: { row_index: 0 } });
    const listed = await env.send({ type: "mcp", data: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} } });
    expect(listed).toMatchObject({ type: "mcp", data: { id: 1, result: { tools: [expect.objectContaining({ name: "get_weather" })] } } });
    const called = await env.send({ type: "mcp", data: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_weather", arguments: { city: "Rome" } } } });
    expect(called.data.result.structuredContent).toEqual({ city: "Rome", weather_description: "The weather in Rome is cold." });
    // The call went into the episode: it counts as a step.
    expect((await env.send({ type: "state" })).data.step_count).toBe(1);
    env.close();

    const mcp = new WebSocket(`${weatherUrl.replace(/^http/, "ws")}/mcp`);
    await new Promise((resolve, reject) => mcp.once("open", resolve).once("error", reject));
    const reply = (message: string) =>
      new Promise<any>((resolve) => {
        mcp.once("message", (raw) => resolve(JSON.parse(String(raw))));
        mcp.send(message);
      });
    expect(await reply("nope")).toMatchObject({ error: { code: -32700 } });
    expect(await reply(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_weather", arguments: { city: "Kyiv" } } }))).toMatchObject({ id: 3, result: { isError: false } });
    mcp.close();
  });
});

describe("OpenEnv over HTTP", () => {
  it("answers /health, /metadata, /schema and a stateless /state", async () => {
    expect((await http("GET", `${weatherUrl}/health`)).body).toEqual({ status: "healthy" });
    expect((await http("GET", `${weatherUrl}/metadata`)).body).toMatchObject({ name: "example_single_tool_call", description: "example_single_tool_call for the conformance test" });
    const schema = (await http("GET", `${weatherUrl}/schema`)).body;
    expect(Object.keys(schema)).toEqual(["action", "observation", "state"]);
    expect(JSON.stringify(schema.action)).toContain("submit_answer");
    expect((await http("GET", `${weatherUrl}/state`)).body).toMatchObject({ episode_id: null, step_count: 0 });
  });

  it("reset and step are stateless, as OpenEnv's: a step plays its row from the start", async () => {
    const reset = await http("POST", `${mathUrl}/reset`, { seed: 5 });
    expect(reset.body).toMatchObject({ reward: null, done: false, observation: { row_index: 0 } });
    const step = await http("POST", `${mathUrl}/step`, { action: { type: "submit_answer", answer: "\\boxed{-3}" }, row_index: 4 });
    expect(step).toMatchObject({ status: 200, body: { reward: 1, done: true } });
    const malformed = await http("POST", `${mathUrl}/step`, { action: { type: "submit_answer" } });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ loc: ["body", "action", "answer"] });
    expect((await http("POST", `${mathUrl}/step`, { row_index: 0 })).status).toBe(422);
    expect((await http("POST", `${mathUrl}/reset`, { row_index: 50 })).status).toBe(422);
  });

  it("serves the tools over MCP JSON-RPC, stateless or in an OpenEnv session", async () => {
    const listed = await http("POST", `${weatherUrl}/mcp`, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    expect(listed.body).toMatchObject({ jsonrpc: "2.0", id: 1, result: { tools: [expect.objectContaining({ name: "get_weather", inputSchema: expect.any(Object) })] } });
    const called = await http("POST", `${weatherUrl}/mcp`, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_weather", arguments: { city: "Oslo" } } });
    expect(called.body.result).toMatchObject({ isError: false, structuredContent: { city: "Oslo" } });
    const created = await http("POST", `${weatherUrl}/mcp`, { jsonrpc: "2.0", id: 3, method: "openenv/session/create", params: { row_index: 2 } });
    const sessionId = created.body.result.session_id as string;
    const inSession = await http("POST", `${weatherUrl}/mcp`, { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "get_weather", arguments: { city: "Lima" }, session_id: sessionId } });
    expect(JSON.parse(inSession.body.result.content[0].text)).toMatchObject({ city: "Lima" });
    expect((await http("POST", `${weatherUrl}/mcp`, { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "nope", session_id: sessionId } })).body.error).toMatchObject({ code: -32602, message: "Tool not found: nope" });
    expect((await http("POST", `${weatherUrl}/mcp`, { jsonrpc: "2.0", id: 6, method: "openenv/session/close", params: { session_id: sessionId } })).body.result).toEqual({ session_id: sessionId, closed: true });
    expect((await http("POST", `${weatherUrl}/mcp`, { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "get_weather", session_id: sessionId } })).body.error).toMatchObject({ code: -32602, message: `Unknown session_id: ${sessionId}` });
    expect((await http("POST", `${weatherUrl}/mcp`, { jsonrpc: "2.0", id: 8, method: "resources/list", params: {} })).body.error).toMatchObject({ code: -32601 });
    expect((await http("POST", `${weatherUrl}/mcp`, { id: 9 })).body.error).toMatchObject({ code: -32600 });
  });
});
