// openai_model served by the real builder on 127.0.0.1 against the fake engine, and the official
// `openai` npm client talking to Gymkit model servers.
import OpenAI from "openai";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { call, closeDispatcher, NO_RETRY } from "../src/http/client.js";
import { listen } from "../src/http/server.js";
import openaiModel from "../src/models/openai_model.js";
import vllmModel from "../src/models/vllm_model.js";
import type { ServerImplementation } from "../src/http/implementation.js";
import { startFakeEngine, type FakeEngine, type FakeEngineOptions } from "./doubles/fake_engine.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
afterAll(closeDispatcher);

async function engineOf(options: FakeEngineOptions = {}): Promise<FakeEngine> {
  const engine = await startFakeEngine(options);
  cleanups.push(() => engine.close());
  return engine;
}

async function serve(implementation: ServerImplementation<any>, fields: Record<string, unknown>): Promise<string> {
  const app = await implementation.build({ name: "policy_model", config: implementation.configSchema.parse(fields), urlOf: () => "" });
  const url = await listen(app);
  cleanups.push(() => app.close());
  return url;
}

const openaiFields = (engine: FakeEngine) => ({ openai_base_url: engine.baseUrl, openai_api_key: "sk-test", openai_model: "gpt-test", retry_backoff_s: 0.01 });

async function respond(url: string, body: unknown) {
  const result = await call(`${url}/v1/responses`, { method: "POST", body, retry: NO_RETRY });
  return { status: result.status, json: JSON.parse(result.text) };
}

describe("openai_model", () => {
  it("passes the request through with the configured model and key, and returns the engine's response", async () => {
    const engine = await engineOf();
    const url = await serve(openaiModel, openaiFields(engine));
    const { status, json } = await respond(url, { model: "other", input: "hi", temperature: 0.2, metadata: { a: "b" } });
    expect(status).toBe(200);
    expect(json.model).toBe("gpt-test");
    expect(json.output[0].content[0].text).toBe("You said: hi");
    const sent = engine.requests[0]!;
    expect(sent.path).toBe("/v1/responses");
    expect(sent.body).toEqual({ model: "gpt-test", input: "hi", temperature: 0.2, metadata: { a: "b" } });
    expect(sent.headers.authorization).toBe("Bearer sk-test");
  });

  it("extra_body fills in what the request does not set, the request's fields win, on /v1/responses and /v1/chat/completions (NeMo Gym 07d6b0d)", async () => {
    const engine = await engineOf();
    const url = await serve(openaiModel, { ...openaiFields(engine), extra_body: { temperature: 0.1, top_p: 0.5, reasoning: { effort: "low" } } });
    expect((await respond(url, { input: "hi", temperature: 0.6, reasoning: { summary: "auto" } })).status).toBe(200);
    // Shallow, as upstream's dict union: the request's reasoning object replaces extra_body's whole.
    expect(engine.requests[0]!.body).toEqual({ temperature: 0.6, top_p: 0.5, reasoning: { summary: "auto" }, input: "hi", model: "gpt-test" });
    const passed = await call(`${url}/v1/chat/completions`, { method: "POST", body: { model: "x", messages: [{ role: "user", content: "yo" }], temperature: 0.7 }, retry: NO_RETRY });
    expect(passed.status).toBe(200);
    expect(engine.requests[1]).toMatchObject({ path: "/v1/chat/completions", body: { model: "gpt-test", temperature: 0.7, top_p: 0.5, reasoning: { effort: "low" } } });
  });

  it("drops token fields from input items before the engine sees them", async () => {
    const engine = await engineOf();
    const url = await serve(openaiModel, openaiFields(engine));
    await respond(url, {
      input: [
        { role: "user", content: "q" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "a" }], prompt_token_ids: [1], generation_token_ids: [2], generation_log_probs: [-1] },
        { role: "user", content: "q2" },
      ],
    });
    expect((engine.requests[0]!.body.input as any[])[1]).toEqual({ type: "message", role: "assistant", content: [{ type: "output_text", text: "a" }] });
  });

  it("answers a context-length 400 with an empty incomplete response and other errors with a 502", async () => {
    const engine = await engineOf({
      respond: (_path, body) =>
        body.input === "long"
          ? { status: 400, body: { error: { message: "Your input exceeds the context window of this model.", code: "context_length_exceeded" } } }
          : { status: 401, body: { error: { message: "Incorrect API key provided" } } },
    });
    const url = await serve(openaiModel, openaiFields(engine));
    const long = await respond(url, { input: "long" });
    expect(long.json).toMatchObject({ status: "incomplete", output: [], incomplete_details: { reason: "max_output_tokens" } });
    const bad = await respond(url, { input: "short" });
    expect(bad.status).toBe(502);
    expect(bad.json.detail).toContain(`${engine.baseUrl}/responses answered 401: Incorrect API key provided`);
  });

  it("rejects an engine reply that is not a Responses object", async () => {
    const engine = await engineOf({ respond: () => ({ status: 200, body: { hello: "world" } }) });
    const url = await serve(openaiModel, openaiFields(engine));
    const { status, json } = await respond(url, { input: "q" });
    expect(status).toBe(502);
    expect(json.detail).toMatch(/not a Responses object/);
  });
});

describe("the official openai client against Gymkit model servers", () => {
  it.each([
    ["openai_model", openaiModel, openaiFields],
    ["vllm_model", vllmModel, (engine: FakeEngine) => ({ base_url: engine.baseUrl, api_key: "k", model: "policy" })],
  ] as const)("%s: client.responses.create returns a valid Response", async (_id, implementation, fields) => {
    const engine = await engineOf();
    const url = await serve(implementation, fields(engine));
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "anything", maxRetries: 0 });

    const response = await client.responses.create({ model: "whatever", input: "Hello there", instructions: "Be nice." });
    expect(response.object).toBe("response");
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("You said: Hello there");

    const withTools = await client.responses.create({
      model: "whatever",
      input: "What is the weather in Tokyo?",
      tools: [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }],
    });
    const call = withTools.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", name: "get_weather", arguments: '{"city":"Tokyo"}' });

    const models = await client.models.list();
    expect(models.data.length).toBe(1);
  });

  it("client.chat.completions.create goes through the passthrough", async () => {
    const engine = await engineOf();
    const url = await serve(vllmModel, { base_url: engine.baseUrl, model: "policy" });
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "anything", maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: "x", messages: [{ role: "user", content: "ping" }] });
    expect(completion.choices[0]!.message.content).toBe("You said: ping");
  });

  it("a 422 surfaces in the client as an error naming the unknown key", async () => {
    const engine = await engineOf();
    const url = await serve(openaiModel, openaiFields(engine));
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "anything", maxRetries: 0 });
    await expect(client.responses.create({ model: "m", input: "x", max_tokens: 3 } as any)).rejects.toThrow(/max_tokens/);
  });
});
