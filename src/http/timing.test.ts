// The one sleep and retry backoff that every retry loop uses (src/http/timing.ts).
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { backoffMs, sleep } from "./timing.js";

describe("backoffMs", () => {
  it("doubles per retry up to the cap, jittered within the upper half", () => {
    const policy = { initialDelayMs: 100, maxDelayMs: 1_000 };
    for (const [retry, base] of [[0, 100], [1, 200], [2, 400], [3, 800], [4, 1_000], [10, 1_000]] as const) {
      for (let i = 0; i < 200; i++) {
        const wait = backoffMs(policy, retry);
        expect(wait).toBeGreaterThanOrEqual(base / 2);
        expect(wait).toBeLessThanOrEqual(base);
      }
    }
  });

  it("is jittered: retries that failed together do not all wait the same", () => {
    const waits = new Set(Array.from({ length: 50 }, () => backoffMs({ initialDelayMs: 1_000, maxDelayMs: 1_000 }, 0)));
    expect(waits.size).toBeGreaterThan(1);
  });
});

describe("sleep", () => {
  it("resolves after the wait", async () => {
    await expect(sleep(5)).resolves.toBeUndefined();
    await expect(sleep(5, { unref: true })).resolves.toBeUndefined();
  });

  it("rejects with the signal's reason when it aborts during the wait", async () => {
    const controller = new AbortController();
    const reason = new Error("the caller closed the connection");
    const waiting = sleep(600_000, { signal: controller.signal });
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
  });

  it("rejects at once for a signal that has already aborted", async () => {
    const reason = new Error("gone");
    await expect(sleep(600_000, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it("stops listening to the signal once it has resolved", async () => {
    const controller = new AbortController();
    await sleep(1, { signal: controller.signal });
    // A long-lived signal (a whole rollout's) sees many waits; each must not leave a listener behind.
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
