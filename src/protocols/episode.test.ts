// The protocol-neutral episode against real environment servers on 127.0.0.1: a tool environment
// (seed, tool call, verify) and a Gymnasium-style one (reset, steps), found without being told which,
// each session its own, and every misuse a typed EpisodeError.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInstance, type RunningInstance } from "../environment_kit/testing.js";
import { closeDispatcher } from "../http/client.js";
import singleTool from "../environments/example_single_tool_call/index.js";
import multiTurn from "../environments/example_multi_turn_gymnasium/index.js";
import { EnvironmentBridge } from "./episode.js";
import { EpisodeError } from "./errors.js";
import { DatasetRows, datasetFilesFor, descriptionIn } from "./rows.js";
import { parseProtocols, protocolNames } from "./index.js";

const WEATHER_ROW = {
  responses_create_params: {
    input: [{ role: "user", content: "what's it like in sf?" }],
    tools: [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, strict: true }],
  },
};
const TURN_ROWS = [
  { responses_create_params: { input: [{ role: "user", content: "What is 15 multiplied by 8?" }] }, follow_ups: ["Now divide that result by 6."], expected_answer: "20" },
  { responses_create_params: { input: [{ role: "user", content: "Largest planet?" }] }, follow_ups: [], expected_answer: "Jupiter" },
];

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EpisodeError) return error.code;
    throw error;
  }
  return "no error";
}

describe("the episode bridge", () => {
  let tools: RunningInstance;
  let gym: RunningInstance;
  beforeAll(async () => {
    tools = await startInstance(singleTool);
    gym = await startInstance(multiTurn);
  });
  afterAll(async () => {
    await tools.close();
    await gym.close();
    await closeDispatcher();
  });

  it("plays a tool environment: prompt and tools, a tool call in the session, then /verify's reward", async () => {
    const bridge = new EnvironmentBridge({ name: "weather", url: tools.url, rows: new DatasetRows([WEATHER_ROW]) });
    const episode = bridge.episode();
    expect(await codeOf(episode.callTool("get_weather", { city: "SF" }))).toBe("not_reset");
    const observation = await episode.reset({ index: 0 });
    expect(bridge.kind).toBe("tools");
    expect(observation.messages).toEqual([{ role: "user", content: "what's it like in sf?" }]);
    expect(observation.tools.map((t) => t.name)).toEqual(["get_weather"]);
    const called = await episode.callTool("get_weather", { city: "SF" });
    expect(JSON.parse(called.output!)).toEqual({ city: "SF", weather_description: "The weather in SF is cold." });
    expect(called.done).toBe(false);
    expect(await codeOf(episode.callTool("get_time", {}))).toBe("unknown_tool");
    expect(await codeOf(episode.callTool("get_weather", [1]))).toBe("invalid_args");
    expect(await codeOf(episode.callTool("get_weather", { town: "SF" }))).toBe("invalid_args");
    const answered = await episode.submit("It is cold.");
    expect(answered).toMatchObject({ action: "answer", reward: 1, done: true });
    expect(episode.transcript.map((item) => item.type)).toEqual(["function_call", "function_call_output", "message"]);
    expect(await codeOf(episode.submit("again"))).toBe("done");
    await episode.close();
    expect(await codeOf(episode.reset())).toBe("closed");
    expect(await codeOf(bridge.episode().reset({ index: 3 }))).toBe("bad_row");
  });

  it("plays a Gymnasium-style environment step by step, sessions apart", async () => {
    const bridge = new EnvironmentBridge({ name: "turns", url: gym.url, rows: new DatasetRows(TURN_ROWS) });
    const a = bridge.episode();
    const b = bridge.episode();
    await a.reset({ index: 0 });
    expect(bridge.kind).toBe("gymnasium");
    await b.reset({ index: 0 });
    const first = await a.submit("It is 120.");
    expect(first).toMatchObject({ observation: "Now divide that result by 6.", reward: 0, done: false });
    // b's session has not moved: its first answer gets the follow-up too.
    expect((await b.submit("120")).observation).toBe("Now divide that result by 6.");
    const last = await a.submit("That gives 20.");
    expect(last).toMatchObject({ reward: 1, total_reward: 1, done: true, terminated: true });
    expect((await b.submit("It is 21.")).reward).toBe(0);
    // No tools in this row.
    await a.reset({ index: 1 });
    expect(await codeOf(a.callTool("search", {}))).toBe("unknown_tool");
    expect((await a.submit("Jupiter")).reward).toBe(1);
  });
});

describe("the --protocols switch and the rows of an environment", () => {
  it("parses protocol lists, nemo-gym implied, an unknown name refused with the known ones", () => {
    expect(parseProtocols(undefined)).toEqual([]);
    expect(parseProtocols("nemo-gym").map((l) => l.name)).toEqual([]);
    expect(parseProtocols(" nemo-gym , OpenEnv,openenv").map((l) => l.name)).toEqual(["openenv"]);
    expect(() => parseProtocols("nemo-gym,opnenv")).toThrow(`unknown protocol "opnenv"; known: ${protocolNames().join(", ")}`);
  });

  it("finds the datasets the config's agents give an environment, a missing file apart", () => {
    const config = {
      weather: { resources_servers: { example_single_tool_call: { description: "Weather." } } },
      weather_agent: {
        responses_api_agents: {
          simple_agent: {
            resources_server: { type: "resources_servers", name: "weather" },
            datasets: [{ jsonl_fpath: "src/environments/example_single_tool_call/data/example.jsonl" }, { jsonl_fpath: "data/not_downloaded.jsonl" }],
          },
        },
      },
      other_agent: { responses_api_agents: { simple_agent: { resources_server: { name: "other" }, datasets: [{ jsonl_fpath: "x.jsonl" }] } } },
    };
    expect(datasetFilesFor("weather", config)).toEqual({ files: ["src/environments/example_single_tool_call/data/example.jsonl"], missing: ["data/not_downloaded.jsonl"] });
    expect(descriptionIn(config, "weather")).toBe("Weather.");
    expect(datasetFilesFor("nobody", config)).toEqual({ files: [], missing: [] });
  });
});
