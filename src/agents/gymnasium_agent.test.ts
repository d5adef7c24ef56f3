// gymnasium_agent over HTTP against a Gymnasium-style environment written with defineEnvironment and
// a vllm_model in front of the engine double: tool calls answered from a step's info.tool_outputs,
// step rewards summed, an episode cut at max_steps marked truncated, usage summed over every call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineEnvironment } from "../environment_kit/define.js";
import { startInstance, type RunningInstance } from "../environment_kit/testing.js";
import { closeDispatcher } from "../http/client.js";
import vllmModel from "../models/vllm_model.js";
import { startFakeEngine, type FakeEngine } from "../../test/doubles/fake_engine.js";
import gymnasiumAgent from "./gymnasium_agent.js";

// Guess the secret: each wrong guess costs 0.1 and gets a hint; a `peek` tool call reveals it.
const guessing = defineEnvironment({
  id: "guess_the_number",
  description: "test game",
  state: z.object({ secret: z.number() }),
  reset: (metadata, ctx) => {
    ctx.sessions.set(ctx.sessionId, { secret: Number(metadata.secret) });
    return { observation: "Guess a number from 1 to 9.", info: { started: true } };
  },
  step: (action, _metadata, ctx) => {
    const { secret } = ctx.sessions.get(ctx.sessionId)!;
    const calls = (action.output as Array<Record<string, any>>).filter((item) => item.type === "function_call");
    if (calls.length > 0) return { reward: 0, info: { tool_outputs: calls.map((call) => ({ call_id: call.call_id, output: JSON.stringify({ secret }) })) } };
    const text = (action.output as Array<Record<string, any>>).flatMap((item) => item.content ?? []).map((part: any) => part.text).join("");
    if (text.includes(String(secret))) return { reward: 1, terminated: true, info: { guessed: secret } };
    return { observation: "No. Try again.", reward: -0.1 };
  },
});

let engine: FakeEngine;
let env: RunningInstance;
let model: RunningInstance;
const agents: RunningInstance[] = [];

async function agent(maxSteps: number): Promise<RunningInstance> {
  const instance = await startInstance(gymnasiumAgent, {
    config: { resources_server: { type: "resources_servers", name: "game" }, model_server: { type: "responses_api_models", name: "policy" }, max_steps: maxSteps },
    servers: { game: env.url, policy: model.url },
  });
  agents.push(instance);
  return instance;
}

beforeAll(async () => {
  // The policy: guesses 1 first; peeks when the row says so; after a tool output, says the secret.
  engine = await startFakeEngine({
    model: "m",
    policy: (turns) => {
      const tool = turns.findLast((t) => t.role === "tool");
      if (tool) return { text: `It is ${JSON.parse(tool.content).secret}.` };
      if (turns[0]!.content.includes("peek") && !turns.some((t) => t.role === "assistant")) return { toolCalls: [{ name: "peek", arguments: {} }] };
      return { text: "Is it 1?" };
    },
  });
  model = await startInstance(vllmModel, { name: "policy", config: { base_url: engine.baseUrl, model: "m" } });
  env = await startInstance(guessing, { name: "game" });
});

afterAll(async () => {
  await Promise.all([...agents, env, model].map((i) => i.close()));
  await engine.close();
  await closeDispatcher();
});

const row = (content: string, secret: number) => ({ responses_create_params: { input: [{ role: "user", content }] }, secret });

describe("gymnasium_agent", () => {
  it("answers tool calls from the step's tool outputs and sums the step rewards", async () => {
    const reply = await (await agent(5)).request("/run", row("play; peek first", 7));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ reward: 1, terminated: true, truncated: false, info: { guessed: 7 } });
    // The reset observation joins the input; the episode's outputs: the call, its output, the answer.
    expect(reply.body.responses_create_params.input.map((m: any) => m.content)).toEqual(["play; peek first", "Guess a number from 1 to 9."]);
    expect(reply.body.response.output.map((item: any) => item.type)).toEqual(["function_call", "function_call_output", "message"]);
    expect(reply.body.response.output[1]).toMatchObject({ call_id: reply.body.response.output[0].call_id, output: '{"secret":7}' });
    // Gymkit's per-step record: each step's span of the output and the environment's answer.
    expect(reply.body.steps).toEqual([
      { reward: 0, terminated: false, truncated: false, model_output: [0, 1], env_output: [1, 2] },
      { reward: 1, terminated: true, truncated: false, model_output: [2, 3], env_output: [3, 3] },
    ]);
    // Two model calls, their usage summed.
    const asked = engine.requests.slice(-2);
    const prompt = (body: any) => body.messages.map((m: any) => m.content).join(" ").split(" ").filter(Boolean).length;
    expect(reply.body.response.usage.input_tokens).toBe(asked.reduce((sum, r) => sum + prompt(r.body), 0));
  });

  it("cuts an episode that does not end within max_steps, as truncated, with the rewards so far", async () => {
    const reply = await (await agent(3)).request("/run", row("play", 4));
    expect(reply.body).toMatchObject({ terminated: false, truncated: true });
    expect(reply.body.reward).toBeCloseTo(-0.3, 10);
    const roles = reply.body.response.output.map((item: any) => item.role);
    expect(roles).toEqual(["assistant", "user", "assistant", "user", "assistant", "user"]);
    expect(reply.body.response.output[1]).toEqual({ content: "No. Try again.", role: "user", type: "message" });
    // Cut by max_steps: every step the environment's plain answer, each observation inside the output.
    expect(reply.body.steps).toEqual([0, 2, 4].map((at) => ({ reward: -0.1, terminated: false, truncated: false, model_output: [at, at + 1], env_output: [at + 1, at + 2] })));
  });

  it("fails the rollout as the environment's when the environment is not a Gymnasium one", async () => {
    const plain = await startInstance(
      defineEnvironment({ id: "plain", description: "verify-only", verify: () => ({ reward: 1 }) }),
      { name: "plain" },
    );
    agents.push(plain);
    const instance = await startInstance(gymnasiumAgent, {
      config: { resources_server: { type: "resources_servers", name: "plain" }, model_server: { type: "responses_api_models", name: "policy" } },
      servers: { plain: plain.url, policy: model.url },
    });
    agents.push(instance);
    const reply = await instance.request("/run", row("play", 1));
    expect(reply.status).toBe(502);
    expect(reply.body).toMatchObject({ failure_class: "env_error" });
    expect(reply.body.detail).toMatch(/environment "plain" \/reset answered 404/);
  });
});
