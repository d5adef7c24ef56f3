// simple_agent over HTTP: real environments, the real agent, and only the engine faked (it answers
// `/v1/responses` itself, so it stands in for the model server here).
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CookieJar } from "../src/http/cookies.js";
import multiStep from "../src/environments/example_multi_step/index.js";
import sessionState from "../src/environments/example_session_state_mgmt/index.js";
import singleToolCall from "../src/environments/example_single_tool_call/index.js";
import multireward from "../src/environments/example_tool_call_multireward/index.js";
import { startInstance, type RunningInstance } from "../src/environment_kit/testing.js";
import simpleAgent from "../src/agents/simple_agent.js";
import openaiModel from "../src/models/openai_model.js";
import type { ServerImplementation } from "../src/http/implementation.js";
import { examplePolicy, startFakeEngine, type FakeEngine, type FakeEngineOptions } from "./doubles/fake_engine.js";

function exampleRows(id: string): Array<Record<string, any>> {
  const text = readFileSync(new URL(`../src/environments/${id}/data/example.jsonl`, import.meta.url), "utf8");
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

const started: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const server of started.reverse()) await server.close();
});

async function engine(options: FakeEngineOptions = {}): Promise<FakeEngine> {
  const e = await startFakeEngine(options);
  started.push(e);
  return e;
}

async function environment(implementation: ServerImplementation<any>): Promise<RunningInstance> {
  const env = await startInstance(implementation);
  started.push(env);
  return env;
}

async function agent(env: RunningInstance, model: { url: string }, config: Record<string, unknown> = {}): Promise<RunningInstance> {
  const instance = await startInstance(simpleAgent, {
    name: `${env.name}_simple_agent`,
    config: {
      resources_server: { type: "resources_servers", name: env.name },
      model_server: { type: "responses_api_models", name: "policy_model" },
      ...config,
    },
    servers: { [env.name]: env.url, policy_model: model.url },
  });
  started.push(instance);
  return instance;
}

/** An engine that accepts requests and never answers; `abandoned` resolves when the agent gives up on one. */
/** An engine that never answers: `reached` when a request arrives, `abandoned` when its caller hangs up. */
async function silentEngine(): Promise<{ url: string; reached: Promise<void>; abandoned: Promise<boolean>; close(): Promise<void> }> {
  let abandon!: (value: boolean) => void;
  let reach!: () => void;
  const abandoned = new Promise<boolean>((resolve) => (abandon = resolve));
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const server = http.createServer((_req, res) => {
    reach();
    res.on("close", () => abandon(true));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const silent = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reached,
    abandoned,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  started.push(silent);
  return silent;
}

const types = (output: Array<{ type: string }>) => output.map((item) => item.type);

describe("simple_agent plays the example environments with a capable model", () => {
  let model: FakeEngine;
  beforeAll(async () => {
    model = await engine({ policy: examplePolicy });
  });

  it("example_single_tool_call: every row → 1.0", async () => {
    const run = await agent(await environment(singleToolCall), model);
    for (const row of exampleRows("example_single_tool_call")) {
      const result = await run.request("/run", row);
      expect(result.status).toBe(200);
      expect(result.body.reward).toBe(1.0);
      expect(types(result.body.response.output)).toEqual(["function_call", "function_call_output", "message"]);
    }
  });

  it("example_multi_step: every row → 1.0 (reasoning, lookups, extract, answer)", async () => {
    const run = await agent(await environment(multiStep), model);
    for (const row of exampleRows("example_multi_step")) {
      const result = await run.request("/run", row);
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ reward: 1.0, accuracy: true, parsed_synonym_values: [711, 407] });
    }
  });

  it("example_session_state_mgmt: every row → 1.0", async () => {
    const run = await agent(await environment(sessionState), model);
    for (const row of exampleRows("example_session_state_mgmt")) {
      const result = await run.request("/run", row);
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ reward: 1.0 });
    }
  });

  it("example_tool_call_multireward: every row → correctness 1, schema 1, format 0 = 2.0", async () => {
    const run = await agent(await environment(multireward), model);
    for (const row of exampleRows("example_tool_call_multireward")) {
      const result = await run.request("/run", row);
      expect(result.status).toBe(200);
      expect(result.body.reward).toBe(2.0);
      expect(result.body.reward_components).toEqual({ correctness: 1, schema_valid: 1, format: 0 });
      expect(result.body.predicted_calls).toEqual([row.expected_call]);
    }
  });
});

describe("simple_agent through a real model server", () => {
  it("plays example_tool_call_multireward via openai_model in front of the engine", async () => {
    const fake = await engine();
    const policyModel = await startInstance(openaiModel, {
      name: "policy_model",
      config: { openai_base_url: fake.baseUrl, openai_api_key: "dummy", openai_model: "fake-model" },
    });
    started.push(policyModel);
    const run = await agent(await environment(multireward), policyModel);
    const rows = exampleRows("example_tool_call_multireward");
    const results = await Promise.all(rows.map((row, task) => run.request("/run", { ...row, _ng_task_index: task, _ng_rollout_index: 0 })));
    expect(results.map((r) => r.body.reward)).toEqual([2, 2, 2, 2, 2]);
    expect(results[0]!.body.response.model).toBe("fake-model");
  });
});

describe("simple_agent loop", () => {
  it("feeds the model its original input plus everything produced, and sums usage", async () => {
    const model = await engine();
    const run = await agent(await environment(sessionState), model);
    const row = exampleRows("example_session_state_mgmt")[0]!; // add 1, add 2, get → 6
    const result = await run.request("/run", { ...row, unknown_field: "kept" });
    // The environment's verify response is what /run answers: NeMo Gym's base model keeps no row fields.
    expect(result.body).toMatchObject({ reward: 1.0 });
    expect(result.body).not.toHaveProperty("unknown_field");
    const output = result.body.response.output;
    expect(types(output)).toEqual([
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
      "function_call",
      "function_call_output",
      "message",
    ]);
    expect(output[5].output).toBe('{"count":6}');
    expect(output[2].call_id).toBe(output[0].call_id);
    const calls = model.requests.filter((r) => r.path === "/v1/responses");
    expect(calls).toHaveLength(3);
    const originalInput = row.responses_create_params.input;
    expect(calls[0]!.body.input).toEqual(originalInput);
    // The verify response writes every field of NeMo Gym's item models (unset ones as null); the model saw the items without them.
    const withoutNulls = (item: Record<string, unknown>) => Object.fromEntries(Object.entries(item).filter(([, v]) => v !== null));
    expect(calls[2]!.body.input).toEqual([...originalInput, ...output.slice(0, 6).map(withoutNulls)]);
    expect(calls[0]!.body.tools).toEqual(row.responses_create_params.tools);
    // Usage is summed over the three model calls: 2 calls × 5, 1 call × 5, then "The count is 6." (4).
    expect(result.body.response.usage.output_tokens).toBe(19);
    expect(result.body.response.usage.total_tokens).toBe(result.body.response.usage.input_tokens + 19);
  });

  it("turns a string input into one user message", async () => {
    const model = await engine({ policy: () => ({ text: "hello back" }) });
    const run = await agent(await environment(singleToolCall), model);
    const result = await run.request("/run", { responses_create_params: { input: "hello" } });
    expect(result.body.reward).toBe(1.0);
    expect(model.requests[0]!.body.input).toEqual([{ role: "user", content: "hello", type: "message" }]);
  });

  it("loops again after a reasoning-only turn", async () => {
    let turn = 0;
    const model = await engine({ policy: () => (turn++ === 0 ? { reasoning: "let me think" } : { text: "done" }) });
    const run = await agent(await environment(singleToolCall), model);
    const result = await run.request("/run", { responses_create_params: { input: "hi" } });
    expect(types(result.body.response.output)).toEqual(["reasoning", "message"]);
    expect(model.requests).toHaveLength(2);
  });

  it("feeds invalid tool-call JSON back to the model without calling the environment", async () => {
    const model = await engine({
      policy: (turns) =>
        turns.some((t) => t.role === "tool")
          ? { text: "ok" }
          : { toolCalls: [{ name: "increment_counter", arguments: "{not json" }] },
    });
    const env = await environment(sessionState);
    const run = await agent(env, model);
    const result = await run.request("/run", { ...exampleRows("example_session_state_mgmt")[0], expected_count: 3 });
    const fed = result.body.response.output[1];
    expect(fed.type).toBe("function_call_output");
    expect(fed.output).toMatch(/^\{"error": "Invalid tool call arguments: SyntaxError\(/);
    expect(JSON.parse(fed.output).error).toContain("Invalid tool call arguments");
    // The model saw the error, and the counter was never touched (3 = the seed).
    expect(JSON.stringify(model.requests[1]!.body.input)).toContain("Invalid tool call arguments");
    expect(result.body.reward).toBe(1.0);
  });

  it("feeds a tool's 422 (and unknown tools' 404) back to the model", async () => {
    const model = await engine({
      policy: (turns) =>
        turns.some((t) => t.role === "tool")
          ? { text: "sorry" }
          : { toolCalls: [{ name: "increment_counter", arguments: {} }, { name: "fly_away", arguments: {} }] },
    });
    const run = await agent(await environment(sessionState), model);
    const result = await run.request("/run", exampleRows("example_session_state_mgmt")[0]);
    expect(result.status).toBe(200);
    const outputs = result.body.response.output.filter((i: { type: string }) => i.type === "function_call_output");
    expect(JSON.parse(outputs[0].output).detail[0]).toMatchObject({ loc: ["body", "count"] });
    expect(JSON.parse(outputs[1].output).detail).toContain("Not Found");
    expect(result.body.reward).toBe(0.0);
  });

  it("stops at max_steps", async () => {
    const model = await engine({ policy: () => ({ toolCalls: [{ name: "increment_counter", arguments: { count: 1 } }] }) });
    const run = await agent(await environment(sessionState), model, { max_steps: 2 });
    const result = await run.request("/run", { ...exampleRows("example_session_state_mgmt")[0], initial_count: 0, expected_count: 2 });
    expect(model.requests).toHaveLength(2);
    expect(types(result.body.response.output)).toEqual(["function_call", "function_call_output", "function_call", "function_call_output"]);
    expect(result.body.reward).toBe(1.0);
  });

  it("stops when the model's response is incomplete, without running its tool calls", async () => {
    const model = await engine({ policy: () => ({ toolCalls: [{ name: "increment_counter", arguments: { count: 5 } }], finish: "length" }) });
    const run = await agent(await environment(sessionState), model);
    const result = await run.request("/run", { ...exampleRows("example_session_state_mgmt")[0], initial_count: 1, expected_count: 1 });
    expect(model.requests).toHaveLength(1);
    expect(result.body.response.status).toBe("incomplete");
    expect(types(result.body.response.output)).toEqual(["function_call"]);
    expect(result.body.reward).toBe(1.0);
  });

  it("stops when the model produces nothing at all", async () => {
    const model = await engine({ policy: () => ({}) });
    const run = await agent(await environment(singleToolCall), model);
    const result = await run.request("/run", { responses_create_params: { input: "hi" } });
    expect(result.status).toBe(200);
    expect(model.requests).toHaveLength(1);
    expect(result.body.response.output).toEqual([]);
  });
});

describe("simple_agent sessions and rollout identity", () => {
  it("isolates concurrent rollouts with one cookie jar each", async () => {
    const model = await engine();
    const run = await agent(await environment(sessionState), model);
    const rows = exampleRows("example_session_state_mgmt");
    const jobs = [];
    for (let repeat = 0; repeat < 4; repeat++) {
      for (const [task, row] of rows.entries()) jobs.push(run.request("/run", { ...row, _ng_task_index: task, _ng_rollout_index: repeat }));
    }
    const results = await Promise.all(jobs);
    expect(results.map((r) => r.body.reward)).toEqual(Array(20).fill(1.0));
  });

  it("tags every model call with x-gymkit-rollout when the row carries its indices", async () => {
    const model = await engine();
    const run = await agent(await environment(sessionState), model);
    await run.request("/run", { ...exampleRows("example_session_state_mgmt")[1], _ng_task_index: 7, _ng_rollout_index: 2 });
    expect(model.requests.length).toBeGreaterThan(1);
    for (const r of model.requests) expect(r.headers["x-gymkit-rollout"]).toBe("7:2");
    const untagged = model.requests.length;
    await run.request("/run", exampleRows("example_session_state_mgmt")[1]);
    for (const r of model.requests.slice(untagged)) expect(r.headers["x-gymkit-rollout"]).toBeUndefined();
  });

  it("serves the episode alone on /v1/responses, handing back the environment's cookies", async () => {
    const model = await engine();
    const env = await environment(sessionState);
    const run = await agent(env, model);
    const row = exampleRows("example_session_state_mgmt")[2]!; // +7, +8 (not seeded here: from 0 → 15)
    const jar = new CookieJar();
    const episode = await run.request("/v1/responses", row.responses_create_params, jar);
    expect(episode.status).toBe(200);
    expect(episode.body.object).toBe("response");
    // Both the agent's own session cookie and the environment's came back.
    expect(Object.keys(jar.toJSON()).sort()).toEqual(["gymkit___example_session_state_mgmt", "gymkit___example_session_state_mgmt_simple_agent"]);
    const verified = await env.request("/verify", { ...row, expected_count: 15, response: episode.body }, jar);
    expect(verified.body.reward).toBe(1.0);
  });

  it("forwards /aggregate_metrics to the environment", async () => {
    const run = await agent(await environment(multireward), await engine());
    const result = await run.request("/aggregate_metrics", { verify_responses: [{ reward: 2 }, { reward: 3 }] });
    expect(result.status).toBe(200);
    expect(result.body.agent_metrics["mean/reward"]).toBe(2.5);
    expect((await run.request("/aggregate_metrics", { nope: 1 })).status).toBe(422);
  });

  it("returns row + response + the configured reward when verification is skipped", async () => {
    const run = await agent(await environment(multireward), await engine(), { skip_verification: true, skip_verification_reward: 0.25 });
    const row = exampleRows("example_tool_call_multireward")[0]!;
    const result = await run.request("/run", row);
    expect(result.body).toMatchObject({ expected_call: row.expected_call, reward: 0.25, verification_skipped: true });
    expect(result.body.reward_components).toBeUndefined();
    expect(result.body.response.object).toBe("response");
  });
});

describe("simple_agent failures", () => {
  it("422s a row with an unknown responses_create_params key, naming it", async () => {
    const model = await engine();
    const run = await agent(await environment(singleToolCall), model);
    const result = await run.request("/run", { responses_create_params: { input: "hi", max_tokens: 5 } });
    expect(result.status).toBe(422);
    expect(JSON.stringify(result.body)).toContain("max_tokens");
    expect(model.requests).toHaveLength(0);
  });

  it("aborts when seed_session fails, naming the environment, the route and the status", async () => {
    const model = await engine();
    const run = await agent(await environment(sessionState), model);
    const { initial_count: _dropped, ...row } = exampleRows("example_session_state_mgmt")[0]!;
    const result = await run.request("/run", row);
    expect(result.status).toBe(502);
    expect(result.body.failure_class).toBe("env_error");
    expect(result.body.detail).toMatch(/environment "example_session_state_mgmt" \/seed_session answered 422/);
    expect(result.body.detail).toContain("initial_count");
    expect(model.requests).toHaveLength(0);
  });

  it("reports a verify failure as an environment error", async () => {
    const model = await engine({ policy: () => ({ toolCalls: [{ name: "extract_synonym_values", arguments: "{broken" }], finish: "length" }) });
    const run = await agent(await environment(multiStep), model);
    const result = await run.request("/run", exampleRows("example_multi_step")[0]);
    expect(result.status).toBe(502);
    expect(result.body.failure_class).toBe("env_error");
    expect(result.body.detail).toMatch(/\/verify answered 500/);
  });

  it("reports a model server error as a model error, distinct from environment errors", async () => {
    const model = await engine({ respond: () => ({ status: 500, body: { error: { message: "engine on fire" } } }) });
    const run = await agent(await environment(singleToolCall), model);
    const result = await run.request("/run", exampleRows("example_single_tool_call")[0]);
    expect(result.status).toBe(502);
    expect(result.body.failure_class).toBe("model_error");
    expect(result.body.detail).toMatch(/^model server "policy_model" answered 500: .*engine on fire/);
  });

  it("reports a model reply that is not a Responses object as a model error", async () => {
    const model = await engine({ respond: () => ({ status: 200, body: { choices: [] } }) });
    const run = await agent(await environment(singleToolCall), model);
    const result = await run.request("/run", exampleRows("example_single_tool_call")[0]);
    expect(result.status).toBe(502);
    expect(result.body).toMatchObject({ failure_class: "model_error" });
    expect(result.body.detail).toContain("not a Responses object");
  });

  it("reports an unreachable environment as an environment error", async () => {
    const env = await startInstance(singleToolCall);
    await env.close();
    const run = await agent(env, await engine());
    const result = await run.request("/run", exampleRows("example_single_tool_call")[0]);
    expect(result.status).toBe(502);
    expect(result.body.failure_class).toBe("env_error");
    expect(result.body.detail).toMatch(/^environment "example_single_tool_call": could not reach/);
  });

  it("times out a model call after request_timeout_s, as a model error", async () => {
    const model = await silentEngine();
    const run = await agent(await environment(singleToolCall), model, { request_timeout_s: 0.2 });
    const result = await run.request("/run", exampleRows("example_single_tool_call")[0]);
    expect(result.status).toBe(504);
    expect(result.body).toMatchObject({ failure_class: "model_error" });
    expect(result.body.detail).toMatch(/did not answer within/);
  });

  it("abandons the model call when the caller of /run hangs up", async () => {
    const model = await silentEngine();
    const run = await agent(await environment(singleToolCall), model);
    const hangUp = new AbortController();
    const caller = fetch(`${run.url}/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(exampleRows("example_single_tool_call")[0]),
      signal: hangUp.signal,
    });
    // Hang up only once the model call is under way (a fixed delay raced the agent on a loaded machine).
    await model.reached;
    hangUp.abort();
    await expect(caller).rejects.toThrow();
    // Without the hang-up reaching the engine, this never resolves and the test's deadline fails it.
    expect(await model.abandoned).toBe(true);
  });

  it("rejects a config with a wrong ref type or an unknown key", () => {
    const base = { resources_server: { type: "resources_servers", name: "e" }, model_server: { type: "responses_api_models", name: "m" } };
    expect(simpleAgent.configSchema.safeParse(base).success).toBe(true);
    expect(simpleAgent.configSchema.safeParse({ ...base, max_step: 3 }).success).toBe(false);
    expect(simpleAgent.configSchema.safeParse({ ...base, model_server: { type: "resources_servers", name: "m" } }).success).toBe(false);
  });
});
