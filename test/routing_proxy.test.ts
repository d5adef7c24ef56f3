// routing_proxy with real servers on 127.0.0.1: two rollouts running at once through the rollout
// service, simple_agent and the proxy each reach their own engine under its own model name and key;
// ambiguity is a 409 naming the routes; routes move and go over HTTP without a restart.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resolveCliConfig } from "../src/cli/config_args.js";
import { runRollouts } from "../src/client/rollouts.js";
import { call, NO_RETRY } from "../src/http/client.js";
import { listen } from "../src/http/server.js";
import routingProxy from "../src/models/routing_proxy.js";
import { ROLLOUT_HEADER } from "../src/protocol/index.js";
import { startServers, type RunningServers } from "../src/orchestrate/start.js";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { engineOf, onTeardown } from "./helpers/scope.js";
import { NEMO_GYM_EXAMPLES } from "./helpers/cli.js";


async function json(url: string, options: Parameters<typeof call>[1] = {}) {
  const result = await call(url, { retry: NO_RETRY, ...options });
  return { status: result.status, body: JSON.parse(result.text) as Record<string, any> };
}

function weatherRow(question: string, model: string): Record<string, any> {
  const row = JSON.parse(readFileSync(join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl"), "utf8").split("\n")[0]!);
  row.responses_create_params.input[1].content = `what's it like in sf? (${question})`;
  row.responses_create_params.model = model;
  return row;
}

const modelCalls = (engine: FakeEngine) => engine.requests.filter((r) => r.path === "/v1/responses");

describe("routing_proxy as the policy model of a real agent", () => {
  let servers: RunningServers;
  let proxy: string;
  let a: FakeEngine;
  let b: FakeEngine;

  beforeAll(async () => {
    // Slow enough that the two rollouts below overlap.
    a = await engineOf({ model: "real-a", delayMs: 200 });
    b = await engineOf({ model: "real-b", delayMs: 200 });
    const resolved = await resolveCliConfig([], { config: [], resourcesServer: "example_single_tool_call", modelType: "routing_proxy" });
    servers = await startServers(resolved.instances, { headPort: 0 });
    onTeardown(() => servers.stop());
    proxy = servers.urlOf("policy_model");
  });

  /** The two routes, rollout-a to engine a and rollout-b to engine b, each with its own key. */
  const twoRoutes = () =>
    [
      ["rollout-a", a, "real-a", "key-a"],
      ["rollout-b", b, "real-b", "key-b"],
    ] as const;
  const register = (name: string, engine: FakeEngine, model: string, key: string) => json(`${proxy}/routes`, { body: { name, base_url: engine.baseUrl, model, api_key: key } });
  const removeRoutes = async () => {
    for (const [name] of twoRoutes()) await json(`${proxy}/routes/${name}`, { method: "DELETE" });
  };
  // Every test starts from the same two routes, whichever ran before it (some move and remove them).
  beforeEach(async () => {
    await removeRoutes();
    for (const [name, engine, model, key] of twoRoutes()) expect((await register(name, engine, model, key)).status).toBe(200);
  });

  it("routes two concurrent rollouts to two engines, each with its own model name and key", async () => {
    await removeRoutes();
    for (const [name, engine, model, key] of twoRoutes()) {
      const registered = await register(name, engine, model, key);
      expect(registered).toEqual({ status: 200, body: { name, base_url: engine.baseUrl, model, has_api_key: true, replaced: false } });
    }
    const seen = new Map([a, b].map((engine) => [engine, modelCalls(engine).length]));
    const { rows, summary } = await runRollouts(servers.headUrl, { rows: [weatherRow("first", "rollout-a"), weatherRow("second", "rollout-b")], concurrency: 2 });
    expect(summary).toMatchObject({ requested: 2, succeeded: 2, missing: [] });
    expect(rows.map((r) => r.reward)).toEqual([1, 1]);

    // Each engine saw only its own rollout (two model calls), under its real model name and key.
    for (const [engine, question, model, key] of [[a, "first", "real-a", "key-a"], [b, "second", "real-b", "key-b"]] as const) {
      const calls = modelCalls(engine).slice(seen.get(engine));
      expect(calls).toHaveLength(2);
      for (const c of calls) {
        expect(c.body.model).toBe(model);
        expect(JSON.stringify(c.body.input)).toContain(`(${question})`);
        expect(c.headers.authorization).toBe(`Bearer ${key}`);
        // The rollout's environment session cookie is Gymkit's business, not the engine's.
        expect(c.headers.cookie).toBeUndefined();
        expect(c.headers[ROLLOUT_HEADER]).toMatch(/^\d+:0$/);
      }
    }

    const listed = await json(`${proxy}/v1/models`);
    expect(listed.body.data.map((m: { id: string; root: string }) => [m.id, m.root])).toEqual([["rollout-a", "real-a"], ["rollout-b", "real-b"]]);
    const routes = await json(`${proxy}/routes`);
    expect(JSON.stringify(routes.body)).not.toContain("key-a");
  });

  it("answers 409 naming the active routes when a request's model matches none of several", async () => {
    const before = a.requests.length + b.requests.length;
    for (const body of [{ model: "who-knows", input: "hi" }, { input: "no model at all" }]) {
      const reply = await json(`${proxy}/v1/responses`, { body });
      expect(reply.status).toBe(409);
      expect(reply.body.detail).toContain('2 routes are active ("rollout-a", "rollout-b")');
      // OpenAI SDKs read `error.message`.
      expect(reply.body.error.message).toBe(reply.body.detail);
    }
    expect(a.requests.length + b.requests.length).toBe(before);
  });

  it("forwards any /v1 path with the model and key swapped and hop-by-hop headers dropped", async () => {
    const reply = await json(`${proxy}/v1/chat/completions`, {
      body: { model: "rollout-b", messages: [{ role: "user", content: "hello" }] },
      headers: { authorization: "Bearer caller-secret", "proxy-authorization": "Basic xyz", cookie: "gymkit___x=1", "x-trace-id": "t-1" },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.model).toBe("real-b");
    const sent = b.requests.at(-1)!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.body.model).toBe("real-b");
    expect(sent.headers.authorization).toBe("Bearer key-b");
    expect(sent.headers["proxy-authorization"]).toBeUndefined();
    expect(sent.headers.cookie).toBeUndefined();
    expect(sent.headers["x-trace-id"]).toBe("t-1");
  });

  it("moves and removes routes over HTTP; with one route left, a request naming none uses it", async () => {
    const moved = await json(`${proxy}/routes`, { body: { name: "rollout-a", base_url: b.baseUrl, model: "real-b-as-a" } });
    expect(moved.body.replaced).toBe(true);
    const viaMoved = await json(`${proxy}/v1/responses`, { body: { model: "rollout-a", input: "moved?" } });
    expect(viaMoved.status).toBe(200);
    expect(b.requests.at(-1)!.body).toMatchObject({ model: "real-b-as-a", input: "moved?" });
    // No key on the route: the caller's is not passed on either.
    expect(b.requests.at(-1)!.headers.authorization).toBeUndefined();

    expect((await json(`${proxy}/routes/rollout-b`, { method: "DELETE" })).body).toEqual({ removed: "rollout-b", routes: ["rollout-a"] });
    const missing = await json(`${proxy}/routes/rollout-b`, { method: "DELETE" });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toContain('active routes: "rollout-a"');
    const single = await json(`${proxy}/v1/responses`, { body: { model: "anything", input: "only one" } });
    expect(single.status).toBe(200);
    expect(b.requests.at(-1)!.body).toMatchObject({ model: "real-b-as-a", input: "only one" });

    await json(`${proxy}/routes/rollout-a`, { method: "DELETE" });
    const none = await json(`${proxy}/v1/responses`, { body: { model: "anything", input: "x" } });
    expect(none.status).toBe(503);
    expect(none.body.detail).toContain("no route is registered");
  });
});

describe("routing_proxy on its own", () => {
  async function proxyWith(config: Record<string, unknown>): Promise<string> {
    const app = await routingProxy.build({ name: "proxy", config: routingProxy.configSchema.parse({ retry_backoff_s: 0.01, ...config }), urlOf: () => "" });
    const url = await listen(app);
    onTeardown(() => app.close());
    return url;
  }

  it("protects the route table with routes_api_key, and validates registrations", async () => {
    const url = await proxyWith({ routes_api_key: "admin" });
    const denied = await json(`${url}/routes`, { body: { name: "r", base_url: "http://127.0.0.1:9/v1", model: "m" } });
    expect(denied.status).toBe(401);
    const invalid = await json(`${url}/routes`, { body: { name: "r", base_url: "not a url", model: "m", max_tokens: 1 }, headers: { authorization: "Bearer admin" } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail.map((d: { loc: string[] }) => d.loc.join("."))).toEqual(expect.arrayContaining(["body.base_url", "body.max_tokens"]));
  });

  it("refuses a deleted route's name with a 410, even with one route left, until it is registered again", async () => {
    const finished = await engineOf({ model: "engine-of-finished" });
    const running = await engineOf({ model: "engine-of-running" });
    const url = await proxyWith({ routes: { "rollout-1": { base_url: finished.baseUrl, model: "m1" }, "rollout-2": { base_url: running.baseUrl, model: "m2" } } });
    expect((await json(`${url}/routes/rollout-1`, { method: "DELETE" })).status).toBe(200);
    const seen = running.requests.length;
    // A late call of the finished rollout: one route is left, but it is another rollout's.
    const late = await json(`${url}/v1/responses`, { body: { model: "rollout-1", input: "late" } });
    expect(late.status).toBe(410);
    expect(late.body.detail).toContain('route "rollout-1" was deleted');
    expect(late.body.error.message).toBe(late.body.detail);
    expect(running.requests.length).toBe(seen);
    expect(finished.requests.filter((r) => r.path === "/v1/responses")).toHaveLength(0);
    // The remaining route still serves its own calls, and one naming no model.
    expect((await json(`${url}/v1/responses`, { body: { model: "rollout-2", input: "mine" } })).status).toBe(200);
    expect((await json(`${url}/v1/responses`, { body: { input: "no name" } })).status).toBe(200);
    expect(running.requests.length).toBe(seen + 2);
    // Registered again, the name is usable again.
    expect((await json(`${url}/routes`, { body: { name: "rollout-1", base_url: finished.baseUrl, model: "m1" } })).status).toBe(200);
    expect((await json(`${url}/v1/responses`, { body: { model: "rollout-1", input: "new life" } })).status).toBe(200);
    expect(finished.requests.at(-1)!.body).toMatchObject({ model: "m1", input: "new life" });
  });

  it("keeps a rollout on one replica of a route, and names the route when no replica answers", async () => {
    const one = await engineOf();
    const two = await engineOf();
    const url = await proxyWith({ routes: { policy: { base_url: [one.baseUrl, two.baseUrl], model: "m" } }, max_retries: 0 });
    // A rollout's first call is placed by load; its later calls (model output in their history) stick.
    const turns = (n: number) => [{ role: "user", content: "q" }, ...Array.from({ length: n }, () => [{ role: "assistant", content: "a" }, { role: "user", content: "more" }]).flat()];
    for (const [rollout, turn] of [["3:0", 0], ["4:0", 0], ["3:0", 1], ["3:0", 2], ["4:0", 1]] as const) {
      const reply = await json(`${url}/v1/responses`, { body: { input: turns(turn) }, headers: { [ROLLOUT_HEADER]: rollout } });
      expect(reply.status).toBe(200);
    }
    const served = (engine: FakeEngine, rollout: string) => engine.requests.filter((r) => r.headers[ROLLOUT_HEADER] === rollout).length;
    for (const rollout of ["3:0", "4:0"]) expect([served(one, rollout), served(two, rollout)].sort()).toEqual([0, rollout === "3:0" ? 3 : 2]);

    const dead = await startFakeEngine();
    await dead.close();
    const deadProxy = await proxyWith({ routes: { gone: { base_url: dead.baseUrl, model: "m" } }, max_retries: 1 });
    const reply = await json(`${deadProxy}/v1/responses`, { body: { input: "anyone?" } });
    expect(reply.status).toBe(502);
    expect(reply.body.detail).toContain('route "gone"');
    expect(reply.body.detail).toContain(dead.baseUrl);
  });
});
