// example_tool_call_multireward on a real server on 127.0.0.1: every stored example rollout, played back as its agent played
// it (seed, the model's tool calls, verify), scores the reward it was recorded with; and the
// environment's cases from NeMo Gym's examples spec (nemo-gym-examples/README.md §1–4).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMessage, functionCall, readJsonlFile, replayExampleRollouts, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import environment from "./index.js";

const jsonl = (path: string) => readJsonlFile(new URL(path, import.meta.url));

describe("example_tool_call_multireward", () => {
  let env: RunningInstance;
  const row = jsonl("./data/example.jsonl")[0]!; // expects get_weather(San Francisco)
  const verify = (output: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) =>
    env.request("/verify", { ...row, ...extra, response: responseWith(output) });
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
    });
    // NeMo Gym's multi-reward verify response does not declare the row's expected_call: it is read, not echoed.
    expect(result.body).not.toHaveProperty("expected_call");
    // Written as NeMo Gym's float fields are: 1.0, not 1.
    expect(result.text).toContain('"reward":3.0,"reward_components":{"correctness":1.0,"schema_valid":1.0,"format":1.0},"correctness":1.0,"schema_valid":1.0,"format":1.0');
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
    expect(result.body).toMatchObject({ reward_components: { correctness: 0, schema_valid: 1, format: 1 } });
  });

  it("re-verifies NeMo Gym's recorded rollouts (a message was produced → format 0 → 2.0)", async () => {
    const rows = jsonl("./data/example.jsonl");
    for (const rollout of jsonl("./data/example_rollouts.jsonl")) {
      const { reward, reward_components, predicted_calls, correctness: _c, schema_valid: _s, format: _f, ...request } = rollout;
      // NeMo Gym did not echo `expected_call` into the recording; take it from the task's row.
      const result = await env.request("/verify", { ...request, expected_call: rows[request._ng_task_index]!.expected_call });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ reward, reward_components, predicted_calls });
      // Undeclared fields (here the collector's bookkeeping) are dropped, as NeMo Gym's model drops them.
      expect(result.body).not.toHaveProperty("_ng_task_index");
    }
  });
});
