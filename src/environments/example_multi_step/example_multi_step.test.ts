// example_multi_step on a real server on 127.0.0.1: every stored example rollout, played back as its agent played
// it (seed, the model's tool calls, verify), scores the reward it was recorded with; and the
// environment's cases from NeMo Gym's examples spec (nemo-gym-examples/README.md §1–4).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMessage, functionCall, readJsonlFile, replayExampleRollouts, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import environment from "./index.js";

const jsonl = (path: string) => readJsonlFile(new URL(path, import.meta.url));

describe("example_multi_step", () => {
  let env: RunningInstance;
  const row = jsonl("./data/example.jsonl")[0]!;
  const verify = (output: Array<Record<string, unknown>>) => env.request("/verify", { ...row, response: responseWith(output) });
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
    // The row fields are read, not echoed: NeMo Gym's verify response model does not declare them.
    expect(Object.keys(result.body)).toEqual(["responses_create_params", "response", "reward", "parsed_synonym_values", "accuracy", "set_overlap", "original_term_minefield_hit", "order_instruction_following_failure"]);
    expect(result.text).toContain('"reward":1.0,"parsed_synonym_values":[711,407],"accuracy":true,"set_overlap":1.0');
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
    for (const rollout of jsonl("./data/example_rollouts.jsonl")) {
      const { reward, parsed_synonym_values, accuracy, set_overlap, original_term_minefield_hit, order_instruction_following_failure, ...request } = rollout;
      const result = await env.request("/verify", { ...request, ...fields });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ reward, parsed_synonym_values, accuracy, set_overlap, original_term_minefield_hit, order_instruction_following_failure });
    }
  });
});
