// `gym env status`: ask the head which instances exist, then probe each one's health endpoint.
// The head may be Gymkit's or NeMo Gym's (matched against NVIDIA-NeMo/Gym 07d6b0d: the records of
// ServerInstanceDisplayConfig in nemo_gym/server_utils.py, read as nemo_gym/server_status.py reads
// them; uptime is now minus `start_time`). Healthy here means `GET <url>/` answers 200, stricter than
// ng_status, which counts any answer.
import { call, callJson, joinUrl, NO_RETRY } from "../http/client.js";
import { redactUrl, redactUrlsIn } from "../config/url_secrets.js";
import type { ReplicaStats } from "../models/replicas.js";

/** A server as some head described it; null where the head did not say. */
export interface DiscoveredInstance {
  /** The instance name (the top-level key of its config block): what `agent_ref.name` names. */
  name: string | null;
  server_type: string | null;
  /** The implementation id (`simple_agent`, `vllm_model`, ...). */
  implementation: string | null;
  host: string | null;
  port: number | null;
  url: string | null;
  pid: number | null;
  /** When it was started, seconds since the epoch. */
  start_time: number | null;
  /** Where a NeMo Gym Python server runs, and its entrypoint. */
  dir_path: string | null;
  entrypoint: string | null;
}

export interface InstanceStatus extends DiscoveredInstance {
  /** Seconds since `start_time`, at the time of the probe. */
  uptime_seconds: number | null;
  status: "healthy" | "unhealthy";
  error?: string;
  /** A model's engine replicas with their counters (from its `GET /replicas`), when it has any. */
  replicas?: Array<ReplicaStats & { pool: string }>;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function finite(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function urlFrom(host: string | null, port: number | null): string | null {
  if (host === null || port === null) return null;
  return `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

/**
 * Reads one `/server_instances` entry from either kind of head, never failing on a missing or
 * mistyped field. A NeMo Gym record (it has `process_name` or `config_path`; Gymkit's head serves the
 * same) names the instance there and the implementation in `name`; a record of a Gymkit head of
 * before names the instance in `name` and the implementation in `implementation`.
 */
export function discoveredInstance(record: unknown): DiscoveredInstance {
  const r = typeof record === "object" && record !== null && !Array.isArray(record) ? (record as Record<string, unknown>) : {};
  const nemoGymShape = "process_name" in r || "config_path" in r;
  const host = text(r.host);
  const port = finite(r.port);
  return {
    name: nemoGymShape ? (text(r.process_name) ?? text(r.config_path)) : text(r.name),
    server_type: text(r.server_type),
    implementation: nemoGymShape ? text(r.name) : text(r.implementation),
    host,
    port,
    url: text(r.url) ?? urlFrom(host, port),
    pid: finite(r.pid),
    start_time: finite(r.start_time),
    dir_path: text(r.dir_path),
    entrypoint: text(r.entrypoint),
  };
}

/** Instance name → URL of every agent (`responses_api_agents`) that has both. */
export function agentUrlsOf(instances: ReadonlyArray<{ name: string | null; server_type: string | null; url: string | null }>): Map<string, string> {
  const agents = new Map<string, string>();
  for (const i of instances) {
    if (i.server_type === "responses_api_agents" && i.name !== null && i.url !== null) agents.set(i.name, i.url);
  }
  return agents;
}

/** A model server's replica counters; undefined if it serves none (older servers, other implementations). */
async function replicaStats(instance: DiscoveredInstance & { url: string }, timeoutMs: number): Promise<InstanceStatus["replicas"]> {
  if (instance.server_type !== "responses_api_models") return undefined;
  try {
    const result = await call(joinUrl(instance.url, "/replicas"), { timeoutMs, retry: NO_RETRY });
    if (result.status !== 200) return undefined;
    // A model server of another version may still list its engines with their credentials.
    const replicas = (JSON.parse(result.text) as { replicas?: InstanceStatus["replicas"] }).replicas;
    return replicas?.map((r) => ({ ...r, url: redactUrl(String(r.url)), last_error: r.last_error === null ? null : redactUrlsIn(String(r.last_error)) }));
  } catch {
    return undefined;
  }
}

/** Every instance the head at `headUrl` (Gymkit's or NeMo Gym's) knows of. */
export async function fetchInstances(headUrl: string, timeoutMs = 5_000): Promise<DiscoveredInstance[]> {
  let records: unknown;
  try {
    records = await callJson<unknown>(joinUrl(headUrl, "/server_instances"), { timeoutMs, retry: NO_RETRY });
  } catch (error) {
    throw new Error(`no head server answered at ${redactUrl(headUrl)} (${(error as Error).message}); start one with \`gym env start\` or pass --head-url`, { cause: error });
  }
  if (!Array.isArray(records)) {
    throw new Error(`the head server at ${redactUrl(headUrl)} answered GET /server_instances with ${records === null ? "null" : typeof records}, not a list of servers; is --head-url the head server (gym env start / ng_run), not one of its servers?`);
  }
  return records.map(discoveredInstance);
}

export async function probeHealth(instance: DiscoveredInstance, timeoutMs = 3_000): Promise<InstanceStatus> {
  const uptime_seconds = instance.start_time === null ? null : Math.max(0, Date.now() / 1000 - instance.start_time);
  const { url } = instance;
  if (url === null) return { ...instance, uptime_seconds, status: "unhealthy", error: "the head gives no url (nor host and port) for this server" };
  try {
    const result = await call(joinUrl(url, "/"), { timeoutMs, retry: NO_RETRY });
    if (result.status === 200) {
      const replicas = await replicaStats({ ...instance, url }, timeoutMs);
      return { ...instance, uptime_seconds, status: "healthy", ...(replicas ? { replicas } : {}) };
    }
    return { ...instance, uptime_seconds, status: "unhealthy", error: `GET / answered ${result.status}` };
  } catch (error) {
    return { ...instance, uptime_seconds, status: "unhealthy", error: (error as Error).message };
  }
}

export async function serverStatus(headUrl: string): Promise<InstanceStatus[]> {
  const instances = await fetchInstances(headUrl);
  return Promise.all(instances.map((i) => probeHealth(i)));
}

/**
 * The protocol endpoints a Gymkit head lists (`gym env start --protocols`); none from a head that
 * has no such list (NeMo Gym's, an older Gymkit's) or answers something else.
 */
export async function protocolEndpoints(headUrl: string, timeoutMs = 3_000): Promise<Array<{ environment: string; protocol: string; url: string }>> {
  try {
    const result = await call(joinUrl(headUrl, "/protocols"), { timeoutMs, retry: NO_RETRY });
    if (result.status !== 200) return [];
    const list = JSON.parse(result.text) as unknown;
    if (!Array.isArray(list)) return [];
    return list
      .filter((e): e is Record<string, unknown> => typeof e === "object" && e !== null)
      .filter((e) => typeof e.environment === "string" && typeof e.protocol === "string" && typeof e.url === "string")
      .map((e) => ({ environment: e.environment as string, protocol: e.protocol as string, url: e.url as string }));
  } catch {
    return [];
  }
}
