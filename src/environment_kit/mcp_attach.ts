// MCP servers attached to an environment as extra tools (issue 22, "Drive"): an environment instance's
// `mcp_servers:` list names MCP servers — a stdio command or a streamable-HTTP URL — that the
// environment's server connects to at start-up with the official SDK's client. Each of their tools is
// served as `POST /mcp__<server>__<tool>` (NeMo Gym's MCP namespace, the one src/environment_kit/mcp.ts
// strips), forwarded to the MCP server; its function spec is listed by `GET /tools` and handed to the
// agent in the `/seed_session` reply under `attached_tools`, which simple_agent appends to the row's
// `responses_create_params.tools`. Names are always namespaced: they can clash neither with the
// environment's own tools nor with another server's. Gymkit's own design; NeMo Gym (07d6b0d) has no
// counterpart — its `mcp__` naming is matched from nemo_gym/mcp_auto_exposure.py.
import type { FastifyInstance } from "fastify";
// The SDK's client is imported when an instance has `mcp_servers` (it loads ajv and ~60 modules, a
// cost every environment server would pay at start-up otherwise; issue 23).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import { HttpError, parseOr422 } from "../http/errors.js";
import { sendJson } from "../http/reply.js";
import type { FunctionToolSpec } from "./tool_schema.js";

/** The config key, on any tool-using environment instance. */
export const MCP_SERVERS_KEY = "mcp_servers";
/** The `/seed_session` reply key carrying the attached tools' function specs. */
export const ATTACHED_TOOLS_KEY = "attached_tools";

const ServerName = z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, "a server name is 1–40 letters, digits, `_` or `-` (it becomes part of tool names)");
const StdioEntry = z.strictObject({
  name: ServerName,
  /** The program to run; it speaks MCP on its stdin/stdout. */
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Added to the inherited safe environment (PATH, HOME, …). */
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
});
const UrlEntry = z.strictObject({
  name: ServerName,
  /** A streamable-HTTP MCP endpoint, e.g. http://127.0.0.1:8000/mcp. */
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).default({}),
});
export const McpServerEntry = z.union([StdioEntry, UrlEntry], {
  error: (issue) => {
    const input = issue.input;
    const keys = input !== null && typeof input === "object" ? `; this one has keys [${Object.keys(input).join(", ")}]` : `, not ${JSON.stringify(input)}`;
    return `an entry is {name, command, args?, env?, cwd?} (a stdio server) or {name, url, headers?} (a streamable-HTTP server)${keys}`;
  },
});
export const McpServers = z
  .array(McpServerEntry)
  .refine((list) => new Set(list.map((s) => s.name)).size === list.length, "every entry of mcp_servers needs its own `name`");
export type McpServerEntry = z.infer<typeof McpServerEntry>;

/** OpenAI's constraint on function names (and one URL path segment). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export const attachedToolName = (server: string, tool: string) => `mcp__${server}__${tool}`;

interface AttachedTool {
  server: string;
  client: Client;
  /** The tool's own name on its MCP server. */
  tool: string;
  spec: FunctionToolSpec;
}

export interface AttachedMcp {
  /** Function specs of every attached tool, in server order. */
  specs: FunctionToolSpec[];
  /** Mounts `POST /mcp__<server>__<tool>` for each tool. */
  mount(app: FastifyInstance): void;
  close(): Promise<void>;
}

const where = (entry: McpServerEntry) => ("command" in entry ? `command ${JSON.stringify([entry.command, ...entry.args].join(" "))}` : `url ${entry.url}`);

async function transportOf(entry: McpServerEntry): Promise<Transport> {
  if ("command" in entry) {
    const { getDefaultEnvironment, StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    return new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...getDefaultEnvironment(), ...entry.env }, cwd: entry.cwd, stderr: "inherit" });
  }
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  return new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } });
}

/**
 * Connects to every server and lists its tools. A server that cannot be reached, or a tool whose
 * name cannot be a function name, fails start-up with the entry named.
 */
export async function attachMcpServers(entries: readonly McpServerEntry[], instanceName: string): Promise<AttachedMcp> {
  const clients: Client[] = [];
  const tools = new Map<string, AttachedTool>();
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const close = async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
  };
  try {
    for (const entry of entries) {
      const client = new Client({ name: `gymkit-${instanceName}`, version: "1.0.0" });
      const label = `${instanceName}.${MCP_SERVERS_KEY} entry "${entry.name}" (${where(entry)})`;
      try {
        await client.connect(await transportOf(entry));
      } catch (error) {
        throw new Error(`${label}: could not connect to the MCP server: ${(error as Error).message}`, { cause: error });
      }
      clients.push(client);
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined);
        for (const tool of page.tools) {
          const name = attachedToolName(entry.name, tool.name);
          if (!TOOL_NAME.test(name)) throw new Error(`${label}: its tool "${tool.name}" would be served as "${name}", which is not a valid function name (${TOOL_NAME}); shorten the server name or leave this server out`);
          const spec: FunctionToolSpec = { type: "function", name, description: tool.description ?? "", parameters: tool.inputSchema as Record<string, unknown>, strict: false };
          tools.set(name, { server: entry.name, client, tool: tool.name, spec });
        }
        cursor = page.nextCursor;
      } while (cursor);
    }
  } catch (error) {
    await close();
    throw error;
  }

  const Args = z.record(z.string(), z.unknown());
  return {
    specs: [...tools.values()].map((t) => t.spec),
    close,
    mount(app) {
      for (const [name, tool] of tools) {
        app.post(`/${name}`, async (request, reply) => {
          const args = parseOr422(Args, request.body ?? {});
          let result: Awaited<ReturnType<Client["callTool"]>>;
          try {
            result = await tool.client.callTool({ name: tool.tool, arguments: args });
          } catch (error) {
            // The MCP server failed to answer (an MCP error, or gone): a tool error, not a crash.
            throw Object.assign(new HttpError(502, `MCP server "${tool.server}" could not run ${tool.tool}: ${(error as Error).message}`), { cause: error });
          }
          const text = textOf(result);
          // A tool that reported an error: its text, marked as an error, for the model to read.
          if (result.isError) return sendJson(reply, { error: text });
          if (result.structuredContent !== undefined) return sendJson(reply, result.structuredContent);
          return reply.type("text/plain; charset=utf-8").send(text);
        });
      }
    },
  };
}

/** A tool result's content blocks as text: text blocks as they are, anything else as JSON, one per line. */
function textOf(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : [];
  if (content.length === 0 && "toolResult" in result) return JSON.stringify(result.toolResult);
  return content.map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : JSON.stringify(block))).join("\n");
}
