// graphwalks: the reward rules on our own cases (traps included), NeMo Gym's recorded rollouts
// re-verified through `gym eval reverify`, NeMo Gym's config run unchanged through `gym eval run`,
// and the metrics against NeMo Gym's own compute_metrics (test/fixtures/longctx/expected.json).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import graphwalks from "./index.js";
import { expectedNodeSet, nodeF1, parseNodeList } from "../../verifiers/text/node_list.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { environmentFolder, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { longctxExpected, runNemoGymConfig } from "../../../test/helpers/longctx.js";

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(graphwalks);
});
afterAll(() => env.close());

const row = (expected: string, extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: "user", content: "Find the parents of node x." }] },
  expected_answer: expected,
  problem_type: "parents",
  ...extra,
});

async function verify(body: Record<string, unknown>, text: string) {
  const result = await env.request("/verify", { ...body, response: responseWith([assistantMessage(text)]) });
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

describe("reward rules", () => {
  const cases: Array<[string, string, number, boolean]> = [
    // [response, expected_answer, f1, parse_failed]
    ["Final Answer: [a, b]", '["a", "b"]', 1, false],
    ["Final Answer: [b, a, a]", '["a", "b"]', 1, false],
    ["Final Answer: [a]", '["a", "b"]', 2 / 3, false],
    ["Final Answer: [a, b, c, d]", '["a", "b"]', 2 / 3, false],
    ["Final Answer: [x]", '["a", "b"]', 0, false],
    ["Final Answer: []", "[]", 1, false],
    ["Final Answer: [  ]", "[]", 1, false],
    ["Final Answer: []", '["a"]', 0, false],
    ["Final Answer: [a]", "[]", 0, false],
    // Only the last non-empty line counts.
    ["Final Answer: [a, b]\nOn reflection, no.", '["a", "b"]', 0, true],
    ["Final Answer: [a, b]\n\n   \n", '["a", "b"]', 1, false],
    ["reasoning\nFinal Answer: [a]\nFinal Answer: [a, b]", '["a", "b"]', 1, false],
    // Greedy to the last bracket of the line ("a]" and "then [b" are the items); quotes are kept
    // (graphwalks, unlike lc_niah).
    ["Final Answer: [a], then [b]", '["a", "b"]', 0, false],
    ["Final Answer: [a, then b]", '["a", "b"]', 1 / 2, false],
    ['Final Answer: ["a", "b"]', '["a", "b"]', 0, false],
    ["final answer: [a, b]", '["a", "b"]', 0, true],
    ["Final Answer:[a,b]", '["a", "b"]', 1, false],
    ["Final Answer: a, b", '["a", "b"]', 0, true],
    ["", '["a"]', 0, true],
    // An unparsable expected answer is the empty set.
    ["Final Answer: []", "not json", 1, false],
    ["Final Answer: [a]", "not json", 0, false],
    // A JSON string is a set of its characters; numbers never equal node strings.
    ["Final Answer: [a, b]", '"ab"', 1, false],
    ["Final Answer: [1, 2]", "[1, 2]", 0, false],
  ];
  for (const [text, expected, f1, failed] of cases) {
    it(`${JSON.stringify(text)} vs ${expected} → ${f1.toFixed(3)}`, async () => {
      const body = await verify(row(expected), text);
      expect(body.reward).toBeCloseTo(f1, 15);
      expect(body.f1).toBe(body.reward);
      expect(body.parse_failed).toBe(failed);
    });
  }
  it("echoes the row fields NeMo Gym's response model declares, nulls for the optional ones", async () => {
    const body = await verify(row('["a"]', { extra_field: 1 }), "Final Answer: [a]");
    expect(body).toMatchObject({ expected_answer: '["a"]', problem_type: "parents", n_tokens: null, prompt_chars: null, predicted_nodes: ["a"] });
    expect(body).not.toHaveProperty("extra_field");
  });
  it("rejects a row without expected_answer or problem_type (422)", async () => {
    const result = await env.request("/verify", { responses_create_params: { input: [] }, expected_answer: "[]", response: responseWith([]) });
    expect(result.status).toBe(422);
  });
  it("unit helpers agree with the server", () => {
    const { nodes, parseFailed } = parseNodeList("x\nFinal Answer: [ n1 ,n2,, ]");
    expect([nodes, parseFailed]).toEqual([["n1", "n2"], false]);
    expect(nodeF1(nodes, expectedNodeSet('["n1"]'), false)).toBeCloseTo(2 / 3, 15);
  });
});

describe("NeMo Gym's recorded rollouts", () => {
  it("re-verify to the recorded rewards (5/5)", async () => {
    // Lines 4 and 5 of the file are the same rollout twice (task 11, rollout 0). Gymkit's reverify
    // refuses two results for one (task, rollout), so line 5 is renumbered rollout 1 in a copy;
    // nothing the reward reads changes.
    const dir = mkdtempSync(join(tmpdir(), "gym-graphwalks-recorded-"));
    try {
      const lines = readFileSync(join(environmentFolder("graphwalks"), "data", "example_rollouts.jsonl"), "utf8").trim().split("\n");
      expect(lines[3]).toBe(lines[4]);
      const copy = lines.map((l, i) => (i === 4 ? JSON.stringify({ ...JSON.parse(l), _ng_rollout_index: 1 }) : l));
      const rolloutsPath = join(dir, "rollouts.jsonl");
      writeFileSync(rolloutsPath, copy.join("\n") + "\n");
      const { result, recorded, reverified, rows } = await reverifyRecorded("graphwalks", ["--resources-server", "graphwalks"], { rolloutsPath });
      expect(result.code, result.stderr).toBe(0);
      expect(reverified).toEqual(recorded);
      const recordedRows = copy.map((l) => JSON.parse(l));
      expect(rows.map((r) => [r?.f1, r?.parse_failed, r?.predicted_nodes])).toEqual(recordedRows.map((r) => [r.f1, r.parse_failed, r.predicted_nodes]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 200_000);
});

describe("NeMo Gym's config, unchanged", () => {
  it("configs/graphwalks.yaml: every example row back, rewards and metrics as NeMo Gym's code computes them", async () => {
    const expected = longctxExpected.graphwalks;
    const run = await runNemoGymConfig("graphwalks", "graphwalks.yaml", expected.answers.map((text: string) => ({ text })));
    expect(run.result.code, run.result.stderr + run.result.stdout).toBe(0);
    expect(run.rows).toHaveLength(5);
    run.rows.forEach((r, i) => expect(r.reward).toBeCloseTo(expected.rewards[i], 15));
    expect(run.rows.map((r) => r.predicted_nodes)).toEqual(expected.predicted_nodes);
    const agent = run.metrics[0]!;
    for (const [key, value] of Object.entries(expected.metrics as Record<string, number>)) expect(agent.agent_metrics[key], key).toBeCloseTo(value, 9);
    const keys = Object.keys(agent.key_metrics).filter((k) => !k.startsWith("mean/"));
    expect(keys.sort()).toEqual(Object.keys(expected.key_metrics).sort());
    expect(Object.keys(agent.key_metrics).filter((k) => k.startsWith("mean/")).sort()).toEqual(["mean/input_tokens", "mean/output_tokens"]);
    expect(agent.agent_metrics["mean/reward"]).toBeCloseTo(expected.rewards.reduce((a: number, b: number) => a + b, 0) / 5, 12);
  }, 200_000);
});
