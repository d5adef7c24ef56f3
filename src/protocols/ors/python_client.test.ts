// The real Open Reward Standard Python client (openrewardstandard/python-sdk a399408's `ors.client`,
// vendored unchanged in test/fixtures/ors_python_sdk) against Gymkit's ORS server: discovery (splits,
// tasks, task ranges, tools, the OpenAI tool format), sessions opened from a Task and from split+index,
// prompts, tool calls, an unknown tool (the client's ToolCallError) and submit_answer's inline reward
// and `finished`, on a single-tool environment and the multi-turn Gymnasium-style one; real servers on
// 127.0.0.1 behind a real gateway, driven by test/fixtures/ors_python_sdk/drive.py under Debian's
// python3. Its dependencies are Debian packages (.ci/run installs them): python3-aiohttp,
// python3-tenacity, python3-structlog, python3-typing-extensions. Skipped when they are missing,
// unless GYM_REQUIRE_PYTHON_CLIENTS is set (.ci/run sets it).
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import singleTool from "../../environments/example_single_tool_call/index.js";
import multiTurn from "../../environments/example_multi_turn_gymnasium/index.js";
import { EnvironmentBridge } from "../episode.js";
import { startGateway, type RunningGateway } from "../gateway.js";
import { DatasetRows } from "../rows.js";
import { orsLayer } from "./server.js";

const PYTHON = "/usr/bin/python3";
const DRIVER = new URL("../../../test/fixtures/ors_python_sdk/drive.py", import.meta.url).pathname;
const DEPENDENCIES = ["aiohttp", "tenacity", "structlog", "typing_extensions"];

/** Why the client cannot run here, or undefined when it can. */
function missing(): string | undefined {
  try {
    execFileSync(PYTHON, ["-c", `import ${DEPENDENCIES.join(", ")}`], { stdio: "pipe" });
    return undefined;
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message);
    return `${PYTHON} cannot import the ORS client's dependencies (apt-get install python3-aiohttp python3-tenacity python3-structlog python3-typing-extensions): ${stderr.trim().split("\n").at(-1)}`;
  }
}

const why = missing();
const required = Boolean(process.env.GYM_REQUIRE_PYTHON_CLIENTS);
if (why && !required) console.warn(`skipping the ORS Python client test: ${why}`);

const rowsOf = (env: string) =>
  readFileSync(new URL(`../../environments/${env}/data/example.jsonl`, import.meta.url), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

function runDriver(plan: unknown): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(PYTHON, [DRIVER, JSON.stringify(plan)], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe.skipIf(why !== undefined && !required)("ORS: the reference Python client against Gymkit's server", () => {
  const instances: RunningInstance[] = [];
  const gateways: RunningGateway[] = [];
  const serve = async (definition: typeof singleTool | typeof multiTurn) => {
    const instance = await startInstance(definition as typeof singleTool);
    instances.push(instance);
    const bridge = new EnvironmentBridge({ name: instance.name, url: instance.url, rows: new DatasetRows(rowsOf(instance.name)) });
    const gateway = await startGateway(bridge, [orsLayer], { settings: { maxSessions: 8 } });
    gateways.push(gateway);
    return gateway.endpoints[0]!.url;
  };
  let weatherUrl: string;
  let turnsUrl: string;

  beforeAll(async () => {
    if (why) throw new Error(`GYM_REQUIRE_PYTHON_CLIENTS is set but ${why}`);
    weatherUrl = await serve(singleTool);
    turnsUrl = await serve(multiTurn);
  });

  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
    await Promise.all(instances.map((i) => i.close()));
  });

  it("discovers tasks and tools, plays episodes with tool calls, and gets each answer's reward inline", async () => {
    const answers = (...texts: string[]) => texts.map((answer) => ["submit_answer", { answer }]);
    const plan = [
      {
        base_url: weatherUrl,
        env: "example_single_tool_call",
        episodes: [{ index: 0, via: "task", calls: [["get_weather", { city: "San Francisco" }], ["no_such_tool", {}], ["submit_answer", { answer: "Cold." }]] }],
      },
      {
        base_url: turnsUrl,
        env: "example_multi_turn_gymnasium",
        episodes: [
          { index: 0, via: "split_index", calls: answers("Paris.", "About two million.", "The Eiffel Tower.") },
          { index: 1, via: "split_index", calls: answers("120.", "It is 19.") },
        ],
      },
    ];
    const run = await runDriver(plan);
    expect(run.code, run.stderr).toBe(0);
    const [weather, turns] = JSON.parse(run.stdout) as Array<Record<string, any>>;

    // The listed endpoint is what the client takes: the gateway's root (its base URL cannot carry a path).
    expect(new URL(weatherUrl).pathname).toBe("/");
    const weatherRows = rowsOf("example_single_tool_call");
    expect(weather).toMatchObject({ splits: ["test"], num_tasks: weatherRows.length, tasks: weatherRows, task_range: weatherRows.slice(-2), tools: ["get_weather", "submit_answer"], openai_tools: ["get_weather", "submit_answer"] });
    const [episode] = weather!.episodes;
    expect(episode.prompt.at(-1)).toBe("what's it like in sf?");
    expect(episode.tools).toEqual(["get_weather", "submit_answer"]);
    expect(JSON.parse(episode.calls[0].blocks[0])).toEqual({ city: "San Francisco", weather_description: "The weather in San Francisco is cold." });
    expect(episode.calls[0]).toMatchObject({ reward: null, finished: false });
    expect(episode.calls[1].error).toMatch(/^unknown_tool: tool "no_such_tool" is not offered/);
    expect(episode.calls[2]).toMatchObject({ reward: 1, finished: true, metadata: { reward: 1 } });

    // Multi-turn: each answer's follow-up comes back as the call's block; the last one is scored.
    const [right, wrong] = turns!.episodes;
    expect(right.calls.map((c: { reward: number }) => c.reward)).toEqual([0, 0, 1]);
    expect(right.calls.map((c: { finished: boolean }) => c.finished)).toEqual([false, false, true]);
    expect(right.calls[0].blocks).toEqual(["What is the approximate population of that city?"]);
    expect(wrong.calls.map((c: { reward: number }) => c.reward)).toEqual([0, 0]);
    expect(wrong.calls.at(-1).finished).toBe(true);
  });
});
