// MCP and Open Reward Standard serving (issue 22), spoken as each protocol's reference client speaks
// it, against real Gymkit environment servers on 127.0.0.1 behind a real protocol gateway: MCP with
// the SDK's own client (streamable HTTP, and stdio framing over in-process pipes), ORS with a Node
// client written from openrewardstandard/python-sdk a399408's client (session by X-Session-ID,
// streamed calls as server-sent events). Environments: the single-tool example and the multi-turn
// Gymnasium-style one. Then the same episodes' rewards through nemo-gym, OpenEnv, MCP and ORS, equal
// to each other and to `gym eval run`'s.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startInstance, type RunningInstance } from "../environment_kit/testing.js";
import { CookieJar } from "../http/cookies.js";
import { call, NO_RETRY } from "../http/client.js";
import singleTool from "../environments/example_single_tool_call/index.js";
import multiTurn from "../environments/example_multi_turn_gymnasium/index.js";
import mathWithJudge from "../environments/math_with_judge/index.js";
import vllmModel from "../models/vllm_model.js";
import { EnvironmentBridge } from "./episode.js";
import { startGateway, type RunningGateway } from "./gateway.js";
import { DatasetRows } from "./rows.js";
import { mcpLayer, serveMcpStdio } from "./mcp/server.js";
import { orsLayer } from "./ors/server.js";
import { openEnvLayer } from "./openenv/server.js";
import { readJsonlFile, runGym } from "../../test/helpers/cli.js";
import { engineOf } from "../../test/helpers/scope.js";

const rowsFile = (env: string) => new URL(`../environments/${env}/data/example.jsonl`, import.meta.url).pathname;
const rowsOf = (env: string) =>
  readFileSync(rowsFile(env), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

let weather: RunningInstance;
let turns: RunningInstance;
let math: RunningInstance;
let judge: RunningInstance;
let mathGate: string;
/** The judge's answers, in order (the fake engine behind the judge's vllm_model). */
const verdicts: string[] = [];
const gateways: RunningGateway[] = [];
let weatherGate: string;
let turnsGate: string;

async function serve(instance: RunningInstance, maxSessions = 64): Promise<string> {
  const bridge = new EnvironmentBridge({ name: instance.name, url: instance.url, rows: new DatasetRows(rowsOf(instance.name)) });
  const gateway = await startGateway(bridge, [openEnvLayer, mcpLayer, orsLayer], { settings: { maxSessions } });
  gateways.push(gateway);
  return gateway.url;
}

beforeAll(async () => {
  weather = await startInstance(singleTool);
  turns = await startInstance(multiTurn);
  weatherGate = await serve(weather);
  turnsGate = await serve(turns, 3);
  const judgeEngine = await engineOf({ model: "judge", policy: () => ({ text: verdicts.shift() ?? "no label" }) });
  judge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: judgeEngine.baseUrl, model: "judge" } });
  math = await startInstance(mathWithJudge, {
    config: { judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_responses_create_params: { input: [] }, should_use_judge: true },
    servers: { judge_model: judge.url },
  });
  mathGate = await serve(math);
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  await Promise.all([weather, turns, math, judge].map((i) => i.close()));
});

// ---- MCP ----------------------------------------------------------------------------------------

async function mcpClient(gateway: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway}/mcp`));
  const client = new Client({ name: "conformance", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

type ToolReply = { content: Array<{ type: string; text: string }>; structuredContent?: any; isError?: boolean };
const callTool = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as ToolReply;

describe("MCP over streamable HTTP (the SDK's client)", () => {
  it("single tool: tools listed, an episode started on a row, its tool called in the session, the answer scored", async () => {
    const { client, transport } = await mcpClient(weatherGate);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["start_episode", "get_weather", "submit_answer"]);
    expect(tools[1]!.inputSchema).toMatchObject({ type: "object", required: ["city"] });
    const started = await callTool(client, "start_episode", { row_index: 0 });
    expect(started.structuredContent).toMatchObject({ row_index: 0, tools: ["get_weather"] });
    expect(started.structuredContent.messages.at(-1)).toEqual({ role: "user", content: "what's it like in sf?" });
    const weatherReply = await callTool(client, "get_weather", { city: "San Francisco" });
    expect(weatherReply.isError).toBeFalsy();
    expect(JSON.parse(weatherReply.content[0]!.text)).toEqual({ city: "San Francisco", weather_description: "The weather in San Francisco is cold." });
    const scored = await callTool(client, "submit_answer", { answer: "Cold." });
    expect(scored.structuredContent).toMatchObject({ reward: 1, done: true });
    await transport.terminateSession();
    await client.close();
  });

  it("errors come back as tool errors naming their code: before start, unknown tool, malformed arguments, after the end, a closed session", async () => {
    const { client, transport } = await mcpClient(weatherGate);
    const early = await callTool(client, "get_weather", { city: "x" });
    expect(early).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^not_reset: /) }] });
    await callTool(client, "start_episode", {});
    expect((await callTool(client, "no_such_tool", {})).content[0]!.text).toMatch(/^unknown_tool: /);
    expect((await callTool(client, "submit_answer", { reply: "x" })).content[0]!.text).toMatch(/^invalid_args: /);
    expect((await callTool(client, "get_weather", {})).content[0]!.text).toMatch(/^invalid_args: .*city/);
    expect((await callTool(client, "start_episode", { row_index: 999 })).content[0]!.text).toMatch(/^bad_row: row index 999 is out of range/);
    await callTool(client, "submit_answer", { answer: "done" });
    expect((await callTool(client, "get_weather", { city: "x" })).content[0]!.text).toMatch(/^done: /);
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    await client.close();
    // The ended session is gone: a request naming it is refused with a reason, and the server still serves.
    const stale = await call(`${weatherGate}/mcp`, {
      method: "POST",
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      headers: { "mcp-session-id": sessionId, accept: "application/json, text/event-stream" },
      retry: NO_RETRY,
    });
    expect(stale.status).toBe(404);
    expect(stale.text).toContain("Session not found");
    const again = await mcpClient(weatherGate);
    expect((await again.client.listTools()).tools).toHaveLength(3);
    await again.client.close();
  });

  it("sessions are isolated (each its own episode), and past the cap a new one is refused", async () => {
    const a = await mcpClient(turnsGate);
    const b = await mcpClient(turnsGate);
    await callTool(a.client, "start_episode", { row_index: 0 });
    await callTool(b.client, "start_episode", { row_index: 1 });
    const fromA = await callTool(a.client, "submit_answer", { answer: "Paris" });
    const fromB = await callTool(b.client, "submit_answer", { answer: "120" });
    expect(fromA.structuredContent.observation).toBe("What is the approximate population of that city?");
    expect(fromB.structuredContent.observation).toBe("Now divide that result by 6.");
    const c = await mcpClient(turnsGate);
    // turnsGate holds 3 sessions: a fourth initialize is refused.
    await expect(mcpClient(turnsGate)).rejects.toThrow(/capacity/);
    for (const s of [a, b, c]) {
      await s.transport.terminateSession();
      await s.client.close();
    }
  });
});

describe("math_with_judge over MCP and ORS", () => {
  it("the library verifier's reward, and the judge's when the library cannot tell, through both", async () => {
    const { client, transport } = await mcpClient(mathGate);
    await callTool(client, "start_episode", { row_index: 0 });
    expect((await callTool(client, "submit_answer", { answer: "So the count is \\boxed{32}." })).structuredContent).toMatchObject({ reward: 1, verify: { library_reward: 1, extracted_answer: "32" } });
    await callTool(client, "start_episode", { row_index: 0 });
    expect((await callTool(client, "submit_answer", { answer: "\\boxed{31}" })).structuredContent.reward).toBe(0);
    await transport.terminateSession();
    await client.close();

    const ors = new Ors(`${mathGate}/ors`);
    await ors.open("math_with_judge", { split: "test", index: 4 });
    // -3 written so that the library verifier does not match it; the judge says both ways it is the same.
    verdicts.push("[[A=B]]", "[[A=B]]");
    const judged = await ors.call("math_with_judge", "submit_answer", { answer: "\\boxed{minus three}" });
    expect(judged).toMatchObject({ ok: true, output: { reward: 1, finished: true, metadata: { library_reward: 0 } } });
    expect(judged.output.metadata.judge_evaluations).toHaveLength(2);
    await ors.close();
  });
});

// ---- ORS ----------------------------------------------------------------------------------------

/** An ORS client as the reference one speaks (X-Session-ID; streamed calls end with an `end` event). */
class Ors {
  sid = "";
  constructor(private readonly base: string) {}

  async request(method: "GET" | "POST", path: string, body?: unknown, sid = this.sid): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = { accept: "application/json, text/event-stream" };
    if (sid) headers["x-session-id"] = sid;
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${this.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, text: await response.text() };
  }

  async json(method: "GET" | "POST", path: string, body?: unknown): Promise<any> {
    const { status, text } = await this.request(method, path, body);
    if (status !== 200) throw new Error(`${path} ${status}: ${text}`);
    return JSON.parse(text);
  }

  static events(text: string): Array<[string, string]> {
    return text
      .split(/\r?\n\r?\n/)
      .filter((block) => block.trim() !== "")
      .map((block) => {
        const lines = block.split(/\r?\n/);
        const event = lines.find((l) => l.startsWith("event:"))?.slice(6).trim() ?? "message";
        const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n");
        return [event, data] as [string, string];
      });
  }

  async open(env: string, task: Record<string, unknown>): Promise<void> {
    const created = await this.request("POST", "/create_session", {}, "");
    this.sid = Ors.events(created.text).find(([e]) => e === "task_id")![1];
    await this.json("POST", "/create", { env_name: env, ...task });
  }

  async call(env: string, name: string, input: Record<string, unknown>): Promise<any> {
    const { status, text } = await this.request("POST", `/${env}/call`, { name, input });
    if (status !== 200) throw new Error(`call ${status}: ${text}`);
    const events = Ors.events(text);
    expect(events[0]![0]).toBe("task_id");
    return JSON.parse(events.filter(([e]) => e === "chunk" || e === "end").map(([, d]) => d).join(""));
  }

  async close(): Promise<void> {
    await this.request("POST", "/delete");
    await this.request("POST", "/delete_session");
  }
}

describe("Open Reward Standard (a client written from the reference one)", () => {
  it("single tool: environments, splits, tasks, a session's prompt and tools, calls with blocks, submit_answer's inline reward and finished", async () => {
    const ors = new Ors(`${weatherGate}/ors`);
    expect(await ors.json("GET", "/list_environments")).toEqual(["example_single_tool_call"]);
    const env = "example_single_tool_call";
    expect(await ors.json("GET", `/${env}/splits`)).toEqual([{ name: "test", type: "test" }]);
    const rows = rowsOf(env);
    expect(await ors.json("POST", `/${env}/num_tasks`, { split: "test" })).toEqual({ num_tasks: rows.length });
    expect((await ors.json("POST", `/${env}/task`, { split: "test", index: 1 })).task).toEqual(rows[1]);
    expect((await ors.json("POST", `/${env}/task_range`, { split: "test", start: 1, stop: 3 })).tasks).toEqual(rows.slice(1, 3));
    expect((await ors.json("POST", `/${env}/task_range`, { split: "test", start: -2 })).tasks).toEqual(rows.slice(-2));
    expect((await ors.json("POST", `/${env}/tasks`, { split: "test" })).tasks).toHaveLength(rows.length);
    expect((await ors.json("GET", `/${env}/tools`)).tools.map((t: { name: string }) => t.name)).toEqual(["get_weather", "submit_answer"]);
    await ors.open(env, { split: "test", index: 0 });
    const prompt = await ors.json("GET", `/${env}/prompt`);
    expect(prompt.at(-1)).toEqual({ text: "what's it like in sf?", detail: { role: "user" }, type: "text" });
    expect((await ors.json("GET", `/${env}/task_tools`)).tools[0]).toMatchObject({ name: "get_weather", input_schema: { required: ["city"] } });
    const tool = await ors.call(env, "get_weather", { city: "SF" });
    expect(tool).toMatchObject({ ok: true, output: { reward: null, finished: false } });
    expect(JSON.parse(tool.output.blocks[0].text)).toMatchObject({ city: "SF" });
    const scored = await ors.call(env, "submit_answer", { answer: "cold" });
    expect(scored).toMatchObject({ ok: true, output: { reward: 1, finished: true, metadata: { reward: 1 } } });
    await ors.close();
  });

  it("errors in ORS's shapes: bad split or index, a duplicate session, calls without a session or after delete, unknown tool, malformed input", async () => {
    const env = "example_single_tool_call";
    const ors = new Ors(`${weatherGate}/ors`);
    expect(await ors.request("POST", `/${env}/num_tasks`, { split: "train" })).toEqual({ status: 400, text: JSON.stringify({ detail: "Invalid split" }) });
    expect((await ors.request("POST", `/nope/num_tasks`, { split: "test" })).status).toBe(404);
    expect((await ors.request("POST", `/${env}/call`, { name: "get_weather", input: {} })).status).toBe(400);
    const created = await ors.request("POST", "/create_session", {}, "");
    ors.sid = Ors.events(created.text)[0]![1];
    expect((await ors.request("POST", "/create", { split: "test", index: 99 })).text).toContain("Invalid index");
    expect((await ors.request("POST", "/create", { split: "test" })).status).toBe(422);
    expect((await ors.request("POST", "/create", { split: "test", index: 0 })).status).toBe(200);
    expect((await ors.request("POST", "/create", { split: "test", index: 0 })).text).toContain("Session already exists");
    expect(await ors.call(env, "nope", {})).toEqual({ ok: false, error: expect.stringMatching(/^unknown_tool: /) });
    expect(await ors.call(env, "get_weather", {})).toEqual({ ok: false, error: expect.stringMatching(/^invalid_args: .*city/) });
    expect((await ors.request("POST", `/${env}/call`, { name: "get_weather" })).status).toBe(422);
    await ors.close();
    expect((await ors.request("POST", `/${env}/call`, { name: "get_weather", input: { city: "x" } })).text).toContain("Active environment not found");
  });

  it("is served at the gateway's root too (the reference client takes only an origin), taking body-less POSTs of any content type", async () => {
    const root = new Ors(weatherGate);
    expect(await root.json("GET", "/list_environments")).toEqual(["example_single_tool_call"]);
    // One session map: a session opened at the root is the one under /ors.
    await root.open("example_single_tool_call", { split: "test", index: 0 });
    const prefixed = new Ors(`${weatherGate}/ors`);
    prefixed.sid = root.sid;
    expect((await prefixed.call("example_single_tool_call", "submit_answer", { answer: "x" })).output.reward).toBe(1);
    // aiohttp sends `Content-Type: application/octet-stream` with an empty body; FastAPI ignores it, and so does Gymkit.
    const empty = await fetch(`${weatherGate}/delete`, { method: "POST", headers: { "content-type": "application/octet-stream", "x-session-id": root.sid } });
    expect(empty.status).toBe(200);
    expect((await root.request("POST", "/ping")).status).toBe(404);
  });

  it("sessions are isolated, each one's calls in order", async () => {
    const env = "example_multi_turn_gymnasium";
    const a = new Ors(`${turnsGate}/ors`);
    const b = new Ors(`${turnsGate}/ors`);
    await a.open(env, { split: "test", index: 0 });
    await b.open(env, { split: "test", index: 1 });
    const [fromA, fromB] = await Promise.all([a.call(env, "submit_answer", { answer: "Paris" }), b.call(env, "submit_answer", { answer: "120" })]);
    expect(fromA.output.blocks[0].text).toBe("What is the approximate population of that city?");
    expect(fromB.output.blocks[0].text).toBe("Now divide that result by 6.");
    await Promise.all([a.close(), b.close()]);
  });
});

// ---- the same episode through every protocol --------------------------------------------------

/** Row 0 answered right to the end (reward 1); row 1 answered wrong at the end (reward 0). */
const SCRIPTS: Array<{ row: number; answers: string[] }> = [
  { row: 0, answers: ["Paris.", "About two million.", "The Eiffel Tower."] },
  { row: 1, answers: ["120.", "It is 19."] },
];

async function viaNemoGym(row: number, answers: string[]): Promise<number> {
  const jar = new CookieJar();
  const data = rowsOf("example_multi_turn_gymnasium")[row]!;
  await turns.request("/reset", data, jar);
  let total = 0;
  for (const answer of answers) {
    const response = { id: "r", object: "response", created_at: 0, model: "m", status: "completed", output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: answer, annotations: [] }] }] };
    const step = await turns.request("/step", { ...data, response }, jar);
    total += step.body.reward;
  }
  return total;
}

async function viaOpenEnv(row: number, answers: string[]): Promise<number> {
  const socket = new WebSocket(`${turnsGate.replace(/^http/, "ws")}/openenv/ws`);
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  const inbox: any[] = [];
  const waiting: Array<(m: any) => void> = [];
  socket.on("message", (raw) => {
    const message = JSON.parse(String(raw));
    const next = waiting.shift();
    if (next) next(message);
    else inbox.push(message);
  });
  const send = (message: unknown) => {
    socket.send(JSON.stringify(message));
    return inbox.length > 0 ? Promise.resolve(inbox.shift()) : new Promise<any>((resolve) => waiting.push(resolve));
  };
  await send({ type: "reset", data: { row_index: row } });
  let total = 0;
  for (const answer of answers) total += (await send({ type: "step", data: { type: "submit_answer", answer } })).data.reward ?? 0;
  socket.close();
  return total;
}

async function viaMcp(row: number, answers: string[]): Promise<number> {
  const { client, transport } = await mcpClient(turnsGate);
  await callTool(client, "start_episode", { row_index: row });
  let last = 0;
  for (const answer of answers) last = (await callTool(client, "submit_answer", { answer })).structuredContent.total_reward;
  await transport.terminateSession();
  await client.close();
  return last;
}

async function viaOrs(row: number, answers: string[]): Promise<number> {
  const ors = new Ors(`${turnsGate}/ors`);
  await ors.open("example_multi_turn_gymnasium", { split: "test", index: row });
  let total = 0;
  for (const answer of answers) total += (await ors.call("example_multi_turn_gymnasium", "submit_answer", { answer })).output.reward ?? 0;
  await ors.close();
  return total;
}

describe("one episode, every protocol", () => {
  it("gives the same reward through nemo-gym, OpenEnv, MCP and ORS, equal to gym eval run's", async () => {
    const rewards: Record<string, number[]> = { "nemo-gym": [], openenv: [], mcp: [], ors: [] };
    for (const { row, answers } of SCRIPTS) {
      rewards["nemo-gym"]!.push(await viaNemoGym(row, answers));
      rewards.openenv!.push(await viaOpenEnv(row, answers));
      rewards.mcp!.push(await viaMcp(row, answers));
      rewards.ors!.push(await viaOrs(row, answers));
    }
    expect(rewards).toEqual({ "nemo-gym": [1, 0], openenv: [1, 0], mcp: [1, 0], ors: [1, 0] });

    // gym eval run: gymnasium_agent with a policy that gives the same answers, turn by turn.
    const byPrompt = new Map(SCRIPTS.map(({ row, answers }) => [(rowsOf("example_multi_turn_gymnasium")[row]!.responses_create_params as any).input[0].content as string, answers]));
    const engine = await engineOf({
      policy: (turnsSoFar) => {
        const answers = byPrompt.get(turnsSoFar.find((t) => t.role === "user")!.content) ?? [];
        return { text: answers[turnsSoFar.filter((t) => t.role === "assistant").length] ?? "?" };
      },
    });
    const dir = mkdtempSync(join(tmpdir(), "gym-protocols-"));
    const input = join(dir, "in.jsonl");
    writeFileSync(input, SCRIPTS.map(({ row }) => JSON.stringify(rowsOf("example_multi_turn_gymnasium")[row])).join("\n") + "\n");
    const output = join(dir, "out.jsonl");
    const run = await runGym(["eval", "run", "--resources-server", "example_multi_turn_gymnasium", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "-i", input, "-o", output, "--quiet"]);
    expect(run.code, run.stderr).toBe(0);
    const evalRewards = readJsonlFile(output).sort((x, y) => x._ng_task_index - y._ng_task_index).map((l) => l.reward);
    expect(evalRewards).toEqual(rewards.ors);
  }, 120_000);
});

// ---- MCP over stdio ------------------------------------------------------------------------------

/**
 * The SDK's stdio framing (newline-delimited JSON-RPC, its ReadBuffer and serializeMessage) over a pair
 * of in-process pipes, as StdioClientTransport speaks it over a child's stdin/stdout: the server side
 * is serveMcpStdio exactly as `gym env mcp` runs it, without spawning a process.
 */
class PipeClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}

  async start(): Promise<void> {
    this.fromServer.on("data", (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) this.onmessage?.(message);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
  }
}

describe("MCP over stdio (serveMcpStdio, the SDK's client and stdio framing)", () => {
  it("serves the running environment's episode: tools listed, a tool called, the answer scored; ends with stdin", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const bridge = new EnvironmentBridge({ name: "weather", url: weather.url, rows: new DatasetRows(rowsOf("example_single_tool_call")) });
    const served = serveMcpStdio(bridge, { stdin, stdout });
    const client = new Client({ name: "conformance", version: "1.0.0" });
    await client.connect(new PipeClientTransport(stdin, stdout));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["start_episode", "get_weather", "submit_answer"]);
    expect((await callTool(client, "start_episode", { row_index: 2 })).structuredContent.row_index).toBe(2);
    expect(JSON.parse((await callTool(client, "get_weather", { city: "Paris" })).content[0]!.text)).toMatchObject({ city: "Paris" });
    expect((await callTool(client, "submit_answer", { answer: "cold" })).structuredContent).toMatchObject({ reward: 1, done: true });
    await client.close();
    await served;
  });
});
