// example_single_tool_call on a real server on 127.0.0.1: every stored example rollout, played back as its agent played
// it (seed, the model's tool calls, verify), scores the reward it was recorded with; and the
// environment's cases from NeMo Gym's examples spec (nemo-gym-examples/README.md §1–4).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJsonlFile, replayExampleRollouts, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import environment from "./index.js";

const jsonl = (path: string) => readJsonlFile(new URL(path, import.meta.url));

describe("example_single_tool_call", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(environment);
  });
  afterAll(() => env.close());

  it("data/example_rollouts.jsonl: every line, replayed, scores the reward it records", async () => {
    const replayed = await replayExampleRollouts(env, new URL("./data/", import.meta.url));
    expect(replayed.length).toBeGreaterThan(0);
    for (const { line, status, reward, recorded } of replayed) {
      expect(status, `line ${line}`).toBe(200);
      expect(reward, `line ${line}`).toBe(recorded);
    }
  });

  it("get_weather says it is cold and ignores extra keys", async () => {
    expect((await env.request("/get_weather", { city: "Paris", unit: "C" })).body).toEqual({
      city: "Paris",
      weather_description: "The weather in Paris is cold.",
    });
    expect((await env.request("/get_weather", {})).status).toBe(422);
  });

  it("seed_session is a no-op returning {}", async () => {
    expect((await env.request("/seed_session", jsonl("./data/example.jsonl")[0])).body).toEqual({});
  });

  it("any response, even an empty one, scores 1.0 with no extra fields", async () => {
    const row = jsonl("./data/example.jsonl")[0]!;
    const result = await env.request("/verify", { ...row, response: responseWith([]) });
    expect(result.status).toBe(200);
    expect(Object.keys(result.body)).toEqual(["responses_create_params", "response", "reward"]);
    expect(result.body.reward).toBe(1.0);
  });

  it("re-verifies NeMo Gym's recorded rollouts to the same reward", async () => {
    for (const rollout of jsonl("./data/example_rollouts.jsonl")) {
      const { reward, ...request } = rollout;
      const result = await env.request("/verify", request);
      expect(result.status).toBe(200);
      expect(result.body.reward).toBe(reward);
    }
  });
});
