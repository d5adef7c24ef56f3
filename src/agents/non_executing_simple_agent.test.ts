// non_executing_simple_agent against real servers: one model call per rollout, the tool call it
// makes is verified as made (never executed, no second model call), and metrics come from the
// environment. The engine double stands in for the model only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine } from "../../test/doubles/fake_engine.js";
import structuredOutputs from "../environments/structured_outputs/index.js";
import { startInstance, type RunningInstance } from "../environment_kit/testing.js";
import agent from "./non_executing_simple_agent.js";

const SCHEMA = JSON.stringify({ type: "object", properties: { city: { type: "string" } } });

describe("non_executing_simple_agent", () => {
  let engine: FakeEngine;
  let env: RunningInstance;
  let runner: RunningInstance;
  beforeAll(async () => {
    engine = await startFakeEngine({ policy: (turns) => ({ toolCalls: [{ name: "submit", arguments: JSON.stringify({ city: turns.at(-1)!.content }) }] }) });
    env = await startInstance(structuredOutputs);
    runner = await startInstance(agent, {
      name: "so_agent",
      config: { resources_server: { type: "resources_servers", name: "structured_outputs" }, model_server: { type: "responses_api_models", name: "policy_model" } },
      servers: { structured_outputs: env.url, policy_model: engine.url },
    });
  });
  afterAll(async () => {
    await Promise.all([runner.close(), env.close(), engine.close()]);
  });

  const row = (input: unknown) => ({
    responses_create_params: { input, tools: [{ type: "function", name: "submit", parameters: { type: "object" } }] },
    schema_str: SCHEMA,
    response_mode: "tool_call",
    tool_name: "submit",
  });

  it("/run: one model call, the call verified unexecuted", async () => {
    const before = engine.requests.length;
    const result = await runner.request("/run", row([{ role: "user", content: "Paris" }]));
    expect(result.status, result.text).toBe(200);
    expect(result.body.reward).toBe(1);
    expect(result.body.response.output.map((o: any) => o.type)).toEqual(["function_call"]);
    expect(engine.requests.length - before).toBe(1);
  });

  it("/run: a string input becomes one user message", async () => {
    const result = await runner.request("/run", row("Rome"));
    expect(result.status, result.text).toBe(200);
    expect(result.body.reward).toBe(1);
    const sent = engine.requests.at(-1)!.body.input as Array<Record<string, unknown>>;
    expect(sent).toEqual([{ role: "user", content: "Rome", type: "message" }]);
  });

  it("/v1/responses returns the model's response as it is; /aggregate_metrics is the environment's", async () => {
    const result = await runner.request("/v1/responses", { input: [{ role: "user", content: "Oslo" }] });
    expect(result.status, result.text).toBe(200);
    expect(result.body.output[0].type).toBe("function_call");
    const metrics = await runner.request("/aggregate_metrics", { verify_responses: [{ reward: 1, schema_type: "json", response_mode: "tool_call" }] });
    expect(metrics.status, metrics.text).toBe(200);
    expect(metrics.body.agent_metrics["mean/reward_response_mode_tool_call"]).toBe(1);
  });
});
