// Validation of instances against their implementations, with test-only implementations injected
// through the registry parameter so these tests do not depend on the real environments and models.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ServerImplementation } from "../src/http/implementation.js";
import * as builtinRegistry from "../src/orchestrate/registry.js";
import { environmentConfigPath, modelConfigPath } from "../src/orchestrate/registry.js";
import { ServerRef, type ServerType } from "../src/protocol/index.js";
import { ConfigError, resolveConfig, validateConfig, type ImplementationRegistry, type ResolveOptions } from "../src/config/index.js";

function fake(type: ServerType, id: string, configSchema: z.ZodType): ServerImplementation<any> {
  return { type, id, configSchema, build: () => Promise.reject(new Error("not used in these tests")) };
}

const IMPLS: Record<ServerType, Record<string, ServerImplementation<any>>> = {
  resources_servers: {
    example_multi_step: fake("resources_servers", "example_multi_step", z.strictObject({})),
    math_with_judge: fake(
      "resources_servers",
      "math_with_judge",
      z.strictObject({ judge_model_server: ServerRef, judge: z.strictObject({ temperature: z.number().default(0), prompt: z.string().optional() }).optional() }),
    ),
  },
  responses_api_agents: {
    simple_agent: fake(
      "responses_api_agents",
      "simple_agent",
      z.strictObject({ resources_server: ServerRef, model_server: ServerRef, max_steps: z.number().int().positive().default(10) }),
    ),
  },
  responses_api_models: {
    openai_model: fake(
      "responses_api_models",
      "openai_model",
      z.strictObject({ openai_base_url: z.string(), openai_api_key: z.string().default("dummy"), openai_model: z.string() }),
    ),
  },
};

const registry: ImplementationRegistry = {
  builtinIds: (type) => Object.keys(IMPLS[type]),
  loadImplementation: async (type, id) => {
    const impl = IMPLS[type][id];
    if (!impl) throw new Error(`no ${type} ${id}`);
    return impl;
  },
};

const GOOD = `
example_multi_step_resources_server:
  resources_servers:
    example_multi_step:
      entrypoint: app.py
      domain: agent
      description: metadata keys are accepted and stripped
example_multi_step_simple_agent:
  responses_api_agents:
    simple_agent:
      host: 127.0.0.1
      port: 0
      resources_server: {type: resources_servers, name: example_multi_step_resources_server}
      model_server: {type: responses_api_models, name: policy_model}
      datasets:
        - {name: example, type: example, jsonl_fpath: data/example.jsonl}
policy_model:
  responses_api_models:
    openai_model:
      openai_base_url: \${policy_base_url}
      openai_model: \${policy_model_name}
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gymkit-config-validate-"));
  writeFileSync(join(dir, "env.yaml"), "policy_base_url: http://127.0.0.1:9/v1\npolicy_model_name: test-model\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function resolve(files: Record<string, string>, options: Partial<ResolveOptions> = {}) {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return resolveConfig({ cwd: dir, env: {}, registry, configPaths: Object.keys(files), ...options });
}

async function configError(run: () => Promise<unknown>): Promise<ConfigError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("valid config", () => {
  it("returns each instance with validated fields, defaults and host/port", async () => {
    const { instances, config } = await resolve({ "good.yaml": GOOD });
    expect(instances.map((i) => [i.name, i.type, i.implementation, i.source])).toEqual([
      ["example_multi_step_resources_server", "resources_servers", "example_multi_step", "good.yaml"],
      ["example_multi_step_simple_agent", "responses_api_agents", "simple_agent", "good.yaml"],
      ["policy_model", "responses_api_models", "openai_model", "good.yaml"],
    ]);
    const agent = instances[1];
    expect(agent?.fields).toEqual({
      resources_server: { type: "resources_servers", name: "example_multi_step_resources_server" },
      model_server: { type: "responses_api_models", name: "policy_model" },
      max_steps: 10,
      host: "127.0.0.1",
      port: 0,
    });
    expect(instances[2]?.fields).toEqual({ openai_base_url: "http://127.0.0.1:9/v1", openai_model: "test-model", openai_api_key: "dummy" });
    expect(instances[0]?.fields).toEqual({});
    expect(config.policy_model_name).toBe("test-model");
  });

  it("accepts an implementation with no fields written (`simple_agent:` alone) when the schema allows it", async () => {
    const { instances } = await resolve({ "a.yaml": "env_only:\n  resources_servers:\n    example_multi_step:\n" });
    expect(instances).toHaveLength(1);
  });
});

describe("unrecognised field", () => {
  it("names the instance, the key, the file, and the nearest valid key", async () => {
    const typo = GOOD.replace("      host: 127.0.0.1\n", "      max_step: 5\n      host: 127.0.0.1\n");
    const error = await configError(() => resolve({ "agent.yaml": typo }));
    expect(error.problems).toHaveLength(1);
    expect(error.message).toContain("Instance `example_multi_step_simple_agent`");
    expect(error.message).toContain("unrecognised field `max_step` (from agent.yaml)");
    expect(error.message).toContain("Did you mean `max_steps`?");
  });

  it("says `command-line override` for a key added on the command line", async () => {
    const error = await configError(() =>
      resolve({ "good.yaml": GOOD }, { overrides: ["+example_multi_step_simple_agent.responses_api_agents.simple_agent.max_stpes=3"] }),
    );
    expect(error.message).toContain("(from command-line override `+example_multi_step_simple_agent.responses_api_agents.simple_agent.max_stpes=3`)");
    expect(error.message).toContain("Did you mean `max_steps`?");
  });

  it("names the file that set a key when several files merge into one instance", async () => {
    const extra = "policy_model:\n  responses_api_models:\n    openai_model:\n      openai_api_kye: secret\n";
    const error = await configError(() => resolve({ "good.yaml": GOOD, "extra.yaml": extra }));
    expect(error.message).toContain("`openai_api_kye` (from extra.yaml)");
    expect(error.message).toContain("Did you mean `openai_api_key`?");
  });

  it("names the file whose value is used, and the instance's defining file as its source", async () => {
    const later = "example_multi_step_simple_agent:\n  responses_api_agents:\n    simple_agent:\n      max_steps: lots\n";
    const withSteps = GOOD.replace("      host: 127.0.0.1\n", "      max_steps: 3\n");
    const error = await configError(() => resolve({ "good.yaml": withSteps, "later.yaml": later }));
    expect(error.message).toContain("field `max_steps` (from later.yaml) is invalid");
    // A key set by two later files is attributed to the last one.
    const middle = later.replace("lots", "5");
    const third = await configError(() => resolve({ "good.yaml": withSteps, "middle.yaml": middle, "last.yaml": later }));
    expect(third.message).toContain("field `max_steps` (from last.yaml) is invalid");
    const { instances } = await resolve({ "good.yaml": withSteps, "later.yaml": later.replace("lots", "7") });
    expect(instances[1]?.fields.max_steps).toBe(7);
    expect(instances[1]?.source).toBe("good.yaml");
  });

  it("suggests inside nested strict objects", async () => {
    const judge = `
judge_env:
  resources_servers:
    math_with_judge:
      judge_model_server: {type: responses_api_models, name: policy_model}
      judge: {temprature: 0.5}
policy_model:
  responses_api_models:
    openai_model: {openai_base_url: x, openai_model: y}
`;
    const error = await configError(() => resolve({ "judge.yaml": judge }));
    expect(error.message).toContain("unrecognised field `judge.temprature`");
    expect(error.message).toContain("Did you mean `temperature`?");
  });

  it("reports a wrong type and a missing required field", async () => {
    const bad = GOOD.replace("      host: 127.0.0.1\n", "      max_steps: many\n").replace("      openai_model: ${policy_model_name}\n", "");
    const error = await configError(() => resolve({ "bad.yaml": bad }));
    expect(error.problems).toHaveLength(2);
    expect(error.message).toMatch(/field `max_steps` \(from bad\.yaml\) is invalid: .*number/);
    expect(error.message).toContain("Instance `policy_model` (responses_api_models/openai_model) field `openai_model` (from bad.yaml) is required but missing");
  });

  it("rejects a bad port", async () => {
    const error = await configError(() => resolve({ "p.yaml": GOOD.replace("port: 0", "port: http") }));
    expect(error.message).toContain("field `port` (from p.yaml) must be a port number");
  });
});

describe("server types and implementation ids", () => {
  it("suggests the server type for a typo instead of treating the instance as a global", async () => {
    const typo = GOOD.replace("  resources_servers:\n", "  resources_server:\n");
    const error = await configError(() => resolve({ "t.yaml": typo }));
    expect(error.message).toContain("`example_multi_step_resources_server` looks like a server instance, but `resources_server` (from t.yaml) is not a server type");
    expect(error.message).toContain("Did you mean `resources_servers`?");
  });

  it("does not mistake a global mapping for an instance", async () => {
    const { instances } = await resolve({ "g.yaml": `${GOOD}\nnum_repeats: {example_multi_step_simple_agent: 4, _default: 1}\n` });
    expect(instances).toHaveLength(3);
  });

  it("names an unknown implementation id, suggests, and lists the built-in ones", async () => {
    const error = await configError(() => resolve({ "i.yaml": GOOD.replace("    example_multi_step:\n      entrypoint", "    example_mult_step:\n      entrypoint") }));
    expect(error.message).toContain("uses the resources_servers implementation `example_mult_step`, which does not exist");
    expect(error.message).toContain("Did you mean `example_multi_step`?");
    expect(error.message).toContain("Available resources_servers: `example_multi_step`, `math_with_judge`");
  });

  it("rejects an instance with two implementation ids or two server types", async () => {
    const two = "x:\n  responses_api_agents:\n    simple_agent: {}\n    other_agent: {}\ny:\n  resources_servers: {example_multi_step: {}}\n  responses_api_models: {openai_model: {}}\n";
    const error = await configError(() => resolve({ "two.yaml": two }));
    expect(error.message).toContain("Instance `x` (from two.yaml) names several implementation ids");
    expect(error.message).toContain("Instance `y` (from two.yaml) has several server types");
  });
});

describe("refs", () => {
  it("names a ref to a missing instance and the valid names", async () => {
    const error = await configError(() => resolve({ "r.yaml": GOOD.replace("name: example_multi_step_resources_server}", "name: example_multi_step_resource_server}") }));
    expect(error.message).toContain(
      "Instance `example_multi_step_simple_agent` field `resources_server` (from r.yaml) refers to resources_servers instance `example_multi_step_resource_server`, which is not defined",
    );
    expect(error.message).toContain("Did you mean `example_multi_step_resources_server`?");
    expect(error.message).toContain("Defined resources_servers instances: `example_multi_step_resources_server`");
  });

  it("names a ref of the wrong type", async () => {
    const error = await configError(() => resolve({ "w.yaml": GOOD.replace("{type: responses_api_models, name: policy_model}", "{type: resources_servers, name: policy_model}") }));
    expect(error.message).toContain("refers to `policy_model` as a resources_servers instance, but `policy_model` is a responses_api_models instance");
  });

  it("flags a ref whose type is a near-miss of a server type", async () => {
    const error = await configError(() => resolve({ "n.yaml": GOOD.replace("{type: responses_api_models, name: policy_model}", "{type: responses_api_model, name: policy_model}") }));
    expect(error.message).toContain("with type `responses_api_model`, which is not a server type. Did you mean `responses_api_models`?");
  });
});

it("collects problems from every instance into one error", async () => {
  const many = GOOD.replace("      host: 127.0.0.1\n", "      max_step: 5\n")
    .replace("    example_multi_step:\n      entrypoint", "    example_mult_step:\n      entrypoint")
    .replace("name: policy_model}", "name: policy_modle}");
  const error = await configError(() => resolve({ "m.yaml": many }));
  expect(error.problems).toHaveLength(3);
  expect(error.message).toMatch(/^The config has 3 problems:\n {2}1\. /);
});

it("validateConfig works on an already composed config (no provenance: no file names)", async () => {
  const instances = await validateConfig({ m: { responses_api_models: { openai_model: { openai_base_url: "u", openai_model: "m" } } } }, { registry });
  expect(instances[0]?.fields.openai_api_key).toBe("dummy");
  const error = await configError(() => validateConfig({ m: { responses_api_models: { openai_model: { openai_base_url: "u", openai_model: "m", extra: 1 } } } }, { registry }));
  expect(error.message).not.toContain("(from");
});

describe("with the built-in registry", () => {
  // The shipped environment and model configs must resolve and validate against the real implementations.
  const secrets = ["+policy_base_url=http://127.0.0.1:9/v1", "+policy_api_key=sk-x", "+policy_model_name=m"];

  it("resolves a built-in environment with the vllm_model config", async () => {
    const { instances } = await resolveConfig({
      cwd: dir,
      env: {},
      configPaths: [environmentConfigPath("example_multi_step"), modelConfigPath("vllm_model")],
      overrides: secrets,
      registry: builtinRegistry,
    });
    expect(instances.map((i) => `${i.name}:${i.implementation}`)).toEqual([
      "example_multi_step:example_multi_step",
      "example_multi_step_simple_agent:simple_agent",
      "policy_model:vllm_model",
    ]);
  });

  it("names a typo'd simple_agent field and suggests the real one", async () => {
    const error = await configError(() =>
      resolveConfig({
        cwd: dir,
        env: {},
        configPaths: [environmentConfigPath("example_multi_step"), modelConfigPath("openai_model")],
        overrides: [...secrets, "+example_multi_step_simple_agent.responses_api_agents.simple_agent.max_step=3"],
        registry: builtinRegistry,
      }),
    );
    expect(error.message).toContain("unrecognised field `max_step` (from command-line override");
    expect(error.message).toContain("Did you mean `max_steps`?");
  });
});

describe("NeMo Gym Python servers and servers given by url", () => {
  const python = (extra: Record<string, unknown> = {}) => ({
    py_env: { resources_servers: { py_env: { entrypoint: "app.py", anything: { nemo: "gym validates this" }, ...extra } } },
  });

  it("an id Gymkit lacks with a .py entrypoint is a Python server of the checkout; its fields are not Gymkit's to check", async () => {
    const root = join(dir, "checkout");
    mkdirSync(join(root, "resources_servers", "py_env"), { recursive: true });
    writeFileSync(join(root, "resources_servers", "py_env", "app.py"), "");
    const [instance] = await validateConfig(python({ port: "4000" }), { registry, nemoGymRoot: root });
    expect(instance).toMatchObject({ name: "py_env", implementation: "py_env", fields: { port: 4000 }, python: { root, dir: join(root, "resources_servers", "py_env"), entrypoint: "app.py" } });
    const missing = await configError(() => validateConfig(python({ entrypoint: "server.py" }), { registry, nemoGymRoot: root }));
    expect(missing.message).toContain(`the NeMo Gym server ${join(root, "resources_servers", "py_env", "server.py")} does not exist`);
    const badPort = await configError(() => validateConfig(python({ port: "http" }), { registry, nemoGymRoot: root }));
    expect(badPort.message).toContain("field `port`");
  });

  it("any server may be given by url: not validated, not started; a url that is not http://host:port is named", async () => {
    const config = { judge: { responses_api_models: { openai_model: { url: "http://10.0.0.7:8000/", openai_model: 3 } } } };
    const [instance] = await validateConfig(config, { registry });
    expect(instance).toMatchObject({ name: "judge", implementation: "openai_model", fields: {}, externalUrl: "http://10.0.0.7:8000" });
    const bad = await configError(() => validateConfig({ judge: { responses_api_models: { openai_model: { url: "10.0.0.7:8000" } } } }, { registry }));
    expect(bad.message).toContain("Instance `judge` field `url`");
    expect(bad.message).toContain("http://host:port");
  });
});
