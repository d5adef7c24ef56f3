// The HTTP face every Gymkit agent shares (NeMo Gym's SimpleResponsesAPIAgent routes): `POST /run`
// takes a data row and returns the scored rollout, `POST /v1/responses` runs the episode alone for
// callers that seed and verify themselves, `POST /aggregate_metrics` and
// `GET /aggregate_metrics_scope` are the environment's. An agent is
// its config and two functions, `run` and `respond`; this module owns the wiring they share: row
// validation, the rollout's cookie jar, the rollout header on model calls (the replay model keys
// recordings by it, so identical requests of two rollouts of one task stay distinct), hang-up aborts and the
// environment's session cookies handed back from `/v1/responses`.
import type { FastifyRequest } from "fastify";
import { CookieJar, parseCookies, sessionCookie } from "../http/cookies.js";
import { parseOr422 } from "../http/errors.js";
import { surelyCreateParams, surelyDataRow } from "../protocol/fast_check.js";
import type { HttpApp } from "../http/app.js";
import type { InstanceContext } from "../http/implementation.js";
import { abortOnHangUp, sendJson } from "../http/reply.js";
import { asHttpApp, createServer, rolloutBodyLimit, sessionCookieName } from "../http/server.js";
import { DataRow, ResponsesCreateParams, ROLLOUT_HEADER, rolloutHeaderOfRow, type ResponseObject, type ServerRef } from "../protocol/index.js";
import { ROLLOUT_FLOATS } from "../protocol/python_json.js";
import { EnvironmentClient, ModelClient } from "./upstream.js";

/** The two upstreams of one rollout, sharing its cookie jar. */
export interface AgentUpstreams {
  environment: EnvironmentClient;
  model: ModelClient;
}

export interface AgentWiring {
  resourcesServer: ServerRef;
  modelServer: ServerRef;
  /** Deadline of each HTTP call the agent makes, in ms. */
  timeoutMs: number;
}

export interface AgentRoutes {
  /**
   * One rollout of a validated data row. A string is sent as it is (an environment's `/verify` reply,
   * byte for byte); an object is written as NeMo Gym writes rollouts (Python floats).
   */
  run(row: Record<string, unknown> & DataRow, upstreams: AgentUpstreams): Promise<string | Record<string, unknown>>;
  /** The episode alone, for `/v1/responses`. */
  respond(params: ResponsesCreateParams, upstreams: AgentUpstreams): Promise<ResponseObject>;
  /** Hand the environment's session cookies back from `/v1/responses` (agents that talk to the environment there). */
  returnsSessionCookies?: boolean;
}

export function buildAgentServer(context: InstanceContext<unknown>, wiring: AgentWiring, routes: AgentRoutes): HttpApp {
  const app = createServer({ name: context.name });
  // Every route here carries a row, a conversation or rollouts (token ids included).
  const carriesRollouts = { bodyLimit: rolloutBodyLimit() };
  const ownCookie = sessionCookieName(context.name);

  /** URLs resolve per rollout, not at build time (a server given by URL may move). */
  const upstreams = (cookies: CookieJar, signal: AbortSignal, rollout: string | undefined): AgentUpstreams => ({
    environment: new EnvironmentClient({ name: wiring.resourcesServer.name, url: context.urlOf(wiring.resourcesServer), cookies, timeoutMs: wiring.timeoutMs, signal }),
    model: new ModelClient(
      { name: wiring.modelServer.name, url: context.urlOf(wiring.modelServer), cookies, timeoutMs: wiring.timeoutMs, signal },
      rollout ? { [ROLLOUT_HEADER]: rollout } : {},
    ),
  });
  // The caller's cookies start the jar, as NeMo Gym's agent forwards them.
  const jarOf = (request: FastifyRequest) => new CookieJar(parseCookies(request.headers.cookie));

  app.post("/run", carriesRollouts, async (request, reply) => {
    // The quick check accepts the usual row without zod; anything else gets the schema and its exact 422.
    if (!surelyDataRow(request.body)) parseOr422(DataRow, request.body);
    // The row as received (validated above): every field, in its order, reaches the environment.
    const row = request.body as Record<string, unknown> & DataRow;
    const result = await routes.run(row, upstreams(jarOf(request), abortOnHangUp(reply.raw), rolloutHeaderOfRow(row)));
    return typeof result === "string" ? reply.type("application/json").send(result) : sendJson(reply, result, ROLLOUT_FLOATS);
  });

  app.post("/v1/responses", carriesRollouts, async (request, reply) => {
    if (!surelyCreateParams(request.body)) parseOr422(ResponsesCreateParams, request.body);
    const jar = jarOf(request);
    const header = request.headers[ROLLOUT_HEADER];
    const response = await routes.respond(request.body as ResponsesCreateParams, upstreams(jar, abortOnHangUp(reply.raw), typeof header === "string" ? header : undefined));
    if (routes.returnsSessionCookies) {
      for (const [name, value] of Object.entries(jar.toJSON())) {
        if (name !== ownCookie) reply.header("set-cookie", sessionCookie(name, value));
      }
    }
    return sendJson(reply, response);
  });

  app.post("/aggregate_metrics", carriesRollouts, async (request, reply) => {
    const result = await upstreams(jarOf(request), abortOnHangUp(reply.raw), undefined).environment.aggregateMetrics(request.body ?? {});
    return reply.code(result.status).type("application/json").send(result.text);
  });

  // Whether the environment's metrics need the whole run in one `/aggregate_metrics` call: the
  // collector only knows this agent's URL, so the agent passes the question on.
  app.get("/aggregate_metrics_scope", async (request, reply) => {
    const result = await upstreams(jarOf(request), abortOnHangUp(reply.raw), undefined).environment.aggregateMetricsScope();
    return reply.code(result.status).type("application/json").send(result.text);
  });

  return asHttpApp(app);
}
