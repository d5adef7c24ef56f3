// tool_simulation_agent: one model call per rollout, no tool run and no session seeding: the row's
// conversation goes to the model once, and its response (tool calls unexecuted) goes to `/verify`.
// For environments that score the next step of a recorded trajectory, such as
// single_step_tool_use_with_argument_comparison. Matches NVIDIA-NeMo/Gym 07d6b0d
// responses_api_agents/tool_simulation_agent: `/run`, `/v1/responses`, `/aggregate_metrics`, and
// `skip_verification`.
import { z } from "zod";
import { asNemoGymCreateParams, asNemoGymResponse } from "../protocol/nemo_gym_models.js";
import type { InstanceContext, ServerImplementation } from "../http/implementation.js";
import { ServerRef } from "../protocol/index.js";
import { buildAgentServer } from "./agent_server.js";

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

const implementation: ServerImplementation<ToolSimulationAgentConfig> = {
  type: "responses_api_agents",
  id: "tool_simulation_agent",
  configSchema: ToolSimulationAgentConfig,
  async build(context: InstanceContext<ToolSimulationAgentConfig>) {
    const { config } = context;
    const wiring = { resourcesServer: config.resources_server, modelServer: config.model_server, timeoutMs: config.request_timeout_s * 1000 };
    return buildAgentServer(context, wiring, {
      async run(row, { environment, model }) {
        // The one model call; its tool calls are never run.
        const response = await model.responses(row.responses_create_params as Record<string, unknown>);
        if (config.skip_verification) {
          return { ...row, responses_create_params: asNemoGymCreateParams(row.responses_create_params), response: asNemoGymResponse(response), reward: config.skip_verification_reward, verification_skipped: true };
        }
        return environment.verify({ ...row, response });
      },
      respond: (params, { model }) => model.responses(params as Record<string, unknown>),
    });
  },
};

export default implementation;
