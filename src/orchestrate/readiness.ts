// Fail fast when the model endpoint is not there: before any rollout starts, every configured
// engine URL must answer HTTP (any status: a 401 or 404 still proves something is listening).
import { call, joinUrl, NO_RETRY } from "../http/client.js";
import { sleep } from "../http/timing.js";
import { redactUrl } from "../config/url_secrets.js";
import { UserError } from "../config/user_error.js";
import type { InstanceSpec } from "./start.js";

export class ModelUnreachableError extends UserError {}

/** Engine base URLs named by model instances (`base_url`, `openai_base_url`, or a list of them). */
export function engineUrls(instances: InstanceSpec[]): Array<{ instance: string; url: string }> {
  const out: Array<{ instance: string; url: string }> = [];
  for (const instance of instances) {
    if (instance.type !== "responses_api_models") continue;
    for (const [key, value] of Object.entries(instance.fields)) {
      if (!/(^|_)base_url$/.test(key)) continue;
      for (const url of Array.isArray(value) ? value : [value]) if (typeof url === "string" && url) out.push({ instance: instance.name, url });
    }
  }
  return out;
}

async function answers(url: string, deadline: number): Promise<string | undefined> {
  let lastError = "";
  while (Date.now() < deadline) {
    try {
      await call(joinUrl(url, "/models"), { timeoutMs: Math.max(500, Math.min(5_000, deadline - Date.now())), retry: NO_RETRY });
      return undefined;
    } catch (error) {
      lastError = (error as Error).message;
      await sleep(250);
    }
  }
  return lastError || "no answer";
}

export async function waitForModels(instances: InstanceSpec[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const targets = engineUrls(instances);
  const results = await Promise.all(targets.map(async (t) => ({ ...t, error: await answers(t.url, deadline) })));
  // A model with several replicas is ready when one answers: the pool routes around the others and
  // takes them back when they come up.
  const ready = new Set(results.filter((r) => r.error === undefined).map((r) => r.instance));
  const dead = results.filter((r) => r.error !== undefined && !ready.has(r.instance));
  if (dead.length === 0) return;
  const lines = dead.map((d) => `model "${d.instance}" at ${redactUrl(d.url)} did not answer within ${Math.round(timeoutMs / 1000)} s (${d.error})`);
  throw new ModelUnreachableError(
    `${lines.join("; ")}. Check that the engine is running and that --model-url (policy_base_url) is its base URL including /v1; ` +
      "raise --model-ready-timeout if it is still loading.",
  );
}
