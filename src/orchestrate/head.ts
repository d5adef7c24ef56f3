// The head server: knows every running instance and the merged config, so that collectors and
// tools started later (`gym env status`, `gym eval run --no-serve`) can find them, and serves the
// rollout service over the agents it knows.
import type { FastifyInstance } from "fastify";
import { mountRolloutService } from "../collect/service.js";
import { createServer } from "../http/server.js";
import type { ServerType } from "../protocol/index.js";
import { encodeGlobalConfig } from "./nemo_gym_config.js";

export interface InstanceInfo {
  name: string;
  server_type: ServerType;
  implementation: string;
  host: string;
  port: number;
  url: string;
  pid: number;
  /** The folder a NeMo Gym Python server runs in, and its entrypoint (`app.py`), when it is one. */
  dir_path?: string;
  entrypoint?: string;
  /** When the instance was started, seconds since the epoch (NeMo Gym's `start_time`). */
  start_time?: number;
}

export const DEFAULT_HEAD_HOST = "127.0.0.1";
export const DEFAULT_HEAD_PORT = 11000;

export function buildHeadServer(instances: () => InstanceInfo[], globalConfig: () => unknown): FastifyInstance {
  const app = createServer({ name: "head" });
  app.get("/server_instances", async () => instances());
  // NeMo Gym returns the YAML text as a JSON string (its servers `json.loads` it as they boot).
  app.get("/global_config_dict_yaml", async (_request, reply) => reply.type("application/json").send(encodeGlobalConfig(globalConfig())));
  // `POST /v1/rollouts`: trainers stream rollouts from the agents this head knows (collect/service.ts).
  mountRolloutService(app, { agents: () => new Map(instances().filter((i) => i.server_type === "responses_api_agents").map((i) => [i.name, i.url])) });
  return app;
}
