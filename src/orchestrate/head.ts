// The head server: knows every running instance and the merged config, so that collectors and
// tools started later (`gym env status`, `gym eval run --no-serve`, NeMo Gym's own collector and
// ng_status) can find them, and serves the rollout service over the agents it knows.
// Its discovery answers match NVIDIA-NeMo/Gym 07d6b0d (HeadServer and ServerInstanceDisplayConfig in
// nemo_gym/server_utils.py, their use in nemo_gym/cli/env.py and nemo_gym/server_status.py).
import type { FastifyInstance } from "fastify";
import { mountRolloutService } from "../collect/service.js";
import { createServer } from "../http/server.js";
import type { ServerType } from "../protocol/index.js";
import type { ProtocolEndpoint } from "../protocols/gateway.js";
import { agentUrlsOf } from "./status.js";
import { encodeGlobalConfig, placedConfig, type HeadAddress } from "./nemo_gym_config.js";

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

/** One `/server_instances` record as NeMo Gym's head serves it (`model_dump(mode="json")`: absent values are null). */
export interface ServerInstanceRecord {
  config_path: string | null;
  dir_path: string | null;
  entrypoint: string | null;
  host: string | null;
  name: string | null;
  pid: number | null;
  port: number | null;
  process_name: string | null;
  server_type: string | null;
  start_time: number | null;
  status: string | null;
  uptime_seconds: number | null;
  url: string | null;
}

/** NeMo Gym's record keys in its field order: pydantic readers and ng_status expect every one. */
export const SERVER_INSTANCE_RECORD_KEYS = [
  "config_path",
  "dir_path",
  "entrypoint",
  "host",
  "name",
  "pid",
  "port",
  "process_name",
  "server_type",
  "start_time",
  "status",
  "uptime_seconds",
  "url",
] as const satisfies ReadonlyArray<keyof ServerInstanceRecord>;

/**
 * The record the head serves for one running instance: the instance name in `process_name` and
 * `config_path` (NeMo Gym's collector and `agent_ref.name` use it), the implementation id in `name`.
 * `status` and `uptime_seconds` stay null as NeMo Gym's head leaves them (ng_status works them out);
 * `start_time` is always a number from `startServers`, since ng_status subtracts it from the time.
 */
export function serverInstanceRecord(instance: InstanceInfo): ServerInstanceRecord {
  return {
    config_path: instance.name,
    dir_path: instance.dir_path ?? null,
    entrypoint: instance.entrypoint ?? null,
    host: instance.host,
    name: instance.implementation,
    pid: instance.pid,
    port: instance.port,
    process_name: instance.name,
    server_type: instance.server_type,
    start_time: instance.start_time ?? null,
    status: null,
    uptime_seconds: null,
    url: instance.url,
  };
}

export interface HeadSources {
  instances: () => readonly InstanceInfo[];
  /** The merged config with its secrets already hidden. */
  globalConfig: () => unknown;
  /** Where the head itself listens, once it does (a port of 0 is only known after listen). */
  address: () => HeadAddress;
  /** The protocol endpoints of `gym env start --protocols` (Gymkit's `GET /protocols`), if any. */
  protocols?: () => readonly ProtocolEndpoint[];
}

export function buildHeadServer(sources: HeadSources): FastifyInstance {
  const app = createServer({ name: "head" });
  app.get("/server_instances", async () => sources.instances().map(serverInstanceRecord));
  // NeMo Gym's clients `json.loads` this body into YAML text and find each server by the host/port
  // of its block; sent as a JSON string with application/json, as FastAPI sends a returned str.
  app.get("/global_config_dict_yaml", async (_request, reply) =>
    reply.type("application/json; charset=utf-8").send(encodeGlobalConfig(placedConfig(sources.globalConfig(), sources.instances(), sources.address()))),
  );
  // `POST /v1/rollouts`: trainers stream rollouts from the agents this head knows (collect/service.ts).
  mountRolloutService(app, { agents: () => agentUrlsOf(sources.instances()) });
  // Gymkit's own: where each environment is served over OpenEnv, MCP, ORS (`gym env status` lists them).
  app.get("/protocols", async () => sources.protocols?.() ?? []);
  return app;
}
