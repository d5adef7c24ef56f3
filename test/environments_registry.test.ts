// Every built-in environment is registered, and its configs/<id>.yaml defines the environment and its
// simple agent with fields its implementation accepts, plus example data (ARCHITECTURE §10).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import simpleAgent from "../src/agents/simple_agent.js";
import { METADATA_KEYS } from "../src/http/implementation.js";
import { builtinIds, environmentConfigPath, loadImplementation, PACKAGE_ROOT } from "../src/orchestrate/registry.js";

const withoutMetadata = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).filter(([key]) => !(METADATA_KEYS as readonly string[]).includes(key)));

describe("built-in environments", () => {
  for (const id of builtinIds("resources_servers")) {
    it(`${id}: registered, with a valid config for itself and its simple agent, and example data`, async () => {
      const implementation = await loadImplementation("resources_servers", id);
      expect(implementation.id).toBe(id);
      const config = parse(readFileSync(environmentConfigPath(id), "utf8"));
      expect(Object.keys(config)).toEqual([id, `${id}_simple_agent`]);
      implementation.configSchema.parse(withoutMetadata(config[id].resources_servers[id]));
      const agent = simpleAgent.configSchema.parse(withoutMetadata(config[`${id}_simple_agent`].responses_api_agents.simple_agent));
      expect(agent.resources_server).toEqual({ type: "resources_servers", name: id });
      const data = join(PACKAGE_ROOT, "src", "environments", id, "data", "example.jsonl");
      expect(existsSync(data)).toBe(true);
      expect(readFileSync(data, "utf8").trim().split("\n").length).toBeGreaterThanOrEqual(1);
    });
  }
});
