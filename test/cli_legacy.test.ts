// NeMo Gym's legacy entry points (`ng_*`, `nemo_gym_*`) as Gymkit bins: each re-enters `gym` with
// NeMo Gym's mapped command and the user's `+key=value` arguments, after a one-line deprecation
// notice; a name whose command Gymkit lacks fails with one line naming it. Real servers, the fake engine.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { legacyNames, LEGACY_COMMANDS } from "../src/cli/legacy_commands.js";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { headUrlIn, readJsonlFile, REPO_ROOT, runGym, stopChild, waitForOutput, type GymResult } from "./helpers/cli.js";

const LEGACY = join(REPO_ROOT, "dist", "cli", "legacy.js");

/** Runs `script` with node (the legacy shim, or a link to it named like a bin). */
function runNode(script: string, args: string[], cwd: string): Promise<GymResult> {
  const child = spawn(process.execPath, [script, ...args], { cwd, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const legacy = (name: string, args: string[], cwd: string) => runNode(LEGACY, [name, ...args], cwd);

let engine: FakeEngine;
let dir: string;

beforeAll(async () => {
  engine = await startFakeEngine();
  dir = mkdtempSync(join(tmpdir(), "gym-legacy-"));
});
afterAll(async () => engine.close());

// NeMo Gym's own idiom: built-in paths under +config_paths, the policy as settings keys.
const nemoGymConfig = () => [
  "+config_paths=[resources_servers/example_multi_step/configs/example_multi_step.yaml,responses_api_models/openai_model/configs/openai_model.yaml]",
  `+policy_base_url=${engine.baseUrl}`,
  "+policy_model_name=m",
];
const INPUT = join(REPO_ROOT, "src", "environments", "example_multi_step", "data", "example.jsonl");

describe("the bins", () => {
  it("package.json installs gym plus every ng_* name and its nemo_gym_* twin, all through the shim", () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
    expect(pkg.bin.gym).toBe("dist/cli/main.js");
    const { gym: _gym, ...rest } = pkg.bin;
    expect(Object.keys(rest).sort()).toEqual(legacyNames().sort());
    expect(new Set(Object.values(rest))).toEqual(new Set(["dist/cli/legacy.js"]));
    // NeMo Gym 07d6b0d's [project.scripts] has 26 deprecated commands (52 names).
    expect(Object.keys(LEGACY_COMMANDS)).toHaveLength(26);
    expect(rest).toHaveProperty("ng_collect_rollouts");
    expect(rest).toHaveProperty("nemo_gym_e2e_collect_rollouts");
  });

  it("a bin finds its name from its own file name", async () => {
    const bin = join(dir, "bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync(LEGACY, join(bin, "nemo_gym_version"));
    const result = await runNode(join(bin, "nemo_gym_version"), [], dir);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("0.1.0");
    expect(result.stderr).toBe("gym: `nemo_gym_version` is deprecated; use `gym --version` instead\n");
  });
});

describe("mapped commands", () => {
  it("ng_dump_config prints what `gym env resolve` prints for the same arguments", async () => {
    const viaLegacy = await legacy("ng_dump_config", nemoGymConfig(), dir);
    const viaGym = await runGym(["env", "resolve", ...nemoGymConfig()], { cwd: dir });
    expect(viaGym.code).toBe(0);
    expect(viaLegacy.code).toBe(0);
    expect(viaLegacy.stdout).toBe(viaGym.stdout);
    expect(viaLegacy.stdout).toContain("example_multi_step_simple_agent");
    expect(viaLegacy.stderr).toBe("gym: `ng_dump_config` is deprecated; use `gym env resolve` instead\n");
  });

  it("ng_e2e_collect_rollouts collects with +key=value arguments; ng_reward_profile and ng_aggregate_rollouts read its output", async () => {
    const output = join(dir, "rollouts", "out.jsonl");
    const run = await legacy("ng_e2e_collect_rollouts", [...nemoGymConfig(), `+input_jsonl_fpath=${INPUT}`, `+output_jsonl_fpath=${output}`, "+agent_name=example_multi_step_simple_agent", "+num_repeats=2", "+limit=2"], dir);
    expect(run.stderr.split("\n")[0]).toBe("gym: `ng_e2e_collect_rollouts` is deprecated; use `gym eval run` instead");
    expect(run.stderr.split("\n").filter((line) => line.includes("error"))).toEqual([]);
    expect(run.code).toBe(0);
    const rows = readJsonlFile(output);
    expect(rows).toHaveLength(4);
    expect(rows.every((row) => row.reward === 1)).toBe(true);

    const profile = join(dir, "profile.jsonl");
    const profiled = await legacy("ng_reward_profile", [`+rollouts_jsonl_fpath=${output}`, `+output_jsonl_fpath=${profile}`, "+materialized_inputs_jsonl_fpath=unused.jsonl"], dir);
    expect(profiled.code).toBe(0);
    expect(profiled.stdout).toContain("2 tasks, 4 rollouts");
    expect(profiled.stderr).toContain("`+materialized_inputs_jsonl_fpath=unused.jsonl` is not needed by `gym eval profile`");
    expect(readJsonlFile(profile)).toHaveLength(2);

    const merged = join(dir, "merged.jsonl");
    const aggregated = await legacy("nemo_gym_aggregate_rollouts", [`+input_glob=${join(dir, "rollouts", "out*.jsonl")}`, `+output_jsonl_fpath=${merged}`], dir);
    expect(aggregated.stderr).toContain("use `gym eval aggregate` instead");
    expect(aggregated.code).toBe(0);
    expect(readJsonlFile(merged)).toHaveLength(4);
  });

  it("ng_run starts the servers, ng_status lists them, ng_collect_rollouts collects against them (--no-serve)", async () => {
    const server = spawn(process.execPath, [LEGACY, "ng_run", ...nemoGymConfig(), "--head-port", "0"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    try {
      const headUrl = headUrlIn(await waitForOutput(server, (text) => text.includes("head server:"), 120_000));
      const status = await legacy("ng_status", ["--head-url", headUrl], dir);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain("example_multi_step_simple_agent");
      expect(status.stderr).toBe("gym: `ng_status` is deprecated; use `gym env status` instead\n");

      const output = join(dir, "no_serve.jsonl");
      const before = engine.requests.length;
      const collected = await legacy("ng_collect_rollouts", ["--head-url", headUrl, "+agent_name=example_multi_step_simple_agent", `+input_jsonl_fpath=${INPUT}`, `+output_jsonl_fpath=${output}`, "+limit=1"], dir);
      expect(collected.stderr.split("\n")[0]).toBe("gym: `ng_collect_rollouts` is deprecated; use `gym eval run --no-serve` instead");
      expect(collected.code).toBe(0);
      expect(readJsonlFile(output).map((row) => row.reward)).toEqual([1]);
      expect(engine.requests.length).toBeGreaterThan(before);
    } finally {
      await stopChild(server);
    }
  });

  it("ng_init_resources_server scaffolds the server its +entrypoint names", async () => {
    const result = await legacy("ng_init_resources_server", ["+entrypoint=resources_servers/my_weather"], dir);
    expect(result.code).toBe(0);
    expect(existsSync(join(dir, "resources_servers", "my_weather", "configs", "my_weather.yaml"))).toBe(true);
  });

  it("typos in the passed-through keys are refused like gym's own", async () => {
    const result = await legacy("ng_dump_config", [...nemoGymConfig(), "+num_repeat=2"], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Did you mean `num_repeats`?");
  });
});

describe("names Gymkit has no command for", () => {
  for (const [name, command] of [
    ["ng_test", "gym env test"],
    ["nemo_gym_list_benchmarks", "gym list benchmarks"],
    ["ng_materialize_prompts", "gym dataset render"],
    ["ng_pip_list", "gym env packages"],
  ]) {
    it(`${name} fails with one line naming \`${command}\``, async () => {
      const result = await legacy(name!, ["+entrypoint=x"], dir);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(`gym: error: \`${name}\` is NeMo Gym's \`${command}\`, which Gymkit does not have (run \`gym --help\` for the commands it has)\n`);
    });
  }

  it("ng_reinstall says what to do instead; an unknown name is a usage error", async () => {
    const reinstall = await legacy("ng_reinstall", [], dir);
    expect(reinstall.code).toBe(2);
    expect(reinstall.stderr).toContain("npm install gymkit");
    const unknown = await legacy("ng_launch_rockets", [], dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("`ng_launch_rockets`: not a NeMo Gym legacy command");
  });
});
