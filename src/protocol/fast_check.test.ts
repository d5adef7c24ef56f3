// The quick checks (fast_check.ts) never accept what the schemas reject; the quick parses (fast_parse.ts)
// give exactly what the schemas' parse gives: the same values and key order, byte for byte once
// serialized, on valid bodies, every one-place mutation of them and the same bodies with keys moved.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { surelyCreateParams, surelyDataRow, surelyResponseObject } from "./fast_check.js";
import { createParamsAsParsed, responseObjectAsParsed, verifyRequestParser } from "./fast_parse.js";
import { ResponseObject, ResponsesCreateParams } from "./responses.js";
import { DataRow, VerifyRequest } from "./rows.js";

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

const ODD_VALUES: unknown[] = [undefined, null, 0, -1, 1.5, 2 ** 60, "x", "", true, [], [1], {}, { type: 1 }, { type: "x" }, { type: "function", name: "f" }];

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

/** More output kinds than the checks above need: a reasoning item without a summary, an unknown type. */
const richResponse = {
  ...response,
  output: [...response.output, { type: "reasoning", id: "r2", content: [{ text: "t", type: "reasoning_text" }] }, { id: "x1", type: "web_search_call", status: "completed" }],
  parallel_tool_calls: true,
};
const richParams = { ...params, input: [...params.input, { type: "reasoning", id: "r2", content: [{ text: "t", type: "reasoning_text" }] }, { text: "x", type: "message", role: "user", content: [{ text: "y", type: "input_text" }] }], metadata: { b: "1", a: "2" } };

/** `value` with every object's keys in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)]));
}

/** `value` with each key of its top level and of its objects one level down moved to the front and to the back. */
function* moved(value: unknown, depth = 0): Generator<unknown> {
  if (depth > 1 || value === null || typeof value !== "object" || Array.isArray(value)) return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const { [key]: _, ...without } = record;
    yield { [key]: record[key], ...without };
    yield { ...without, [key]: record[key] };
    for (const inner of moved(record[key], depth + 1)) yield { ...record, [key]: inner };
  }
}

/** Checks the quick parse against the schema on every variant; returns how many it was sure of. */
function parsesAs(schema: z.ZodType, quick: (v: unknown) => unknown, valid: unknown): number {
  let sure = 0;
  const variants = [valid, reversed(valid), ...mutations(valid), ...moved(valid)];
  for (const variant of variants) {
    // A JSON body: what a server parses (no undefined anywhere).
    const body = JSON.parse(JSON.stringify(variant ?? null)) as unknown;
    const before = JSON.stringify(body);
    const fast = quick(body);
    expect(JSON.stringify(body), "the quick parse must not change the body").toBe(before);
    if (fast === undefined) continue;
    sure++;
    const slow = schema.safeParse(body);
    expect(slow.success, before).toBe(true);
    expect(JSON.stringify(fast), before).toBe(JSON.stringify(slow.data));
    expect(fast).toEqual(slow.data);
  }
  return sure;
}

describe("the quick parses equal the schemas' parse, key order included", () => {
  it("Responses create params", () => {
    expect(parsesAs(ResponsesCreateParams, createParamsAsParsed, richParams)).toBeGreaterThan(300);
    expect(parsesAs(ResponsesCreateParams, createParamsAsParsed, rowOf("example_multi_step").responses_create_params)).toBeGreaterThan(100);
  });

  it("returns a body already in the schema's order as it is, and copies one that is not", () => {
    const inOrder = ResponsesCreateParams.parse(richParams);
    expect(createParamsAsParsed(inOrder)).toBe(inOrder);
    const other = reversed(inOrder) as Record<string, unknown>;
    const parsed = createParamsAsParsed(other)!;
    expect(parsed).not.toBe(other);
    expect(Object.keys(parsed)).toEqual(Object.keys(inOrder));
  });

  it("Responses objects", () => {
    expect(parsesAs(ResponseObject, responseObjectAsParsed, richResponse)).toBeGreaterThan(200);
  });

  it("/verify requests, with and without an environment's own row fields", () => {
    // Small members (each is covered above): the mutations here are of the request's own level.
    const request = { responses_create_params: rowOf("example_single_tool_call").responses_create_params, response: { ...richResponse, output: richResponse.output.slice(1, 3) }, agent_ref: { name: "a", type: "responses_api_agents" }, expected: "cold", _ng_task_index: 0 };
    expect(parsesAs(VerifyRequest, verifyRequestParser(), request)).toBeGreaterThan(200);
    const rowFields = { expected: z.string().transform((s) => s.toUpperCase()), weight: z.number().default(1) };
    expect(parsesAs(VerifyRequest.extend(rowFields), verifyRequestParser(rowFields), request)).toBeGreaterThan(200);
    // A row field that replaces one of the request's own is left to the schema.
    expect(verifyRequestParser({ response: z.unknown() })(request)).toBeUndefined();
  });
});
