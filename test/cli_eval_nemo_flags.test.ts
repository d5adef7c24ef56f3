// NeMo Gym's `gym eval run` flags and keys, through the real `gym` against real servers and the fake
// engine: --prompt-config / +prompt_config builds each row's input from a template, --split / split
// takes the input from the agents' datasets of that type, --disable-aggregation / disable_aggregation
// skips the environments' /aggregate_metrics.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { readJsonlFile, REPO_ROOT, runGym } from "./helpers/cli.js";

let engine: FakeEngine;
let dir: string;

const WEATHER_TOOL = { type: "function", name: "get_weather", description: "", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
const jsonl = (rows: unknown[]) => rows.map((row) => `${JSON.stringify(row)}\n`).join("");

beforeAll(async () => {
  engine = await startFakeEngine();
  dir = mkdtempSync(join(tmpdir(), "gym-nemo-flags-"));
});
afterAll(async () => engine.close());
beforeEach(() => {
  engine.requests.length = 0;
});

const model = () => ["--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m"];
const weatherRun = (args: string[]) => runGym(["eval", "run", "--resources-server", "example_single_tool_call", ...model(), "--quiet", ...args], { cwd: dir, timeoutMs: 120_000 });
const chatMessages = () => engine.requests.filter((r) => r.path === "/v1/chat/completions").map((r) => r.body.messages as Array<{ role: string; content: string }>);

describe("--prompt-config / +prompt_config", () => {
  const rows = [
    { city_name: "sf", tags: ["fog", "hills"], responses_create_params: { tools: [WEATHER_TOOL], temperature: 0.3 } },
    { city_name: "nyc", tags: [], responses_create_params: { tools: [WEATHER_TOOL] } },
  ];

  it("builds each row's input from the templates, keeping its other parameters", async () => {
    const input = join(dir, "raw.jsonl");
    writeFileSync(input, jsonl(rows));
    const prompt = join(dir, "prompt.yaml");
    writeFileSync(prompt, 'system: "You answer about the weather. Tags: {tags}"\nuser: "What is it like in {city_name}? Answer in {{braces}}."\n');
    const output = join(dir, "prompted.jsonl");
    const before = readFileSync(input, "utf8");
    const result = await weatherRun(["-i", input, "-o", output, "--prompt-config", prompt]);
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(readJsonlFile(output).map((row) => row.reward)).toEqual([1, 1]);
    const firstTurns = chatMessages().filter((messages) => messages.length === 2);
    expect(firstTurns).toContainEqual([
      { role: "system", content: "You answer about the weather. Tags: ['fog', 'hills']" },
      { role: "user", content: "What is it like in sf? Answer in {braces}." },
    ]);
    expect(firstTurns).toContainEqual([
      { role: "system", content: "You answer about the weather. Tags: []" },
      { role: "user", content: "What is it like in nyc? Answer in {braces}." },
    ]);
    const sfRequest = engine.requests.find((r) => JSON.stringify(r.body.messages).includes("in sf?"));
    expect(sfRequest?.body.temperature).toBe(0.3);
    // The plan holds the built inputs; the user's file is untouched.
    const plan = readJsonlFile(join(dir, "prompted_materialized_inputs.jsonl"));
    expect(plan[0]!.responses_create_params.input[1]).toEqual({ role: "user", content: "What is it like in sf? Answer in {braces}." });
    expect(readFileSync(input, "utf8")).toBe(before);
  });

  it("is read from the config key too", async () => {
    const input = join(dir, "raw_key.jsonl");
    writeFileSync(input, jsonl(rows.slice(0, 1)));
    const prompt = join(dir, "user_only.yaml");
    writeFileSync(prompt, "user: 'Weather for {city_name}'\n");
    const result = await weatherRun(["-i", input, "-o", join(dir, "prompted_key.jsonl"), `+prompt_config=${prompt}`]);
    expect(result.code).toBe(0);
    expect(chatMessages()[0]).toEqual([{ role: "user", content: "Weather for sf" }]);
  });

  it("refuses rows that already have an input, naming the line, before any rollout", async () => {
    const input = join(dir, "has_input.jsonl");
    writeFileSync(input, jsonl([rows[0], { city_name: "la", responses_create_params: { input: "hi", tools: [WEATHER_TOOL] } }]));
    const prompt = join(dir, "p.yaml");
    writeFileSync(prompt, "user: '{city_name}'\n");
    const result = await weatherRun(["-i", input, "-o", join(dir, "conflict.jsonl"), "--prompt-config", prompt]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/has_input\.jsonl:2.*already has responses_create_params\.input/);
    expect(engine.requests.filter((r) => r.path !== "/v1/models")).toHaveLength(0);
  });

  it("names a placeholder the row lacks, and a malformed or missing prompt file", async () => {
    const input = join(dir, "raw2.jsonl");
    writeFileSync(input, jsonl(rows));
    const prompt = join(dir, "missing_field.yaml");
    writeFileSync(prompt, "user: 'Weather for {town}'\n");
    const missingField = await weatherRun(["-i", input, "-o", join(dir, "x.jsonl"), "--prompt-config", prompt]);
    expect(missingField.code).toBe(2);
    expect(missingField.stderr).toContain("references the field `town`, but the row only has fields: city_name, tags, responses_create_params");

    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "user: 'Weather for {city_name!r}'\nassistant: 'x'\n");
    const unknownKey = await weatherRun(["-i", input, "-o", join(dir, "x.jsonl"), "--prompt-config", bad]);
    expect(unknownKey.code).toBe(2);
    expect(unknownKey.stderr).toContain("unknown key(s) `assistant`");

    const absent = await weatherRun(["-i", input, "-o", join(dir, "x.jsonl"), "--prompt-config", join(dir, "nope.yaml")]);
    expect(absent.code).toBe(2);
    expect(absent.stderr).toContain("nope.yaml: no such file");
  });
});

describe("--split / split", () => {
  let project: string;
  beforeAll(() => {
    project = join(dir, "project");
    mkdirSync(join(project, "data"), { recursive: true });
    writeFileSync(join(project, "data", "train.jsonl"), jsonl([1, 2, 3].map((i) => ({ responses_create_params: { input: `train ${i} in sf`, tools: [WEATHER_TOOL] } }))));
    writeFileSync(join(project, "data", "validation.jsonl"), jsonl([1, 2].map((i) => ({ responses_create_params: { input: `validation ${i} in sf`, tools: [WEATHER_TOOL] } }))));
    writeFileSync(
      join(project, "datasets.yaml"),
      [
        "example_single_tool_call_simple_agent:",
        "  responses_api_agents:",
        "    simple_agent:",
        "      datasets:",
        "        - {name: weather_train, type: train, jsonl_fpath: data/train.jsonl, license: MIT}",
        "        - {name: weather_validation, type: validation, jsonl_fpath: data/validation.jsonl, license: MIT}",
        "        - {name: weather_missing, type: benchmark, jsonl_fpath: data/not_downloaded.jsonl}",
        "",
      ].join("\n"),
    );
  });
  const splitRun = (args: string[]) =>
    // NeMo Gym's path of the built-in environment config first, so datasets.yaml's `datasets:` (a list, replaced whole) wins.
    runGym(["eval", "run", "--config", "resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml", "--config", "datasets.yaml", ...model(), "--quiet", ...args], {
      cwd: project,
      timeoutMs: 120_000,
    });

  it("runs the agents' datasets of that type, stamped with their agent", async () => {
    const before = readFileSync(join(project, "data", "validation.jsonl"), "utf8");
    const result = await splitRun(["--split", "validation", "-o", "results/val.jsonl"]);
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("--split validation: 2 rows");
    const rows = readJsonlFile(join(project, "results", "val.jsonl"));
    expect(rows).toHaveLength(2);
    const collated = readJsonlFile(join(project, "results", "val", "preprocessed_datasets", "validation.jsonl"));
    expect(collated.map((row) => row.responses_create_params.input)).toEqual(["validation 1 in sf", "validation 2 in sf"]);
    expect(collated.every((row) => row.agent_ref.name === "example_single_tool_call_simple_agent")).toBe(true);
    const users = chatMessages().map((messages) => messages.find((m) => m.role === "user")?.content);
    expect(users.filter((u) => u?.startsWith("train"))).toEqual([]);
    expect(new Set(users)).toEqual(new Set(["validation 1 in sf", "validation 2 in sf"]));
    expect(readFileSync(join(project, "data", "validation.jsonl"), "utf8")).toBe(before);
  });

  it("is read from the config key too", async () => {
    const result = await splitRun(["+split=train", "-o", "results/train.jsonl"]);
    expect(result.code).toBe(0);
    expect(readJsonlFile(join(project, "results", "train.jsonl"))).toHaveLength(3);

    // --dry-run collates into a scratch file: the plan is printed, nothing of the run is written.
    const dry = await splitRun(["+split=train", "--dry-run", "-o", "results/dry.jsonl"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("3 tasks, 3 rollouts");
    expect(existsSync(join(project, "results", "dry"))).toBe(false);
    expect(existsSync(join(project, "results", "dry.jsonl"))).toBe(false);
  });

  it("applies a benchmark dataset's own prompt_config", async () => {
    writeFileSync(join(project, "data", "bench.jsonl"), jsonl([{ city: "oslo", responses_create_params: { tools: [WEATHER_TOOL] } }]));
    writeFileSync(join(project, "bench_prompt.yaml"), "user: 'Weather in {city}?'\n");
    writeFileSync(
      join(project, "bench.yaml"),
      "example_single_tool_call_simple_agent:\n  responses_api_agents:\n    simple_agent:\n      datasets:\n        - {name: weather_bench, type: benchmark, jsonl_fpath: data/bench.jsonl, prompt_config: bench_prompt.yaml, prepare_script: prepare.py}\n",
    );
    const result = await runGym(
      ["eval", "run", "--config", "resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml", "--config", "bench.yaml", ...model(), "--quiet", "--split", "benchmark", "-o", "results/bench.jsonl"],
      { cwd: project, timeoutMs: 120_000 },
    );
    expect(result.code).toBe(0);
    expect(readJsonlFile(join(project, "results", "bench.jsonl")).map((row) => row.reward)).toEqual([1]);
    expect(chatMessages()[0]).toEqual([{ role: "user", content: "Weather in oslo?" }]);
  });

  it("refuses a dataset file that is not there, a bad split, and an input named as well", async () => {
    const missing = await splitRun(["--split", "benchmark", "-o", "results/b.jsonl"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("dataset `weather_missing` of agent `example_single_tool_call_simple_agent` has no file at");
    expect(missing.stderr).toContain("not_downloaded.jsonl");

    const bad = await splitRun(["--split", "test", "-o", "results/b.jsonl"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("must be one of train, validation, benchmark");

    const both = await splitRun(["--split", "train", "-i", "data/train.jsonl", "-o", "results/b.jsonl"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--split train and --input both name the input");
    expect(engine.requests.filter((r) => r.path !== "/v1/models")).toHaveLength(0);
  });
});

describe("--disable-aggregation / disable_aggregation", () => {
  // An environment of the user's own whose /aggregate_metrics leaves a trace, so the call is observable.
  let config: string;
  let trace: string;
  beforeAll(() => {
    const folder = join(dir, "counted");
    mkdirSync(folder, { recursive: true });
    trace = join(folder, "aggregate_calls.log");
    writeFileSync(
      join(folder, "counted.mjs"),
      `import { appendFileSync } from "node:fs";
import { defineEnvironment } from ${JSON.stringify(join(REPO_ROOT, "dist", "index.js"))};
export default defineEnvironment({
  id: "counted",
  description: "rewards 1; records each /aggregate_metrics call",
  verify: () => ({ reward: 1 }),
  aggregateMetrics: (responses, ctx) => {
    appendFileSync(${JSON.stringify(trace)}, responses.length + "\\n");
    return ctx.defaults(responses);
  },
});
`,
    );
    config = join(folder, "counted.yaml");
    writeFileSync(
      config,
      "counted:\n  resources_servers:\n    counted:\n      entrypoint: counted.mjs\ncounted_agent:\n  responses_api_agents:\n    simple_agent:\n      resources_server: {type: resources_servers, name: counted}\n      model_server: {type: responses_api_models, name: policy_model}\n",
    );
    writeFileSync(join(folder, "input.jsonl"), jsonl([{ responses_create_params: { input: "hello" } }, { responses_create_params: { input: "again" } }]));
  });
  const countedRun = (output: string, extra: string[]) =>
    runGym(["eval", "run", "--config", config, ...model(), "--agent", "counted_agent", "-i", join(dir, "counted", "input.jsonl"), "-o", output, "--num-repeats", "2", "--quiet", ...extra], { cwd: dir, timeoutMs: 120_000 });
  const calls = () => (existsSync(trace) ? readFileSync(trace, "utf8").split("\n").filter(Boolean).length : 0);

  it("calls /aggregate_metrics by default", async () => {
    const before = calls();
    const result = await countedRun(join(dir, "agg_on.jsonl"), []);
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(calls()).toBeGreaterThan(before);
  });

  for (const how of [["--disable-aggregation"], ["+disable_aggregation=true"]]) {
    it(`skips it with ${how[0]}, still writing the rollouts and the collector's statistics`, async () => {
      const before = calls();
      const output = join(dir, `agg_off_${how[0]!.replace(/\W/g, "")}.jsonl`);
      const result = await countedRun(output, how);
      expect(result.code).toBe(0);
      expect(calls()).toBe(before);
      expect(result.stderr).toContain("disable_aggregation: the environments' /aggregate_metrics was not called");
      expect(readJsonlFile(output)).toHaveLength(4);
      const metrics = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<{ agent_metrics: Record<string, number> }>;
      expect(metrics[0]!.agent_metrics["mean/reward"]).toBe(1);
    });
  }

  it("refuses a value that is not a boolean", async () => {
    const result = await countedRun(join(dir, "agg_bad.jsonl"), ["+disable_aggregation=sometimes"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--disable-aggregation must be true or false, got "sometimes"');
  });
});
