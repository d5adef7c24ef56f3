// example_single_tool_call + simple_agent + vllm_model in front of a test's engine, with their head, all in
// this process: the server set the rollout-service and admission tests drive.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveCliConfig } from "../../src/cli/config_args.js";
import { startServers, type RunningServers, type StartOptions } from "../../src/orchestrate/start.js";
import { NEMO_GYM_EXAMPLES } from "./cli.js";

/** Starts them; `overrides` are Hydra-style (e.g. the model server's retry settings). The caller stops them. */
export async function singleToolCallServers(engineUrl: string, overrides: string[], options: StartOptions = {}): Promise<RunningServers> {
  const resolved = await resolveCliConfig(overrides, {
    config: [],
    resourcesServer: "example_single_tool_call",
    modelType: "vllm_model",
    modelUrl: engineUrl,
    model: "m",
  });
  return startServers(resolved.instances, { headPort: 0, ...options });
}

/** `count` distinct rows of example_single_tool_call's first example (its question numbered). */
export function weatherRows(count: number): Array<Record<string, any>> {
  const base = JSON.parse(readFileSync(join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl"), "utf8").split("\n")[0]!);
  return Array.from({ length: count }, (_, i) => {
    const row = structuredClone(base);
    row.responses_create_params.input[1].content = `what's it like in sf? (question ${i})`;
    return row;
  });
}
