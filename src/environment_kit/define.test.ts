// The environment framework over HTTP: what `defineEnvironment` gives every environment for free.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { CookieJar } from "../http/cookies.js";
import { defineEnvironment } from "./define.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "./testing.js";

const echo = defineEnvironment({
  id: "echo_env",
  description: "A test environment exercising every framework feature.",
  configSchema: z.strictObject({ bonus: z.number().default(0) }),
  state: z.array(z.string()),
  seedFields: { greeting: z.string() },
  rowFields: { expected: z.string(), weight: z.number().default(1) },
  seedSession: (row, { sessionId, sessions }) => {
    sessions.set(sessionId, [row.greeting]);
    return { seeded: true };
  },
  tools: {
    say: {
      description: "Say something.",
      args: z.object({ text: z.string().describe("What to say."), loud: z.boolean().optional() }),
      handler: ({ text, loud }, { sessionId, sessions }) => {
        const said = [...(sessions.get(sessionId) ?? []), loud ? text.toUpperCase() : text];
        sessions.set(sessionId, said);
        return { said };
      },
    },
    plain: {
      description: "Returns a bare string.",
      args: z.object({}),
      handler: () => "just text",
    },
    boom: {
      description: "Always fails.",
      args: z.object({}),
      handler: () => {
        throw new Error("tool exploded");
      },
    },
  },
  verify: (request, { config }) => ({
    reward: (request.response.output.length > 0 && request.expected === "yes" ? 1 : 0) * request.weight + config.bonus,
    weighted: true,
  }),
});

const row = (extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: "hello" },
  expected: "yes",
  ...extra,
});

describe("defineEnvironment", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(echo, { config: { bonus: 0.5 } });
  });
  afterAll(async () => {
    await env.close();
  });

  it("answers health and reverify_mode", async () => {
    expect((await env.request("/")).body).toEqual({ status: "ok" });
    const mode = await env.request("/reverify_mode");
    expect(mode.body).toBe("unknown");
    expect(mode.text).toBe('"unknown"');
  });

  it("lists tool schemas derived from zod", async () => {
    const { body } = await env.request("/tools");
    expect(body[0]).toEqual({
      type: "function",
      name: "say",
      description: "Say something.",
      parameters: {
        type: "object",
        properties: { text: { type: "string", description: "What to say." }, loud: { type: "boolean" } },
        required: ["text"],
        additionalProperties: false,
      },
      // OpenAI strict mode needs every property required; `loud` is optional.
      strict: false,
    });
    expect(body.map((t: { name: string }) => t.name)).toEqual(["say", "plain", "boom"]);
    expect(echo.toolSpecs()).toEqual(body);
  });

  it("seeds a session, keeps state per cookie, and isolates sessions", async () => {
    const a = new CookieJar();
    const b = new CookieJar();
    expect((await env.request("/seed_session", { ...row(), greeting: "hi A" }, a)).body).toEqual({ seeded: true });
    expect((await env.request("/seed_session", { ...row(), greeting: "hi B" }, b)).body).toEqual({ seeded: true });
    expect((await env.request("/say", { text: "one" }, a)).body).toEqual({ said: ["hi A", "one"] });
    expect((await env.request("/say", { text: "two", loud: true }, b)).body).toEqual({ said: ["hi B", "TWO"] });
    expect((await env.request("/say", { text: "three" }, a)).body).toEqual({ said: ["hi A", "one", "three"] });
    // A request without cookies is a fresh session.
    expect((await env.request("/say", { text: "alone" })).body).toEqual({ said: ["alone"] });
  });

  it("sets a session cookie on every response", async () => {
    const jar = new CookieJar();
    await env.request("/reverify_mode", undefined, jar);
    const first = jar.header();
    expect(first).toMatch(/^gymkit___echo_env=/);
    await env.request("/say", { text: "x" }, jar);
    expect(jar.header()).toBe(first);
  });

  it("422s a seed without its required field, naming it", async () => {
    const result = await env.request("/seed_session", row());
    expect(result.status).toBe(422);
    expect(result.body.detail[0].loc).toEqual(["body", "greeting"]);
  });

  it("validates tool arguments: missing → 422, wrong type → 422, extra keys ignored", async () => {
    const missing = await env.request("/say", {});
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(["body", "text"]);
    expect((await env.request("/say", { text: 5 })).status).toBe(422);
    const extra = await env.request("/say", { text: "ok", colour: "red" });
    expect(extra.status).toBe(200);
    expect(extra.body.said).toEqual(["ok"]);
    expect((await env.request("/say", [1, 2])).status).toBe(422);
  });

  it("accepts an empty body for a tool without arguments and always answers JSON", async () => {
    const response = await fetch(`${env.url}/plain`, { method: "POST", headers: { "content-type": "application/json" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    expect(await response.text()).toBe('"just text"');
  });

  it("answers a failing tool with a 500 whose body is a JSON string", async () => {
    const result = await env.request("/boom", {});
    expect(result.status).toBe(500);
    expect(result.body).toBe("Error: tool exploded");
  });

  it("verifies as NeMo Gym's base verify response: the request and response with every declared field, the reward, the extras; row fields dropped", async () => {
    const result = await env.request("/verify", {
      ...row({ custom_field: { nested: [1, 2] }, _ng_task_index: 3 }),
      response: responseWith([assistantMessage("hi")]),
    });
    expect(result.status).toBe(200);
    expect(Object.keys(result.body)).toEqual(["responses_create_params", "response", "reward", "weighted"]);
    expect(result.body).toMatchObject({ responses_create_params: { input: "hello", tool_choice: "auto", parallel_tool_calls: true, temperature: null }, reward: 1.5, weighted: true });
    expect(result.body.response.output[0].content[0]).toMatchObject({ text: "hi", logprobs: null });
    expect(result.body.response).toMatchObject({ background: null, previous_response_id: null, truncation: null });
    expect(result.text).toContain('"reward":1.5');
  });

  it("echoes the row fields an environment names in verifyEchoes, or all of them", async () => {
    const echoing = (verifyEchoes: readonly string[] | "all") => defineEnvironment({ id: "echoing", description: "", verifyEchoes, verify: () => ({ reward: 1 }) });
    const request = { responses_create_params: { input: "x" }, response: responseWith([]), kept: 1, other: "o" };
    for (const [echoes, expected] of [[["kept", "absent"], { kept: 1 }], ["all", { kept: 1, other: "o" }]] as const) {
      const instance = await startInstance(echoing(echoes));
      try {
        const verified = await instance.request("/verify", request);
        expect(verified.body).toMatchObject(expected);
        if (echoes !== "all") expect(verified.body).not.toHaveProperty("other");
        expect(verified.text).toContain('"reward":1.0');
      } finally {
        await instance.close();
      }
    }
  });

  it("422s verify with an unknown responses_create_params key, naming it", async () => {
    const result = await env.request("/verify", {
      responses_create_params: { input: "hello", max_tokens: 10 },
      expected: "yes",
      response: responseWith([]),
    });
    expect(result.status).toBe(422);
    expect(JSON.stringify(result.body.detail)).toContain("max_tokens");
    expect(result.body.detail[0].type).toBe("extra_forbidden");
  });

  it("422s verify without a required row field, without a response, or with an untyped output item", async () => {
    const noField = await env.request("/verify", { responses_create_params: { input: "x" }, response: responseWith([]) });
    expect(noField.status).toBe(422);
    expect(noField.body.detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(["body", "expected"]);
    const noResponse = await env.request("/verify", row());
    expect(noResponse.status).toBe(422);
    expect(noResponse.body.detail[0].loc).toEqual(["body", "response"]);
    const untyped = await env.request("/verify", { ...row(), response: responseWith([{ role: "assistant", content: "hi" }]) });
    expect(untyped.status).toBe(422);
    expect(untyped.body.detail[0].loc).toEqual(["body", "response", "output", 0]);
  });

  it("aggregates metrics with the default statistics", async () => {
    const verifyResponses = [
      { reward: 1, accuracy: true, _ng_task_index: 0, _ng_rollout_index: 0 },
      { reward: 0, accuracy: false, _ng_task_index: 0, _ng_rollout_index: 1 },
    ];
    const result = await env.request("/aggregate_metrics", { verify_responses: verifyResponses });
    expect(result.status).toBe(200);
    expect(result.body.agent_metrics["mean/reward"]).toBe(0.5);
    expect(result.body.key_metrics["mean/accuracy"]).toBe(0.5);
    expect(result.body.group_level_metrics).toHaveLength(1);
    expect((await env.request("/aggregate_metrics", {})).status).toBe(422);
  });

  it("404s an unknown tool", async () => {
    expect((await env.request("/fly", {})).status).toBe(404);
  });
});

describe("defineEnvironment options", () => {
  it("serves a custom aggregateMetrics built on the defaults, and reverifyMode", async () => {
    const custom = defineEnvironment({
      id: "custom_metrics",
      description: "Custom metrics.",
      reverifyMode: "stateless",
      verify: () => ({ reward: 1 }),
      aggregateMetrics: (rows, { defaults }) => {
        const base = defaults(rows);
        return { ...base, key_metrics: { ...base.key_metrics, rollouts: rows.length } };
      },
    });
    const env = await startInstance(custom);
    try {
      expect((await env.request("/reverify_mode")).body).toBe("stateless");
      const result = await env.request("/aggregate_metrics", { verify_responses: [{ reward: 1 }, { reward: 0 }] });
      expect(result.body.key_metrics).toEqual({ "mean/reward": 0.5, rollouts: 2 });
      // No tools, no fields: any row verifies.
      const verified = await env.request("/verify", { responses_create_params: { input: "x" }, response: responseWith([]), anything: 1 });
      expect(verified.body).toMatchObject({ reward: 1 });
    } finally {
      await env.close();
    }
  });

  it("answers 500 when verify returns a non-numeric reward", async () => {
    const bad = defineEnvironment({ id: "bad_reward", description: "", verify: () => ({ reward: Number.NaN }) });
    const env = await startInstance(bad);
    try {
      const result = await env.request("/verify", { responses_create_params: { input: "x" }, response: responseWith([]) });
      expect(result.status).toBe(500);
      expect(result.body).toContain("finite number");
    } finally {
      await env.close();
    }
  });

  it("rejects reserved and malformed tool names, and unknown config keys", () => {
    const args = z.object({});
    expect(() =>
      defineEnvironment({ id: "x", description: "", verify: () => ({ reward: 0 }), tools: { verify: { description: "", args, handler: () => 1 } } }),
    ).toThrow(/reserved/);
    expect(() =>
      defineEnvironment({ id: "x", description: "", verify: () => ({ reward: 0 }), tools: { "a/b": { description: "", args, handler: () => 1 } } }),
    ).toThrow(/must match/);
    // `close` releases a Gymnasium-style episode; a verify-only environment has none to release.
    expect(() => defineEnvironment({ id: "x", description: "", verify: () => ({ reward: 0 }), close: () => ({}) })).toThrow(/`close` belongs to a Gymnasium-style environment/);
    expect(echo.configSchema.safeParse({ bonus: 1, typo: 2 }).success).toBe(false);
    expect(defineEnvironment({ id: "x", description: "", verify: () => ({ reward: 0 }) }).configSchema.safeParse({ a: 1 }).success).toBe(false);
  });
});

describe("defineEnvironment setup and teardown", () => {
  it("makes resources once per instance, hands them to every handler with urlOf, and releases them on close", async () => {
    const made: Array<{ instance: string; calls: number; closed: boolean }> = [];
    const counter = defineEnvironment({
      id: "counter_env",
      description: "counts calls per instance",
      configSchema: z.strictObject({ judge: z.string().default("judge_model") }),
      setup: ({ name }) => {
        const resources = { instance: name, calls: 0, closed: false };
        made.push(resources);
        return resources;
      },
      teardown: (resources) => {
        resources.closed = true;
      },
      tools: {
        bump: {
          description: "count a call",
          args: z.object({}),
          handler: (_args, ctx) => ({ instance: ctx.resources.instance, calls: ++ctx.resources.calls, judge: ctx.urlOf(ctx.config.judge) }),
        },
      },
      verify: (_request, ctx) => ({ reward: ctx.resources.calls }),
    });
    const servers = { judge_model: "http://127.0.0.1:9/v1" };
    const a = await startInstance(counter, { name: "a", servers });
    const b = await startInstance(counter, { name: "b", servers });
    try {
      expect(made.map((m) => m.instance)).toEqual(["a", "b"]);
      await a.request("/bump", {});
      expect((await a.request("/bump", {})).body).toEqual({ instance: "a", calls: 2, judge: "http://127.0.0.1:9/v1" });
      expect((await b.request("/bump", {})).body).toMatchObject({ instance: "b", calls: 1 });
      const verified = await a.request("/verify", { responses_create_params: { input: "hi" }, response: responseWith([assistantMessage("ok")]) });
      expect(verified.body.reward).toBe(2);
    } finally {
      await a.close();
    }
    expect(made.map((m) => m.closed)).toEqual([true, false]);
    await b.close();
    expect(made.map((m) => m.closed)).toEqual([true, true]);
  });
});

describe("toolFallback", () => {
  it("answers any other POST name: a string as plain text, anything else as JSON; fixed routes keep precedence", async () => {
    const fallback = defineEnvironment({
      id: "fallback_env",
      description: "catch-all",
      tools: { fixed: { description: "a fixed tool", args: z.object({}), handler: () => ({ fixed: true }) } },
      toolFallback: (name, body) => (name === "text" ? "plain words" : { name, body }),
      verify: () => ({ reward: 0 }),
    });
    const env = await startInstance(fallback);
    try {
      const text = await env.request("/text", {});
      expect([text.status, text.text]).toEqual([200, "plain words"]);
      const json = await env.request("/session_resume", { a: 1 });
      expect([json.status, json.body]).toEqual([200, { name: "session_resume", body: { a: 1 } }]);
      expect((await env.request("/fixed", {})).body).toEqual({ fixed: true });
    } finally {
      await env.close();
    }
  });
});
