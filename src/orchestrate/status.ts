// `gym env status`: ask the head which instances exist, then probe each one's health endpoint.
import { call, callJson, joinUrl, NO_RETRY } from "../http/client.js";
import { redactUrl, redactUrlsIn } from "../config/url_secrets.js";
import type { ReplicaStats } from "../models/replicas.js";
import type { InstanceInfo } from "./head.js";

export interface InstanceStatus extends InstanceInfo {
  status: "healthy" | "unhealthy";
  error?: string;
  /** A model's engine replicas with their counters (from its `GET /replicas`), when it has any. */
  replicas?: Array<ReplicaStats & { pool: string }>;
}

/** A model server's replica counters; undefined if it serves none (older servers, other implementations). */
async function replicaStats(instance: InstanceInfo, timeoutMs: number): Promise<InstanceStatus["replicas"]> {
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

export async function fetchInstances(headUrl: string, timeoutMs = 5_000): Promise<InstanceInfo[]> {
  try {
    return await callJson<InstanceInfo[]>(joinUrl(headUrl, "/server_instances"), { timeoutMs, retry: NO_RETRY });
  } catch (error) {
    throw new Error(`no Gymkit head server answered at ${redactUrl(headUrl)} (${(error as Error).message}); start one with \`gym env start\` or pass --head-url`, { cause: error });
  }
}

export async function probeHealth(instance: InstanceInfo, timeoutMs = 3_000): Promise<InstanceStatus> {
  try {
    const result = await call(joinUrl(instance.url, "/"), { timeoutMs, retry: NO_RETRY });
    if (result.status === 200) {
      const replicas = await replicaStats(instance, timeoutMs);
      return { ...instance, status: "healthy", ...(replicas ? { replicas } : {}) };
    }
    return { ...instance, status: "unhealthy", error: `GET / answered ${result.status}` };
  } catch (error) {
    return { ...instance, status: "unhealthy", error: (error as Error).message };
  }
}

export async function serverStatus(headUrl: string): Promise<InstanceStatus[]> {
  const instances = await fetchInstances(headUrl);
  return Promise.all(instances.map((i) => probeHealth(i)));
}
