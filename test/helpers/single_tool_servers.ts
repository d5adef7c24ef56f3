// example_single_tool_call + simple_agent + vllm_model in front of a test's engine, with their head, all in
// this process: the server set the rollout-service and admission tests drive.
import { resolveCliConfig } from "../../src/cli/config_args.js";
import { startServers, type RunningServers } from "../../src/orchestrate/start.js";

/** Starts them; `overrides` are Hydra-style (e.g. the model server's retry settings). The caller stops them. */
export async function singleToolCallServers(engineUrl: string, overrides: string[]): Promise<RunningServers> {
  const resolved = await resolveCliConfig(overrides, {
    config: [],
    resourcesServer: "example_single_tool_call",
    modelType: "vllm_model",
    modelUrl: engineUrl,
    model: "m",
  });
  return startServers(resolved.instances, { headPort: 0 });
}
