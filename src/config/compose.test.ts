// Composition: config_paths (nested, later wins, cycles), env.yaml, Hydra overrides and flags,
// malformed YAML. Validation and redaction have their own files.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, composeConfig, parseOverride, parseOverrideValue, type ComposeOptions } from "./index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gymkit-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

function compose(options: ComposeOptions = {}) {
  return composeConfig({ cwd: dir, env: {}, ...options }).config;
}

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("config_paths", () => {
  it("follows nested config_paths, relative to the naming file, and later sources win", () => {
    write({
      "base/common.yaml": "shared: from_common\nonly_common: 1\nnested: {a: 1, b: 1}\n",
      "base/model.yaml": "config_paths: [common.yaml]\nshared: from_model\nnested: {b: 2}\n",
      "top.yaml": "config_paths: [base/model.yaml]\nnested: {c: 3}\n",
      "last.yaml": "shared: from_last\n",
    });
    const config = compose({ configPaths: ["top.yaml", "last.yaml"] });
    expect(config.shared).toBe("from_last");
    expect(config.only_common).toBe(1);
    // Mappings merge key by key across files.
    expect(config.nested).toEqual({ a: 1, b: 2, c: 3 });
    // The includer wins over what it includes.
    const noLast = compose({ configPaths: ["top.yaml"] });
    expect(noLast.shared).toBe("from_model");
    expect(config.config_paths).toEqual(["top.yaml", "last.yaml"]);
  });

  it("falls back to the working directory for a nested path not found beside the file", () => {
    write({ "sub/a.yaml": "config_paths: [shared.yaml]\n", "shared.yaml": "found: yes_it_is\n" });
    expect(compose({ configPaths: ["sub/a.yaml"] }).found).toBe("yes_it_is");
  });

  it("replaces lists instead of concatenating them", () => {
    write({ "a.yaml": "items: [1, 2, 3]\n", "b.yaml": "items: [9]\n" });
    expect(compose({ configPaths: ["a.yaml", "b.yaml"] }).items).toEqual([9]);
  });

  it("detects a cycle and names the files in it", () => {
    write({ "a.yaml": "config_paths: [b.yaml]\n", "b.yaml": "config_paths: [c.yaml]\n", "c.yaml": "config_paths: [a.yaml]\n" });
    const error = configError(() => compose({ configPaths: ["a.yaml"] }));
    expect(error.message).toMatch(/cycle: a\.yaml → b\.yaml → c\.yaml → a\.yaml/);
  });

  it("names a missing file and the file that lists it", () => {
    write({ "a.yaml": "config_paths: [nope.yaml]\n" });
    const error = configError(() => compose({ configPaths: ["a.yaml"] }));
    expect(error.message).toContain("`nope.yaml` (named in a.yaml) does not exist");
  });

  it("maps a NeMo Gym repo config path to a built-in config", () => {
    write({ "builtin/vllm.yaml": "from_builtin: true\n" });
    const config = compose({
      configPaths: ["responses_api_models/vllm_model/configs/vllm_model.yaml"],
      builtinConfig: (path) => (path.includes("vllm_model") ? join(dir, "builtin/vllm.yaml") : undefined),
    });
    expect(config.from_builtin).toBe(true);
  });
});

describe("defaults and replaced instances", () => {
  it("defaults sit below every source", () => {
    write({ "a.yaml": "policy_model_name: m\n" });
    const options = { configPaths: ["a.yaml"], defaults: { policy_api_key: "dummy", policy_model_name: "default" } };
    expect(compose(options)).toMatchObject({ policy_api_key: "dummy", policy_model_name: "m" });
    expect(compose({ ...options, overrides: ["policy_api_key=real"] }).policy_api_key).toBe("real");
  });

  it("replaceInstances swaps an instance wholesale; env.yaml and overrides still apply on top", () => {
    write({
      "a.yaml": "policy_model:\n  responses_api_models:\n    openai_model: {openai_base_url: u}\nother: kept\n",
      "vllm.yaml": "policy_model:\n  responses_api_models:\n    vllm_model: {base_url: v, model: m}\nignored_global: 1\n",
    });
    const config = compose({
      configPaths: ["a.yaml"],
      replaceInstances: { policy_model: "vllm.yaml" },
      overrides: ["policy_model.responses_api_models.vllm_model.model=n"],
    });
    expect(config.policy_model).toEqual({ responses_api_models: { vllm_model: { base_url: "v", model: "n" } } });
    expect(config.other).toBe("kept");
    expect(config.ignored_global).toBeUndefined();
  });

  it("replaceInstances fails when the file does not define the instance", () => {
    write({ "a.yaml": "x: 1\n" });
    expect(configError(() => compose({ replaceInstances: { policy_model: "a.yaml" } })).message).toContain(
      "a.yaml was given to replace the instance `policy_model`, but it does not define `policy_model`",
    );
  });
});

describe("malformed YAML", () => {
  it("names the file and the line", () => {
    write({ "bad.yaml": "ok: 1\nalso_ok: 2\nbroken: [1, 2\nafter: 3\n" });
    const error = configError(() => compose({ configPaths: ["bad.yaml"] }));
    expect(error.message).toMatch(/Could not parse YAML in bad\.yaml at line \d+, column \d+/);
    expect(error.message).toMatch(/line (3|4)\b/);
  });

  it("rejects a duplicate key with its line", () => {
    write({ "dup.yaml": "a: 1\nb: 2\na: 3\n" });
    expect(configError(() => compose({ configPaths: ["dup.yaml"] })).message).toMatch(/dup\.yaml at line 3/);
  });

  it("rejects a file whose top level is not a mapping", () => {
    write({ "list.yaml": "- a\n- b\n" });
    expect(configError(() => compose({ configPaths: ["list.yaml"] })).message).toContain("list.yaml must hold a mapping");
  });
});

describe("env.yaml", () => {
  it("overrides config files and is overridden by the command line", () => {
    write({
      "a.yaml": "policy_model_name: from_file\npolicy_base_url: from_file\npolicy_api_key: from_file\n",
      "env.yaml": "policy_model_name: from_env\npolicy_base_url: from_env\n",
    });
    const config = compose({ configPaths: ["a.yaml"], overrides: ["+policy_model_name=from_cli"] });
    expect(config).toMatchObject({ policy_model_name: "from_cli", policy_base_url: "from_env", policy_api_key: "from_file" });
  });

  it("supplies config_paths unless the command line names files", () => {
    write({ "env.yaml": "config_paths: [e.yaml]\n", "e.yaml": "which: env_listed\n", "c.yaml": "which: cli_listed\n" });
    expect(compose().which).toBe("env_listed");
    const fromCli = compose({ configPaths: ["c.yaml"] });
    expect(fromCli.which).toBe("cli_listed");
    expect(fromCli.config_paths).toEqual(["c.yaml"]);
  });

  it("can be skipped", () => {
    write({ "env.yaml": "secret_thing: x\n" });
    expect(compose({ envYaml: false }).secret_thing).toBeUndefined();
  });
});

describe("overrides", () => {
  beforeEach(() => write({ "a.yaml": "top: 1\nnested: {deep: {x: 1, y: 2}}\nname: old\n" }));
  const base = { configPaths: ["a.yaml"] };

  it("key=value overrides an existing key, with a typed value", () => {
    expect(compose({ ...base, overrides: ["top=42"] }).top).toBe(42);
  });

  it("key=value on a missing key fails with a suggestion and the + hint", () => {
    const error = configError(() => compose({ ...base, overrides: ["nested.deep.xx=5"] }));
    expect(error.message).toContain("`nested.deep.xx`, which is not in the config");
    expect(error.message).toContain("Did you mean `nested.deep.x`?");
    expect(error.message).toContain("write `+nested.deep.xx=...`");
  });

  it("+key=value adds a key, and also sets an existing one as NeMo Gym does", () => {
    const config = compose({ ...base, overrides: ["+added=yes", "+name=new"] });
    expect(config).toMatchObject({ added: "yes", name: "new" });
  });

  it("++key=value adds or overrides, along dotted paths", () => {
    const config = compose({ ...base, overrides: ["++nested.deep.y=3", "++nested.other.z=true"] });
    expect(config.nested).toEqual({ deep: { x: 1, y: 3 }, other: { z: true } });
  });

  it("a mapping value merges into an existing mapping", () => {
    expect(compose({ ...base, overrides: ["++nested={deep: {z: 9}}"] }).nested).toEqual({ deep: { x: 1, y: 2, z: 9 } });
  });

  it("~key deletes", () => {
    expect(compose({ ...base, overrides: ["~nested.deep.x"] }).nested).toEqual({ deep: { y: 2 } });
  });

  it("parses YAML flow values the way Hydra does", () => {
    const config = compose({ ...base, overrides: ["+num_repeats={a: 32, _default: 1}", "+tight={a:32}", "+list=[1, two, 3.5]", "+url=http://127.0.0.1:8000/v1", "+empty=", "+nothing=null", "+quoted='007'"] });
    expect(config).toMatchObject({
      num_repeats: { a: 32, _default: 1 },
      tight: { a: 32 },
      list: [1, "two", 3.5],
      url: "http://127.0.0.1:8000/v1",
      empty: "",
      nothing: null,
      quoted: "007",
    });
  });

  it("+config_paths=[...] loads those files", () => {
    write({ "b.yaml": "from_b: 1\nname: b\n", "c.yaml": "from_c: 1\nname: c\n" });
    const config = compose({ overrides: ["+config_paths=[b.yaml,c.yaml]"] });
    expect(config).toMatchObject({ from_b: 1, from_c: 1, name: "c", config_paths: ["b.yaml", "c.yaml"] });
    // --config files come first, then the override's list.
    expect(compose({ configPaths: ["c.yaml"], overrides: ["+config_paths=[b.yaml]"] }).name).toBe("b");
  });

  it("structured flags apply after Hydra overrides", () => {
    const config = compose({ ...base, overrides: ["+policy_base_url=from_hydra"], flags: [{ path: ["policy_base_url"], value: "from_flag", flag: "--model-url" }] });
    expect(config.policy_base_url).toBe("from_flag");
  });

  it("reports every malformed override together", () => {
    const error = configError(() => compose({ ...base, overrides: ["noequals", "+x=[1,2", "ok=1"] }));
    expect(error.problems).toHaveLength(2);
    expect(error.message).toContain("`noequals`");
    expect(error.message).toContain("`+x=[1,2`");
  });

  it("parseOverride reads prefix, path and value", () => {
    expect(parseOverride("++a.b.c=[x, {k: v}]")).toMatchObject({ mode: "force", path: ["a", "b", "c"], value: ["x", { k: "v" }] });
    expect(parseOverride("+a=1")).toMatchObject({ mode: "add", value: 1 });
    expect(parseOverride("a=b=c")).toMatchObject({ mode: "override", value: "b=c" });
    expect(parseOverrideValue("[${a.b},${oc.env:X,1}]")).toEqual(["${a.b}", "${oc.env:X,1}"]);
    expect(parseOverrideValue("true")).toBe(true);
    expect(parseOverrideValue("1e3")).toBe(1000);
    expect(parseOverrideValue('"quoted, with comma"')).toBe("quoted, with comma");
  });
});

describe("interpolation", () => {
  it("resolves whole values with their type and embedded ones as text, after every source merged", () => {
    write({
      "a.yaml": [
        "policy_base_url: http://file",
        "port_number: 8000",
        "settings: {a: 1}",
        "model:",
        "  url: ${policy_base_url}",
        "  port: ${port_number}",
        "  copy: ${settings}",
        "  label: 'port ${port_number} at ${model.url}'",
        "  escaped: \\${not_me}",
        "  first: ${list[0]}",
        "  sibling: ${.url}",
        "list: [x, y]",
      ].join("\n"),
      "env.yaml": "policy_base_url: http://env\n",
    });
    const config = compose({ configPaths: ["a.yaml"] });
    expect(config.model).toEqual({
      url: "http://env",
      port: 8000,
      copy: { a: 1 },
      label: "port 8000 at http://env",
      escaped: "${not_me}",
      first: "x",
      sibling: "http://env",
    });
  });

  it("reads environment variables, with defaults", () => {
    write({ "a.yaml": "a: ${oc.env:GYM_TEST_VAR}\nb: ${oc.env:GYM_UNSET,fallback}\nc: ${oc.env:GYM_UNSET,null}\n" });
    expect(compose({ configPaths: ["a.yaml"], env: { GYM_TEST_VAR: "set" } })).toMatchObject({ a: "set", b: "fallback", c: null });
    expect(configError(() => compose({ configPaths: ["a.yaml"] })).message).toContain("environment variable `GYM_TEST_VAR`");
  });

  it("a missing key names the key, the field, the file, and the nearest key", () => {
    write({
      "models.yaml": "policy_model:\n  responses_api_models:\n    openai_model:\n      openai_base_url: ${policy_base_ur}\n",
      "env.yaml": "policy_base_url: http://x\n",
    });
    const error = configError(() => compose({ configPaths: ["models.yaml"] }));
    expect(error.message).toContain("`${policy_base_ur}`");
    expect(error.message).toContain("field `policy_model.responses_api_models.openai_model.openai_base_url`");
    expect(error.message).toContain("(from models.yaml)");
    expect(error.message).toContain("refers to `policy_base_ur`, which is not set");
    expect(error.message).toContain("Did you mean `policy_base_url`?");
  });

  it("reports every missing key together, and cycles", () => {
    write({ "a.yaml": "x: ${nope_one}\ny: ${nope_two}\nl1: ${l2}\nl2: ${l1}\n" });
    const error = configError(() => compose({ configPaths: ["a.yaml"] }));
    expect(error.problems).toHaveLength(3);
    expect(error.message).toContain("Interpolation cycle: `l1` → `l2` → `l1` (from a.yaml)");
  });

  it("an interpolation set by an override names the override as the source", () => {
    write({ "a.yaml": "a: 1\n" });
    const error = configError(() => compose({ configPaths: ["a.yaml"], overrides: ["+b=${missing}"] }));
    expect(error.message).toContain("(from command-line override `+b=${missing}`)");
  });
});
