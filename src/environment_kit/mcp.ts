// An environment's tools over MCP, as NeMo Gym's `expose_tools_over_mcp` serves them (matched against
// NVIDIA-NeMo/Gym 07d6b0d nemo_gym/mcp_auto_exposure.py): a stateless Streamable-HTTP endpoint at
// `/mcp` answering JSON (initialize, tools/list, tools/call, ping); `/seed_session` replies carry
// `mcp: {server_name, url_path, transport, headers: {X-NeMo-Gym-Session-Token}}`, a signed token naming
// the rollout's session, so a tool called over MCP acts on the same session state as one called over
// plain HTTP with the session cookie; `/verify` scores tool-call names with the client's
// `mcp__<server>__` namespace stripped, and its reply keeps the names as the model emitted them.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import { HttpError, RequestValidationError } from "../http/errors.js";
import type { FunctionToolSpec } from "./tool_schema.js";

export const MCP_TOKEN_HEADER = "X-NeMo-Gym-Session-Token";
export const MCP_URL_PATH = "/mcp";
/** Protocol revisions this endpoint speaks; an unknown request gets the newest. */
const PROTOCOL_VERSIONS = ["2025-06-18", "2025-03-26", "2024-11-05"];

export interface McpTool {
  spec: FunctionToolSpec;
  args: z.ZodObject;
  /** Runs the tool for a session; returns its JSON-able result. */
  call(args: unknown, sessionId: string): Promise<unknown>;
}

/** Signs and reads session tokens with a secret of this instance's own. */
export class SessionTokens {
  private readonly secret = randomBytes(32);

  private sign(body: string): string {
    return createHmac("sha256", this.secret).update(`nemo-gym-mcp-session-token.${body}`).digest("base64url");
  }

  mint(sessionId: string): string {
    const body = Buffer.from(JSON.stringify({ sid: sessionId, tools: null })).toString("base64url");
    return `${body}.${this.sign(body)}`;
  }

  /** The session id of a token, or undefined when it is missing or forged. */
  read(token: string | undefined): string | undefined {
    if (!token) return undefined;
    const [body, signature] = token.split(".");
    if (!body || !signature) return undefined;
    const want = Buffer.from(this.sign(body));
    const got = Buffer.from(signature);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
    try {
      const sid = (JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { sid?: unknown }).sid;
      return typeof sid === "string" ? sid : undefined;
    } catch {
      return undefined;
    }
  }
}

/** NeMo Gym's `normalize_tool_name` for one server: strips `mcp__<server>__` from a tool-call name. */
export function normalizeToolName(name: string, serverName: string): string {
  const prefix = `mcp__${serverName}__`;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** The `/verify` body with every function call's name normalized (a copy; the original is untouched). */
export function withNormalizedToolNames<T extends { response: { output: readonly unknown[] } }>(request: T, serverName: string): T {
  const output = request.response.output.map((item) => {
    const call = item as Record<string, unknown>;
    if (call?.type !== "function_call" || typeof call.name !== "string") return item;
    const name = normalizeToolName(call.name, serverName);
    return name === call.name ? item : { ...call, name };
  });
  return { ...request, response: { ...request.response, output } };
}

/** The `mcp` entry of a `/seed_session` reply. */
export function seedMetadata(serverName: string, token: string): Record<string, unknown> {
  return { server_name: serverName, url_path: MCP_URL_PATH, transport: "http", headers: { [MCP_TOKEN_HEADER]: token } };
}

type JsonRpc = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };

const rpcError = (id: unknown, code: number, message: string) => ({ jsonrpc: "2.0", id: id ?? null, error: { code, message } });

/** The text of a tool result: a string as is, anything else as compact JSON. */
function resultOf(payload: unknown): Record<string, unknown> {
  const text = typeof payload === "string" ? payload : JSON.stringify(payload);
  const isObject = payload !== null && typeof payload === "object" && !Array.isArray(payload);
  return { content: [{ type: "text", text }], ...(isObject ? { structuredContent: payload } : {}), isError: false };
}

const errorResult = (text: string) => ({ content: [{ type: "text", text }], isError: true });

/** Mounts `/mcp` on an environment's server. */
export function mountMcp(app: FastifyInstance, options: { serverName: string; tools: Map<string, McpTool>; tokens: SessionTokens }): void {
  const { serverName, tools, tokens } = options;

  const answer = async (message: JsonRpc, request: FastifyRequest): Promise<unknown> => {
    const id = message.id;
    const params = (message.params ?? {}) as Record<string, unknown>;
    switch (message.method) {
      case "initialize": {
        const asked = typeof params.protocolVersion === "string" ? params.protocolVersion : "";
        return {
          jsonrpc: "2.0",
          id,
          result: {
            protocolVersion: PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0],
            capabilities: { experimental: {}, tools: { listChanged: false } },
            serverInfo: { name: serverName, version: "1.0.0" },
          },
        };
      }
      case "ping":
        return { jsonrpc: "2.0", id, result: {} };
      case "tools/list":
        return {
          jsonrpc: "2.0",
          id,
          result: { tools: [...tools.values()].map((t) => ({ name: t.spec.name, description: t.spec.description || undefined, inputSchema: t.spec.parameters })) },
        };
      case "tools/call": {
        const name = String(params.name ?? "");
        const tool = tools.get(name);
        if (!tool) return { jsonrpc: "2.0", id, result: errorResult(`Unknown tool: '${name}'. Available tools: [${[...tools.keys()].sort().map((t) => `'${t}'`).join(", ")}]`) };
        const header = request.headers[MCP_TOKEN_HEADER.toLowerCase()];
        const token = typeof header === "string" ? header : undefined;
        const sessionId = tokens.read(token);
        if (sessionId === undefined) return { jsonrpc: "2.0", id, result: errorResult(token ? "Invalid Gym MCP session token." : `Missing ${MCP_TOKEN_HEADER} for Gym MCP tool call.`) };
        try {
          return { jsonrpc: "2.0", id, result: resultOf(await tool.call(params.arguments ?? {}, sessionId)) };
        } catch (error) {
          // The text the plain HTTP route would have answered: the 422 detail list, or the error itself.
          const status = error instanceof HttpError ? error.statusCode : 500;
          const detail = error instanceof RequestValidationError ? JSON.stringify(error.detail) : error instanceof HttpError ? error.message : error instanceof Error ? `${error.name}(${JSON.stringify(error.message)})` : String(error);
          return { jsonrpc: "2.0", id, result: errorResult(`HTTP ${status} from POST /${name}: ${detail}`) };
        }
      }
      default:
        return rpcError(id, -32601, "Method not found");
    }
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const body = request.body as JsonRpc | JsonRpc[] | undefined;
    const messages = Array.isArray(body) ? body : [body ?? {}];
    const replies: unknown[] = [];
    for (const message of messages) {
      if (message === null || typeof message !== "object" || message.jsonrpc !== "2.0" || typeof message.method !== "string") {
        replies.push(rpcError((message as JsonRpc | null)?.id, -32600, "Invalid Request"));
        continue;
      }
      // A notification (no id) gets no answer.
      if (message.id === undefined) continue;
      replies.push(await answer(message, request));
    }
    if (replies.length === 0) return reply.code(202).send();
    return reply.type("application/json").send(JSON.stringify(Array.isArray(body) ? replies : replies[0]));
  };

  app.post(MCP_URL_PATH, handle);
  app.post(`${MCP_URL_PATH}/*`, handle);
  // Stateless: there is no server-to-client stream to open and no session to end.
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).header("allow", "POST").type("application/json").send(JSON.stringify(rpcError(null, -32000, "Method not allowed.")));
  app.get(MCP_URL_PATH, notAllowed);
  app.delete(MCP_URL_PATH, notAllowed);
}
