// The README's main command, offline: the quickstart config replays the shipped recording.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runGym } from "./helpers/cli.js";

describe("gym eval run --config examples/quickstart.yaml", () => {
  it("runs the four example environments from the recording, exits 0 and prints the key metrics", async () => {
    const output = join(mkdtempSync(join(tmpdir(), "gym-quickstart-")), "quickstart.jsonl");
    const result = await runGym(["eval", "run", "--config", "examples/quickstart.yaml", "--output", output]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("20/20 rollouts succeeded, 0 failed");
    expect(result.stdout).toMatch(/example_multi_step_simple_agent\n\s+mean\/reward\s+1\n/);
    expect(result.stdout).toContain(`browse:   gym view --rollouts ${output}\n`);
    const rows = readFileSync(output, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { reward: number; agent_ref: { name: string } });
    expect(rows).toHaveLength(20);
    const byAgent = new Map<string, number[]>();
    for (const row of rows) byAgent.set(row.agent_ref.name, [...(byAgent.get(row.agent_ref.name) ?? []), row.reward]);
    expect(Object.fromEntries(byAgent)).toEqual({
      example_single_tool_call_simple_agent: [1, 1, 1, 1, 1],
      example_multi_step_simple_agent: [1, 1, 1, 1, 1],
      example_session_state_mgmt_simple_agent: [1, 1, 1, 1, 1],
      example_tool_call_multireward_simple_agent: [2, 2, 2, 2, 2],
    });
    const metrics = JSON.parse(readFileSync(output.replace(".jsonl", "_aggregate_metrics.json"), "utf8")) as Array<{ agent_ref: { name: string } }>;
    expect(metrics.map((m) => m.agent_ref.name).sort()).toEqual([...byAgent.keys()].sort());
  });

  it("`gym env resolve` prints the merged config with the four environments and the replay model", async () => {
    const result = await runGym(["env", "resolve", "--config", "examples/quickstart.yaml", "+policy_api_key=sk-secret-123"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("replay_model:");
    expect(result.stdout).toContain("example_multi_step_simple_agent:");
    expect(result.stdout).not.toContain("sk-secret-123");
  });
});

describe("the gym bin", () => {
  it("is executable as installed (npx runs the file itself, not through node)", async () => {
    const { execFileSync } = await import("node:child_process");
    const { GYM } = await import("./helpers/cli.js");
    const help = execFileSync(GYM, ["--help"], { encoding: "utf8" });
    expect(help).toContain("Usage: gym");
  });
});
