// The head server: knows every running instance and the merged config, so that collectors and
// tools started later (`gym env status`, `gym eval run --no-serve`) can find them.
import type { FastifyInstance } from "fastify";
import { stringify } from "yaml";
import { createServer } from "../http/server.js";
import type { ServerType } from "../protocol/index.js";

export interface InstanceInfo {
  name: string;
  server_type: ServerType;
  implementation: string;
  host: string;
  port: number;
  url: string;
  pid: number;
}

export const DEFAULT_HEAD_HOST = "127.0.0.1";
export const DEFAULT_HEAD_PORT = 11000;

export function buildHeadServer(instances: () => InstanceInfo[], globalConfig: () => unknown): FastifyInstance {
  const app = createServer({ name: "head" });
  app.get("/server_instances", async () => instances());
  // NeMo Gym returns the YAML text as a JSON string.
  app.get("/global_config_dict_yaml", async () => stringify(globalConfig()));
  return app;
}
