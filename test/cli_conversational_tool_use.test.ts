// `gym eval run` with NeMo Gym's conversational_tool_use/simulation agent config and the environment's
// config (both copied unchanged into test/fixtures/nemo_gym/) on NeMo Gym's five example rows: every
// rollout comes back scored, with each model role's usage apart, and the environment's metrics come
// through the agent. One engine double behind vllm_model plays the policy, the user simulator, the
// tool simulator and the judge.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine, type Turn } from "./doubles/fake_engine.js";
import { REPO_ROOT, runGym } from "./helpers/cli.js";

const AGENT_CONFIG = join(REPO_ROOT, "test/fixtures/nemo_gym/responses_api_agents/conversational_tool_use/simulation/configs/conversational_tool_use_simulation.yaml");
// The environment's config: both instances, and `simulator_model: {_copy: policy_model}` (the policy given by flags).
const FULL_CONFIG = join(REPO_ROOT, "test/fixtures/nemo_gym/resources_servers/conversational_tool_use_simulation/configs/conversational_tool_use_simulation.yaml");
const ROWS = join(REPO_ROOT, "src/environments/conversational_tool_use_simulation/data/example.jsonl");

/** A value a JSON schema accepts. */
function sample(schema: any): unknown {
  if (!schema || typeof schema !== "object") return "x";
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return true;
  if (type === "array") return [];
  if (type === "object" || schema.properties) return Object.fromEntries((schema.required ?? []).map((key: string) => [key, sample(schema.properties?.[key])]));
  return "x";
}

describe("gym eval run with conversational_tool_use/simulation", () => {
  let engine: FakeEngine;
  let dir: string;
  const rows = readFileSync(ROWS, "utf8").trim().split("\n").map((line) => JSON.parse(line));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gym-ctus-"));
    engine = await startFakeEngine({
      model: "fake",
      policy: (turns: Turn[]) => {
        const system = turns.find((t) => t.role === "system")?.content ?? "";
        const row = rows.find((r) => system.includes(r.policy));
        if (system.startsWith("You are a customer service agent")) {
          if (!turns.some((t) => t.role === "tool")) return { toolCalls: [{ name: row.tools[0].name, arguments: sample(row.tools[0].params) as Record<string, unknown> }] };
          return { text: "Your request is handled." };
        }
        if (system.includes("You are playing the role of a customer")) {
          return { text: turns.some((t) => t.content.startsWith("Representative:")) ? "###STOP###" : "Hello, I need help." };
        }
        if (system.includes("Your task is to generate the result of executing a tool")) {
          const name = /Tool to execute: (\S+)/.exec(turns.at(-1)!.content)?.[1];
          return { text: JSON.stringify(sample(row.tools.find((t: any) => t.name === name)?.returns ?? { type: "object" })) };
        }
        return { text: JSON.stringify({ success: true, explanation: "Fine." }) };
      },
    });
  });

  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("scores NeMo Gym's example rows through NeMo Gym's configs, unchanged, usage per role apart", async () => {
    const output = join(dir, "out.jsonl");
    const result = await runGym(
      ["eval", "run", "--config", FULL_CONFIG, "--config", AGENT_CONFIG, "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "fake", "-i", ROWS, "-o", output],
      { timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const lines = readFileSync(output, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      expect(line.agent_ref.name).toBe("conversational_tool_use_agent");
      expect(line.reward).toBe(1);
      expect(line.terminal_state).toBe("complete");
      expect(line.response.output.map((o: any) => o.type)).toEqual(["function_call", "function_call_output", "message"]);
      expect(Object.keys(line.usage_by_role)).toEqual(["policy", "user", "tool_simulator", "judge"]);
      expect(line.usage_by_role.policy.total_tokens).toBe(line.response.usage.total_tokens);
      for (const role of ["user", "tool_simulator", "judge"]) expect(line.usage_by_role[role].total_tokens).toBeGreaterThan(0);
    }
    const metrics = JSON.parse(readFileSync(join(dir, "out_aggregate_metrics.json"), "utf8"));
    const entry = metrics.find((m: any) => m.agent_ref?.name === "conversational_tool_use_agent");
    expect(entry.agent_metrics["mean/reward"]).toBe(1);
  });
});
