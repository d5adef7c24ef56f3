import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { surelyCreateParams, surelyDataRow, surelyResponseObject } from "./fast_check.js";
import { ResponseObject, ResponsesCreateParams } from "./responses.js";
import { DataRow } from "./rows.js";

const examples = join(import.meta.dirname, "..", "..", "test", "fixtures", "nemo-gym-examples");
const rowOf = (env: string) => JSON.parse(readFileSync(join(examples, env, "example.jsonl"), "utf8").split("\n")[0]!) as Record<string, unknown>;

const response = {
  id: "resp_1",
  object: "response",
  created_at: 1700000000,
  model: "m",
  status: "completed",
  incomplete_details: null,
  error: null,
  usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  output: [
    { type: "reasoning", id: "r1", summary: [{ type: "summary_text", text: "hm" }], generation_token_ids: [1, 2] },
    { type: "function_call", id: "fc1", call_id: "call_1", name: "get_weather", arguments: '{"city":"sf"}', status: "completed" },
    { type: "message", id: "m1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "cold", annotations: [] }] },
  ],
  tools: [],
};

const params = {
  ...(rowOf("example_single_tool_call").responses_create_params as object),
  input: [
    { role: "system", content: "be brief" },
    { type: "message", role: "user", content: [{ type: "input_text", text: "weather?" }] },
    ...response.output,
    { type: "function_call_output", call_id: "call_1", output: "cold" },
  ],
  temperature: 0.5,
  max_output_tokens: 100,
  metadata: { a: "b" },
  seed: 3,
};

const ODD_VALUES: unknown[] = [undefined, null, 0, -1, 1.5, 2 ** 60, "x", "", true, [], [1], {}, { type: 1 }, { type: "x" }];

/** Every variant of `value` with one place changed: each key and element replaced by each odd value, removed, or joined by an unknown key. */
function* mutations(value: unknown, depth = 0): Generator<unknown> {
  if (depth > 6 || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      for (const odd of ODD_VALUES) yield value.map((v, j) => (j === i ? odd : v));
      for (const inner of mutations(value[i], depth + 1)) yield value.map((v, j) => (j === i ? inner : v));
    }
    return;
  }
  const record = value as Record<string, unknown>;
  yield { ...record, not_a_field: 1 };
  for (const key of Object.keys(record)) {
    const { [key]: _, ...without } = record;
    yield without;
    for (const odd of ODD_VALUES) yield { ...record, [key]: odd };
    for (const inner of mutations(record[key], depth + 1)) yield { ...record, [key]: inner };
  }
}

function agreesWith(schema: z.ZodType, surely: (v: unknown) => boolean, valid: unknown): number {
  expect(schema.safeParse(valid).success).toBe(true);
  expect(surely(valid)).toBe(true);
  let checked = 0;
  for (const variant of mutations(valid)) {
    // The quick check may pass a variant to the schema; it must never accept one the schema rejects.
    if (surely(variant)) expect(schema.safeParse(variant).success, JSON.stringify(variant)).toBe(true);
    checked++;
  }
  return checked;
}

describe("the quick acceptance checks never accept what the schema rejects", () => {
  it("Responses create params", () => {
    expect(agreesWith(ResponsesCreateParams, surelyCreateParams, params)).toBeGreaterThan(500);
    expect(surelyCreateParams({ ...params, max_tokens: 5 })).toBe(false);
    expect(surelyCreateParams({ ...params, max_output_tokens: 0 })).toBe(false);
  });

  it("data rows of the example environments", () => {
    for (const env of ["example_single_tool_call", "example_multi_step", "example_session_state_mgmt"]) {
      expect(agreesWith(DataRow, surelyDataRow, { ...rowOf(env), agent_ref: { type: "responses_api_agents", name: "a" } })).toBeGreaterThan(100);
    }
    expect(surelyDataRow({ responses_create_params: params, agent_ref: { type: "resources_servers", name: "a" } })).toBe(false);
  });

  it("Responses objects", () => {
    expect(agreesWith(ResponseObject, surelyResponseObject, response)).toBeGreaterThan(500);
    expect(surelyResponseObject({ ...response, status: "done" })).toBe(false);
  });
});
