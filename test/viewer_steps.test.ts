// The viewer on multi-turn episodes, step by step. A real `gym eval run` plays two grl_sokoban episodes
// through gymnasium_agent (Gymkit's own config and NeMo Gym's example rows in the repo; the engine
// double replays the moves NeMo Gym recorded for them, with a line of reasoning per move): one solved,
// one cut at max_steps. Then `gym view`'s server, in-process on 127.0.0.1, gives each step's
// observation, action, tool outputs, reward and ends from the API, and the page renders them in
// headless chromium. NeMo Gym's own recorded episodes (no per-step record) fall back to a split at
// the model's turns, labelled; a row whose `steps` is not the agent's record falls back too, saying why.
// A small game with a tool (gymnasium_agent in-process, on real servers) shows where tool outputs go.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import gymnasiumAgent from "../src/agents/gymnasium_agent.js";
import { resultLine } from "../src/collect/lines.js";
import { defineEnvironment } from "../src/environment_kit/define.js";
import { startInstance } from "../src/environment_kit/testing.js";
import vllmModel from "../src/models/vllm_model.js";
import { startViewer, type Viewer } from "../src/viewer/server.js";
import { REPO_ROOT, readJsonlFile, runGym } from "./helpers/cli.js";
import { engineOf, onTeardown } from "./helpers/scope.js";
import { writeViewerRun, XSS_IMG, XSS_SCRIPT } from "./fixtures/viewer/run.js";

const SOKOBAN = join(REPO_ROOT, "src", "environments", "grl_sokoban");
/** NeMo Gym's recorded grl_sokoban episodes (copied into the repo with the environment; Apache-2.0). */
const RECORDED = join(SOKOBAN, "data", "example_rollouts.jsonl");

let dir: string;
let rows: Array<Record<string, any>>;
let viewer: Viewer;

async function open(rolloutsPath: string): Promise<Viewer> {
  const started = await startViewer({ rolloutsPath, port: 0 });
  onTeardown(() => started.close());
  return started;
}
async function rollout(task: number, base = viewer.url): Promise<Record<string, any>> {
  const response = await fetch(new URL(`/api/rollouts/${task}/0`, base));
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, any>;
}
const texts = (items: Array<Record<string, any>>) => items.map((item) => (typeof item.content === "string" ? item.content : item.content?.[0]?.text));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gym-viewer-steps-"));
  onTeardown(async () => rmSync(dir, { recursive: true, force: true }));
  // The recorded moves of each episode, by its first board.
  const replies = new Map<string, string[]>();
  for (const recorded of readJsonlFile(RECORDED)) {
    replies.set(recorded.responses_create_params.input.at(-1).content, recorded.response.output.filter((item: any) => item.role === "assistant").map((item: any) => item.content[0].text));
  }
  const engine = await engineOf({
    policy: (turns) => {
      const moves = replies.get(turns.filter((t) => t.role === "user")[1]?.content ?? "") ?? [];
      const n = turns.filter((t) => t.role === "assistant").length;
      return { reasoning: `thinking about move ${n + 1}`, text: moves[n] ?? "no recorded move" };
    },
  });
  const out = join(dir, "episodes.jsonl");
  const result = await runGym(
    ["eval", "run", "--config", join(SOKOBAN, "configs", "grl_sokoban.yaml"), "--input", join(SOKOBAN, "data", "example_rollouts_materialized_inputs.jsonl"),
      "--limit", "2", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "-o", out, "--quiet"],
    { cwd: REPO_ROOT, timeoutMs: 120_000 },
  );
  expect(result.code, result.stderr + result.stdout).toBe(0);
  rows = readJsonlFile(out);
  viewer = await open(out);
}, 180_000);

describe("the episode API", () => {
  it("gives a solved episode's steps: the board seen, the move made, each step's reward, the final board", async () => {
    const d = await rollout(0);
    const row = d.row;
    const { episode } = d;
    const output = row.response.output as Array<Record<string, any>>;
    const moves = output.filter((item) => item.role === "assistant");
    expect(episode).toMatchObject({ source: "recorded", end: "terminated" });
    expect(episode.steps).toHaveLength(moves.length);
    // -0.1 a move; the last one pushes the box onto the target (+1) and solves the level (+10).
    expect(episode.steps.map((s: any) => s.reward)).toEqual([...Array(moves.length - 1).fill(-0.1), 10.9]);
    expect(episode.total_reward).toBeCloseTo(row.reward, 9);
    expect(episode.steps.at(-1).cumulative_reward).toBeCloseTo(10, 9);
    expect(episode.steps.map((s: any) => [s.terminated, s.truncated]).at(-1)).toEqual([true, false]);
    expect(episode.steps.slice(0, -1).every((s: any) => !s.terminated && !s.truncated)).toBe(true);
    for (const [i, step] of episode.steps.entries()) {
      const action = output.slice(...step.action);
      // Each action is one model response: its reasoning, then its move.
      expect(action.map((item) => item.type)).toEqual(["reasoning", "message"]);
      expect(texts(action.slice(1))).toEqual([moves[i]!.content[0].text]);
      expect(step.tool_outputs[0]).toBe(step.tool_outputs[1]);
      if (i === 0) {
        expect(step.observation).toEqual({ input: [0, row.responses_create_params.input.length], output: null });
      } else {
        // The board the environment answered to the move before.
        const seen = output.slice(...step.observation.output);
        expect(seen.map((item) => item.role)).toEqual(["user"]);
        expect(seen[0]!.content).toMatch(/^#+\n/m);
        expect(step.observation.input).toBeNull();
      }
    }
    // The solved board is not in the output (the agent stops there); the step record keeps it.
    expect(episode.final_observation).toMatch(/√/);
    expect(row.steps.at(-1).final_observation).toBe(episode.final_observation);
  });

  it("marks an episode cut at max_steps, and keeps the rows' NeMo Gym fields as they were", async () => {
    const { episode, row } = await rollout(1);
    expect(episode).toMatchObject({ source: "recorded", end: "max_steps", final_observation: null });
    expect(episode.steps).toHaveLength(20);
    expect(episode.steps.every((s: any) => s.reward === -0.1 && !s.terminated && !s.truncated)).toBe(true);
    expect(row).toMatchObject({ terminated: false, truncated: true });
    expect(row.reward).toBeCloseTo(-2, 9);
    for (const r of rows) expect(Object.keys(r).filter((k) => !k.startsWith("_ng_") && k !== "agent_ref")).toEqual(["responses_create_params", "response", "reward", "terminated", "truncated", "info", "steps"]);
  });

  it("splits NeMo Gym's own episodes (no per-step record) at the model's turns, without rewards, and says so", async () => {
    const nemo = await open(RECORDED);
    const recorded = readJsonlFile(RECORDED);
    const { episode, row } = await rollout(0, nemo.url);
    const theirs = recorded.find((r) => r._ng_task_index === 0)!;
    expect(row.steps).toBeUndefined();
    expect(episode.source).toBe("model_turns");
    expect(episode.note).toMatch(/without per-step rewards: the rollout has no per-step record/);
    expect(episode.steps).toHaveLength(theirs.response.output.filter((item: any) => item.role === "assistant").length);
    expect(episode.steps.every((s: any) => s.reward === null && s.cumulative_reward === null && s.terminated === null)).toBe(true);
    expect(episode.end).toBe(theirs.terminated ? "terminated" : "truncated");
    expect(episode.steps[1].observation.output).toEqual([1, 2]);
    expect(episode.steps[1].action).toEqual([2, 3]);
  });

  it("falls back, naming the problem, when a row's steps does not cover its output; plain rollouts get no step view", async () => {
    const original = rows.find((r) => r._ng_task_index === 0)!;
    const row = structuredClone(original);
    row.steps[1].model_output = [5, 6];
    const file = join(dir, "tampered.jsonl");
    writeFileSync(file, JSON.stringify(row) + "\n");
    const { episode } = await rollout(0, (await open(file)).url);
    expect(episode.source).toBe("model_turns");
    expect(episode.note).toContain("steps[1].model_output is [5, 6], expected to start at 3");
    // Split at the model's turns instead: one step per model response all the same, no rewards.
    expect(episode.steps.map((s: any) => s.action)).toEqual(original.steps.map((s: any) => s.model_output));
    expect(episode.steps.every((s: any) => s.reward === null)).toBe(true);

    const plain = writeViewerRun(join(dir, "plain"));
    const tool = await rollout(1, (await open(plain.rollouts)).url);
    expect(tool.row.response.output.map((item: any) => item.type)).toEqual(["function_call", "function_call_output", "message"]);
    expect(tool.episode).toBeNull();
  });
});

// A game with a tool: a `peek` call is answered from the step's info.tool_outputs, a wrong guess costs
// 0.1 and gets a hint, the right one ends the episode.
const guessing = defineEnvironment({
  id: "guess_the_number",
  description: "test game",
  state: z.object({ secret: z.number() }),
  reset: (metadata, ctx) => {
    ctx.sessions.set(ctx.sessionId, { secret: Number(metadata.secret) });
    return { observation: "Guess a number from 1 to 9." };
  },
  step: (action, _metadata, ctx) => {
    const { secret } = ctx.sessions.get(ctx.sessionId)!;
    const calls = (action.output as Array<Record<string, any>>).filter((item) => item.type === "function_call");
    if (calls.length > 0) return { reward: 0, info: { tool_outputs: calls.map((call) => ({ call_id: call.call_id, output: `the secret is ${secret}` })) } };
    const text = (action.output as Array<Record<string, any>>).flatMap((item) => item.content ?? []).map((part: any) => part.text).join("");
    if (text.includes(String(secret))) return { reward: 1, terminated: true };
    return { observation: "No. Try again.", reward: -0.1 };
  },
});

/** The URL of a viewer on one guessing-game episode played by gymnasium_agent (made once, by whichever test asks first). */
let guessingRun: Promise<string> | undefined;
const guessingViewer = () => (guessingRun ??= playGuessing());
async function playGuessing(): Promise<string> {
  // The policy: guesses 1, then peeks, then says what the tool output said.
  const engine = await engineOf({
    model: "m",
    policy: (turns) => {
      const tool = turns.findLast((t) => t.role === "tool");
      if (tool) return { text: `It is ${/\d/.exec(tool.content)![0]}.` };
      if (turns.some((t) => t.role === "assistant")) return { toolCalls: [{ name: "peek", arguments: {} }] };
      return { text: "Is it 1?" };
    },
  });
  const model = await startInstance(vllmModel, { name: "policy", config: { base_url: engine.baseUrl, model: "m" } });
  const env = await startInstance(guessing, { name: "game" });
  const agent = await startInstance(gymnasiumAgent, {
    config: { resources_server: { type: "resources_servers", name: "game" }, model_server: { type: "responses_api_models", name: "policy" } },
    servers: { game: env.url, policy: model.url },
  });
  for (const instance of [model, env, agent]) onTeardown(() => instance.close());
  const reply = await agent.request("/run", { responses_create_params: { input: [{ role: "user", content: "play" }] }, secret: 7 });
  expect(reply.status).toBe(200);
  const file = join(dir, "guessing.jsonl");
  writeFileSync(file, resultLine(0, 0, { ...reply.body, agent_ref: { type: "responses_api_agents", name: "guess_agent" } }));
  return (await open(file)).url;
}

describe("an episode with tool calls", () => {

  it("puts each tool output with the step whose call it answers, and the hint with the step that saw it", async () => {
    const { episode, row } = await rollout(0, await guessingViewer());
    const output = row.response.output as Array<Record<string, any>>;
    expect(output.map((item) => item.type)).toEqual(["message", "message", "function_call", "function_call_output", "message"]);
    expect(episode.steps.map((s: any) => [s.reward, s.action, s.tool_outputs, s.observation.output])).toEqual([
      [-0.1, [0, 1], [1, 1], null],
      [0, [2, 3], [3, 4], [1, 2]],
      [1, [4, 5], [5, 5], [4, 4]],
    ]);
    expect(episode.steps[0].observation.input).toEqual([0, 2]);
    expect(episode).toMatchObject({ end: "terminated", total_reward: 0.9, final_observation: null });
  });
});

describe("the episode in the page", () => {
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
    page = await browser.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows each step's observation, action (reasoning folded), reward and cumulative reward, and how the episode ended", async () => {
    await page.goto(`${viewer.url}#/rollout/0/0`);
    await page.locator("#episode").waitFor();
    const row = rows.find((r) => r._ng_task_index === 0)!;
    const moves = row.response.output.filter((item: any) => item.role === "assistant").map((item: any) => item.content[0].text as string);
    const steps = page.locator("#episode section.step");
    expect(await steps.count()).toBe(moves.length);
    expect(await page.locator("#episode .episode-note").innerText()).toMatch(/as the agent recorded them/);

    const first = steps.nth(0);
    expect(await first.locator(".step-head").innerText()).toMatch(/^step 1 · reward -0\.1 · cumulative -0\.1\s*$/);
    // Step 1 saw the prompt: the system message, the task, the first board.
    expect(await first.locator(".step-observation .item .label").allInnerTexts()).toEqual(["system", "user", "user"]);
    expect(await first.locator(".step-observation").innerText()).toContain(row.responses_create_params.input.at(-1).content.split("\n")[0]);
    // The action: the move shown, its reasoning folded away until opened.
    expect(await first.locator(".step-action .kind-message").innerText()).toContain(moves[0]);
    const reasoning = first.locator(".step-action details.step-reasoning");
    expect(await reasoning.getAttribute("open")).toBeNull();
    expect(await reasoning.locator(".kind-reasoning").isVisible()).toBe(false);
    await reasoning.locator("summary").click();
    expect(await reasoning.locator(".kind-reasoning").innerText()).toContain("thinking about move 1");

    // Step 2 saw the board the environment answered to move 1.
    const second = steps.nth(1);
    expect(await second.locator(".step-observation").innerText()).toContain(row.response.output[row.steps[0].env_output[0]].content.split("\n")[0]);
    expect(await second.locator(".step-action .kind-message").innerText()).toContain(moves[1]);

    const last = steps.nth(moves.length - 1);
    expect(await last.locator(".step-head").innerText()).toMatch(new RegExp(`^step ${moves.length} · reward 10\\.9 · cumulative 10\\s+terminated$`));
    expect(await last.locator(".step-reward").getAttribute("class")).toContain("good");
    expect(await page.locator("#episode .step-final").innerText()).toContain(row.steps.at(-1).final_observation.split("\n")[1]);
    expect(await page.locator("#episode-end").innerText()).toBe(`episode ended: terminated · ${moves.length} steps · total reward 10`);
    // The flat conversation is still there, folded.
    expect(await page.locator("#flat-conversation").getAttribute("open")).toBeNull();
    expect(pageErrors).toEqual([]);
  });

  it("says an episode was cut at max_steps, and labels NeMo Gym's episodes as split at model turns without rewards", async () => {
    await page.goto(`${viewer.url}#/rollout/1/0`);
    await page.locator("#episode").waitFor();
    expect(await page.locator("#episode section.step").count()).toBe(20);
    expect(await page.locator("#episode-end").innerText()).toBe("episode ended: cut at max_steps (truncated) · 20 steps · total reward -2");

    const nemo = await open(RECORDED);
    await page.goto(`${nemo.url}#/rollout/0/0`);
    await page.locator("#episode").waitFor();
    expect(await page.locator("#episode").getAttribute("data-source")).toBe("model_turns");
    expect(await page.locator("#episode .episode-note.notice").innerText()).toMatch(/split at the model's turns, without per-step rewards/);
    expect(await page.locator("#episode section.step .step-head").first().innerText()).toMatch(/^step 1 · no per-step reward/);
    expect(await page.locator("#episode-end").innerText()).toMatch(/^episode ended: terminated · \d+ steps · rollout reward 10$/);
    expect(pageErrors).toEqual([]);
  });

  it("shows a step's tool outputs under its tool call, and the observation the next step saw", async () => {
    await page.goto(`${await guessingViewer()}#/rollout/0/0`);
    await page.locator("#episode").waitFor();
    const steps = page.locator("#episode section.step");
    expect(await steps.count()).toBe(3);
    expect(await steps.nth(0).locator(".step-tools").count()).toBe(0);
    expect(await steps.nth(1).locator(".step-observation").innerText()).toContain("No. Try again.");
    expect(await steps.nth(1).locator(".step-action .label").first().innerText()).toMatch(/^tool call: peek/);
    expect(await steps.nth(1).locator(".step-tools .kind-function_call_output").innerText()).toContain("the secret is 7");
    expect(await steps.nth(2).locator(".step-observation").innerText()).toContain("no new observation");
    expect(await steps.nth(2).locator(".step-head").innerText()).toMatch(/^step 3 · reward 1 · cumulative 0\.9\s+terminated$/);
    expect(await page.locator("#episode-end").innerText()).toBe("episode ended: terminated · 3 steps · total reward 0.9");
  });

  it("shows observations and a final observation carrying <img onerror> and <script> as text, and runs none of it", async () => {
    const row = structuredClone(rows.find((r) => r._ng_task_index === 0)!);
    row.response.output[row.steps[0].env_output[0]].content = `board ${XSS_SCRIPT}`;
    row.steps.at(-1).final_observation = `solved ${XSS_IMG}`;
    const file = join(dir, "hostile.jsonl");
    writeFileSync(file, JSON.stringify(row) + "\n");
    const hostile = await open(file);
    await page.goto(`${hostile.url}#/rollout/0/0`);
    await page.locator("#episode").waitFor();
    expect(await page.locator("#episode section.step").nth(1).locator(".step-observation").innerText()).toContain(`board ${XSS_SCRIPT}`);
    expect(await page.locator("#episode .step-final").innerText()).toContain(`solved ${XSS_IMG}`);
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.locator("script").count()).toBe(2); // the page's own script and uPlot (/assets/uplot.js)
    expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();
    expect(pageErrors).toEqual([]);
  });
});
