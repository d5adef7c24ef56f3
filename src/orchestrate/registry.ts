// Where each implementation id lives. Loaded lazily so that `gym --help` (and a server process that
// runs one instance) imports only what it uses.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ServerType } from "../protocol/index.js";
import type { ServerImplementation } from "./implementation.js";

type Loader = () => Promise<{ default: ServerImplementation<any> }>;

export const IMPLEMENTATIONS: Record<ServerType, Record<string, Loader>> = {
  resources_servers: {
    example_single_tool_call: () => import("../environments/example_single_tool_call/index.js"),
    example_multi_step: () => import("../environments/example_multi_step/index.js"),
    example_session_state_mgmt: () => import("../environments/example_session_state_mgmt/index.js"),
    example_tool_call_multireward: () => import("../environments/example_tool_call_multireward/index.js"),
    code_gen: () => import("../environments/code_gen/index.js"),
    python_tool: () => import("../environments/python_tool/index.js"),
    mcqa: () => import("../environments/mcqa/index.js"),
    instruction_following: () => import("../environments/instruction_following/index.js"),
    math_with_judge: () => import("../environments/math_with_judge/index.js"),
  },
  responses_api_agents: {
    simple_agent: () => import("../agents/simple_agent.js"),
  },
  responses_api_models: {
    openai_model: () => import("../models/openai_model.js"),
    vllm_model: () => import("../models/vllm_model.js"),
    replay_model: () => import("../models/replay_model.js"),
    local_model: () => import("../models/local_model.js"),
    routing_proxy: () => import("../models/routing_proxy.js"),
  },
};

export async function loadImplementation(type: ServerType, id: string): Promise<ServerImplementation<any>> {
  const loader = IMPLEMENTATIONS[type][id];
  if (!loader) throw new Error(`unknown ${type} implementation "${id}"`);
  return (await loader()).default;
}

/** The package root (the folder holding package.json), from both src/ (tests) and dist/ (installed). */
export const PACKAGE_ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");

/** `configs/<id>.yaml` of a built-in environment, e.g. for `--resources-server ID`. */
export function environmentConfigPath(id: string): string {
  return join(PACKAGE_ROOT, "src", "environments", id, "configs", `${id}.yaml`);
}

/** `configs/<id>.yaml` of a built-in model type, e.g. for `--model-type vllm_model`. */
export function modelConfigPath(id: string): string {
  return join(PACKAGE_ROOT, "src", "models", "configs", `${id}.yaml`);
}

export function builtinIds(type: ServerType): string[] {
  return Object.keys(IMPLEMENTATIONS[type]);
}

export function hasConfigFile(path: string): boolean {
  return existsSync(path);
}
