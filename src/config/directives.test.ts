// NeMo Gym's `_copy` / `_inherit_from` / `_delete_key` directives through the real composition
// (files, env.yaml-free, command-line overrides), as NVIDIA-NeMo/Gym 07d6b0d global_config.py applies them.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, composeConfig } from "./index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gymkit-directives-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function compose(yaml: string, overrides: string[] = []) {
  writeFileSync(join(dir, "c.yaml"), yaml);
  return composeConfig({ cwd: dir, env: {}, envYaml: false, configPaths: ["c.yaml"], overrides }).config;
}

function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

const POLICY = "policy_model:\n  responses_api_models:\n    vllm_model: {base_url: http://a/v1, model: m, temperature: 0.5}\n";

describe("_copy", () => {
  it("copies an instance and keeps the source (conversational_tool_use_simulation's simulator_model)", () => {
    const config = compose(`${POLICY}simulator_model:\n  _copy: policy_model\n`);
    expect(config.simulator_model).toEqual(config.policy_model);
    expect(config.policy_model).toBeDefined();
    // A copy, not an alias.
    (config.simulator_model as any).responses_api_models.vllm_model.model = "other";
    expect((config.policy_model as any).responses_api_models.vllm_model.model).toBe("m");
  });

  it("merges the directive's sibling keys on top, sees command-line overrides of the source, and has a string form", () => {
    const config = compose(
      `${POLICY}judge:\n  _copy: policy_model\n  responses_api_models:\n    vllm_model: {temperature: 0.0}\nrate: 3\nalso: \${copy:rate}\n`,
      ["policy_model.responses_api_models.vllm_model.model=from_cli"],
    );
    expect((config.judge as any).responses_api_models.vllm_model).toEqual({ base_url: "http://a/v1", model: "from_cli", temperature: 0 });
    expect(config.also).toBe(3);
  });

  it("names a missing source with a suggestion and where the directive was written", () => {
    const message = errorOf(() => compose(`${POLICY}simulator_model:\n  _copy: policy_modle\n`));
    expect(message).toContain("simulator_model: _copy: policy_modle is not in the config");
    expect(message).toContain("Did you mean `policy_model`?");
    expect(message).toContain("c.yaml");
  });
});

describe("_inherit_from", () => {
  it("takes the source over: the heir gets it with overrides, the source is gone (aime25's benchmark config shape)", () => {
    const config = compose(
      "math:\n  resources_servers:\n    math_with_judge: {judge: false}\n" +
        "agent:\n  responses_api_agents:\n    simple_agent: {resources_server: {name: math}, max_steps: 1}\n" +
        "bench_math:\n  _inherit_from: math\n" +
        "bench_agent:\n  _inherit_from: agent\n  responses_api_agents:\n    simple_agent:\n      resources_server: {name: bench_math}\n",
    );
    expect(config.math).toBeUndefined();
    expect(config.agent).toBeUndefined();
    expect(config.bench_math).toEqual({ resources_servers: { math_with_judge: { judge: false } } });
    expect(config.bench_agent).toEqual({ responses_api_agents: { simple_agent: { resources_server: { name: "bench_math" }, max_steps: 1 } } });
  });

  it("the string form inherits a leaf and removes it", () => {
    const config = compose("grpo: {num_prompts_per_step: 8}\nsteps: ${inherit_from:grpo.num_prompts_per_step}\n");
    expect(config.steps).toBe(8);
    expect(config.grpo).toEqual({});
  });
});

describe("_delete_key", () => {
  it("drops keys from a copied block, and refuses a key that is not there", () => {
    const config = compose(`${POLICY}judge:\n  _copy: policy_model.responses_api_models.vllm_model\n  _delete_key: temperature, base_url\n`);
    expect(config.judge).toEqual({ model: "m" });
    const message = errorOf(() => compose(`${POLICY}judge:\n  _copy: policy_model.responses_api_models.vllm_model\n  _delete_key: temprature\n`));
    expect(message).toContain('_delete_key names "temprature"');
  });
});
