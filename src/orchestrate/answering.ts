// Whether a server is up, as NeMo Gym's poll_for_status judges it (07d6b0d, server_utils.py):
// `GET /` answering anything at all (a 404 still proves something listens).
import { call, NO_RETRY } from "../http/client.js";
import { sleep } from "../http/timing.js";

/** Polls `GET <url>/` until any HTTP answer; returns undefined then, or the last error after `timeoutMs`. */
export async function waitAnswering(url: string, timeoutMs: number, everyMs = 250): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  let lastError: string;
  for (;;) {
    try {
      await call(`${url.replace(/\/+$/, "")}/`, { method: "GET", timeoutMs: Math.max(500, Math.min(5_000, deadline - Date.now())), retry: NO_RETRY });
      return undefined;
    } catch (error) {
      lastError = (error as Error).message;
    }
    if (Date.now() >= deadline) return lastError;
    await sleep(everyMs);
  }
}
