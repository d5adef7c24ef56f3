// `defineEnvironment`: the one thing an environment author calls. It takes the environment's tools,
// optional session seeding, `verify` and metrics, and returns a resources-server implementation whose
// HTTP routes, validation and session handling speak NeMo Gym's protocol (ARCHITECTURE §2, §10).
import { z } from "zod";
import { buildEnvironmentServer } from "./server.js";
import { functionToolOf } from "./tool_schema.js";
import { MCP_SERVERS_KEY, McpServers } from "./mcp_attach.js";
import type { EnvironmentDefinition, EnvironmentImplementation } from "./types.js";

/** Names that are routes of every resources server, so a tool cannot take them. */
const RESERVED_ROUTES = new Set(["seed_session", "verify", "aggregate_metrics", "aggregate_metrics_scope", "reverify_mode", "tools", "reset", "step", "close"]);
/** OpenAI's constraint on function names; it also keeps the name a single URL path segment. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function defineEnvironment<
  C = Record<string, never>,
  S = unknown,
  F extends z.ZodRawShape = Record<never, never>,
  G extends z.ZodRawShape = Record<never, never>,
  T extends Record<string, z.ZodObject> = Record<never, never>,
  R = undefined,
>(definition: EnvironmentDefinition<C, S, F, G, T, R>): EnvironmentImplementation<C> {
  for (const name of Object.keys(definition.tools ?? {})) {
    if (!TOOL_NAME.test(name)) throw new Error(`environment ${definition.id}: tool name "${name}" must match ${TOOL_NAME}`);
    if (RESERVED_ROUTES.has(name)) throw new Error(`environment ${definition.id}: tool name "${name}" is a reserved route`);
  }
  if ((definition.verify === undefined) === (definition.step === undefined)) {
    throw new Error(`environment ${definition.id}: give either \`verify\` (scored once by /verify) or \`step\` (a Gymnasium-style episode played by gymnasium_agent), not ${definition.verify ? "both" : "neither"}`);
  }
  if (definition.step && (definition.tools || definition.seedSession || definition.toolFallback)) {
    throw new Error(`environment ${definition.id}: a Gymnasium-style environment (with \`step\`) answers tool calls from \`step\` (info.tool_outputs); it has no \`tools\`, \`toolFallback\` or \`seedSession\``);
  }
  if (definition.reset && !definition.step) throw new Error(`environment ${definition.id}: \`reset\` belongs to a Gymnasium-style environment; give \`step\` too`);
  if (definition.close && !definition.step) throw new Error(`environment ${definition.id}: \`close\` belongs to a Gymnasium-style environment; give \`step\` too`);
  if (definition.sessionCapacity !== undefined && !(Number.isInteger(definition.sessionCapacity) && definition.sessionCapacity >= 1)) {
    throw new Error(`environment ${definition.id}: sessionCapacity must be a whole number ≥ 1, not ${definition.sessionCapacity}`);
  }
  const scope = definition.aggregateMetricsScope;
  if (scope !== undefined && scope !== "chunked" && scope !== "whole_run") {
    throw new Error(`environment ${definition.id}: aggregateMetricsScope must be "chunked" or "whole_run", not ${JSON.stringify(scope)}`);
  }
  const ownSchema = definition.configSchema ?? (z.strictObject({}) as unknown as z.ZodType<C>);
  // Every tool-using environment (object config) also takes `mcp_servers`: MCP servers attached as
  // extra tools (mcp_attach.ts). A Gymkit-wide key, so it is added here rather than by each author.
  const configSchema: z.ZodType<C> =
    !definition.step && ownSchema instanceof z.ZodObject && !(MCP_SERVERS_KEY in ownSchema.shape)
      ? (ownSchema.safeExtend({ [MCP_SERVERS_KEY]: McpServers.optional() }) as unknown as z.ZodType<C>)
      : (ownSchema as z.ZodType<C>);
  const toolSpecs = () =>
    Object.entries(definition.tools ?? {}).map(([name, tool]) => functionToolOf(name, tool.description, tool.args));
  return {
    type: "resources_servers",
    id: definition.id,
    description: definition.description,
    configSchema,
    toolSpecs,
    build: (context) => buildEnvironmentServer(definition, context),
  };
}
