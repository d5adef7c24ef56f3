// gymnasium_agent over HTTP against a Gymnasium-style environment written with defineEnvironment and
// a vllm_model in front of the engine double: tool calls answered from a step's info.tool_outputs,
// step rewards summed, an episode cut at max_steps marked truncated, usage summed over every call;
// and an environment that declares an explicit close: `/close` once after the episode, after a failed
// one too, and a close that fails reported as info.cleanup_warning beside the kept result.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineEnvironment } from "../environment_kit/define.js";
import { startInstance, type RunningInstance } from "../environment_kit/testing.js";
import { closeDispatcher } from "../http/client.js";
import { CookieJar } from "../http/cookies.js";
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

// Holds a slot per episode: reset takes one, `close` gives it back. Rows choose how things go wrong.
const slots = { resets: [] as string[], closes: [] as string[], onClose: (_session: string) => {} };
const closable = defineEnvironment({
  id: "slot_game",
  description: "test game with an explicit close",
  state: z.object({ failClose: z.boolean(), steps: z.number() }),
  reset: (metadata, ctx) => {
    slots.resets.push(ctx.sessionId);
    ctx.sessions.set(ctx.sessionId, { failClose: metadata.fail_close === true, steps: 0 });
    // A reply gymnasium_agent cannot read (the observation must be a string), on request.
    if (metadata.bad_reset === true) return { observation: 42 as unknown as string };
    return { observation: "Say anything twice.", info: metadata.undeclared === true ? { supports_explicit_close: false } : {} };
  },
  // Two steps: 0.5, then 1 and the end.
  step: (_action, _metadata, ctx) => {
    const slot = ctx.sessions.get(ctx.sessionId)!;
    slot.steps++;
    return slot.steps === 2 ? { reward: 1, terminated: true, info: { done: true } } : { observation: "Again.", reward: 0.5 };
  },
  close: (ctx) => {
    slots.closes.push(ctx.sessionId);
    slots.onClose(ctx.sessionId);
    if (ctx.sessions.get(ctx.sessionId)?.failClose) throw new Error("the slot is stuck");
    return { ok: true };
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
    // The engine is slow to answer a conversation that asks it to (time for the caller to hang up).
    delayMs: (_path, body) => (JSON.stringify(body).includes("hang up on me") ? 3000 : 0),
    // The engine refuses a conversation that asks it to (a model failure in the middle of an episode).
    respond: (_path, body) =>
      JSON.stringify(body).includes("refuse at step two") && JSON.stringify(body).includes("Again.")
        ? { status: 403, body: { error: { message: "forbidden", type: "permission_error" } } }
        : undefined,
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

describe("gymnasium_agent with an environment that declares an explicit close", () => {
  let slotEnv: RunningInstance;
  let slotAgent: RunningInstance;
  beforeAll(async () => {
    slotEnv = await startInstance(closable, { name: "slots" });
    slotAgent = await startInstance(gymnasiumAgent, {
      config: { resources_server: { type: "resources_servers", name: "slots" }, model_server: { type: "responses_api_models", name: "policy" }, max_steps: 4 },
      servers: { slots: slotEnv.url, policy: model.url },
    });
    agents.push(slotEnv, slotAgent);
  });

  /** Plays one row; returns the reply and the sessions reset and closed during it. */
  async function play(fields: Record<string, unknown>, content = "play") {
    const [resets, closes] = [slots.resets.length, slots.closes.length];
    const reply = await slotAgent.request("/run", { ...row(content, 0), ...fields });
    return { reply, reset: slots.resets.slice(resets), closed: slots.closes.slice(closes) };
  }

  it("declares it on reset and is closed once, in the episode's own session, after the episode", async () => {
    const jar = new CookieJar();
    expect((await slotEnv.request("/reset", row("play", 0), jar)).body.info).toEqual({ supports_explicit_close: true });
    const { reply, reset, closed } = await play({});
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ reward: 1.5, terminated: true, info: { done: true } });
    expect(reply.body.info).not.toHaveProperty("cleanup_warning");
    expect(reset).toHaveLength(1);
    expect(closed).toEqual(reset);
    // An environment whose reset says it does not support it is never closed.
    const undeclared = await play({ undeclared: true });
    expect(undeclared.reply.status).toBe(200);
    expect(undeclared.closed).toEqual([]);
  });

  it("keeps the result and reports cleanup_warning when the close fails", async () => {
    const { reply, reset, closed } = await play({ fail_close: true });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ reward: 1.5, terminated: true, truncated: false });
    expect(reply.body.info).toMatchObject({ done: true, cleanup_warning: { operation: "close", error_type: "UpstreamError" } });
    expect(reply.body.info.cleanup_warning.message).toMatch(/environment "slots" \/close answered 500/);
    expect(closed).toEqual(reset);
  });

  it("still closes after a model failure mid-episode and after a malformed reset reply, keeping the original failure", async () => {
    const failed = await play({}, "refuse at step two");
    expect(failed.reply.status).toBe(502);
    expect(failed.reply.body).toMatchObject({ failure_class: "model_error" });
    expect(failed.reply.body.detail).toMatch(/model server "policy" answered/);
    expect(failed.reset).toHaveLength(1);
    expect(failed.closed).toEqual(failed.reset);

    const malformed = await play({ bad_reset: true });
    expect(malformed.reply.status).toBe(502);
    expect(malformed.reply.body).toMatchObject({ failure_class: "env_error" });
    expect(malformed.reply.body.detail).toMatch(/environment "slots" \/reset answered observation/);
    expect(malformed.closed).toEqual(malformed.reset);
  });

  it("still closes when the caller hangs up mid-episode", async () => {
    const resets = slots.resets.length;
    const closed = new Promise<string>((resolve) => (slots.onClose = resolve));
    const caller = new AbortController();
    const run = fetch(`${slotAgent.url}/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(row("hang up on me", 0)),
      signal: caller.signal,
    }).catch((error: unknown) => error);
    // Hang up while the model is thinking, once the episode has a slot.
    while (engine.requests.filter((r) => JSON.stringify(r.body).includes("hang up on me")).length === 0) await new Promise((r) => setTimeout(r, 20));
    caller.abort();
    expect(await run).toBeInstanceOf(Error);
    expect(await closed).toBe(slots.resets[resets]);
  });
});
