// The four example environments as the registry and their configs present them. Each one's behaviour
// (the cases of the NeMo Gym examples spec, nemo-gym-examples/README.md §1–4) is tested beside it, in
// src/environments/<id>/<id>.test.ts.
import { existsSync, readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import simpleAgent from "../src/agents/simple_agent.js";
import { METADATA_KEYS } from "../src/http/implementation.js";
import { environmentConfigPath, loadImplementation, PACKAGE_ROOT } from "../src/orchestrate/registry.js";

function exampleRows(id: string): Array<Record<string, any>> {
  const text = readFileSync(new URL(`../src/environments/${id}/data/example.jsonl`, import.meta.url), "utf8");
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

const IDS = ["example_single_tool_call", "example_multi_step", "example_session_state_mgmt", "example_tool_call_multireward"];

describe("registry and configs", () => {
  it("finds every example environment by id", async () => {
    for (const id of IDS) {
      const implementation = await loadImplementation("resources_servers", id);
      expect(implementation.id).toBe(id);
      expect(implementation.type).toBe("resources_servers");
    }
  });

  it("each config defines the environment and its simple agent, as NeMo Gym's do", () => {
    const withoutMetadata = (fields: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(fields).filter(([key]) => !(METADATA_KEYS as readonly string[]).includes(key)));
    for (const id of IDS) {
      const config = parseYaml(readFileSync(environmentConfigPath(id), "utf8"));
      expect(Object.keys(config)).toEqual([id, `${id}_simple_agent`]);
      expect(Object.keys(config[id].resources_servers)).toEqual([id]);
      const agentFields = config[`${id}_simple_agent`].responses_api_agents.simple_agent;
      const parsed = simpleAgent.configSchema.parse(withoutMetadata(agentFields));
      expect(parsed.resources_server).toEqual({ type: "resources_servers", name: id });
      expect(parsed.model_server).toEqual({ type: "responses_api_models", name: "policy_model" });
      expect(existsSync(`${PACKAGE_ROOT}/${agentFields.datasets[0].jsonl_fpath}`)).toBe(true);
      expect(exampleRows(id)).toHaveLength(5);
    }
  });
});
