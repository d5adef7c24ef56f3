// Nothing typed is silently ignored, and every usage error exits 2: settings keys are known, refused
// with the nearest valid one, or warned about; the argument parser's own errors exit 2. Each case
// spawns the real `gym` (dist/cli/main.js).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KNOWN_SETTINGS, NO_EFFECT_PREFIXES, NO_EFFECT_SETTINGS, UNSUPPORTED_SETTINGS } from "../src/config/settings_keys.js";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { readJsonlFile, runGym } from "./helpers/cli.js";

let engine: FakeEngine;
let dir: string;
const model = () => ["--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m"];
const resolveArgs = () => ["env", "resolve", "--resources-server", "example_multi_step", ...model()];

beforeAll(async () => {
  engine = await startFakeEngine();
  dir = mkdtempSync(join(tmpdir(), "gym-settings-"));
});
afterAll(async () => engine.close());

describe("settings keys", () => {
  it("the table gives each key exactly one treatment", () => {
    const tables = [Object.keys(KNOWN_SETTINGS), Object.keys(NO_EFFECT_SETTINGS), Object.keys(UNSUPPORTED_SETTINGS)];
    const all = tables.flat();
    expect(new Set(all).size).toBe(all.length);
    for (const [prefix] of NO_EFFECT_PREFIXES) expect(all.filter((key) => key.startsWith(prefix))).toEqual([]);
    for (const readers of Object.values(KNOWN_SETTINGS)) expect(readers.length).toBeGreaterThan(0);
    // The keys `eval run` reads today, and the two another change implements there.
    for (const key of ["input_jsonl_fpath", "num_samples_in_parallel", "num_repeats", "responses_create_params", "agent_name", "resume_from_cache", "overwrite", "prompt_config", "split", "disable_aggregation"]) {
      expect(KNOWN_SETTINGS[key]).toContain("eval run");
    }
  });

  it("refuses a mistyped key from the command line, naming it, its source and the nearest valid key", async () => {
    const result = await runGym([...resolveArgs(), "+num_repeat=3"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown setting `num_repeat` (from command-line override `+num_repeat=3`). Did you mean `num_repeats`?");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe("");
  });

  it("refuses a mistyped key from a config file, naming the file", async () => {
    const config = join(dir, "typo.yaml");
    writeFileSync(config, "output_jsonl_path: results/out.jsonl\n");
    const result = await runGym([...resolveArgs(), "--config", config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown setting `output_jsonl_path` \(from [^)]*typo\.yaml\)\. Did you mean `output_jsonl_fpath`\?/);
  });

  it("reports unknown settings together with instance problems in one run", async () => {
    const result = await runGym(["env", "resolve", "--resources-server", "example_multi_step", "+limitt=2"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("The config has 2 problems");
    expect(result.stderr).toContain("`limitt`");
    expect(result.stderr).toContain("`policy_model`");
  });

  it("accepts NeMo Gym keys that mean nothing here, with one warning line each", async () => {
    const result = await runGym([...resolveArgs(), "+wandb_project=p", "+wandb_api_key=k", "+default_host=0.0.0.0"]);
    expect(result.code).toBe(0);
    const warnings = result.stderr.split("\n").filter((l) => l.startsWith("gym: warning:"));
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain("`wandb_project` (from command-line override `+wandb_project=p`) is a NeMo Gym setting that has no effect in Gymkit");
    expect(result.stderr).toContain("`default_host`");
    expect(result.stderr).toContain("servers bind 127.0.0.1 unless an instance sets `host`");
  });

  it("refuses NeMo Gym keys whose absence would change what runs", async () => {
    const result = await runGym([...resolveArgs(), "+skip_verification=true"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("`skip_verification` (from command-line override `+skip_verification=true`) is a NeMo Gym setting Gymkit does not support");
  });

  it("accepts a key used as an interpolation variable", async () => {
    const result = await runGym([...resolveArgs(), "+my_top_k=7", "++policy_model.responses_api_models.vllm_model.extra_body={top_k: ${my_top_k}}"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("top_k: 7");
  });

  it("warns when a run setting is typed on a command that does not read it, but not when a shared config file holds it", async () => {
    const config = join(dir, "shared.yaml");
    writeFileSync(config, "input_jsonl_fpath: in.jsonl\n");
    const result = await runGym(["eval", "aggregate", "--resources-server", "example_multi_step", "--config", config, "+limit=3", "--input-glob", join(dir, "none*.jsonl"), "-o", join(dir, "merged.jsonl")]);
    expect(result.stderr).toContain("gym: warning: `limit` (from command-line override `+limit=3`) has no effect on `gym eval aggregate`; it is read by `gym eval run`, `gym eval submit`");
    expect(result.stderr).not.toContain("input_jsonl_fpath");
  });

  it("eval aggregate refuses overrides when there is no config for them to apply to", async () => {
    const result = await runGym(["eval", "aggregate", "+limit=3", "--input-glob", join(dir, "none*.jsonl"), "-o", join(dir, "merged.jsonl")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("gym: error: +limit=3: overrides apply to a config, and none is given; add --config FILE, --resources-server ID, --benchmark NAME or +config_paths=[...] (to recompute the environments' metrics), or drop them\n");
  });

  it("eval run refuses a typo before touching any file", async () => {
    const input = join(dir, "input.jsonl");
    const text = `${JSON.stringify({ responses_create_params: { input: "hi" } })}\n`;
    writeFileSync(input, text);
    const output = join(dir, "out.jsonl");
    const result = await runGym(["eval", "run", "--resources-server", "example_multi_step", ...model(), "-i", input, "-o", output, "+num_repeat=2"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Did you mean `num_repeats`?");
    expect(readFileSync(input, "utf8")).toBe(text);
    expect(readJsonlFile(output)).toEqual([]);
    expect(engine.requests).toHaveLength(0);
  });
});

describe("the argument parser's own errors exit 2", () => {
  const cases: Array<[string, string[], RegExp]> = [
    ["unknown option, with a suggestion", ["eval", "run", "--concurency", "3"], /unknown option '--concurency'[\s\S]*Did you mean --concurrency\?/],
    ["unknown command, with a suggestion", ["evl", "run"], /unknown command 'evl'[\s\S]*Did you mean eval\?/],
    ["unknown subcommand", ["env", "statsu"], /unknown command 'statsu'[\s\S]*Did you mean status\?/],
    ["missing required option", ["eval", "profile"], /required option '--rollouts <path>' not specified/],
    ["missing argument", ["env", "init"], /missing required argument 'id'/],
    ["option missing its value", ["eval", "reverify", "--rollouts"], /option '--rollouts <path>' argument missing/],
    ["too many arguments", ["view", "--rollouts", "x", "extra"], /too many arguments/],
    ["no command", ["sandbox"], /Usage: gym sandbox/],
  ];
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const result = await runGym(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    });
  }

  it("explicit --help and --version still exit 0", async () => {
    expect((await runGym(["eval", "run", "--help"])).code).toBe(0);
    const version = await runGym(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe("0.1.0");
  });
});
