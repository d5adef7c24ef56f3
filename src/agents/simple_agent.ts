// simple_agent: runs one rollout of any tool-using environment (NeMo Gym's generic agent).
// `POST /run` takes a data row: seed the environment session, run the episode against the model
// server, then `/verify` and return its reply unchanged (ARCHITECTURE §4; examples spec §9).
import { z } from "zod";
import { asNemoGymCreateParams, asNemoGymResponse } from "../protocol/nemo_gym_models.js";
import type { InstanceContext, ServerImplementation } from "../http/implementation.js";
import { ResponsesCreateParams, ServerRef } from "../protocol/index.js";
import { withAttachedTools } from "./attached_tools.js";
import { runEpisode } from "./episode.js";
import { buildAgentServer, type AgentUpstreams } from "./agent_server.js";

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

const implementation: ServerImplementation<SimpleAgentConfig> = {
  type: "responses_api_agents",
  id: "simple_agent",
  configSchema: SimpleAgentConfig,
  async build(context: InstanceContext<SimpleAgentConfig>) {
    const { config } = context;
    const episode = (params: ResponsesCreateParams, { model, environment }: AgentUpstreams) =>
      runEpisode(params, { model: (body) => model.responses(body), tool: (name, args) => environment.tool(name, args) }, { maxSteps: config.max_steps });
    const wiring = { resourcesServer: config.resources_server, modelServer: config.model_server, timeoutMs: config.request_timeout_s * 1000 };
    return buildAgentServer(context, wiring, {
      async run(raw, upstreams) {
        // An environment with MCP servers attached names their tools in its seed reply; the model is offered them too.
        const seeded = await upstreams.environment.seedSession(raw);
        const row = withAttachedTools(raw, seeded);
        const response = await episode(row.responses_create_params, upstreams);
        if (config.skip_verification) {
          // As NeMo Gym's agent answers it (07d6b0d): the whole run request as its model dumps it, then the response.
          return { ...row, responses_create_params: asNemoGymCreateParams(row.responses_create_params), response: asNemoGymResponse(response), reward: config.skip_verification_reward, verification_skipped: true };
        }
        // The environment's reply byte for byte: extras we do not know about reach the collector untouched.
        return upstreams.environment.verify({ ...row, response });
      },
      respond: episode,
      // Cookies come back to the caller so that it can reach the same environment session afterwards.
      returnsSessionCookies: true,
    });
  },
};

export default implementation;
