// arc_agi over HTTP and through the CLI: the grid-reading rules on our own cases (with traps that
// must not be rewarded), NeMo Gym's recorded rollouts re-verified by `gym eval reverify`, NeMo Gym's
// own config run unchanged from a NeMo Gym-shaped checkout, and the default metrics of that run.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import arcAgi from "./index.js";
import { parseGrid } from "./grid.js";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import { runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";

const rows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const GOLD = [[1, 2], [3, 4]];

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(arcAgi);
});
afterAll(() => env.close());

async function verify(output: Array<Record<string, unknown>>, expected: unknown = GOLD) {
  const body = { responses_create_params: { input: "solve" }, expected_output: expected, task_id: "t", response: responseWith(output) };
  const result = await env.request("/verify", body);
  expect(result.status, result.text).toBe(200);
  return result.body as { reward: number; predicted_output: unknown; extraction_successful: boolean } & Record<string, unknown>;
}

describe("reading the grid", () => {
  const cases: Array<[string, unknown, number]> = [
    ["\\boxed{[[1,2],[3,4]]}", GOLD, 1],
    ["Answer:\n$$\\boxed{[ [1, 2],\n [3, 4] ]}$$", GOLD, 1],
    ["no box, just [[1, 2], [3, 4]] at the end", GOLD, 1],
    // A boxed grid wins over an earlier bare one.
    ["draft [[9,9],[9,9]] then \\boxed{[[1,2],[3,4]]}", GOLD, 1],
    // Without a box, the first bare grid counts (a later right one does not help): trap.
    ["first [[4,3],[2,1]] then [[1,2],[3,4]]", [[4, 3], [2, 1]], 0],
    // The first box that parses counts: a malformed box is skipped.
    ["\\boxed{[[1,,2]]} \\boxed{[[1,2],[3,4]]}", GOLD, 1],
    // Leading zeros are not JSON: that box is skipped, the next one read.
    ["\\boxed{[[01,2],[3,4]]} \\boxed{[[1,2],[3,5]]}", [[1, 2], [3, 5]], 0],
    // Rows of different lengths are still a grid (only the first row must be non-empty).
    ["\\boxed{[[1,2],[]]}", [[1, 2], []], 0],
    ["\\boxed{[[],[1]]}", null, 0],
    // Nested deeper: cells must be integers.
    ["\\boxed{[[[1],[2]]]}", null, 0],
    // Trailing bracket makes the JSON invalid; nothing else to read.
    ["\\boxed{[[1,2],[3,4]]]}", null, 0],
    // Whitespace inside numbers is removed before parsing, as NeMo Gym does: "1 2" reads as 12.
    ["\\boxed{[[1 2],[3,4]]}", [[12], [3, 4]], 0],
    // Unicode digits match the pattern (Python \\d) but are not JSON numbers: skipped, no grid.
    ["\\boxed{[[١,2],[3,4]]}", null, 0],
    // Python whitespace (U+3000) is removed too.
    ["\\boxed{[[1,\u30002],[3,4]]}", GOLD, 1],
    ["The grid is 1 2 / 3 4.", null, 0],
    ["\\boxed{1,2,3,4}", null, 0],
    // Transposed, right shape: trap.
    ["\\boxed{[[1,3],[2,4]]}", [[1, 3], [2, 4]], 0],
    // A prefix of the right grid: trap.
    ["\\boxed{[[1,2]]}", [[1, 2]], 0],
    // Negative numbers are not in the pattern; the bare scan finds nothing either.
    ["\\boxed{[[-1,2],[3,4]]}", null, 0],
  ];
  for (const [text, predicted, reward] of cases) {
    it(`${JSON.stringify(text).slice(0, 60)} → ${JSON.stringify(predicted)}, ${reward}`, async () => {
      const result = await verify([assistantMessage(text)]);
      expect(result.predicted_output).toEqual(predicted);
      expect(result.extraction_successful).toBe(predicted !== null);
      expect(result.reward).toBe(reward);
    });
  }

  it("an integer beyond double precision is compared exactly, not rounded into a match", () => {
    const grid = parseGrid("\\boxed{[[9007199254740993]]}");
    expect(grid).not.toBeNull();
    expect(grid![0]![0]).not.toBe(9007199254740992);
  });

  it("joins assistant messages with a newline (so a grid split across two messages still reads)", async () => {
    const result = await verify([assistantMessage("\\boxed{[[1,2],"), { type: "reasoning", summary: [] }, assistantMessage("[3,4]]}")]);
    expect(result).toMatchObject({ reward: 1, extraction_successful: true });
  });

  it("ignores text outside assistant messages (reasoning, user-role messages)", async () => {
    const result = await verify([
      { type: "reasoning", summary: [{ type: "summary_text", text: "\\boxed{[[1,2],[3,4]]}" }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "\\boxed{[[1,2],[3,4]]}" }] },
    ]);
    expect(result).toMatchObject({ reward: 0, extraction_successful: false, predicted_output: null });
  });

  it("answers NeMo Gym's ARCAGIVerifyResponse fields, in its order", async () => {
    const body = await verify([assistantMessage("\\boxed{[[1,2],[3,4]]}")]);
    expect(Object.keys(body)).toEqual(["responses_create_params", "response", "reward", "expected_output", "predicted_output", "extraction_successful"]);
  });

  it("an empty expected grid is never matched (a grid needs a non-empty first row)", async () => {
    expect((await verify([assistantMessage("\\boxed{[[]]}")], [])).reward).toBe(0);
  });

  it("rejects a non-integer expected cell with 422", async () => {
    const result = await env.request("/verify", { responses_create_params: { input: "q" }, expected_output: [[1.5]], response: responseWith([]) });
    expect(result.status).toBe(422);
  });

  it("says verification is stateless", async () => {
    expect((await env.request("/reverify_mode")).body).toBe("stateless");
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl, 07d6b0d)", () => {
  it("re-verify to the recorded rewards with `gym eval reverify`", async () => {
    const { result, recorded, reverified, rows: out } = await reverifyRecorded("arc_agi", ["--resources-server", "arc_agi"]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(recorded).toEqual([1, 1, 1, 1, 1]);
    expect(reverified).toEqual(recorded);
    const recordings = recordedRollouts("arc_agi");
    expect(out.map((row) => row?.predicted_output)).toEqual(recordings.map((row) => row.predicted_output));
  }, 180_000);
});

describe("NeMo Gym's config, unchanged (resources_servers/arc_agi/configs/arc_agi.yaml)", () => {
  let engine: FakeEngine;
  let dir: string;
  const recordings = recordedRollouts("arc_agi");
  const recordedText = (i: number) => recordings[i]!.response.output.at(-1).content[0].text as string;
  // Rows 0 and 1: the recorded answers (both right); row 2: the right grid, pretty-printed; row 3: a wrong
  // grid; row 4: no grid at all.
  const answers = new Map<string, string>([
    [rows[0]!.responses_create_params.input[0].content, recordedText(0)],
    [rows[1]!.responses_create_params.input[0].content, recordedText(3)],
    [rows[2]!.responses_create_params.input[0].content, `\\boxed{${JSON.stringify(rows[2]!.expected_output, null, 1)}}`],
    [rows[3]!.responses_create_params.input[0].content, `\\boxed{${JSON.stringify(rows[3]!.expected_output.slice().reverse())}}`],
    [rows[4]!.responses_create_params.input[0].content, "I cannot solve this."],
  ]);
  beforeAll(async () => {
    engine = await startFakeEngine({ policy: (turns: Turn[]) => ({ text: answers.get(turns.findLast((t) => t.role === "user")?.content ?? "") ?? "?" }) });
    dir = mkdtempSync(join(tmpdir(), "gym-arc-agi-"));
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs every example row; rewards and default metrics as NeMo Gym computes them", async () => {
    const checkout = nemoGymCheckout(["arc_agi"]);
    try {
      const output = join(dir, "arc_agi.jsonl");
      const config = "resources_servers/arc_agi/configs/arc_agi.yaml";
      const input = "resources_servers/arc_agi/data/example.jsonl";
      const result = await runGym(["eval", "run", "--config", config, "--config", "responses_api_models/vllm_model/configs/vllm_model.yaml", "--agent", "arc_agi_simple_agent", "--input", input, "--model-url", engine.baseUrl, "--model", "m", "-o", output, "--quiet"], {
        cwd: checkout.root,
        timeoutMs: 120_000,
      });
      expect(result.code, result.stderr + result.stdout).toBe(0);
      const out = readFileSync(output, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
      out.sort((a, b) => a._ng_task_index - b._ng_task_index);
      expect(out.map((r) => r.reward)).toEqual([1, 1, 1, 0, 0]);
      expect(out.map((r) => r.extraction_successful)).toEqual([true, true, true, true, false]);
      const metrics = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
      const m = metrics[0]!.agent_metrics;
      expect(m["mean/reward"]).toBeCloseTo(0.6, 12);
      expect(m["mean/extraction_successful"]).toBeCloseTo(0.8, 12);
      expect(m["max/reward"]).toBe(1);
      expect(m["min/reward"]).toBe(0);
      expect(Object.keys(metrics[0]!.key_metrics).every((k) => k.startsWith("mean/"))).toBe(true);
    } finally {
      checkout.remove();
    }
  }, 180_000);
});
