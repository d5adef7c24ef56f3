// The four example environments over HTTP, against the cases of the NeMo Gym examples spec
// (nemo-gym-examples/README.md §1–4), including the derived ones.
import { existsSync, readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CookieJar } from "../src/http/cookies.js";
import simpleAgent from "../src/agents/simple_agent.js";
import { METADATA_KEYS } from "../src/http/implementation.js";
import { environmentConfigPath, loadImplementation, PACKAGE_ROOT } from "../src/orchestrate/registry.js";
import multiStep from "../src/environments/example_multi_step/index.js";
import sessionState from "../src/environments/example_session_state_mgmt/index.js";
import singleToolCall from "../src/environments/example_single_tool_call/index.js";
import multireward from "../src/environments/example_tool_call_multireward/index.js";
import { assistantMessage, functionCall, responseWith, startInstance, type RunningInstance } from "../src/environment_kit/testing.js";

function exampleRows(id: string): Array<Record<string, any>> {
  const text = readFileSync(new URL(`../src/environments/${id}/data/example.jsonl`, import.meta.url), "utf8");
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

function exampleRollouts(id: string): Array<Record<string, any>> {
  const text = readFileSync(new URL(`../src/environments/${id}/data/example_rollouts.jsonl`, import.meta.url), "utf8");
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

const IDS = ["example_single_tool_call", "example_multi_step", "example_session_state_mgmt", "example_tool_call_multireward"];

describe("registry and configs", () => {
  it("finds every example environment by id", async () => {
    for (const id of IDS) {
      const implementation = await loadImplementation("resources_servers", id);
      expect(implementation.id).toBe(id);
      expect(implementation.type).toBe("resources_servers");
    }
  });

  it("each config defines the environment and its simple agent, as NeMo Gym's do", () => {
    const withoutMetadata = (fields: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(fields).filter(([key]) => !(METADATA_KEYS as readonly string[]).includes(key)));
    for (const id of IDS) {
      const config = parseYaml(readFileSync(environmentConfigPath(id), "utf8"));
      expect(Object.keys(config)).toEqual([id, `${id}_simple_agent`]);
      expect(Object.keys(config[id].resources_servers)).toEqual([id]);
      const agentFields = config[`${id}_simple_agent`].responses_api_agents.simple_agent;
      const parsed = simpleAgent.configSchema.parse(withoutMetadata(agentFields));
      expect(parsed.resources_server).toEqual({ type: "resources_servers", name: id });
      expect(parsed.model_server).toEqual({ type: "responses_api_models", name: "policy_model" });
      expect(existsSync(`${PACKAGE_ROOT}/${agentFields.datasets[0].jsonl_fpath}`)).toBe(true);
      expect(exampleRows(id)).toHaveLength(5);
    }
  });
});

describe("example_single_tool_call", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(singleToolCall);
  });
  afterAll(() => env.close());

  it("get_weather says it is cold and ignores extra keys", async () => {
    expect((await env.request("/get_weather", { city: "Paris", unit: "C" })).body).toEqual({
      city: "Paris",
      weather_description: "The weather in Paris is cold.",
    });
    expect((await env.request("/get_weather", {})).status).toBe(422);
  });

  it("seed_session is a no-op returning {}", async () => {
    expect((await env.request("/seed_session", exampleRows("example_single_tool_call")[0])).body).toEqual({});
  });

  it("any response, even an empty one, scores 1.0 with no extra fields", async () => {
    const row = exampleRows("example_single_tool_call")[0]!;
    const result = await env.request("/verify", { ...row, response: responseWith([]) });
    expect(result.status).toBe(200);
    expect(Object.keys(result.body)).toEqual(["responses_create_params", "response", "reward"]);
    expect(result.body.reward).toBe(1.0);
  });

  it("re-verifies NeMo Gym's recorded rollouts to the same reward", async () => {
    for (const rollout of exampleRollouts("example_single_tool_call")) {
      const { reward, ...request } = rollout;
      const result = await env.request("/verify", request);
      expect(result.status).toBe(200);
      expect(result.body.reward).toBe(reward);
    }
  });
});

describe("example_multi_step", () => {
  let env: RunningInstance;
  const row = exampleRows("example_multi_step")[0]!;
  const verify = (output: Array<Record<string, unknown>>) => env.request("/verify", { ...row, response: responseWith(output) });
  beforeAll(async () => {
    env = await startInstance(multiStep);
  });
  afterAll(() => env.close());

  it("get_synonym_value sums code points exactly as given", async () => {
    expect((await env.request("/get_synonym_value", { synonym: "Blazing" })).body).toEqual({ synonym_value: 711 });
    expect((await env.request("/get_synonym_value", { synonym: "Warm" })).body).toEqual({ synonym_value: 407 });
    expect((await env.request("/get_synonym_value", { synonym: "Hot" })).body).toEqual({ synonym_value: 299 });
    expect((await env.request("/get_synonym_value", { synonym: "hot" })).body).toEqual({ synonym_value: 331 });
    expect((await env.request("/get_synonym_value", { synonym: "Draw back" })).body.synonym_value).toBe(
      [..."Draw back"].reduce((s, c) => s + c.codePointAt(0)!, 0),
    );
  });

  it("extract_synonym_values does nothing but succeed", async () => {
    expect((await env.request("/extract_synonym_values", { synonym_values: [1, 2] })).body).toEqual({ success: true });
    expect((await env.request("/extract_synonym_values", {})).status).toBe(422);
  });

  it("the right values in order → 1.0", async () => {
    const result = await verify([functionCall("extract_synonym_values", { synonym_values: [711, 407] })]);
    expect(result.body).toMatchObject({
      reward: 1.0,
      parsed_synonym_values: [711, 407],
      accuracy: true,
      set_overlap: 1.0,
      original_term_minefield_hit: false,
      order_instruction_following_failure: false,
    });
    // All five declared fields are echoed.
    expect(result.body).toMatchObject({ id: 0, expected_synonyms: ["Blazing", "Warm"], minefield_label: "Hot", minefield_label_value: 299 });
  });

  it("the wrong order → 0.0, overlap 1.0, order failure", async () => {
    const result = await verify([functionCall("extract_synonym_values", { synonym_values: [407, 711] })]);
    expect(result.body).toMatchObject({ reward: 0.0, accuracy: false, set_overlap: 1.0, order_instruction_following_failure: true, original_term_minefield_hit: false });
  });

  it("including the minefield value → 0.0, overlap 1.0, minefield hit, order failure", async () => {
    const result = await verify([functionCall("extract_synonym_values", { synonym_values: [711, 407, 299] })]);
    expect(result.body).toMatchObject({ reward: 0.0, set_overlap: 1.0, original_term_minefield_hit: true, order_instruction_following_failure: true });
  });

  it("the last extract call wins", async () => {
    const result = await verify([
      functionCall("extract_synonym_values", { synonym_values: [1] }, "c1"),
      { type: "function_call_output", call_id: "c1", output: '{"success":true}' },
      functionCall("extract_synonym_values", { synonym_values: [711, 407] }, "c2"),
      assistantMessage("done"),
    ]);
    expect(result.body.reward).toBe(1.0);
  });

  it("no extract call → [] and 0.0; partial overlap is a fraction", async () => {
    const none = await verify([functionCall("get_synonym_value", { synonym: "Blazing" }), assistantMessage("711")]);
    expect(none.body).toMatchObject({ reward: 0.0, parsed_synonym_values: [], set_overlap: 0, order_instruction_following_failure: false });
    const half = await verify([functionCall("extract_synonym_values", { synonym_values: [711] })]);
    expect(half.body.set_overlap).toBe(0.5);
  });

  it("malformed extract arguments are a 500 (as in NeMo Gym), missing fields a 422", async () => {
    expect((await verify([functionCall("extract_synonym_values", "{oops")])).status).toBe(500);
    expect((await verify([functionCall("extract_synonym_values", { values: [1] })])).status).toBe(500);
    const { expected_synonym_values: _dropped, ...incomplete } = row;
    const missing = await env.request("/verify", { ...incomplete, response: responseWith([]) });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(["body", "expected_synonym_values"]);
  });

  it("re-verifies NeMo Gym's recorded rollouts to the same rewards and extras", async () => {
    // The recording predates NeMo Gym echoing the row fields; every example row expects the same values.
    const { responses_create_params: _rcp, ...fields } = row;
    for (const rollout of exampleRollouts("example_multi_step")) {
      const { reward, parsed_synonym_values, accuracy, set_overlap, original_term_minefield_hit, order_instruction_following_failure, ...request } = rollout;
      const result = await env.request("/verify", { ...request, ...fields });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ reward, parsed_synonym_values, accuracy, set_overlap, original_term_minefield_hit, order_instruction_following_failure });
    }
  });
});

describe("example_session_state_mgmt", () => {
  let env: RunningInstance;
  const rows = exampleRows("example_session_state_mgmt");
  beforeAll(async () => {
    env = await startInstance(sessionState);
  });
  afterAll(() => env.close());

  it("example row 1: seed 3, +1, +2, get → 6, verify expected 6 → 1.0", async () => {
    const jar = new CookieJar();
    const row = rows[0]!;
    expect((await env.request("/seed_session", row, jar)).body).toEqual({});
    expect((await env.request("/increment_counter", { count: 1 }, jar)).body).toEqual({ success: true });
    expect((await env.request("/increment_counter", { count: 2 }, jar)).body).toEqual({ success: true });
    expect((await env.request("/get_counter_value", {}, jar)).body).toEqual({ count: 6 });
    const verified = await env.request("/verify", { ...row, response: responseWith([]) }, jar);
    expect(verified.body).toMatchObject({ expected_count: 6, initial_count: 3, reward: 1.0 });
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

describe("example_tool_call_multireward", () => {
  let env: RunningInstance;
  const row = exampleRows("example_tool_call_multireward")[0]!; // expects get_weather(San Francisco)
  const verify = (output: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) =>
    env.request("/verify", { ...row, ...extra, response: responseWith(output) });
  beforeAll(async () => {
    env = await startInstance(multireward);
  });
  afterAll(() => env.close());

  it("get_weather says it is sunny", async () => {
    expect((await env.request("/get_weather", { city: "Tokyo" })).body).toEqual({ city: "Tokyo", weather_description: "The weather in Tokyo is sunny." });
  });

  it("one correct call → 1/1/1 = 3.0, with components and predicted calls", async () => {
    const result = await verify([functionCall("get_weather", { city: "San Francisco" })]);
    expect(result.body).toMatchObject({
      reward: 3.0,
      reward_components: { correctness: 1.0, schema_valid: 1.0, format: 1.0 },
      correctness: 1.0,
      schema_valid: 1.0,
      format: 1.0,
      predicted_calls: [{ name: "get_weather", arguments: { city: "San Francisco" } }],
      expected_call: { name: "get_weather", arguments: { city: "San Francisco" } },
    });
    expect(Object.keys(result.body.reward_components)).toEqual(["correctness", "schema_valid", "format"]);
  });

  it("the wrong city → 0/1/1 = 2.0", async () => {
    const result = await verify([functionCall("get_weather", { city: "New York" })]);
    expect(result.body.reward_components).toEqual({ correctness: 0, schema_valid: 1, format: 1 });
    expect(result.body.reward).toBe(2.0);
  });

  it("empty arguments → correctness 0, schema 0, format 1", async () => {
    const result = await verify([functionCall("get_weather", {})]);
    expect(result.body.reward_components).toEqual({ correctness: 0, schema_valid: 0, format: 1 });
  });

  it("unparsable arguments → schema 0, format 1, predicted arguments {}", async () => {
    const result = await verify([functionCall("get_weather", "{not valid json")]);
    expect(result.body.reward_components).toEqual({ correctness: 0, schema_valid: 0, format: 1 });
    expect(result.body.predicted_calls).toEqual([{ name: "get_weather", arguments: {} }]);
  });

  it("a correct call plus assistant text → 1/1/0", async () => {
    const result = await verify([functionCall("get_weather", { city: "San Francisco" }), assistantMessage("Here you go!")]);
    expect(result.body.reward_components).toEqual({ correctness: 1, schema_valid: 1, format: 0 });
  });

  it("two identical correct calls → format 0", async () => {
    const call = functionCall("get_weather", { city: "San Francisco" });
    const result = await verify([call, { ...call, call_id: "c2" }]);
    expect(result.body.reward_components).toEqual({ correctness: 1, schema_valid: 1, format: 0 });
  });

  it("reasoning and tool outputs do not count against format; an object `arguments` is used as is", async () => {
    const result = await verify([
      { type: "reasoning", summary: [] },
      { type: "function_call", name: "get_weather", arguments: { city: "San Francisco", unit: "F" }, call_id: "c1" },
      { type: "function_call_output", call_id: "c1", output: "{}" },
    ]);
    expect(result.body.reward_components).toEqual({ correctness: 1, schema_valid: 1, format: 1 });
  });

  it("any later call can be the correct one; schema looks only at the first", async () => {
    const result = await verify([functionCall("get_weather", "[1]", "c1"), functionCall("get_weather", { city: "San Francisco" }, "c2")]);
    expect(result.body.reward_components).toEqual({ correctness: 1, schema_valid: 0, format: 0 });
  });

  it("an unknown tool name only needs valid arguments for schema; no calls → all 0", async () => {
    const unknown = await verify([functionCall("get_time", { zone: "UTC" })]);
    expect(unknown.body.reward_components).toEqual({ correctness: 0, schema_valid: 1, format: 1 });
    const none = await verify([assistantMessage("sunny")]);
    expect(none.body).toMatchObject({ reward: 0, reward_components: { correctness: 0, schema_valid: 0, format: 0 }, predicted_calls: [] });
  });

  it("a row without expected_call defaults it to {} and scores correctness 0", async () => {
    const { expected_call: _dropped, ...withoutExpected } = row;
    const result = await env.request("/verify", { ...withoutExpected, response: responseWith([functionCall("get_weather", { city: "San Francisco" })]) });
    expect(result.body).toMatchObject({ expected_call: {}, reward_components: { correctness: 0, schema_valid: 1, format: 1 } });
  });

  it("re-verifies NeMo Gym's recorded rollouts (a message was produced → format 0 → 2.0)", async () => {
    const rows = exampleRows("example_tool_call_multireward");
    for (const rollout of exampleRollouts("example_tool_call_multireward")) {
      const { reward, reward_components, predicted_calls, correctness: _c, schema_valid: _s, format: _f, ...request } = rollout;
      // NeMo Gym did not echo `expected_call` into the recording; take it from the task's row.
      const result = await env.request("/verify", { ...request, expected_call: rows[request._ng_task_index]!.expected_call });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ reward, reward_components, predicted_calls });
      // Unknown fields (here the collector's bookkeeping) are echoed.
      expect(result.body._ng_task_index).toBe(rollout._ng_task_index);
    }
  });
});
