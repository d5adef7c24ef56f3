// The NeMo Gym dumps (nemo_gym_models.ts) against the rule they implement, written out the plain way:
// every declared field in declaration order (the value's own when it has the field, else the default,
// a list default fresh each time), then the value's other fields in its order. The module builds the
// same object a cheaper way; this compares the two, as JSON text, on NeMo Gym's recorded rollouts and
// on hand-made shapes with fields missing, extra, reordered and set to undefined.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { asNemoGymCreateParams, asNemoGymResponse } from "./nemo_gym_models.js";

const FIXTURES = join(import.meta.dirname, "..", "..", "test", "fixtures");

type Json = Record<string, unknown>;

/** The rule, looked up field by field. */
function plainDefaults(value: Json, defaults: Json): Json {
  const out: Json = {};
  for (const key of Object.keys(defaults)) {
    const fallback = defaults[key];
    out[key] = key in value ? value[key] : Array.isArray(fallback) ? [...fallback] : fallback;
  }
  for (const key of Object.keys(value)) if (!(key in defaults)) out[key] = value[key];
  return out;
}

/** NeMo Gym's create-params fields in their order (nemo_gym/openai_utils.py at 07d6b0d), for the field-by-field rule. */
const CREATE_PARAMS_DECLARED: Json = Object.fromEntries(
  ["background", "include", "input", "instructions", "max_output_tokens", "max_tool_calls", "metadata", "model", "parallel_tool_calls", "previous_response_id", "prompt", "reasoning", "service_tier", "store", "temperature", "text", "tool_choice", "tools", "top_logprobs", "top_p", "truncation", "user", "stream"].map((key) => [key, null]),
);

function rows(file: string): Json[] {
  return readFileSync(join(FIXTURES, file), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Json);
}

const recorded = [
  "nemo_gym_golden/example_multi_step_rollouts.jsonl",
  "nemo_gym_golden/example_single_tool_call_rollouts.jsonl",
  "nemo_gym_golden/example_session_state_mgmt_rollouts.jsonl",
  "nemo-gym-examples/example_tool_call_multireward/example_rollouts.jsonl",
].flatMap(rows);

describe("NeMo Gym dumps", () => {
  it("a recorded rollout's request and response, dumped, have every declared field in order, and dump again unchanged", () => {
    expect(recorded.length).toBeGreaterThan(10);
    for (const row of recorded) {
      const params = asNemoGymCreateParams(row.responses_create_params) as Json;
      const response = asNemoGymResponse(row.response) as Json;
      expect(JSON.stringify(params)).toBe(JSON.stringify(plainDefaults(params, CREATE_PARAMS_DECLARED)));
      expect(Object.keys(response).slice(0, 3)).toEqual(["id", "created_at", "error"]);
      expect(JSON.stringify(asNemoGymCreateParams(params))).toBe(JSON.stringify(params));
      expect(JSON.stringify(asNemoGymResponse(response))).toBe(JSON.stringify(response));
    }
  });

  it("fills what is missing, keeps extras after the declared fields, and keeps a field set to undefined in its place", () => {
    const params = { temperature: 0.5, zeta: 1, input: [{ role: "user", content: "hi" }, { type: "function_call_output", call_id: "c", output: "x", extra: true }], alpha: undefined, model: "m" };
    const dumped = asNemoGymCreateParams(params) as Json;
    const keys = Object.keys(dumped);
    expect(keys.slice(-2)).toEqual(["zeta", "alpha"]);
    expect(keys.indexOf("input")).toBeLessThan(keys.indexOf("model"));
    expect(dumped.tools).toEqual([]);
    expect(dumped.parallel_tool_calls).toBe(true);
    expect((dumped.input as Json[])[0]).toEqual({ content: "hi", role: "user", type: "message" });
    expect(Object.keys((dumped.input as Json[])[1]!)).toEqual(["call_id", "output", "type", "id", "status", "extra"]);
    const undefinedKept = asNemoGymCreateParams({ model: undefined }) as Json;
    expect(Object.hasOwn(undefinedKept, "model") && undefinedKept.model === undefined).toBe(true);
  });

  it("never shares a list default between two dumps", () => {
    const a = asNemoGymCreateParams({ input: "a" }) as Json;
    const b = asNemoGymCreateParams({ input: "b" }) as Json;
    expect(a.tools).toEqual([]);
    expect(a.tools).not.toBe(b.tools);
    const part = { type: "output_text", text: "t" };
    const first = asNemoGymResponse({ output: [{ type: "message", role: "assistant", id: "m", content: [part] }] }) as { output: Array<{ content: Json[] }> };
    const second = asNemoGymResponse({ output: [{ type: "message", role: "assistant", id: "m", content: [part] }] }) as { output: Array<{ content: Json[] }> };
    expect(first.output[0]!.content[0]!.annotations).toEqual([]);
    expect(first.output[0]!.content[0]!.annotations).not.toBe(second.output[0]!.content[0]!.annotations);
  });

  it("gives, for every item shape, the object the field-by-field rule gives", () => {
    const items: Json[] = [
      { type: "message", role: "assistant", id: "msg_1", content: [{ type: "output_text", text: "a", logprobs: [], extra: 1 }, { type: "refusal", refusal: "no" }, "raw"], status: "in_progress" },
      { role: "user", content: "hello", extra: 2 },
      { role: "system", type: "message", content: [{ type: "input_text", text: "s" }] },
      { type: "function_call", name: "f", arguments: "{}", call_id: "c1", id: "fc_1" },
      { call_id: "c1", type: "function_call_output", output: "out" },
      { type: "reasoning", id: "rs", summary: [{ type: "summary_text", text: "r" }], encrypted_content: "e" },
      { type: "message", role: "assistant", id: "m2", content: [], prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.5], extra: "x" },
      { type: "function_call", name: "g", arguments: "{}", call_id: "c2", generation_token_ids: [4], prompt_token_ids: [5] },
      { type: "unknown_kind", a: 1 },
    ];
    // The rule applied by hand for two of the shapes the module builds differently (list defaults, training fields).
    const part = { type: "output_text", text: "a", logprobs: [], extra: 1 };
    const dumped = asNemoGymResponse({ id: "r", output: items, tools: [{ type: "function", name: "t", parameters: {} }, { type: "web_search" }], usage: null, extra_top: 1 }) as { output: Json[]; tools: Json[] } & Json;
    expect(JSON.stringify(dumped.output[0]!.content)).toBe(JSON.stringify([plainDefaults(part, { annotations: [], text: null, type: "output_text", logprobs: null }), { refusal: "no", type: "refusal" }, "raw"]));
    const training = { prompt_token_ids: null, generation_token_ids: null, generation_log_probs: null, routed_experts: null };
    const call = plainDefaults(items[7]!, { arguments: null, call_id: null, name: null, type: "function_call", id: null, status: null });
    expect(JSON.stringify(dumped.output[7])).toBe(JSON.stringify(plainDefaults(call, { ...training, ...call })));
    expect(JSON.stringify(dumped.tools[0])).toBe(JSON.stringify(plainDefaults(dumped.tools[0]!, { name: null, parameters: null, strict: null, type: "function", description: null })));
    expect(Object.keys(dumped).at(-1)).toBe("extra_top");
    expect(dumped.output[8]).toBe(items[8]);
  });
});
