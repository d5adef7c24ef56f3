// Any environment served as an MCP server (issue 22, "Serve: MCP"), with the official TypeScript SDK
// (@modelcontextprotocol/sdk 1.32, server side), over the protocol-neutral episode (../episode.ts):
// streamable HTTP under the gateway's `/mcp` prefix (one MCP session per `Mcp-Session-Id`, each with
// its own episode and so its own environment session), and stdio (one episode per process).
//
// Tools: `start_episode` (a dataset row by `row_index`, the next one when none is given, or a whole
// `row`; answers the prompt, instructions and tools), every tool the environment's rows offer (their
// `responses_create_params.tools`, called in the episode's environment session), and `submit_answer`
// (the final answer: a tool environment's `/verify` reward, or a Gymnasium-style environment's step).
// A failure is an MCP tool error (`isError: true`) whose text starts with its code (not_reset,
// unknown_tool, invalid_args, done, closed, bad_row, environment_error), never a failed server.
// With `--session-timeout S` (ProtocolSettings.sessionTimeout) an HTTP session no request has named
// for S seconds (and none of whose requests is still running) is closed with its episode; a request
// naming it afterwards is the SDK's "Session not found" (404, JSON-RPC -32001) saying it timed out.
import { randomUUID } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { EnvironmentBridge, Episode } from "../episode.js";
import { EpisodeError } from "../errors.js";
import type { ProtocolLayer, ProtocolMount } from "../gateway.js";
import { expiredText, IdleSessions } from "../idle.js";

export const START_TOOL = "start_episode";
export const SUBMIT_TOOL = "submit_answer";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const START: Tool = {
  name: START_TOOL,
  description: "Start an episode on a dataset row (by row_index, or the next row when none is given, or a whole row): returns the task's prompt, instructions and the tools it offers.",
  inputSchema: { type: "object", properties: { row_index: { type: "integer", minimum: 0, description: "0-based index of the dataset row" }, row: { type: "object", description: "a whole NeMo Gym row instead of an index" } } },
};

const SUBMIT: Tool = {
  name: SUBMIT_TOOL,
  description: "Give the episode's final answer; returns its reward (and the environment's verify fields).",
  inputSchema: { type: "object", properties: { answer: { type: "string", description: "the final answer, as the model would write it" } }, required: ["answer"] },
};

/** The function tools the environment's rows offer, each once by name (first definition wins). */
export function environmentTools(bridge: EnvironmentBridge): Tool[] {
  const tools = new Map<string, Tool>();
  for (let i = 0; i < bridge.rows.size; i++) {
    const params = bridge.rows.at(i).responses_create_params;
    const offered = isRecord(params) && Array.isArray(params.tools) ? params.tools : [];
    for (const tool of offered) {
      if (!isRecord(tool) || tool.type !== "function" || typeof tool.name !== "string") continue;
      if (tools.has(tool.name) || tool.name === START_TOOL || tool.name === SUBMIT_TOOL) continue;
      const schema = isRecord(tool.parameters) ? tool.parameters : { type: "object", properties: {} };
      tools.set(tool.name, { name: tool.name, description: typeof tool.description === "string" ? tool.description : undefined, inputSchema: { ...schema, type: "object" } as Tool["inputSchema"] });
    }
  }
  return [...tools.values()];
}

const textResult = (value: unknown, structured?: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) }],
  ...(structured ? { structuredContent: structured } : {}),
});

const errorResult = (code: string, message: string): CallToolResult => ({ content: [{ type: "text", text: `${code}: ${message}` }], isError: true });

/** One MCP server (SDK, low-level) whose tools act on `episode`. */
export function mcpServerFor(bridge: EnvironmentBridge, episode: Episode): Server {
  const server = new Server({ name: bridge.name, version: "1.0.0" }, { capabilities: { tools: {} }, instructions: bridge.options.description });
  let listed: Tool[] | undefined;
  const tools = () => (listed ??= [START, ...environmentTools(bridge), SUBMIT]);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    try {
      if (name === START_TOOL) {
        if (args.row_index !== undefined && !(Number.isInteger(args.row_index) && (args.row_index as number) >= 0)) return errorResult("invalid_args", "row_index must be a whole number ≥ 0");
        if (args.row !== undefined && !isRecord(args.row)) return errorResult("invalid_args", "row must be a JSON object (a NeMo Gym row)");
        const observation = await episode.reset(args.row !== undefined ? { row: args.row as Record<string, unknown> } : args.row_index !== undefined ? { index: args.row_index as number } : {});
        const shown = { ...observation, tools: observation.tools.map((t) => t.name) };
        return textResult(shown, shown as unknown as Record<string, unknown>);
      }
      if (name === SUBMIT_TOOL) {
        if (typeof args.answer !== "string") return errorResult("invalid_args", "submit_answer takes {answer: string}");
        const outcome = await episode.submit(args.answer);
        const shown = { reward: outcome.reward, total_reward: outcome.total_reward, done: outcome.done, observation: outcome.observation, ...(outcome.verify ? { verify: outcome.verify } : {}) };
        return textResult(shown, shown);
      }
      if (!tools().some((t) => t.name === name)) return errorResult("unknown_tool", `no tool "${name}"; tools: ${tools().map((t) => t.name).join(", ")}`);
      const outcome = await episode.callTool(name, args);
      const text = outcome.output ?? outcome.observation ?? "";
      // A Gymnasium-style environment's step carries a reward and may end the episode: say so.
      return bridge.kind === "gymnasium" ? textResult(text, { output: text, reward: outcome.reward, total_reward: outcome.total_reward, done: outcome.done }) : textResult(text);
    } catch (error) {
      if (error instanceof EpisodeError) return errorResult(error.code, error.message);
      throw error;
    }
  });
  return server;
}

interface McpSession {
  transport: StreamableHTTPServerTransport;
  episode: Episode;
}

const rpcError = (reply: FastifyReply, status: number, code: number, message: string) => reply.code(status).send({ jsonrpc: "2.0", error: { code, message }, id: null });

function mount({ app, prefix, bridge, settings, onClose }: ProtocolMount): void {
  const sessions = new Map<string, McpSession>();
  let opening = 0;
  // An idle session is closed as its client's DELETE would close it: the transport (onclose below
  // forgets it) and its episode.
  const idle = IdleSessions.from<string>(settings, async (sid) => {
    const session = sessions.get(sid);
    if (!session) return;
    sessions.delete(sid);
    await session.transport.close();
    await session.episode.close();
  });

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers["mcp-session-id"];
    const sid = typeof header === "string" ? header : undefined;
    if (sid !== undefined) {
      const session = sessions.get(sid);
      if (!session) {
        const why = idle.wasReaped(sid) && idle.timeout !== undefined ? expiredText(idle.timeout) : "ended or never opened";
        return rpcError(reply, 404, -32001, `Session not found: ${sid} (${why}); initialize a new one`);
      }
      idle.touch(sid);
      reply.hijack();
      // A POST keeps its session busy (not reaped) until its answer is written; a GET's event stream does not.
      const answered = new Promise<void>((resolve) => reply.raw.once("close", resolve));
      const handled = session.transport.handleRequest(request.raw, reply.raw, request.body);
      await (request.method === "POST" ? idle.during(sid, () => Promise.all([handled, answered])) : handled);
      return;
    }
    if (request.method !== "POST" || !isInitializeRequest(request.body)) {
      return rpcError(reply, 400, -32000, "Bad Request: no Mcp-Session-Id header; a session starts with an initialize request");
    }
    if (sessions.size + opening >= settings.maxSessions) {
      return rpcError(reply, 503, -32000, `Server at capacity (${sessions.size}/${settings.maxSessions} MCP sessions)`);
    }
    opening++;
    const episode = bridge.episode();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        opening--;
        sessions.set(id, { transport, episode });
        idle.add(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) {
        sessions.delete(transport.sessionId);
        idle.remove(transport.sessionId);
      }
      void episode.close().catch(() => undefined);
    };
    const server = mcpServerFor(bridge, episode);
    await server.connect(transport);
    reply.hijack();
    try {
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } finally {
      // An initialize that failed never made a session.
      if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) {
        if (transport.sessionId === undefined) opening--;
        void episode.close().catch(() => undefined);
      }
    }
  };

  app.route({ method: ["GET", "POST", "DELETE"], url: prefix, config: { streams: true }, handler: handle });
  onClose(async () => {
    idle.stop();
    await Promise.allSettled([...sessions.values()].map(async ({ transport, episode }) => {
      await transport.close();
      await episode.close();
    }));
    sessions.clear();
  });
}

export const mcpLayer: ProtocolLayer = {
  name: "mcp",
  summary: "MCP (streamable HTTP, @modelcontextprotocol/sdk): start_episode, the environment's tools, submit_answer",
  mount,
};

/** Serves one episode of `bridge` over stdio (stdin/stdout carry only MCP); resolves when stdin ends. */
export async function serveMcpStdio(bridge: EnvironmentBridge, streams: { stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream } = {}): Promise<void> {
  const episode = bridge.episode();
  const server = mcpServerFor(bridge, episode);
  const transport = new StdioServerTransport(streams.stdin as never, streams.stdout as never);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  (streams.stdin ?? process.stdin).once("end", () => void server.close());
  await closed;
  await episode.close();
}
