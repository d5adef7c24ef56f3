// non_executing_simple_agent: one model call per rollout, its tool calls left unexecuted (NeMo Gym
// 07d6b0d `responses_api_agents/non_executing_simple_agent`). For environments that score the call
// itself (structured_outputs' tool-call mode): `POST /run` seeds the environment session, asks the
// model once, and `/verify`s the response as the model gave it. `/v1/responses` is that one model
// call; `/aggregate_metrics` is the environment's.
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { CookieJar, parseCookies, sessionCookie } from "../http/cookies.js";
import { parseOr422 } from "../http/errors.js";
import { abortOnHangUp, sendJson } from "../http/reply.js";
import { asHttpApp, createServer, rolloutBodyLimit, sessionCookieName } from "../http/server.js";
import { ROLLOUT_HEADER, rolloutHeaderValue } from "../protocol/index.js";
import type { InstanceContext, ServerImplementation } from "../http/implementation.js";
import { DataRow, ResponsesCreateParams, ServerRef } from "../protocol/index.js";
import { EnvironmentClient, ModelClient } from "./upstream.js";

export const NonExecutingSimpleAgentConfig = z.strictObject({
  resources_server: ServerRef.extend({ type: z.literal("resources_servers") }),
  model_server: ServerRef.extend({ type: z.literal("responses_api_models") }),
  /** Deadline of each HTTP call the agent makes (model, seed, verify), in seconds. */
  request_timeout_s: z.number().positive().default(600),
});
export type NonExecutingSimpleAgentConfig = z.infer<typeof NonExecutingSimpleAgentConfig>;

function rolloutKey(row: Record<string, unknown>): string | undefined {
  const index = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
  return index(row._ng_task_index) && index(row._ng_rollout_index) ? rolloutHeaderValue({ task_index: row._ng_task_index, rollout_index: row._ng_rollout_index }) : undefined;
}

/** The request as NeMo Gym's agent sends it: a string input becomes one user message. */
function modelBody(params: ResponsesCreateParams): Record<string, unknown> {
  const body = { ...(params as Record<string, unknown>) };
  if (typeof body.input === "string") body.input = [{ role: "user", content: body.input, type: "message" }];
  return body;
}

const implementation: ServerImplementation<NonExecutingSimpleAgentConfig> = {
  type: "responses_api_agents",
  id: "non_executing_simple_agent",
  configSchema: NonExecutingSimpleAgentConfig,
  async build(context: InstanceContext<NonExecutingSimpleAgentConfig>) {
    const { config } = context;
    const app = createServer({ name: context.name });
    const carriesRollouts = { bodyLimit: rolloutBodyLimit() };
    const ownCookie = sessionCookieName(context.name);
    const timeoutMs = config.request_timeout_s * 1000;
    const upstreams = (cookies: CookieJar, signal: AbortSignal, rollout: string | undefined) => ({
      environment: new EnvironmentClient({ name: config.resources_server.name, url: context.urlOf(config.resources_server), cookies, timeoutMs, signal }),
      model: new ModelClient({ name: config.model_server.name, url: context.urlOf(config.model_server), cookies, timeoutMs, signal }, rollout ? { [ROLLOUT_HEADER]: rollout } : {}),
    });
    const jarOf = (request: FastifyRequest) => new CookieJar(parseCookies(request.headers.cookie));

    app.post("/run", carriesRollouts, async (request, reply) => {
      parseOr422(DataRow, request.body);
      const row = request.body as Record<string, unknown> & DataRow;
      const clients = upstreams(jarOf(request), abortOnHangUp(reply.raw), rolloutKey(row));
      await clients.environment.seedSession(row);
      const response = await clients.model.responses(modelBody(row.responses_create_params));
      return reply.type("application/json").send(await clients.environment.verify({ ...row, response }));
    });

    app.post("/v1/responses", carriesRollouts, async (request, reply) => {
      parseOr422(ResponsesCreateParams, request.body);
      const jar = jarOf(request);
      const header = request.headers[ROLLOUT_HEADER];
      const clients = upstreams(jar, abortOnHangUp(reply.raw), typeof header === "string" ? header : undefined);
      const response = await clients.model.responses(modelBody(request.body as ResponsesCreateParams));
      for (const [name, value] of Object.entries(jar.toJSON())) {
        if (name !== ownCookie) reply.header("set-cookie", sessionCookie(name, value));
      }
      return sendJson(reply, response);
    });

    app.post("/aggregate_metrics", carriesRollouts, async (request, reply) => {
      const clients = upstreams(jarOf(request), abortOnHangUp(reply.raw), undefined);
      const result = await clients.environment.aggregateMetrics(request.body ?? {});
      return reply.code(result.status).type("application/json").send(result.text);
    });

    return asHttpApp(app);
  },
};

export default implementation;
