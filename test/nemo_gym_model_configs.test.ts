// NeMo Gym's own model config files (copied from 07d6b0d into test/fixtures/nemo_gym, paths kept) load
// in Gymkit as they are, inside what looks like a NeMo Gym checkout, and their fields take effect:
// headers and sampling overrides reach the engine, reasoning items are dropped from the input when asked.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { readJsonlFile, REPO_ROOT, runGym } from "./helpers/cli.js";

const CHECKOUT = join(REPO_ROOT, "test", "fixtures", "nemo_gym");
const VLLM = "responses_api_models/vllm_model/configs/vllm_model.yaml";
const OPENAI = "responses_api_models/openai_model/configs/openai_model.yaml";
const INPUT = join(REPO_ROOT, "src", "environments", "example_multi_step", "data", "example.jsonl");

let engine: FakeEngine;
let dir: string;

beforeAll(async () => {
  engine = await startFakeEngine();
  dir = mkdtempSync(join(tmpdir(), "gym-nemo-models-"));
});
afterAll(async () => engine.close());
beforeEach(() => {
  engine.requests.length = 0;
});

const modelFlags = () => ["--model-url", engine.baseUrl, "--model", "served-model"];
const run = (config: string, output: string, extra: string[], env: NodeJS.ProcessEnv = {}) =>
  runGym(["eval", "run", "--config", config, "--resources-server", "example_multi_step", ...modelFlags(), "-i", INPUT, "-o", output, "--limit", "2", "--quiet", ...extra], {
    cwd: CHECKOUT,
    env,
    timeoutMs: 120_000,
  });

describe("NeMo Gym's vllm_model.yaml", () => {
  it("resolves, warning once about the field that has no effect here", async () => {
    const result = await runGym(["env", "resolve", "--config", VLLM, ...modelFlags()], { cwd: CHECKOUT });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("sampling_overrides: null");
    const warnings = result.stderr.split("\n").filter(Boolean);
    expect(warnings).toEqual([expect.stringMatching(/^gym: warning: Instance `policy_model` \(responses_api_models\/vllm_model\) field `uses_interleaved_reasoning` \(from responses_api_models\/vllm_model\/configs\/vllm_model\.yaml\) has no effect in Gymkit/)]);
  });

  it("hides credentials in default_headers when printing the config", async () => {
    const result = await runGym(["env", "resolve", "--config", VLLM, ...modelFlags(), "++policy_model.responses_api_models.vllm_model.default_headers={Authorization: Bearer s3cret, X-Api-Key: k3y, X-Team-Tag: rl}"], { cwd: CHECKOUT });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/s3cret|k3y/);
    expect(result.stdout).toContain("X-Team-Tag: rl");
  });

  it("runs rollouts whose every engine request carries default_headers and sampling_overrides", async () => {
    const output = join(dir, "vllm.jsonl");
    const result = await run(VLLM, output, [
      "++policy_model.responses_api_models.vllm_model.default_headers={X-Team-Tag: rl-42}",
      "++policy_model.responses_api_models.vllm_model.sampling_overrides={temperature: 0.25, top_p: 0.5}",
      "--temperature",
      "0.9",
    ]);
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(readJsonlFile(output).map((row) => row.reward)).toEqual([1, 1]);
    const chats = engine.requests.filter((r) => r.path === "/v1/chat/completions");
    expect(chats.length).toBeGreaterThanOrEqual(4);
    for (const request of chats) {
      expect(request.headers["x-team-tag"]).toBe("rl-42");
      expect(request.headers.authorization).toBe("Bearer dummy");
      // The pin wins over what the caller (here --temperature) sent.
      expect(request.body.temperature).toBe(0.25);
      expect(request.body.top_p).toBe(0.5);
    }
  });

  it("without overrides, sends the caller's sampling and no extra header", async () => {
    const output = join(dir, "vllm_plain.jsonl");
    const result = await run(VLLM, output, ["--temperature", "0.9"]);
    expect(result.code).toBe(0);
    const chats = engine.requests.filter((r) => r.path === "/v1/chat/completions");
    expect(chats.length).toBeGreaterThan(0);
    for (const request of chats) {
      expect(request.body.temperature).toBe(0.9);
      expect(request.headers["x-team-tag"]).toBeUndefined();
    }
  });
});

describe("NeMo Gym's openai_model.yaml", () => {
  it("resolves without a warning", async () => {
    const result = await runGym(["env", "resolve", "--config", OPENAI, ...modelFlags()], { cwd: CHECKOUT });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("openai_default_headers: {}");
  });

  const reasoningItems = () =>
    engine.requests
      .filter((r) => r.path === "/v1/responses")
      .flatMap((r) => (Array.isArray(r.body.input) ? (r.body.input as Array<{ type?: string }>) : []))
      .filter((item) => item.type === "reasoning").length;

  it("drops input reasoning items when POLICY_DROP_REASONING_ITEMS=true, and sends openai_default_headers", async () => {
    const output = join(dir, "openai_drop.jsonl");
    const result = await run(OPENAI, output, ["++policy_model.responses_api_models.openai_model.openai_default_headers={X-Team-Tag: rl-7}"], { POLICY_DROP_REASONING_ITEMS: "true" });
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(readJsonlFile(output).map((row) => row.reward)).toEqual([1, 1]);
    const calls = engine.requests.filter((r) => r.path === "/v1/responses");
    // Later turns echo the model's reasoning back; none of it reached the engine.
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(reasoningItems()).toBe(0);
    for (const request of calls) expect(request.headers["x-team-tag"]).toBe("rl-7");
  });

  it("keeps input reasoning items by default (the file's `false`)", async () => {
    const output = join(dir, "openai_keep.jsonl");
    const result = await run(OPENAI, output, [], { POLICY_DROP_REASONING_ITEMS: undefined });
    expect(result.code).toBe(0);
    expect(reasoningItems()).toBeGreaterThan(0);
  });
});
