// MCP servers attached to an environment (`mcp_servers`), on real servers on 127.0.0.1: a stdio MCP
// server (test/fixtures/mcp/attach_server.mjs) and a streamable-HTTP one started here, attached to
// example_single_tool_call; simple_agent runs a rollout in which the scripted model (the engine
// double, the only stand-in) calls an attached tool; the rollout carries its output and still scores.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startFakeEngine, type FakeEngine } from "../../test/doubles/fake_engine.js";
import simpleAgent from "../agents/simple_agent.js";
import { validateConfig } from "../config/validate.js";
import environment from "../environments/example_single_tool_call/index.js";
import { readJsonlFile, startInstance, type RunningInstance } from "./testing.js";

const FIXTURE = fileURLToPath(new URL("../../test/fixtures/mcp/attach_server.mjs", import.meta.url));
const stdioEntry = { name: "airports", command: process.execPath, args: [FIXTURE], env: { FIXTURE_SUFFIX: "!" } };
const row = readJsonlFile(new URL("../environments/example_single_tool_call/data/example.jsonl", import.meta.url))[0]!;

/** A streamable-HTTP MCP server (stateless: one SDK server and transport per request). */
async function startHttpMcp(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const mcp = new McpServer({ name: "http-fixture", version: "1.0.0" });
    mcp.registerTool("shout", { description: "Upper-cases a word.", inputSchema: { word: z.string() } }, async ({ word }) => ({
      content: [{ type: "text", text: word.toUpperCase() }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => void mcp.close());
    await mcp.connect(transport);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    await transport.handleRequest(req, res, chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // The environment's client keeps its connection alive; do not wait for it to time out.
        server.closeAllConnections();
      }),
  };
}

describe("mcp_servers: MCP servers attached as extra tools", () => {
  let engine: FakeEngine;
  let httpMcp: { url: string; close(): Promise<void> };
  let env: RunningInstance;
  let agent: RunningInstance;
  beforeAll(async () => {
    // First turn: call the attached tool; after its output: answer with it.
    engine = await startFakeEngine({
      policy: (turns) => {
        const last = turns.at(-1)!;
        if (last.role === "tool") return { text: `Answer: ${last.content}` };
        return { toolCalls: [{ name: "mcp__airports__lookup_code", arguments: { city: "Paris" } }] };
      },
    });
    httpMcp = await startHttpMcp();
    env = await startInstance(environment, { config: { mcp_servers: [stdioEntry, { name: "loud", url: httpMcp.url }] } });
    agent = await startInstance(simpleAgent, {
      name: "agent",
      config: { resources_server: { type: "resources_servers", name: env.name }, model_server: { type: "responses_api_models", name: "policy_model" } },
      servers: { [env.name]: env.url, policy_model: engine.url },
    });
  });
  afterAll(async () => {
    await Promise.all([agent?.close(), env?.close(), engine?.close()]);
    await httpMcp?.close();
  });

  it("a rollout: the model is offered the attached tools, calls one, the rollout carries its output and scores", async () => {
    const result = await agent.request("/run", row);
    expect(result.status, result.text).toBe(200);
    expect(result.body.reward).toBe(1);
    const outputs = (result.body.response.output as Array<Record<string, unknown>>).filter((item) => item.type === "function_call_output");
    // The stdio server's answer, with the env var its entry set.
    expect(outputs.map((o) => o.output)).toEqual(["The airport code of Paris is PAR!."]);
    const offered = (engine.requests[0]!.body.tools as Array<{ name: string }>).map((t) => t.name);
    expect(offered).toEqual(["get_weather", "mcp__airports__lookup_code", "mcp__airports__always_fails", "mcp__loud__shout"]);
    // The rollout records the tools the model saw.
    expect(result.body.responses_create_params.tools.map((t: { name: string }) => t.name)).toEqual(offered);
  });

  it("GET /tools and /seed_session list the attached tools; a URL server's tool answers", async () => {
    const tools = await env.request("/tools");
    expect(tools.body.map((t: { name: string }) => t.name)).toEqual(["get_weather", "mcp__airports__lookup_code", "mcp__airports__always_fails", "mcp__loud__shout"]);
    expect(tools.body[1].parameters.properties.city).toMatchObject({ type: "string" });
    const seeded = await env.request("/seed_session", row);
    expect(seeded.body.attached_tools).toEqual(tools.body.slice(1));
    const shout = await env.request("/mcp__loud__shout", { word: "hello" });
    expect(shout).toMatchObject({ status: 200, text: "HELLO" });
  });

  it("an MCP tool error is a tool error; bad arguments are a 422, never a 500", async () => {
    expect(await env.request("/mcp__airports__always_fails", {})).toMatchObject({ status: 200, body: { error: "no such airport" } });
    // The MCP server rejects arguments that do not match its schema: reported as the tool's error.
    const wrong = await env.request("/mcp__airports__lookup_code", { city: 7 });
    expect(wrong.status).toBe(200);
    expect(JSON.stringify(wrong.body.error)).toMatch(/city/);
    expect((await env.request("/mcp__airports__lookup_code", ["Paris"])).status).toBe(422);
  });

  it("a server that cannot be started fails start-up naming the entry", async () => {
    const broken = { name: "ghost", command: "/nonexistent/mcp-server" };
    await expect(startInstance(environment, { name: "weather", config: { mcp_servers: [broken] } })).rejects.toThrow(/weather\.mcp_servers entry "ghost" \(command "\/nonexistent\/mcp-server"\)/);
  });

  it("config validation names a bad entry's key", async () => {
    const registry = { loadImplementation: async () => environment, builtinIds: () => ["example_single_tool_call"] };
    const config = { weather: { resources_servers: { example_single_tool_call: { mcp_servers: [{ name: "a", comand: "node" }] } } } };
    await expect(validateConfig(config, { registry })).rejects.toThrow(/field `mcp_servers.0` is invalid: an entry is \{name, command, .*this one has keys \[name, comand\]/);
    const dup = { weather: { resources_servers: { example_single_tool_call: { mcp_servers: [stdioEntry, stdioEntry] } } } };
    await expect(validateConfig(dup, { registry })).rejects.toThrow(/its own `name`/);
    expect(environment.configSchema.safeParse({ mcp_servers: [stdioEntry] }).success).toBe(true);
  });
});
