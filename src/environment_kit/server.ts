// The HTTP face of an environment: NeMo Gym's resources-server routes (§0 of the examples spec),
// built from an EnvironmentDefinition. Authors never touch this file.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { HttpError, parseOr422 } from "../http/errors.js";
import type { HttpApp } from "../http/app.js";
import { sendJson } from "../http/reply.js";
import { asHttpApp, createServer, rolloutBodyLimit } from "../http/server.js";
import { aggregateMetrics as defaultAggregate, rolloutInfoIntKeys } from "../metrics/aggregate.js";
import type { InstanceContext } from "../http/implementation.js";
import { AggregateMetricsRequest, ResponseObject, ResponsesCreateParams, VerifyRequest } from "../protocol/index.js";
import { verifyRequestParser } from "../protocol/fast_parse.js";
import { asNemoGymCreateParams, asNemoGymResponse } from "../protocol/nemo_gym_models.js";
import { agentMetricsFloats, ROLLOUT_FLOATS, type FloatShape } from "../protocol/python_json.js";
import type { EnvironmentContext, EnvironmentDefinition, SeedInput, ToolDefinition, VerifyInput, VerifyResult } from "./types.js";
import { SessionStore } from "./session_store.js";
import { withJudgeFailsafe } from "../judge/failure.js";
import { functionToolOf } from "./tool_schema.js";
import { mountMcp, seedMetadata, SessionTokens, withNormalizedToolNames, type McpTool } from "./mcp.js";
import { ATTACHED_TOOLS_KEY, attachMcpServers, MCP_SERVERS_KEY, type AttachedMcp, type McpServerEntry } from "./mcp_attach.js";

const judgeFailsafe = withJudgeFailsafe(<T extends VerifyResult>(verify: () => T | Promise<T>) => verify());

export async function buildEnvironmentServer<C, S, R>(
  definition: EnvironmentDefinition<C, S, any, any, any, R>,
  given: InstanceContext<C>,
): Promise<HttpApp> {
  // `mcp_servers` (define.ts adds it to every tool-using environment's schema) is the kit's, not the
  // author's: taken out of the config the environment sees, and attached as extra tools (mcp_attach.ts).
  const { instance, mcpServers } = splitMcpServers(given);
  const attached = mcpServers.length > 0 ? await attachMcpServers(mcpServers, instance.name) : undefined;
  const resources = definition.setup ? await definition.setup(instance) : (undefined as R);
  const app = createServer({ name: instance.name });
  // Seeding, verifying and aggregating carry whole rows and rollouts; tool calls keep the small default.
  const carriesRollouts = { bodyLimit: rolloutBodyLimit() };
  if (definition.teardown) app.addHook("onClose", async () => definition.teardown!(resources));
  if (attached) app.addHook("onClose", async () => attached.close());
  // One store per instance: two instances of the same environment never share sessions. Bounded
  // (least recently used forgotten first) so a long run's finished rollouts do not pile up.
  const sessions = new SessionStore<S>(definition.sessionCapacity);
  const contextFor = (sessionId: string): EnvironmentContext<C, S, R> => ({
    name: instance.name,
    config: instance.config,
    urlOf: instance.urlOf,
    sessionId,
    sessions,
    resources,
  });
  const contextOf = (request: FastifyRequest): EnvironmentContext<C, S, R> => contextFor(request.sessionId);
  // NeMo Gym's expose_tools_over_mcp: the tools also over MCP, tied to sessions by a signed token.
  const mcpTokens = definition.exposeToolsOverMcp ? new SessionTokens() : undefined;

  if (definition.step) {
    mountGymnasiumRoutes(app, definition, contextOf, sessions, carriesRollouts);
  } else {
    const seedSchema = z.looseObject(definition.seedFields ?? {});
    app.post("/seed_session", carriesRollouts, async (request, reply) => {
      const row = parseOr422(seedSchema, request.body ?? {}) as SeedInput<any>;
      const result = definition.seedSession ? await definition.seedSession(row, contextOf(request)) : undefined;
      const body = withAttachedTools(result ?? {}, attached);
      if (mcpTokens && body !== null && typeof body === "object" && !Array.isArray(body) && !("mcp" in body)) {
        return sendJson(reply, { ...body, mcp: seedMetadata(instance.name, mcpTokens.mint(request.sessionId)) });
      }
      return sendJson(reply, body);
    });

    const verifySchema = VerifyRequest.extend(definition.rowFields ?? {});
    // What the schema would give, without zod on the rollout's two large members; the schema when unsure.
    const quickVerify = verifyRequestParser(definition.rowFields);
    app.post("/verify", carriesRollouts, async (request, reply) => {
      const verifyRequest = (quickVerify(request.body) ?? parseOr422(verifySchema, request.body)) as VerifyInput<any>;
      // Over MCP, clients namespace tool names (mcp__<server>__<tool>): scored bare, echoed as emitted.
      const scored = mcpTokens ? withNormalizedToolNames(verifyRequest, instance.name) : verifyRequest;
      // A judge that could not be asked is a `judge_failed` failure of the rollout, never a zero.
      const result = await judgeFailsafe(() => definition.verify!(scored, contextOf(request)));
      if (typeof result?.reward !== "number" || !Number.isFinite(result.reward)) {
        throw new Error(`${definition.id}.verify returned reward ${String(result?.reward)}; it must be a finite number`);
      }
      // A judge failure carries the whole request, as NeMo Gym's judge_failsafe dumps it: the row's
      // fields help whoever reads the failures file.
      const echoes = result._ng_failure_class === "judge_failed" ? "all" : definition.verifyEchoes;
      return sendJson(reply, verifyResponse(verifyRequest, result, echoes), ROLLOUT_FLOATS);
    });
  }

  app.post("/aggregate_metrics", carriesRollouts, async (request, reply) => {
    const { verify_responses } = parseOr422(AggregateMetricsRequest, request.body);
    const result = definition.aggregateMetrics
      ? await definition.aggregateMetrics(verify_responses, {
          name: instance.name,
          config: instance.config,
          defaults: defaultAggregate,
        })
      : defaultAggregate(verify_responses);
    return sendJson(reply, result, agentMetricsFloats(rolloutInfoIntKeys(verify_responses)));
  });

  const aggregateScope = definition.aggregateMetricsScope ?? "chunked";
  app.get("/aggregate_metrics_scope", async (_request, reply) => sendJson(reply, aggregateScope));

  const reverifyMode = definition.reverifyMode ?? "unknown";
  app.get("/reverify_mode", async (_request, reply) => sendJson(reply, reverifyMode));

  const tools = Object.entries(definition.tools ?? {}) as Array<[string, ToolDefinition<z.ZodObject, C, S, R>]>;
  const toolSpecs = tools.map(([name, tool]) => functionToolOf(name, tool.description, tool.args));
  const listed = attached ? [...toolSpecs, ...attached.specs] : toolSpecs;
  app.get("/tools", async (_request, reply) => sendJson(reply, listed));
  // Before the fallback route below, which would otherwise take these names.
  attached?.mount(app);

  for (const [name, tool] of tools) {
    app.post(`/${name}`, async (request, reply) => {
      // Tools without arguments are called with an empty body by some clients; treat it as `{}`.
      const args = parseOr422(tool.args, request.body ?? {});
      const result = await tool.handler(args, contextOf(request));
      return sendJson(reply, result ?? null);
    });
  }

  if (mcpTokens) {
    const mcpTools = new Map<string, McpTool>(
      tools.map(([name, tool], i) => [
        name,
        { spec: toolSpecs[i]!, args: tool.args, call: async (args, sessionId) => tool.handler(parseOr422(tool.args, args ?? {}), contextFor(sessionId)) ?? null },
      ]),
    );
    mountMcp(app, { serverName: instance.name, tools: mcpTools, tokens: mcpTokens });
  }

  if (definition.toolFallback) {
    // Registered last: the fixed routes above take precedence over this parametric one.
    // It may carry a whole model response (an agent recording its outputs), so the rollout limit.
    app.post("/:tool_name", carriesRollouts, async (request, reply) => {
      const { tool_name } = request.params as { tool_name: string };
      const result = await definition.toolFallback!(tool_name, request.body ?? null, contextOf(request));
      // Text is sent as text (NeMo Gym's routes returning str); anything else as JSON.
      if (typeof result === "string") return reply.type("text/plain; charset=utf-8").send(result);
      return sendJson(reply, result ?? null);
    });
  }

  return asHttpApp(app);
}

/** The instance with `mcp_servers` taken out of its config, and the entries (none when absent). */
function splitMcpServers<C>(instance: InstanceContext<C>): { instance: InstanceContext<C>; mcpServers: McpServerEntry[] } {
  const config = instance.config as Record<string, unknown> | undefined;
  if (config === null || typeof config !== "object" || !(MCP_SERVERS_KEY in config)) return { instance, mcpServers: [] };
  const { [MCP_SERVERS_KEY]: entries, ...rest } = config;
  return { instance: { ...instance, config: rest as C }, mcpServers: (entries as McpServerEntry[] | undefined) ?? [] };
}

/** A `/seed_session` reply with the attached tools' specs for the agent to offer the model. */
function withAttachedTools(body: unknown, attached: AttachedMcp | undefined): unknown {
  if (!attached || attached.specs.length === 0 || body === null || typeof body !== "object" || Array.isArray(body)) return body;
  return { ...body, [ATTACHED_TOOLS_KEY]: attached.specs };
}

/** NeMo Gym's EnvStepResponse: `reward` is a float; info keeps its own types. */
const STEP_FLOATS: FloatShape = { reward: true };

const ResetBody = z.looseObject({ responses_create_params: ResponsesCreateParams });
const StepBody = z.looseObject({ responses_create_params: ResponsesCreateParams, response: ResponseObject });

/**
 * NeMo Gym's GymnasiumServer routes (07d6b0d resources_servers/gymnasium/base.py): `/reset` and `/step`
 * take the row (its fields besides `responses_create_params` and `response` are the metadata the
 * environment reads); an episode's session state is dropped when a step ends it, or on `/close` for an
 * environment that defines `close`. `/verify` is refused with the reason, as NeMo Gym's raises.
 */
function mountGymnasiumRoutes<C, S, R>(
  app: FastifyInstance,
  definition: EnvironmentDefinition<C, S, any, any, any, R>,
  contextOf: (request: FastifyRequest) => EnvironmentContext<C, S, R>,
  sessions: Map<string, S>,
  carriesRollouts: { bodyLimit: number },
): void {
  app.post("/reset", carriesRollouts, async (request, reply) => {
    const { responses_create_params: _params, ...metadata } = parseOr422(ResetBody, request.body) as Record<string, unknown>;
    const result = (await definition.reset?.(metadata, contextOf(request))) ?? {};
    const info = result.info ?? {};
    // An environment with `close` tells the agent so, as NeMo Gym's environments with a /close route do.
    const declared = definition.close && !("supports_explicit_close" in info) ? { ...info, supports_explicit_close: true } : info;
    return sendJson(reply, { observation: result.observation ?? null, info: declared });
  });

  app.post("/step", carriesRollouts, async (request, reply) => {
    const body = parseOr422(StepBody, request.body) as Record<string, unknown>;
    const { responses_create_params: _params, response, ...metadata } = body;
    const ctx = contextOf(request);
    const result = await definition.step!(response as ResponseObject, metadata, ctx);
    const reward = result.reward ?? 0;
    if (typeof reward !== "number" || !Number.isFinite(reward)) throw new Error(`${definition.id}.step returned reward ${String(reward)}; it must be a finite number`);
    const terminated = result.terminated === true;
    const truncated = result.truncated === true;
    // The episode is over: its state goes (NeMo Gym's close_session) — at `/close` instead for an
    // environment that defines `close`, which may need it.
    if ((terminated || truncated) && !definition.close) sessions.delete(ctx.sessionId);
    return sendJson(reply, { observation: result.observation ?? null, reward, terminated, truncated, info: result.info ?? {} }, STEP_FLOATS);
  });

  if (definition.close) {
    app.post("/close", async (request, reply) => {
      const ctx = contextOf(request);
      const result = await definition.close!(ctx);
      sessions.delete(ctx.sessionId);
      return sendJson(reply, result ?? {});
    });
  }

  app.post("/verify", async () => {
    throw new HttpError(400, `${definition.id} is a Gymnasium-style environment: it is scored step by step on /step, not by /verify; run it with gymnasium_agent`);
  });
}

/**
 * A verify response as NeMo Gym's models dump it (07d6b0d, nemo_gym/base_resources_server.py
 * BaseVerifyResponse): the request and response with every declared field, the reward, the row
 * fields the environment's model declares, then the environment's own fields (which may overwrite).
 */
function verifyResponse(request: VerifyInput<any>, result: VerifyResult, echoes: readonly string[] | "all" = []): Record<string, unknown> {
  const { responses_create_params, response, ...row } = request as Record<string, unknown>;
  const echoed = echoes === "all" ? row : Object.fromEntries(echoes.filter((key) => key in row).map((key) => [key, row[key]]));
  const { reward, ...own } = result;
  return {
    responses_create_params: asNemoGymCreateParams(responses_create_params),
    response: asNemoGymResponse(response),
    reward,
    ...echoed,
    ...own,
  };
}
