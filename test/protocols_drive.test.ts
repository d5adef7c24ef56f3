// Driving servers of other protocols as Gymkit environments (issue 22, "Drive"): an OpenEnv server and
// an Open Reward Standard server, each a small stand-in written from its spec and started here
// (test/helpers/openenv_standin.ts, ors_standin.ts), played by gymnasium_agent through the adapters
// `openenv_remote` and `ors_remote` (src/protocols/drive/). The policy is the fake engine behind
// vllm_model; every Gymkit component is the real one. In process: episodes (tools offered, tool calls
// routed, rewards summed, sessions closed) and the error cases; then `gym eval run` on a config that
// drives both collects, resumes and aggregates like any other run.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import gymnasiumAgent from "../src/agents/gymnasium_agent.js";
import { startInstance, type RunningInstance } from "../src/environment_kit/testing.js";
import { closeDispatcher } from "../src/http/client.js";
import { CookieJar } from "../src/http/cookies.js";
import vllmModel from "../src/models/vllm_model.js";
import openenvRemote from "../src/protocols/drive/openenv.js";
import orsRemote from "../src/protocols/drive/ors.js";
import singleTool from "../src/environments/example_single_tool_call/index.js";
import { EnvironmentBridge } from "../src/protocols/episode.js";
import { startGateway } from "../src/protocols/gateway.js";
import { openEnvLayer } from "../src/protocols/openenv/server.js";
import { DatasetRows } from "../src/protocols/rows.js";
import { startFakeEngine, type FakeEngine, type Policy } from "./doubles/fake_engine.js";
import { readJsonlFile, runGym } from "./helpers/cli.js";
import { startOpenEnvStandin, type OpenEnvStandin } from "./helpers/openenv_standin.js";
import { startOrsStandin, type OrsStandin } from "./helpers/ors_standin.js";

/**
 * Digit game (OpenEnv): ask for the hint, then answer the digit it names — except 5, answered 2
 * (wrong). Arithmetic (ORS): a scratch note first, then submit the sum — except 10 + 32, given as 41.
 */
const policy: Policy = (turns, tools) => {
  const toolTurns = turns.filter((t) => t.role === "tool");
  const names = tools.map((t) => t.name);
  if (names.includes("hint")) {
    if (toolTurns.length === 0) return { toolCalls: [{ name: "hint", arguments: {} }] };
    const digit = /digit is (\d)/.exec(toolTurns.at(-1)!.content)?.[1] ?? "0";
    return { text: digit === "5" ? "2" : digit };
  }
  if (names.includes("get_weather")) {
    if (toolTurns.length === 0) return { toolCalls: [{ name: "get_weather", arguments: { city: "San Francisco" } }] };
    return { text: /cold/.test(toolTurns.at(-1)!.content) ? "Bring a coat." : "Enjoy the sun." };
  }
  if (names.includes("submit")) {
    if (toolTurns.length === 0) return { toolCalls: [{ name: "scratch", arguments: { note: "adding" } }] };
    const [, a, b] = /What is (\d+) \+ (\d+)/.exec(turns.find((t) => t.role === "user" && /What is/.test(t.content))!.content)!;
    const sum = Number(a) + Number(b);
    return { toolCalls: [{ name: "submit", arguments: { answer: sum === 42 ? 41 : sum } }] };
  }
  return { text: "no tools offered" };
};

let engine: FakeEngine;
let openenv: OpenEnvStandin;
let ors: OrsStandin;
const started: RunningInstance[] = [];

beforeAll(async () => {
  engine = await startFakeEngine({ policy });
  openenv = await startOpenEnvStandin({ maxSessions: 8 });
  ors = await startOrsStandin();
});

afterAll(async () => {
  for (const s of started.reverse()) await s.close();
  await openenv.close();
  await ors.close();
  await engine.close();
  await closeDispatcher();
});

const input = (text: string) => ({ input: [{ role: "user", content: text, type: "message" }] });

describe("in process: gymnasium_agent plays a driven server", () => {
  let openenvEnv: RunningInstance;
  let orsEnv: RunningInstance;
  let openenvAgent: RunningInstance;
  let orsAgent: RunningInstance;

  beforeAll(async () => {
    const model = await startInstance(vllmModel, { name: "policy_model", config: { base_url: engine.baseUrl, model: "m" } });
    openenvEnv = await startInstance(openenvRemote, { name: "digits", config: { base_url: openenv.url } });
    orsEnv = await startInstance(orsRemote, { name: "arith", config: { base_url: ors.url } });
    started.push(model, openenvEnv, orsEnv);
    const agentFor = (env: RunningInstance, name: string) =>
      startInstance(gymnasiumAgent, {
        name,
        config: { resources_server: { type: "resources_servers", name: env.name }, model_server: { type: "responses_api_models", name: "policy_model" }, max_steps: 4 },
        servers: { [env.name]: env.url, policy_model: model.url },
      });
    openenvAgent = await agentFor(openenvEnv, "digits_agent");
    orsAgent = await agentFor(orsEnv, "arith_agent");
    started.push(openenvAgent, orsAgent);
  });

  it("OpenEnv: the row's fields reset the game, list_tools' tools reach the model, call_tool answers it, the text answer is scored", async () => {
    const before = engine.requests.length;
    const result = await openenvAgent.request("/run", { responses_create_params: input("Play."), seed: 23, episode_id: "ep-23" });
    expect(result.status).toBe(200);
    expect(result.body.reward).toBe(1);
    expect(result.body.terminated).toBe(true);
    expect(openenv.resets.at(-1)).toEqual({ seed: 23, episode_id: "ep-23" });
    // The hint tool was offered (from list_tools), called, and its result came back as the call's output.
    const output = result.body.response.output as Array<Record<string, any>>;
    expect(output.find((i) => i.type === "function_call")?.name).toBe("hint");
    expect(output.find((i) => i.type === "function_call_output")?.output).toBe("the secret digit is 3");
    expect(result.body.steps.map((s: { reward: number }) => s.reward)).toEqual([0, 1]);
    const asked = engine.requests.slice(before).map((r) => r.body);
    expect(JSON.stringify(asked[0])).toContain("Guess the secret digit");
    expect(JSON.stringify(asked[0]!.tools)).toContain("hint");
    // The episode's connection was closed afterwards (gymnasium_agent's /close).
    await expect.poll(() => openenv.active()).toBe(0);
  });

  it("OpenEnv: a wrong answer scores 0, and concurrent episodes keep their own games", async () => {
    const rows = [13, 15, 27, 9].map((seed) => ({ responses_create_params: input("Play."), seed }));
    const results = await Promise.all(rows.map((row) => openenvAgent.request("/run", row)));
    expect(results.map((r) => r.body.reward)).toEqual([1, 0, 1, 1]);
  });

  it("ORS: the row's index opens the task, its prompt and tools reach the model, calls are scored inline and finish the episode", async () => {
    const result = await orsAgent.request("/run", { responses_create_params: input("Solve it."), index: 1 });
    expect(result.status).toBe(200);
    expect(result.body.reward).toBe(1);
    expect(result.body.terminated).toBe(true);
    expect(ors.created.at(-1)).toEqual({ env_name: "arith", split: "test", index: 1 });
    const calls = (result.body.response.output as Array<Record<string, any>>).filter((i) => i.type === "function_call").map((i) => i.name);
    expect(calls).toEqual(["scratch", "submit"]);
    expect(ors.live()).toBe(0);
    const wrong = await orsAgent.request("/run", { responses_create_params: input("Solve it."), index: 2 });
    expect(wrong.body.reward).toBe(0);
  });

  it("Gymkit's own OpenEnv server driven back: the tools of its reset observation, call_tool in its session, the answer as submit_answer", async () => {
    const weather = await startInstance(singleTool);
    const rows = new DatasetRows([{ responses_create_params: { input: "what's it like in sf?", tools: [(await weather.request("/tools")).body[0]] } }]);
    const gateway = await startGateway(new EnvironmentBridge({ name: weather.name, url: weather.url, rows }), [openEnvLayer]);
    const served = await startInstance(openenvRemote, {
      name: "served",
      config: { base_url: `${gateway.url}/openenv`, text_action_field: "answer", text_action_extra: { type: "submit_answer" } },
    });
    const model = await startInstance(vllmModel, { name: "policy_model", config: { base_url: engine.baseUrl, model: "m" } });
    const agent = await startInstance(gymnasiumAgent, {
      name: "served_agent",
      config: { resources_server: { type: "resources_servers", name: "served" }, model_server: { type: "responses_api_models", name: "policy_model" }, max_steps: 4 },
      servers: { served: served.url, policy_model: model.url },
    });
    try {
      const result = await agent.request("/run", { responses_create_params: input("Answer the user."), row_index: 0 });
      expect(result.status).toBe(200);
      expect(result.body.reward).toBe(1);
      const output = result.body.response.output as Array<Record<string, any>>;
      expect(JSON.parse(output.find((i) => i.type === "function_call_output")!.output)).toEqual({ city: "San Francisco", weather_description: "The weather in San Francisco is cold." });
      expect(output.at(-1)!.content[0].text).toBe("Bring a coat.");
    } finally {
      for (const s of [agent, model, served]) await s.close();
      await gateway.close();
      await weather.close();
    }
  });

  it("errors: a step before reset, a row without a task and a server that is gone are answered with a reason, never a crash", async () => {
    const step = await openenvEnv.request("/step", { responses_create_params: input("x"), response: { id: "r", object: "response", created_at: 0, model: "m", output: [], status: "completed" } }, new CookieJar());
    expect(step.status).toBe(400);
    expect(step.text).toContain("step before reset");
    const noTask = await orsEnv.request("/reset", { responses_create_params: input("x") }, new CookieJar());
    expect(noTask.status).toBe(422);
    expect(noTask.text).toContain("`index`");
    const gone = await startInstance(openenvRemote, { name: "gone", config: { base_url: "http://127.0.0.1:9" } });
    started.push(gone);
    const refused = await gone.request("/reset", { responses_create_params: input("x") }, new CookieJar());
    expect(refused.status).toBe(502);
    expect(refused.text).toContain("OpenEnv server http://127.0.0.1:9");
    // An unknown tool is the environment's answer to the call, read by the model.
    const jar = new CookieJar();
    await orsEnv.request("/reset", { responses_create_params: input("x"), index: 0 }, jar);
    const unknown = await orsEnv.request(
      "/step",
      { responses_create_params: input("x"), response: { id: "r", object: "response", created_at: 0, model: "m", status: "completed", output: [{ type: "function_call", name: "nope", arguments: "{}", call_id: "c1" }] } },
      jar,
    );
    expect(unknown.status).toBe(200);
    expect(unknown.body.info.tool_outputs).toEqual([{ call_id: "c1", output: "error: Tool nope not found" }]);
    await orsEnv.request("/close", {}, jar);
  });
});

describe("gym eval run drives both servers from a config: collects, resumes, aggregates", () => {
  it("runs every row, then --resume runs only the missing ones, and the metrics cover them all", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-drive-"));
    const config = join(dir, "drive.yaml");
    writeFileSync(
      config,
      [
        "digits:",
        "  resources_servers:",
        "    openenv_remote:",
        `      base_url: ${openenv.url}`,
        "digits_agent:",
        "  responses_api_agents:",
        "    gymnasium_agent:",
        "      resources_server: {type: resources_servers, name: digits}",
        "      model_server: {type: responses_api_models, name: policy_model}",
        "      max_steps: 4",
        "arith:",
        "  resources_servers:",
        "    ors_remote:",
        `      base_url: ${ors.url}`,
        "arith_agent:",
        "  responses_api_agents:",
        "    gymnasium_agent:",
        "      resources_server: {type: resources_servers, name: arith}",
        "      model_server: {type: responses_api_models, name: policy_model}",
        "      max_steps: 4",
        "",
      ].join("\n"),
    );
    const rows = [
      ...[3, 5, 7].map((seed) => ({ responses_create_params: input("Play."), seed, agent_ref: { type: "responses_api_agents", name: "digits_agent" } })),
      ...[0, 2, 3].map((index) => ({ responses_create_params: input("Solve it."), index, agent_ref: { type: "responses_api_agents", name: "arith_agent" } })),
    ];
    const inputPath = join(dir, "in.jsonl");
    writeFileSync(inputPath, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const output = join(dir, "out.jsonl");
    const args = ["eval", "run", "--config", config, "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "-i", inputPath, "-o", output, "--quiet"];
    const first = await runGym(args);
    expect(first.code, first.stderr).toBe(0);
    const lines = readJsonlFile(output);
    // Rows 0-2 are the digit games (seeds 3, 5, 7), rows 3-5 the sums (tasks 0, 2, 3).
    const rewards = (of: Array<Record<string, any>>) => [...of].sort((x, y) => x._ng_task_index - y._ng_task_index).map((l) => [l.agent_ref.name, l.reward]);
    const expected = [["digits_agent", 1], ["digits_agent", 0], ["digits_agent", 1], ["arith_agent", 1], ["arith_agent", 0], ["arith_agent", 1]];
    expect(rewards(lines)).toEqual(expected);

    // Two rollouts lost (one of each server): --resume runs exactly those two again.
    const kept = lines.filter((l) => l._ng_task_index !== 1 && l._ng_task_index !== 5);
    writeFileSync(output, kept.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const resetsBefore = openenv.resets.length;
    const createdBefore = ors.created.length;
    const resumed = await runGym([...args, "--resume"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(openenv.resets.slice(resetsBefore)).toEqual([{ seed: 5 }]);
    expect(ors.created.slice(createdBefore)).toEqual([{ env_name: "arith", split: "test", index: 3 }]);
    expect(rewards(readJsonlFile(output))).toEqual(expected);
    const metrics = JSON.parse(readFileSync(join(dir, "out_aggregate_metrics.json"), "utf8")) as Array<{ agent_ref: { name: string }; agent_metrics: Record<string, number> }>;
    const meanReward = (agent: string) => metrics.find((m) => m.agent_ref.name === agent)!.agent_metrics["mean/reward"];
    expect(meanReward("digits_agent")).toBeCloseTo(2 / 3, 10);
    expect(meanReward("arith_agent")).toBeCloseTo(2 / 3, 10);
  }, 120_000);
});
