// Every built-in environment is registered, and its configs/<id>.yaml defines the environment and its
// simple agent with fields its implementation accepts, plus example data (ARCHITECTURE §10). Each is a
// self-contained folder, so adding one touches nothing outside it but its registry line.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { METADATA_KEYS } from "../src/http/implementation.js";
import { builtinIds as allBuiltinIds, environmentConfigPath, loadImplementation, PACKAGE_ROOT, PROTOCOL_DRIVERS } from "../src/orchestrate/registry.js";

// The environments: every resources-server id but the adapters to other protocols' servers (src/protocols/drive/).
const builtinIds = (type: "resources_servers") => allBuiltinIds(type).filter((id) => !PROTOCOL_DRIVERS.has(id));

const withoutMetadata = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).filter(([key]) => !(METADATA_KEYS as readonly string[]).includes(key)));

describe("built-in environments", () => {
  for (const id of builtinIds("resources_servers")) {
    it(`${id}: registered, with a valid config for itself and its simple agent, and example data`, async () => {
      const implementation = await loadImplementation("resources_servers", id);
      expect(implementation.id).toBe(id);
      const config = parse(readFileSync(environmentConfigPath(id), "utf8"));
      // The environment, then its agent (`<id>` and `<id>_simple_agent`, unless NeMo Gym's example
      // rows name NeMo Gym's own instances, such as equivalence_rule's `lc_…`). Only where the rows
      // name several agents (jailbreak_detection's per-policy agents) are there more, each playing it.
      // Model instances a config defines beside them (conversational_tool_use_simulation's
      // `simulator_model`) are neither.
      const [instance, ...agentNames] = Object.keys(config).filter((key, i) => i === 0 || config[key]?.responses_api_agents !== undefined);
      expect(agentNames.length).toBeGreaterThanOrEqual(1);
      implementation.configSchema.parse(withoutMetadata(config[instance!].resources_servers[id]));
      for (const agentName of agentNames) {
        const [agentType, agentConfig] = Object.entries(config[agentName].responses_api_agents)[0]!;
        const agentImplementation = await loadImplementation("responses_api_agents", agentType);
        const agent = agentImplementation.configSchema.parse(withoutMetadata(agentConfig as Record<string, unknown>)) as { resources_server: unknown };
        expect(agent.resources_server).toEqual({ type: "resources_servers", name: instance });
      }
      // The example rows run with this config: any agent they name is one of its agents.
      const named = new Set(readFileSync(join(PACKAGE_ROOT, "src", "environments", id, "data", "example.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line).agent_ref?.name).filter(Boolean));
      expect([...named].filter((name) => !agentNames.includes(name))).toEqual([]);
      if (named.size <= 1) expect(agentNames).toHaveLength(1);
      const data = join(PACKAGE_ROOT, "src", "environments", id, "data", "example.jsonl");
      expect(existsSync(data)).toBe(true);
      expect(readFileSync(data, "utf8").trim().split("\n").length).toBeGreaterThanOrEqual(1);
    });
  }
});

/** What every environment folder holds, as NeMo Gym's resources_servers/<id>/ do, plus its own test. */
const FOLDER_SHAPE = (id: string) => ["index.ts", `configs/${id}.yaml`, "data/example.jsonl", "data/example_rollouts.jsonl", "README.md", `${id}.test.ts`];

describe("environment folders", () => {
  for (const id of builtinIds("resources_servers")) {
    it(`${id}: holds its definition, config, example rows and rollouts, README and test`, () => {
      const folder = join(PACKAGE_ROOT, "src", "environments", id);
      const missing = FOLDER_SHAPE(id).filter((file) => !existsSync(join(folder, file)));
      expect(missing).toEqual([]);
      const rollouts = readFileSync(join(folder, "data", "example_rollouts.jsonl"), "utf8").trim().split("\n");
      expect(rollouts.every((line) => typeof JSON.parse(line).reward === "number")).toBe(true);
      // The README names the NeMo Gym id it matches and says how to run it.
      const readme = readFileSync(join(folder, "README.md"), "utf8");
      expect(readme).toContain(`--resources-server ${id}`);
    });
  }

  it("every folder under src/environments is a registered environment (nothing else lives there)", () => {
    const folders = readdirSync(join(PACKAGE_ROOT, "src", "environments"), { withFileTypes: true });
    expect(folders.filter((entry) => !entry.isDirectory()).map((entry) => entry.name)).toEqual([]);
    expect(folders.map((entry) => entry.name).sort()).toEqual(builtinIds("resources_servers").sort());
  });
});

describe("the README's table of NeMo Gym's catalog", () => {
  it("lists NeMo Gym's 113 resources servers once each, and marks native exactly the registered ones", () => {
    const readme = readFileSync(join(PACKAGE_ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## NeMo Gym's catalog"), readme.indexOf("## NeMo Gym interop"));
    const rows = [...section.matchAll(/^\| `([a-z0-9_]+)` \| (.+?) \| (.+) \|$/gm)].map(([, id, kind, how]) => ({ id: id!, native: kind!.startsWith("[native]"), how: how! }));
    expect(rows).toHaveLength(113);
    expect(new Set(rows.map((r) => r.id)).size).toBe(113);
    // Gymkit's own python_tool is not one of NeMo Gym's servers.
    const registered = builtinIds("resources_servers").filter((id) => id !== "python_tool");
    expect(rows.filter((r) => r.native).map((r) => r.id).sort()).toEqual([...registered].sort());
    for (const row of rows) expect(row.how).toContain(row.native ? `--resources-server ${row.id}` : `resources_servers/${row.id}/configs/`);
  });
});
