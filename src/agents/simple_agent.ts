// simple_agent: runs one rollout of any tool-using environment (NeMo Gym's generic agent).
// `POST /run` takes a data row: seed the environment session, run the episode against the model
// server, then `/verify` and return its reply unchanged (ARCHITECTURE §4; examples spec §9).
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { CookieJar, parseCookies, sessionCookie } from "../http/cookies.js";
import { parseOr422 } from "../http/errors.js";
import { abortOnHangUp, sendJson } from "../http/reply.js";
import { asHttpApp, createServer, rolloutBodyLimit, sessionCookieName } from "../http/server.js";
import { ROLLOUT_HEADER, rolloutHeaderValue } from "../protocol/index.js";
import { asNemoGymCreateParams, asNemoGymResponse } from "../protocol/nemo_gym_models.js";
import { ROLLOUT_FLOATS } from "../protocol/python_json.js";
import type { InstanceContext, ServerImplementation } from "../http/implementation.js";
import { DataRow, ResponsesCreateParams, ServerRef } from "../protocol/index.js";
import { runEpisode } from "./episode.js";
import { EnvironmentClient, ModelClient } from "./upstream.js";

export const SimpleAgentConfig = z.strictObject({
  resources_server: ServerRef.extend({ type: z.literal("resources_servers") }),
  model_server: ServerRef.extend({ type: z.literal("responses_api_models") }),
  /** Model calls per rollout; null (or 0, as in NeMo Gym) = until the model stops calling tools. */
  max_steps: z.number().int().nonnegative().nullable().default(null),
  /** Skip `/verify` and score every rollout `skip_verification_reward` (e.g. to collect SFT data). */
  skip_verification: z.boolean().default(false),
  skip_verification_reward: z.number().default(0),
  /** Deadline of each HTTP call the agent makes (model, seed, tool, verify), in seconds. */
  request_timeout_s: z.number().positive().default(600),
});
export type SimpleAgentConfig = z.infer<typeof SimpleAgentConfig>;

/**
 * The `x-gymkit-rollout` value for a materialised row. The replay model keys its recordings by it,
 * so identical requests of two rollouts of one task stay distinct.
 */
function rolloutKey(row: Record<string, unknown>): string | undefined {
  const task = row._ng_task_index;
  const rollout = row._ng_rollout_index;
  const index = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
  if (!index(task) || !index(rollout)) return undefined;
  return rolloutHeaderValue({ task_index: task, rollout_index: rollout });
}

const implementation: ServerImplementation<SimpleAgentConfig> = {
  type: "responses_api_agents",
  id: "simple_agent",
  configSchema: SimpleAgentConfig,
  async build(context: InstanceContext<SimpleAgentConfig>) {
    const { config } = context;
    const app = createServer({ name: context.name });
    // Every route here carries a row, a conversation or rollouts (token ids included).
    const carriesRollouts = { bodyLimit: rolloutBodyLimit() };
    const ownCookie = sessionCookieName(context.name);
    const timeoutMs = config.request_timeout_s * 1000;

    /** Both upstreams of one rollout, sharing its cookie jar. URLs resolve per rollout, not at build time. */
    const upstreams = (cookies: CookieJar, signal: AbortSignal, rollout: string | undefined) => ({
      environment: new EnvironmentClient({
        name: config.resources_server.name,
        url: context.urlOf(config.resources_server),
        cookies,
        timeoutMs,
        signal,
      }),
      model: new ModelClient(
        { name: config.model_server.name, url: context.urlOf(config.model_server), cookies, timeoutMs, signal },
        rollout ? { [ROLLOUT_HEADER]: rollout } : {},
      ),
    });
    // The caller's cookies start the jar, as NeMo Gym's agent forwards them.
    const jarOf = (request: FastifyRequest) => new CookieJar(parseCookies(request.headers.cookie));
    const episode = (params: ResponsesCreateParams, clients: ReturnType<typeof upstreams>) =>
      runEpisode(
        params,
        { model: (body) => clients.model.responses(body), tool: (name, args) => clients.environment.tool(name, args) },
        { maxSteps: config.max_steps },
      );

    app.post("/run", carriesRollouts, async (request, reply) => {
      parseOr422(DataRow, request.body);
      // Forward the row as received (validated above): every field, in its order, reaches the environment.
      const row = request.body as Record<string, unknown> & DataRow;
      const clients = upstreams(jarOf(request), abortOnHangUp(reply.raw), rolloutKey(row));
      await clients.environment.seedSession(row);
      const response = await episode(row.responses_create_params, clients);
      if (config.skip_verification) {
        // As NeMo Gym's agent answers it (07d6b0d): the whole run request as its model dumps it, then the response.
        const skipped = { ...row, responses_create_params: asNemoGymCreateParams(row.responses_create_params), response: asNemoGymResponse(response), reward: config.skip_verification_reward, verification_skipped: true };
        return sendJson(reply, skipped, ROLLOUT_FLOATS);
      }
      // The environment's reply byte for byte: extras we do not know about reach the collector untouched.
      return reply.type("application/json").send(await clients.environment.verify({ ...row, response }));
    });

    // The episode alone, for callers that seed and verify themselves. Cookies come back to the caller
    // so that it can reach the same environment session afterwards.
    app.post("/v1/responses", carriesRollouts, async (request, reply) => {
      parseOr422(ResponsesCreateParams, request.body);
      const params = request.body as ResponsesCreateParams;
      const jar = jarOf(request);
      const header = request.headers[ROLLOUT_HEADER];
      const clients = upstreams(jar, abortOnHangUp(reply.raw), typeof header === "string" ? header : undefined);
      const response = await episode(params, clients);
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
