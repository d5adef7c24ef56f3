// example_session_state_mgmt on a real server on 127.0.0.1: every stored example rollout, played back as its agent played
// it (seed, the model's tool calls, verify), scores the reward it was recorded with; and the
// environment's cases from NeMo Gym's examples spec (nemo-gym-examples/README.md §1–4).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CookieJar } from "../../http/cookies.js";
import { readJsonlFile, replayExampleRollouts, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import environment from "./index.js";

const jsonl = (path: string) => readJsonlFile(new URL(path, import.meta.url));

describe("example_session_state_mgmt", () => {
  let env: RunningInstance;
  const rows = jsonl("./data/example.jsonl");
  beforeAll(async () => {
    env = await startInstance(environment);
  });
  afterAll(() => env.close());

  it("data/example_rollouts.jsonl: every line, replayed, scores the reward it records", async () => {
    const replayed = await replayExampleRollouts(env, new URL("./data/", import.meta.url));
    expect(replayed.length).toBeGreaterThan(0);
    for (const { line, status, reward, recorded } of replayed) {
      expect(status, `line ${line}`).toBe(200);
      expect(reward, `line ${line}`).toBe(recorded);
    }
  });

  it("example row 1: seed 3, +1, +2, get → 6, verify expected 6 → 1.0", async () => {
    const jar = new CookieJar();
    const row = rows[0]!;
    expect((await env.request("/seed_session", row, jar)).body).toEqual({});
    expect((await env.request("/increment_counter", { count: 1 }, jar)).body).toEqual({ success: true });
    expect((await env.request("/increment_counter", { count: 2 }, jar)).body).toEqual({ success: true });
    expect((await env.request("/get_counter_value", {}, jar)).body).toEqual({ count: 6 });
    const verified = await env.request("/verify", { ...row, response: responseWith([]) }, jar);
    // NeMo Gym answers with its base verify response: the row's counts are not echoed.
    expect(Object.keys(verified.body)).toEqual(["responses_create_params", "response", "reward"]);
    expect(verified.text).toContain('"reward":1.0');
    const wrong = await env.request("/verify", { ...row, expected_count: 7, response: responseWith([]) }, jar);
    expect(wrong.body.reward).toBe(0.0);
  });

  it("test_sanity: a fresh session starts at 0, and sessions are isolated", async () => {
    const a = new CookieJar();
    const b = new CookieJar();
    expect((await env.request("/get_counter_value", {}, a)).body).toEqual({ count: 0 });
    await env.request("/increment_counter", { count: 2 }, a);
    expect((await env.request("/get_counter_value", {}, a)).body).toEqual({ count: 2 });
    await env.request("/increment_counter", { count: 4 }, b);
    await env.request("/increment_counter", { count: 3 }, b);
    expect((await env.request("/get_counter_value", {}, b)).body).toEqual({ count: 7 });
    expect((await env.request("/get_counter_value", {}, a)).body).toEqual({ count: 2 });
  });

  it("seeding is set-if-absent", async () => {
    const jar = new CookieJar();
    await env.request("/increment_counter", { count: 5 }, jar);
    await env.request("/seed_session", { ...rows[0], initial_count: 100 }, jar);
    expect((await env.request("/get_counter_value", {}, jar)).body).toEqual({ count: 5 });
  });

  it("a session that never touched state scores 0 even if 0 was expected", async () => {
    const result = await env.request("/verify", { ...rows[0], expected_count: 0, response: responseWith([]) }, new CookieJar());
    expect(result.body.reward).toBe(0.0);
  });

  it("get_counter_value accepts an empty body or any keys", async () => {
    const jar = new CookieJar();
    await env.request("/seed_session", { initial_count: 9 }, jar);
    const empty = await fetch(`${env.url}/get_counter_value`, { method: "POST", headers: { cookie: jar.header()! } });
    expect(await empty.json()).toEqual({ count: 9 });
    expect((await env.request("/get_counter_value", { whatever: true }, jar)).body).toEqual({ count: 9 });
  });

  it("seed_session requires initial_count, verify requires expected_count", async () => {
    const { initial_count: _i, ...noInitial } = rows[0]!;
    const seed = await env.request("/seed_session", noInitial);
    expect(seed.status).toBe(422);
    expect(seed.body.detail[0].loc).toEqual(["body", "initial_count"]);
    const { expected_count: _e, ...noExpected } = rows[0]!;
    const verify = await env.request("/verify", { ...noExpected, response: responseWith([]) });
    expect(verify.status).toBe(422);
    expect(verify.body.detail[0].loc).toEqual(["body", "expected_count"]);
    expect((await env.request("/increment_counter", { count: "1" })).status).toBe(422);
  });
});
