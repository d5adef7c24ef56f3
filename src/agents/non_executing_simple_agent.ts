// non_executing_simple_agent: one model call per rollout, its tool calls left unexecuted (NeMo Gym
// 07d6b0d `responses_api_agents/non_executing_simple_agent`). For environments that score the call
// itself (structured_outputs' tool-call mode): `POST /run` seeds the environment session, asks the
// model once, and `/verify`s the response as the model gave it. `/v1/responses` is that one model
// call; `/aggregate_metrics` is the environment's.
import { z } from "zod";
import type { InstanceContext, ServerImplementation } from "../http/implementation.js";
import { ResponsesCreateParams, ServerRef } from "../protocol/index.js";
import { buildAgentServer } from "./agent_server.js";

export const NonExecutingSimpleAgentConfig = z.strictObject({
  resources_server: ServerRef.extend({ type: z.literal("resources_servers") }),
  model_server: ServerRef.extend({ type: z.literal("responses_api_models") }),
  /** Deadline of each HTTP call the agent makes (model, seed, verify), in seconds. */
  request_timeout_s: z.number().positive().default(600),
});
export type NonExecutingSimpleAgentConfig = z.infer<typeof NonExecutingSimpleAgentConfig>;

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
    const wiring = { resourcesServer: config.resources_server, modelServer: config.model_server, timeoutMs: config.request_timeout_s * 1000 };
    return buildAgentServer(context, wiring, {
      async run(row, { environment, model }) {
        await environment.seedSession(row);
        const response = await model.responses(modelBody(row.responses_create_params));
        return environment.verify({ ...row, response });
      },
      respond: (params, { model }) => model.responses(modelBody(params)),
      returnsSessionCookies: true,
    });
  },
};

export default implementation;
