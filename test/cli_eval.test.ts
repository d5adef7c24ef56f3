// End to end through the built `gym` binary: real servers on 127.0.0.1, the fake engine standing in
// for OpenAI / vLLM, and the real NeMo Gym example files (test/fixtures/nemo-gym-examples) as input.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { runGym, NEMO_GYM_EXAMPLES, readJsonlFile } from "./helpers/cli.js";

const readJsonl = readJsonlFile;

let engine: FakeEngine;
let dir: string;

beforeAll(async () => {
  engine = await startFakeEngine();
  dir = mkdtempSync(join(tmpdir(), "gym-cli-eval-"));
});
afterAll(async () => engine.close());

const EXPECTED: Record<string, (row: Record<string, any>) => void> = {
  example_single_tool_call: (row) => expect(row.reward).toBe(1),
  example_multi_step: (row) => {
    expect(row.reward).toBe(1);
    expect(row.accuracy).toBe(true);
    // The row's expected values are read by /verify, not echoed into the line (NeMo Gym's model declares only what it computed).
    expect(row.parsed_synonym_values).toEqual([711, 407]);
    expect(row).not.toHaveProperty("expected_synonym_values");
  },
  example_session_state_mgmt: (row) => expect(row.reward).toBe(1),
  // simple_agent only stops on an assistant message, so format is always 0 (spec §4, derived).
  example_tool_call_multireward: (row) => {
    expect(row.reward_components).toEqual({ correctness: 1, schema_valid: 1, format: 0 });
    expect(row.reward).toBe(2);
  },
};

describe("gym eval run on every NeMo Gym example file", () => {
  for (const modelType of ["openai_model", "vllm_model"]) {
    for (const [env, check] of Object.entries(EXPECTED)) {
      it(`${env} through ${modelType}`, async () => {
        const output = join(dir, `${env}_${modelType}.jsonl`);
        const result = await runGym([
          "eval",
          "run",
          "--resources-server",
          env,
          "--model-type",
          modelType,
          "--model-url",
          engine.baseUrl,
          "--model",
          "fake-model",
          "-i",
          join(NEMO_GYM_EXAMPLES, env, "example.jsonl"),
          "-o",
          output,
          "--num-repeats",
          "2",
          "--quiet",
        ]);
        expect(result.stderr).not.toMatch(/error/i);
        expect(result.code).toBe(0);
        const rows = readJsonl(output);
        expect(rows).toHaveLength(10);
        expect(rows.map((r) => `${r._ng_task_index}:${r._ng_rollout_index}`).sort()).toEqual(
          [0, 1, 2, 3, 4].flatMap((t) => [`${t}:0`, `${t}:1`]).sort(),
        );
        for (const row of rows) {
          expect(row.agent_ref).toEqual({ type: "responses_api_agents", name: `${env}_simple_agent` });
          check(row);
        }
        const metrics = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8"));
        expect(metrics).toHaveLength(1);
        expect(metrics[0].agent_metrics["mean/reward"]).toBe(rows[0]!.reward);
        expect(metrics[0].group_level_metrics).toHaveLength(5);
        expect(readJsonl(output.replace(/\.jsonl$/, "_materialized_inputs.jsonl"))).toHaveLength(10);
        expect(result.stdout).toContain("mean/reward");
      });
    }
  }
});

describe("gym eval run: bad input fails with one clear paragraph and a non-zero exit", () => {
  const base = () => ["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "--quiet"];

  it("a malformed JSONL line names the file and line", async () => {
    const input = join(dir, "malformed.jsonl");
    const good = readFileSync(join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl"), "utf8").split("\n")[0];
    writeFileSync(input, `${good}\n${good}\n{"responses_create_params": {"input": "x"\n`);
    const result = await runGym([...base(), "-i", input, "-o", join(dir, "m_out.jsonl")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${input}:3: not valid JSON`);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("a bad GYM_HEAP_GROWING_PERCENT is named before anything runs", async () => {
    const result = await runGym([...base(), "-i", "in.jsonl", "-o", join(dir, "h_out.jsonl")], { env: { GYM_HEAP_GROWING_PERCENT: "1.5x" } });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('gym: error: GYM_HEAP_GROWING_PERCENT must be a whole number ≥ 0 (0 = V8\'s default), not "1.5x"');
  });

  it("an unknown agent is named with the agents that exist", async () => {
    const input = join(dir, "ghost.jsonl");
    writeFileSync(input, `${JSON.stringify({ responses_create_params: { input: "hi" }, agent_ref: { type: "responses_api_agents", name: "ghost_agent" } })}\n`);
    const result = await runGym([...base(), "-i", input, "-o", join(dir, "g_out.jsonl")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown agent "ghost_agent"');
    expect(result.stderr).toContain("example_single_tool_call_simple_agent");
    expect(existsSync(join(dir, "g_out.jsonl"))).toBe(false);
  });

  it("a typo'd config key names the key and the file and suggests the right one", async () => {
    const config = join(dir, "typo.yaml");
    writeFileSync(
      config,
      [
        "my_agent:",
        "  responses_api_agents:",
        "    simple_agent:",
        "      resources_server: {type: resources_servers, name: example_single_tool_call}",
        "      model_server: {type: responses_api_models, name: policy_model}",
        "      max_step: 3",
      ].join("\n"),
    );
    const result = await runGym([...base(), "--config", config, "-i", "x.jsonl", "-o", join(dir, "t_out.jsonl")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("max_step");
    expect(result.stderr).toContain("max_steps");
    expect(result.stderr).toContain(config);
  });

  it("an unreachable model fails fast naming its URL", async () => {
    const input = join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl");
    const deadUrl = "http://127.0.0.1:9/v1";
    const output = join(dir, "u_out.jsonl");
    const result = await runGym(["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", deadUrl, "--model", "m", "--model-ready-timeout", "2", "-i", input, "-o", output, "--quiet"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(deadUrl);
    // Fast means stopped by the start-up check after its 2 s, before any rollout was tried (and
    // retried): said by what failed and what was not written, not by a wall-clock bound.
    expect(result.stderr).toContain("did not answer within 2 s");
    expect(existsSync(output)).toBe(false);
  });
});
