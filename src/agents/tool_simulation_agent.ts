// tool_simulation_agent: one model call per rollout, no tool run and no session seeding: the row's
// conversation goes to the model once, and its response (tool calls unexecuted) goes to `/verify`.
// For environments that score the next step of a recorded trajectory, such as
// single_step_tool_use_with_argument_comparison. Matches NVIDIA-NeMo/Gym 07d6b0d
// responses_api_agents/tool_simulation_agent: `/run`, `/v1/responses`, `/aggregate_metrics`, and
// `skip_verification`.
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { CookieJar, parseCookies } from "../http/cookies.js";
import { parseOr422 } from "../http/errors.js";
import { abortOnHangUp, sendJson } from "../http/reply.js";
import { asHttpApp, createServer, rolloutBodyLimit } from "../http/server.js";
import { ROLLOUT_HEADER, rolloutHeaderValue } from "../protocol/index.js";
import { asNemoGymCreateParams, asNemoGymResponse } from "../protocol/nemo_gym_models.js";
import { ROLLOUT_FLOATS } from "../protocol/python_json.js";
import type { InstanceContext, ServerImplementation } from "../http/implementation.js";
import { DataRow, ResponsesCreateParams, ServerRef } from "../protocol/index.js";
import { EnvironmentClient, ModelClient } from "./upstream.js";

export const ToolSimulationAgentConfig = z.strictObject({
  resources_server: ServerRef.extend({ type: z.literal("resources_servers") }),
  model_server: ServerRef.extend({ type: z.literal("responses_api_models") }),
  /** Skip `/verify` and score every rollout `skip_verification_reward`. */
  skip_verification: z.boolean().default(false),
  skip_verification_reward: z.number().default(0),
  /** Deadline of each HTTP call the agent makes (model, verify), in seconds. */
  request_timeout_s: z.number().positive().default(600),
});
export type ToolSimulationAgentConfig = z.infer<typeof ToolSimulationAgentConfig>;

function rolloutKey(row: Record<string, unknown>): string | undefined {
  const index = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
  if (!index(row._ng_task_index) || !index(row._ng_rollout_index)) return undefined;
  return rolloutHeaderValue({ task_index: row._ng_task_index, rollout_index: row._ng_rollout_index });
}

const implementation: ServerImplementation<ToolSimulationAgentConfig> = {
  type: "responses_api_agents",
  id: "tool_simulation_agent",
  configSchema: ToolSimulationAgentConfig,
  async build(context: InstanceContext<ToolSimulationAgentConfig>) {
    const { config } = context;
    const app = createServer({ name: context.name });
    const carriesRollouts = { bodyLimit: rolloutBodyLimit() };
    const timeoutMs = config.request_timeout_s * 1000;
    const jarOf = (request: FastifyRequest) => new CookieJar(parseCookies(request.headers.cookie));
    const environment = (cookies: CookieJar, signal: AbortSignal) =>
      new EnvironmentClient({ name: config.resources_server.name, url: context.urlOf(config.resources_server), cookies, timeoutMs, signal });
    const model = (cookies: CookieJar, signal: AbortSignal, rollout: string | undefined) =>
      new ModelClient({ name: config.model_server.name, url: context.urlOf(config.model_server), cookies, timeoutMs, signal }, rollout ? { [ROLLOUT_HEADER]: rollout } : {});

    app.post("/run", carriesRollouts, async (request, reply) => {
      parseOr422(DataRow, request.body);
      const row = request.body as Record<string, unknown> & DataRow;
      const jar = jarOf(request);
      const signal = abortOnHangUp(reply.raw);
      // The one model call; its tool calls are never run.
      const response = await model(jar, signal, rolloutKey(row)).responses(row.responses_create_params as Record<string, unknown>);
      if (config.skip_verification) {
        const skipped = { ...row, responses_create_params: asNemoGymCreateParams(row.responses_create_params), response: asNemoGymResponse(response), reward: config.skip_verification_reward, verification_skipped: true };
        return sendJson(reply, skipped, ROLLOUT_FLOATS);
      }
      return reply.type("application/json").send(await environment(jar, signal).verify({ ...row, response }));
    });

    app.post("/v1/responses", carriesRollouts, async (request, reply) => {
      parseOr422(ResponsesCreateParams, request.body);
      const header = request.headers[ROLLOUT_HEADER];
      const response = await model(jarOf(request), abortOnHangUp(reply.raw), typeof header === "string" ? header : undefined).responses(request.body as Record<string, unknown>);
      return sendJson(reply, response);
    });

    app.post("/aggregate_metrics", carriesRollouts, async (request, reply) => {
      const result = await environment(jarOf(request), abortOnHangUp(reply.raw)).aggregateMetrics(request.body ?? {});
      return reply.code(result.status).type("application/json").send(result.text);
    });

    return asHttpApp(app);
  },
};

export default implementation;
