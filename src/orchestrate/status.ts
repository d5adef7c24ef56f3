// `gym env status`: ask the head which instances exist, then probe each one's health endpoint.
import { call, callJson, joinUrl, NO_RETRY } from "../http/client.js";
import type { InstanceInfo } from "./head.js";

export interface InstanceStatus extends InstanceInfo {
  status: "healthy" | "unhealthy";
  error?: string;
}

export async function fetchInstances(headUrl: string, timeoutMs = 5_000): Promise<InstanceInfo[]> {
  try {
    return await callJson<InstanceInfo[]>(joinUrl(headUrl, "/server_instances"), { timeoutMs, retry: NO_RETRY });
  } catch (error) {
    throw new Error(`no Gymkit head server answered at ${headUrl} (${(error as Error).message}); start one with \`gym env start\` or pass --head-url`, { cause: error });
  }
}

export async function probeHealth(instance: InstanceInfo, timeoutMs = 3_000): Promise<InstanceStatus> {
  try {
    const result = await call(joinUrl(instance.url, "/"), { timeoutMs, retry: NO_RETRY });
    if (result.status === 200) return { ...instance, status: "healthy" };
    return { ...instance, status: "unhealthy", error: `GET / answered ${result.status}` };
  } catch (error) {
    return { ...instance, status: "unhealthy", error: (error as Error).message };
  }
}

export async function serverStatus(headUrl: string): Promise<InstanceStatus[]> {
  const instances = await fetchInstances(headUrl);
  return Promise.all(instances.map((i) => probeHealth(i)));
}
