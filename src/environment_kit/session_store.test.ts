import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineEnvironment } from "./define.js";
import { SessionStore } from "./session_store.js";
import { startInstance } from "./testing.js";
import { CookieJar } from "../http/cookies.js";

describe("SessionStore", () => {
  it("forgets the least recently used session beyond its capacity", () => {
    const store = new SessionStore<number>(2);
    store.set("a", 1);
    store.set("b", 2);
    expect(store.get("a")).toBe(1); // touch a: b is now the oldest
    store.set("c", 3);
    expect([...store.keys()].sort()).toEqual(["a", "c"]);
    expect(store.has("b")).toBe(false);
    store.set("a", 10);
    store.set("d", 4);
    expect([...store.entries()]).toEqual([
      ["a", 10],
      ["d", 4],
    ]);
  });
});

describe("defineEnvironment sessionCapacity", () => {
  const counter = (sessionCapacity?: number) =>
    defineEnvironment({
      id: "session_counter",
      description: "counts calls per session",
      sessionCapacity,
      tools: {
        bump: {
          description: "count",
          args: z.object({}),
          handler: (_args, ctx) => {
            const count = ((ctx.sessions.get(ctx.sessionId) as number | undefined) ?? 0) + 1;
            ctx.sessions.set(ctx.sessionId, count);
            return { count };
          },
        },
      },
      verify: () => ({ reward: 0 }),
    });

  it("keeps that many sessions per instance, forgetting the least recently used", async () => {
    const env = await startInstance(counter(2));
    try {
      const [a, b, c] = [new CookieJar(), new CookieJar(), new CookieJar()];
      await env.request("/bump", {}, a);
      await env.request("/bump", {}, b);
      expect((await env.request("/bump", {}, a)).body).toEqual({ count: 2 }); // a touched: b is the oldest
      await env.request("/bump", {}, c); // a third session: b is forgotten
      expect((await env.request("/bump", {}, a)).body).toEqual({ count: 3 });
      expect((await env.request("/bump", {}, b)).body).toEqual({ count: 1 });
    } finally {
      await env.close();
    }
  });

  it("refuses a capacity that is not a whole number ≥ 1", () => {
    expect(() => counter(0)).toThrow(/sessionCapacity must be a whole number ≥ 1, not 0/);
    expect(() => counter(1.5)).toThrow(/sessionCapacity/);
  });
});
