// No Responses field is silently dropped: the official `openai` SDK (`client.responses.create`)
// against a real vllm_model server on 127.0.0.1 in front of the fake engine (the only double), one
// case per field the SDK can send — what the engine received, or the 400 naming the field — plus
// the `text.format` round trip and a `previous_response_id` continuation; the same fields through
// openai_model reach its Responses engine untouched. The table of request_fields.ts is checked to
// cover the SDK's whole `ResponseCreateParamsBase` and to be the one in docs/models.md.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { listen } from "../src/http/server.js";
import openaiModel from "../src/models/openai_model.js";
import { REQUEST_FIELDS, refuseUnhonoured, requestFieldsMarkdown, type RequestFieldsKind } from "../src/models/request_fields.js";
import { ResponseStore, responseStoreLimits } from "../src/models/response_store.js";
import vllmModel from "../src/models/vllm_model.js";
import { ResponsesCreateParams } from "../src/protocol/index.js";
import type { FakeEngine } from "./doubles/fake_engine.js";
import { engineOf, onTeardown } from "./helpers/scope.js";

const weatherTool = {
  type: "function" as const,
  name: "get_weather",
  description: "Weather of a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  strict: true,
};
const citySchema = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };

/** The fake engine: JSON when asked for structured output, and per-token logprobs when asked for them. */
async function structuredEngine(): Promise<FakeEngine> {
  return engineOf({
    policy: (turns, _tools, request) => (request.response_format ? { text: JSON.stringify({ city: "Paris" }) } : { text: `You said: ${turns.at(-1)?.content}` }),
    respond: (path, body) => {
      if (path !== "/v1/chat/completions" || body.logprobs !== true) return undefined;
      const top = Number(body.top_logprobs ?? 0);
      const token = (text: string, logprob: number) => ({
        token: text,
        logprob,
        bytes: [...Buffer.from(text)],
        top_logprobs: [{ token: text, logprob, bytes: [...Buffer.from(text)] }, { token: "x", logprob: -5, bytes: [120] }].slice(0, top),
      });
      return {
        status: 200,
        body: {
          id: "chatcmpl-lp",
          object: "chat.completion",
          created: 1,
          model: "policy",
          choices: [{ index: 0, message: { role: "assistant", content: "Hi there" }, finish_reason: "stop", logprobs: { content: [token("Hi", -0.1), token(" there", -0.2)] } }],
          usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        },
      };
    },
  });
}

async function vllmServer(engine: FakeEngine, fields: Record<string, unknown> = {}): Promise<OpenAI> {
  const config = vllmModel.configSchema.parse({ base_url: engine.baseUrl, model: "policy", retry_backoff_s: 0.01, max_retries: 0, ...fields });
  const app = await vllmModel.build({ name: "policy_model", config, urlOf: () => "" });
  const url = await listen(app);
  onTeardown(() => app.close());
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: "anything", maxRetries: 0 });
}

const lastChat = (engine: FakeEngine) => engine.requests.filter((r) => r.path === "/v1/chat/completions").at(-1)!.body as Record<string, any>;

/** The 400 a refused field gets, as the SDK reports it. */
async function refusal(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return error as InstanceType<typeof OpenAI.APIError>;
}

interface Case {
  field: string;
  /** Extra request fields (besides input "Hello"). */
  request: Record<string, unknown>;
  /** Accepted: what the engine's Chat Completions body must contain (`absent`: keys it must not carry). */
  sent?: Record<string, unknown>;
  absent?: string[];
  /** Refused: a 400 naming the field, the message containing this. */
  refused?: string;
}

/** One case (or more) per field of the SDK's ResponseCreateParamsBase, plus seed. */
const MATRIX: Case[] = [
  { field: "background", request: { background: false }, absent: ["background"] },
  { field: "background", request: { background: true }, refused: "no background mode" },
  { field: "context_management", request: { context_management: [{ type: "compaction", compact_threshold: 1000 }] }, refused: "compaction" },
  { field: "conversation", request: { conversation: "conv_123" }, refused: "no conversation store" },
  { field: "include", request: { include: ["message.output_text.logprobs"] }, sent: { logprobs: true, top_logprobs: 0 } },
  { field: "include", request: { include: ["reasoning.encrypted_content"] }, absent: ["logprobs", "include"] },
  { field: "include", request: { include: ["everything.please"] }, refused: "is not one of" },
  { field: "input", request: {}, sent: { messages: [{ role: "user", content: "Hello" }] } },
  { field: "instructions", request: { instructions: "Be brief." }, sent: { messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }] } },
  { field: "max_output_tokens", request: { max_output_tokens: 32 }, sent: { max_tokens: 32 }, absent: ["max_output_tokens"] },
  { field: "max_tool_calls", request: { max_tool_calls: 3 }, absent: ["max_tool_calls"] },
  { field: "metadata", request: { metadata: { tag: "t-1" } }, sent: { metadata: { tag: "t-1" } } },
  {
    field: "metadata",
    request: { metadata: { chat_template_kwargs: '{"enable_thinking": false}', extra_body: '{"top_k": 5}' } },
    sent: { chat_template_kwargs: { enable_thinking: false, keep: 1 }, top_k: 5 },
  },
  { field: "metadata", request: { metadata: { chat_template_kwargs: "not json" } }, refused: "must be a JSON object" },
  { field: "metadata", request: { metadata: { audio_path: "a.wav" } }, refused: "metadata.audio_path" },
  { field: "model", request: { model: "whatever-the-caller-says" }, sent: { model: "policy" } },
  { field: "moderation", request: { moderation: { model: "omni-moderation-latest" } }, refused: "no moderation" },
  { field: "parallel_tool_calls", request: { tools: [weatherTool], parallel_tool_calls: false }, sent: { parallel_tool_calls: false } },
  { field: "previous_response_id", request: { previous_response_id: "resp_never_made" }, refused: '"resp_never_made"' },
  { field: "prompt", request: { prompt: { id: "pmpt_123" } }, refused: "no stored prompt templates" },
  { field: "prompt_cache_key", request: { prompt_cache_key: "k-1" }, absent: ["prompt_cache_key"] },
  { field: "prompt_cache_options", request: { prompt_cache_options: { ttl: "1h" } }, absent: ["prompt_cache_options"] },
  { field: "prompt_cache_retention", request: { prompt_cache_retention: "24h" }, absent: ["prompt_cache_retention"] },
  { field: "reasoning", request: { reasoning: { effort: "low", summary: "auto" } }, sent: { reasoning_effort: "low" }, absent: ["reasoning"] },
  { field: "safety_identifier", request: { safety_identifier: "hashed-user" }, absent: ["safety_identifier"] },
  { field: "seed", request: { seed: 7 }, sent: { seed: 7 } },
  { field: "service_tier", request: { service_tier: "flex" }, sent: { service_tier: "flex" } },
  { field: "store", request: { store: false }, sent: { store: false } },
  { field: "stream", request: { stream: true }, refused: "streaming is not supported" },
  { field: "stream_options", request: { stream_options: { include_obfuscation: false } }, refused: "only used with streaming" },
  { field: "temperature", request: { temperature: 0.3 }, sent: { temperature: 0.3 } },
  { field: "text", request: { text: { format: { type: "json_object" } } }, sent: { response_format: { type: "json_object" } }, absent: ["text"] },
  {
    field: "text",
    request: { text: { format: { type: "json_schema", name: "city", schema: citySchema, strict: true } } },
    sent: { response_format: { type: "json_schema", json_schema: { name: "city", schema: citySchema, strict: true } } },
  },
  { field: "text", request: { text: { format: { type: "text" } } }, absent: ["response_format", "text"] },
  { field: "text", request: { text: { verbosity: "low" } }, refused: "text.verbosity" },
  { field: "tool_choice", request: { tools: [weatherTool], tool_choice: "required" }, sent: { tool_choice: "required" } },
  { field: "tools", request: { tools: [weatherTool] }, sent: { tools: [{ type: "function", function: { name: "get_weather", description: "Weather of a city", parameters: weatherTool.parameters, strict: true } }] } },
  { field: "top_logprobs", request: { top_logprobs: 2 }, sent: { logprobs: true, top_logprobs: 2 } },
  { field: "top_p", request: { top_p: 0.5 }, sent: { top_p: 0.5 } },
  { field: "truncation", request: { truncation: "disabled" }, absent: ["truncation"] },
  { field: "truncation", request: { truncation: "auto" }, refused: 'truncation "auto"' },
  { field: "user", request: { user: "user-1" }, sent: { user: "user-1" } },
];

/** Field names of the SDK's `ResponseCreateParamsBase`, read from its type declarations. */
function sdkFields(): string[] {
  const sdkRoot = dirname(createRequire(import.meta.url).resolve("openai"));
  const source = readFileSync(join(sdkRoot, "resources", "responses", "responses.d.ts"), "utf8");
  const body = /export interface ResponseCreateParamsBase \{([\s\S]*?)\n\}/.exec(source)![1]!;
  return [...body.matchAll(/^ {4}([a-z_]+)\??:/gm)].map((m) => m[1]!);
}

describe("every Responses field the openai SDK can send", () => {
  it("is in request_fields.ts and in the request schema, and docs/models.md shows the table", () => {
    const fields = sdkFields();
    expect(fields.length).toBeGreaterThan(25);
    const table = Object.keys(REQUEST_FIELDS);
    const schema = Object.keys(ResponsesCreateParams.shape);
    expect(fields.filter((f) => !table.includes(f))).toEqual([]);
    expect(schema.filter((f) => !table.includes(f))).toEqual([]);
    expect(table.filter((f) => !schema.includes(f))).toEqual([]);
    // Every SDK field has a case in the matrix below.
    expect(fields.filter((f) => !MATRIX.some((c) => c.field === f))).toEqual([]);
    const docs = readFileSync(join(import.meta.dirname, "..", "docs", "models.md"), "utf8");
    expect(docs).toContain(requestFieldsMarkdown());
  });

  it("vllm_model: each field reaches the engine as its Chat Completions counterpart, or is a 400 naming it", async () => {
    const engine = await structuredEngine();
    const client = await vllmServer(engine, { chat_template_kwargs: { keep: 1 } });
    const failures: string[] = [];
    for (const c of MATRIX) {
      const before = engine.requests.length;
      const call = client.responses.create({ model: "m", input: "Hello", ...c.request } as never);
      if (c.refused) {
        const error = await refusal(call);
        if (error.status !== 400 || error.param !== c.field || !error.message.includes(c.refused) || !error.message.includes(`"${c.field}"`)) {
          failures.push(`${c.field} ${JSON.stringify(c.request)}: expected a 400 naming it, got ${error.status} param=${error.param} ${error.message}`);
        }
        if (engine.requests.length !== before) failures.push(`${c.field}: a refused request reached the engine`);
        continue;
      }
      const response = await call;
      if (engine.requests.length !== before + 1) {
        failures.push(`${c.field}: the engine saw ${engine.requests.length - before} requests`);
        continue;
      }
      const sent = lastChat(engine);
      try {
        expect(sent).toMatchObject(c.sent ?? {});
        for (const key of c.absent ?? []) expect(sent, key).not.toHaveProperty(key);
      } catch (error) {
        failures.push(`${c.field} ${JSON.stringify(c.request)}: ${(error as Error).message.split("\n")[0]} — sent ${JSON.stringify(sent)}`);
      }
      expect((response as { status?: string }).status).toBe("completed");
    }
    expect(failures).toEqual([]);
  });

  it("vllm_model: top_logprobs come back as output_text logprobs, and the response echoes the fields", async () => {
    const engine = await structuredEngine();
    const client = await vllmServer(engine);
    const response = await client.responses.create({ model: "m", input: "Hello", top_logprobs: 2, max_tool_calls: 3, truncation: "disabled", user: "u-1" } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(response.output_text).toBe("Hi there");
    const part = (response.output[0] as { content: Array<Record<string, any>> }).content[0]!;
    expect(part.logprobs).toEqual([
      { token: "Hi", logprob: -0.1, bytes: [72, 105], top_logprobs: [{ token: "Hi", logprob: -0.1, bytes: [72, 105] }, { token: "x", logprob: -5, bytes: [120] }] },
      { token: " there", logprob: -0.2, bytes: [...Buffer.from(" there")], top_logprobs: [{ token: " there", logprob: -0.2, bytes: [...Buffer.from(" there")] }, { token: "x", logprob: -5, bytes: [120] }] },
    ]);
    expect(response).toMatchObject({ top_logprobs: 2, max_tool_calls: 3, truncation: "disabled", user: "u-1" });
    // Without asking, no logprobs are requested or returned.
    const plain = await client.responses.create({ model: "m", input: "Hello" });
    expect(lastChat(engine)).not.toHaveProperty("logprobs");
    expect((plain.output[0] as { content: Array<Record<string, any>> }).content[0]).not.toHaveProperty("logprobs");
  });

  it("vllm_model: text.format json_schema round trip through the SDK's parse helper", async () => {
    const engine = await structuredEngine();
    const client = await vllmServer(engine);
    const format = { type: "json_schema" as const, name: "city", schema: citySchema, strict: true };
    const response = await client.responses.parse({ model: "m", input: "Which city is the capital of France?", text: { format } });
    expect(response.output_parsed).toEqual({ city: "Paris" });
    expect(response.text?.format).toMatchObject({ type: "json_schema", name: "city" });
    expect(lastChat(engine).response_format).toEqual({ type: "json_schema", json_schema: { name: "city", schema: citySchema, strict: true } });
  });

  it("vllm_model: previous_response_id continues a response this server made; store:false ones are not kept", async () => {
    const engine = await structuredEngine();
    const client = await vllmServer(engine);
    const first = await client.responses.create({ model: "m", instructions: "Only for the first call.", input: "My name is Ada." });
    const second = await client.responses.create({ model: "m", previous_response_id: first.id, input: [{ role: "user", content: "What is my name?" }] });
    expect(second.previous_response_id).toBe(first.id);
    // As OpenAI: the earlier input and output, then the new input; earlier instructions are not carried over.
    expect(lastChat(engine).messages).toEqual([
      { role: "user", content: "My name is Ada." },
      { role: "assistant", content: "You said: My name is Ada." },
      { role: "user", content: "What is my name?" },
    ]);
    const third = await client.responses.create({ model: "m", previous_response_id: second.id, input: "And again?", store: false });
    expect(lastChat(engine).messages).toHaveLength(5);
    const error = await refusal(client.responses.create({ model: "m", previous_response_id: third.id, input: "Still there?" }));
    expect(error.status).toBe(400);
    expect(error.param).toBe("previous_response_id");
    expect(error.message).toContain(third.id);
  });
});

describe("openai_model passes every field to its Responses engine", () => {
  it("forwards the fields the engine resolves itself (previous_response_id, text, include, …) untouched", async () => {
    const engine = await engineOf();
    const config = openaiModel.configSchema.parse({ openai_base_url: engine.baseUrl, openai_model: "gpt-test", retry_backoff_s: 0.01 });
    const app = await openaiModel.build({ name: "policy_model", config, urlOf: () => "" });
    const url = await listen(app);
    onTeardown(() => app.close());
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "anything", maxRetries: 0 });
    const fields: Record<string, unknown> = {};
    for (const c of MATRIX) {
      if (c.field === "stream" || c.field === "stream_options" || c.field === "input" || c.field === "model") continue;
      if (fields[c.field] === undefined) Object.assign(fields, c.request);
    }
    await client.responses.create({ model: "m", input: "Hello", ...fields } as never);
    const sent = engine.requests.at(-1)!.body;
    expect(sent).toEqual({ ...fields, model: "gpt-test", input: "Hello" });
    const streamed = await refusal(client.responses.create({ model: "m", input: "Hello", stream_options: { include_obfuscation: false } } as never));
    expect(streamed.param).toBe("stream_options");
  });
});

describe("the columns without an engine in this file (token prompts, local_model, replay)", () => {
  const attempt = (kind: RequestFieldsKind, extra: Record<string, unknown>) => {
    try {
      refuseUnhonoured(ResponsesCreateParams.parse({ input: "Hello", ...extra }), kind, kind);
      return "accepted";
    } catch (error) {
      const body = (error as { body?: { error?: { param?: string } } }).body;
      return `400 ${body?.error?.param}`;
    }
  };

  it("refuses what a raw-completion server cannot honour, and accepts what it can", () => {
    const tools = [weatherTool];
    for (const kind of ["vllm_model_tokens", "local_model"] as const) {
      // Structured output: a llama.cpp grammar (test/local_model.test.ts), vLLM's response_format on
      // /v1/completions (test/models_tokens.test.ts).
      expect(attempt(kind, { text: { format: { type: "json_schema", name: "city", schema: citySchema } } })).toBe("accepted");
      expect(attempt(kind, { text: { verbosity: "high" } })).toBe("400 text");
      expect(attempt(kind, { text: { format: { type: "text" } } })).toBe("accepted");
      expect(attempt(kind, { top_logprobs: 1 })).toBe("400 top_logprobs");
      expect(attempt(kind, { include: ["message.output_text.logprobs"] })).toBe("400 include");
      expect(attempt(kind, { reasoning: { effort: "high" } })).toBe("400 reasoning");
      expect(attempt(kind, { reasoning: { summary: "auto" } })).toBe("accepted");
      expect(attempt(kind, { tools, parallel_tool_calls: false })).toBe("400 parallel_tool_calls");
      // Without tools, parallel_tool_calls means nothing (NeMo Gym drops it), so datasets that set it still run.
      expect(attempt(kind, { parallel_tool_calls: false })).toBe("accepted");
      expect(attempt(kind, { metadata: { chat_template_kwargs: "{}" } })).toBe("400 metadata");
      expect(attempt(kind, { metadata: { tag: "x" }, user: "u", store: false, prompt_cache_key: "k" })).toBe("accepted");
    }
    // Replay keys on the request: the recorded engine's handling is replayed; only streaming is refused.
    expect(attempt("replay_model", { text: { format: { type: "json_object" } }, top_logprobs: 3, truncation: "auto" })).toBe("accepted");
    expect(attempt("replay_model", { stream: true })).toBe("400 stream");
  });
});

describe("the previous_response_id store's bounds", () => {
  const response = (id: string, text: string) => ({ id, object: "response", created_at: 0, model: "m", output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text }] }] }) as never;

  it("drops the oldest responses past its byte budget, and is off at GYM_RESPONSE_STORE_MB=0", () => {
    const store = new ResponseStore({ entries: 10, bytes: 1000 });
    for (let i = 0; i < 5; i++) store.keep({ input: "q" }, response(`resp_${i}`, "a"), 200);
    // Each entry is 200 bytes of request plus its output (~85 bytes): only the last three fit in 1000.
    expect(store.size).toBe(3);
    expect(() => store.expand({ input: "again", previous_response_id: "resp_1" }, "vllm_model")).toThrow(/no response "resp_1" is stored here/);
    expect(store.expand({ input: "again", previous_response_id: "resp_4" }, "vllm_model").input).toHaveLength(3);

    const off = new ResponseStore(responseStoreLimits({ GYM_RESPONSE_STORE_MB: "0" }));
    off.keep({ input: "q" }, response("resp_x", "a"), 10);
    expect(off.size).toBe(0);
    expect(() => off.expand({ input: "q", previous_response_id: "resp_x" }, "vllm_model")).toThrow(/store is off \(GYM_RESPONSE_STORE_MB=0\)/);
    expect(() => responseStoreLimits({ GYM_RESPONSE_STORE_MB: "lots" })).toThrow(/GYM_RESPONSE_STORE_MB must be a number/);
  });
});
