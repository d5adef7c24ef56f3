// vllm_model served by the real builder on 127.0.0.1 against the fake engine (the only double):
// Responses ⇄ Chat Completions both ways, context-length handling, engine errors, retries, tokens.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { call, closeDispatcher, NO_RETRY } from "../src/http/client.js";
import { listen } from "../src/http/server.js";
import vllmModel from "../src/models/vllm_model.js";
import { ROLLOUT_HEADER } from "../src/protocol/index.js";
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

async function serve(fields: Record<string, unknown>): Promise<string> {
  const config = vllmModel.configSchema.parse({ api_key: "secret", model: "policy", retry_backoff_s: 0.01, ...fields });
  const app = await vllmModel.build({ name: "policy_model", config, urlOf: () => "" });
  const url = await listen(app);
  cleanups.push(() => app.close());
  return url;
}

async function respond(url: string, body: unknown, headers: Record<string, string> = {}) {
  const result = await call(`${url}/v1/responses`, { method: "POST", body, headers, retry: NO_RETRY });
  return { status: result.status, json: JSON.parse(result.text) };
}

const chatRequests = (engine: FakeEngine) => engine.requests.filter((r) => r.path === "/v1/chat/completions").map((r) => r.body as Record<string, any>);

const weatherTool = {
  type: "function",
  name: "get_weather",
  description: "Weather of a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: true,
};

describe("vllm_model: Responses → Chat Completions", () => {
  it("maps instructions, developer role, params, tools and tool_choice", async () => {
    const engine = await engineOf();
    const url = await serve({ base_url: engine.baseUrl, chat_template_kwargs: { enable_thinking: false }, extra_body: { top_k: 20 } });
    const { status } = await respond(url, {
      model: "ignored-by-server",
      instructions: "Be brief.",
      input: [
        { role: "developer", content: "Use tools." },
        { type: "message", role: "user", content: [{ type: "input_text", text: "Weather" }, { type: "input_text", text: "in SF?" }] },
      ],
      tools: [weatherTool],
      tool_choice: { type: "function", name: "get_weather" },
      parallel_tool_calls: false,
      temperature: 0.6,
      top_p: 0.9,
      max_output_tokens: 64,
      seed: 7,
    });
    expect(status).toBe(200);
    const [sent] = chatRequests(engine);
    expect(sent).toEqual({
      model: "policy",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "system", content: "Use tools." },
        { role: "user", content: "Weather\nin SF?" },
      ],
      tools: [{ type: "function", function: { name: "get_weather", description: "Weather of a city", parameters: weatherTool.parameters, strict: true } }],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      parallel_tool_calls: false,
      temperature: 0.6,
      top_p: 0.9,
      max_tokens: 64,
      seed: 7,
      chat_template_kwargs: { enable_thinking: false },
      top_k: 20,
    });
    expect(engine.requests[0]!.headers.authorization).toBe("Bearer secret");
  });

  it("extra_body fills in what the request does not set; the request's fields win, metadata.extra_body beats the config's (NeMo Gym 07d6b0d)", async () => {
    const engine = await engineOf();
    const url = await serve({ base_url: engine.baseUrl, extra_body: { top_k: 20, temperature: 0.1, seed: 1, chat_template_kwargs: { enable_thinking: true } }, chat_template_kwargs: { enable_thinking: false } });
    expect((await respond(url, { input: "hi", temperature: 0.6 })).status).toBe(200);
    // The configured chat_template_kwargs are part of the body, so extra_body's do not replace them.
    expect(chatRequests(engine)[0]).toMatchObject({ top_k: 20, temperature: 0.6, seed: 1, chat_template_kwargs: { enable_thinking: false } });
    expect((await respond(url, { input: "hi", temperature: 0.6, seed: 9, metadata: { extra_body: '{"top_k": 5, "temperature": 0.9, "min_p": 0.05}' } })).status).toBe(200);
    expect(chatRequests(engine)[1]).toMatchObject({ top_k: 5, temperature: 0.6, seed: 9, min_p: 0.05 });

    // /v1/chat/completions passed through: the same rule on the caller's body.
    const passed = await call(`${url}/v1/chat/completions`, {
      method: "POST",
      body: { model: "x", messages: [{ role: "user", content: "yo" }], temperature: 0.7, metadata: { extra_body: '{"min_p": 0.2, "temperature": 0.3}' } },
      retry: NO_RETRY,
    });
    expect(passed.status).toBe(200);
    expect(chatRequests(engine)[2]).toMatchObject({ model: "policy", top_k: 20, temperature: 0.7, seed: 1, min_p: 0.2 });
  });

  it("sampling_overrides still win over both the request and extra_body", async () => {
    const engine = await engineOf();
    const url = await serve({ base_url: engine.baseUrl, extra_body: { temperature: 0.1, top_k: 20 }, sampling_overrides: { temperature: 1.0, top_k: -1 } });
    expect((await respond(url, { input: "hi", temperature: 0.6 })).status).toBe(200);
    expect(chatRequests(engine)[0]).toMatchObject({ temperature: 1.0, top_k: -1 });
  });

  it("keeps the developer role when replace_developer_role_with_system is false", async () => {
    const engine = await engineOf();
    const url = await serve({ base_url: engine.baseUrl, replace_developer_role_with_system: false });
    await respond(url, { input: [{ role: "developer", content: "d" }, { role: "user", content: "u" }] });
    expect(chatRequests(engine)[0]!.messages[0]).toEqual({ role: "developer", content: "d" });
  });

  it("merges a model turn (reasoning, text, tool calls) into one assistant message and outputs into tool messages", async () => {
    const engine = await engineOf();
    const url = await serve({ base_url: engine.baseUrl });
    await respond(url, {
      input: [
        { role: "user", content: "Weather in SF and NYC?" },
        { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "Two cities." }] },
        { id: "msg_1", type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
        { id: "fc_1", type: "function_call", call_id: "call_a", name: "get_weather", arguments: '{"city":"SF"}' },
        { id: "fc_2", type: "function_call", call_id: "call_b", name: "get_weather", arguments: '{"city":"NYC"}' },
        { type: "function_call_output", call_id: "call_a", output: '{"t":20}' },
        { type: "function_call_output", call_id: "call_b", output: [{ type: "input_text", text: '{"t":25}' }] },
      ],
      tools: [weatherTool],
    });
    expect(chatRequests(engine)[0]!.messages).toEqual([
      { role: "user", content: "Weather in SF and NYC?" },
      {
        role: "assistant",
        content: "<think>Two cities.</think>Checking.",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"SF"}' } },
          { id: "call_b", type: "function", function: { name: "get_weather", arguments: '{"city":"NYC"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: '{"t":20}' },
      { role: "tool", tool_call_id: "call_b", content: '{"t":25}' },
    ]);
  });

  it("rejects a non-function tool with a clear 400", async () => {
    const engine = await engineOf();
    const url = await serve({ base_url: engine.baseUrl });
    const { status, json } = await respond(url, { input: "x", tools: [{ type: "web_search" }] });
    expect(status).toBe(400);
    expect(json.detail).toMatch(/tools\[0\] of type "web_search"/);
    expect(engine.requests).toHaveLength(0);
  });
});

describe("vllm_model: Chat Completions → Responses", () => {
  it("turns tool calls into function_call items with the engine's call ids, and reasoning_content into a reasoning item", async () => {
    const engine = await engineOf({ policy: () => ({ reasoning: "Need weather.", toolCalls: [{ name: "get_weather", arguments: { city: "SF" } }] }) });
    const url = await serve({ base_url: engine.baseUrl });
    const { status, json } = await respond(url, { input: "Weather?", tools: [weatherTool] });
    expect(status).toBe(200);
    expect(json.status).toBe("completed");
    expect(json.incomplete_details).toBeNull();
    expect(json.output.map((i: any) => i.type)).toEqual(["reasoning", "function_call"]);
    expect(json.output[0].summary).toEqual([{ type: "summary_text", text: "Need weather." }]);
    const fc = json.output[1];
    expect(fc).toMatchObject({ type: "function_call", name: "get_weather", arguments: '{"city":"SF"}', status: "completed" });
    expect(fc.call_id).toMatch(/^chatcmpl-tool_/);
    expect(fc.id).toMatch(/^fc_/);
    expect(json.id).toMatch(/^resp_/);
    expect(json.tools).toEqual([weatherTool]);
  });

  it("parses <think> out of the content when uses_reasoning_parser is false, and round-trips it", async () => {
    const engine = await engineOf({ policy: () => ({ text: "<think>Easy.</think>\n\nParis." }) });
    const url = await serve({ base_url: engine.baseUrl, uses_reasoning_parser: false });
    const { json } = await respond(url, { input: "Capital of France?" });
    expect(json.output.map((i: any) => i.type)).toEqual(["reasoning", "message"]);
    expect(json.output[0].summary[0].text).toBe("Easy.");
    expect(json.output[1].content[0].text).toBe("\n\nParis.");
    await respond(url, { input: [{ role: "user", content: "Capital of France?" }, ...json.output, { role: "user", content: "Sure?" }] });
    expect(chatRequests(engine)[1]!.messages[1]).toEqual({ role: "assistant", content: "<think>Easy.</think>\n\nParis." });
  });

  it("leaves <think> in the text when the engine parses reasoning itself", async () => {
    const engine = await engineOf({ policy: () => ({ text: "<think>x</think>y" }) });
    const url = await serve({ base_url: engine.baseUrl });
    const { json } = await respond(url, { input: "q" });
    expect(json.output).toHaveLength(1);
    expect(json.output[0].content[0].text).toBe("<think>x</think>y");
  });

  it("maps finish_reason length to an incomplete response", async () => {
    const engine = await engineOf({ policy: () => ({ text: "A long", finish: "length" }) });
    const url = await serve({ base_url: engine.baseUrl });
    const { json } = await respond(url, { input: "q", max_output_tokens: 2 });
    expect(json.status).toBe("incomplete");
    expect(json.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(json.output[0]).toMatchObject({ type: "message", status: "incomplete" });
  });

  it("maps usage", async () => {
    const engine = await engineOf({
      respond: (path) =>
        path === "/v1/chat/completions"
          ? {
              status: 200,
              body: {
                id: "c",
                object: "chat.completion",
                created: 1700000000,
                model: "policy",
                choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
                usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, prompt_tokens_details: { cached_tokens: 3 }, completion_tokens_details: { reasoning_tokens: 2 } },
              },
            }
          : undefined,
    });
    const url = await serve({ base_url: engine.baseUrl });
    const { json } = await respond(url, { input: "q" });
    expect(json.usage).toEqual({ input_tokens: 11, output_tokens: 7, total_tokens: 18, input_tokens_details: { cached_tokens: 3 }, output_tokens_details: { reasoning_tokens: 2 } });
    expect(json.created_at).toBe(1700000000);
  });
});

describe("vllm_model: engine errors", () => {
  const contextLength = (message: string) => () => ({ status: 400, body: { object: "error", message, type: "BadRequestError", code: 400 } });

  it.each([
    "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens. Please reduce the length of the messages or completion.",
    "The decoder prompt (length 9000) is longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than the number of text tokens.",
  ])("answers a context-length 400 with an empty incomplete response: %s", async (message) => {
    const engine = await engineOf({ respond: contextLength(message) });
    const url = await serve({ base_url: engine.baseUrl });
    const { status, json } = await respond(url, { input: "very long" });
    expect(status).toBe(200);
    expect(json).toMatchObject({ object: "response", output: [], status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    expect(json.usage.total_tokens).toBe(0);
  });

  it("turns any other engine error into a 502 naming the engine URL, status and message", async () => {
    const engine = await engineOf({ respond: () => ({ status: 400, body: { object: "error", message: "tool_choice is bad" } }) });
    const url = await serve({ base_url: engine.baseUrl });
    const { status, json } = await respond(url, { input: "q" });
    expect(status).toBe(502);
    expect(json.detail).toContain(`${engine.baseUrl}/chat/completions answered 400: tool_choice is bad`);
    expect(engine.requests).toHaveLength(1);
  });

  it("retries 500 a bounded number of times, then answers 502", async () => {
    const engine = await engineOf({ respond: () => ({ status: 500, body: { error: { message: "boom" } } }) });
    const url = await serve({ base_url: engine.baseUrl, max_retries: 2 });
    const { status, json } = await respond(url, { input: "q" });
    expect(status).toBe(502);
    expect(json.detail).toContain("answered 500: boom");
    expect(engine.requests).toHaveLength(3);
  });

  it("retries 429 and succeeds when the engine recovers", async () => {
    let calls = 0;
    const engine = await engineOf({ respond: () => (++calls <= 2 ? { status: 429, body: { error: { message: "slow down" } } } : undefined) });
    const url = await serve({ base_url: engine.baseUrl, max_retries: 3 });
    const { status, json } = await respond(url, { input: "q" });
    expect(status).toBe(200);
    expect(json.output[0].content[0].text).toBe("You said: q");
    expect(engine.requests).toHaveLength(3);
  });

  it("names an unreachable engine, and fails over to the next base URL", async () => {
    const dead = await startFakeEngine();
    const deadUrl = dead.baseUrl;
    await dead.close();
    const lonely = await serve({ base_url: deadUrl, max_retries: 1 });
    const { status, json } = await respond(lonely, { input: "q" });
    expect(status).toBe(502);
    expect(json.detail).toContain(deadUrl);

    const engine = await engineOf();
    const url = await serve({ base_url: [deadUrl, engine.baseUrl], max_retries: 0 });
    for (const rollout of ["0:0", "0:1", "1:0"]) {
      const reply = await respond(url, { input: "q" }, { [ROLLOUT_HEADER]: rollout });
      expect(reply.status).toBe(200);
    }
  });
});

describe("vllm_model: token capture", () => {
  const vllmReply = (extra: Record<string, unknown>) => ({
    id: "c",
    object: "chat.completion",
    created: 1,
    model: "policy",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: "Hi there", tool_calls: [] },
        finish_reason: "stop",
        logprobs: { content: [{ token: "token_id:101", logprob: -0.5 }, { token: "token_id:102", logprob: -0.25 }, { token: "token_id:2", logprob: 0 }] },
      },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
    ...extra,
  });

  it("asks vLLM for token ids and puts them on the last output item", async () => {
    const engine = await engineOf({ respond: (path) => (path === "/v1/chat/completions" ? { status: 200, body: vllmReply({ prompt_token_ids: [1, 5, 9] }) } : undefined) });
    const url = await serve({ base_url: engine.baseUrl, return_token_id_information: true });
    const { json } = await respond(url, { input: "Hello" });
    expect(chatRequests(engine)[0]).toMatchObject({ logprobs: true, top_logprobs: 0, return_tokens_as_token_ids: true });
    expect(json.output).toHaveLength(1);
    expect(json.output[0]).toMatchObject({ prompt_token_ids: [1, 5, 9], generation_token_ids: [101, 102, 2], generation_log_probs: [-0.5, -0.25, 0] });
  });

  it("falls back to /tokenize for the prompt ids on engines that do not return them", async () => {
    const engine = await engineOf({
      respond: (path) => {
        if (path === "/v1/chat/completions") return { status: 200, body: vllmReply({}) };
        if (path === "/tokenize") return { status: 200, body: { count: 2, tokens: [7, 8], max_model_len: 100 } };
        return undefined;
      },
    });
    const url = await serve({ base_url: engine.baseUrl, return_token_id_information: true, chat_template_kwargs: { enable_thinking: true } });
    const { json } = await respond(url, { input: "Hello" });
    expect(json.output[0].prompt_token_ids).toEqual([7, 8]);
    const tokenize = engine.requests.find((r) => r.path === "/tokenize")!.body;
    expect(tokenize).toEqual({ model: "policy", messages: [{ role: "user", content: "Hello" }], add_generation_prompt: true, chat_template_kwargs: { enable_thinking: true } });
  });
});

describe("vllm_model: chat completions passthrough", () => {
  it("forwards with the configured model and returns the engine's reply", async () => {
    const engine = await engineOf();
    const url = await serve({ base_url: engine.baseUrl });
    const result = await call(`${url}/v1/chat/completions`, { method: "POST", body: { model: "x", messages: [{ role: "user", content: "yo" }] }, retry: NO_RETRY });
    const json = JSON.parse(result.text);
    expect(json.choices[0].message.content).toBe("You said: yo");
    expect(chatRequests(engine)[0]!.model).toBe("policy");
  });
});
