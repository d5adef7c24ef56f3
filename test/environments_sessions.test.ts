import { describe, expect, it } from "vitest";
import { SessionStore } from "../src/environments/session_store.js";

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
