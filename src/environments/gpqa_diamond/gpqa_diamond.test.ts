// gpqa_diamond: the letter extraction against NeMo Gym's own extract_letter (fixture generated from
// 07d6b0d), the reward rules over HTTP (with traps that must not be rewarded), NeMo Gym's recorded
// rollouts re-verified through `gym eval reverify`, its config file run unchanged, and the metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import gpqa from "./index.js";
import { extractGpqaLetter } from "./extract.js";
import fixture from "./testdata/extract_letter.json" with { type: "json" };
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { promptOf, runNemoGymConfig } from "../../../test/helpers/mcq_slice.js";

const exampleRows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const ABCD = [{ A: "optA" }, { B: "optB" }, { C: "optC" }, { D: "optD" }];

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(gpqa);
});
afterAll(() => env.close());

async function verify(text: string, row: Record<string, unknown> = {}) {
  const body = { responses_create_params: { input: "q" }, options: ABCD, expected_answer: "C", ...row, response: responseWith([assistantMessage(text)]) };
  const result = await env.request("/verify", body);
  expect(result.status, result.text).toBe(200);
  return result.body as { reward: number; extracted_answer: string | null; expected_answer: string };
}

describe("extract_letter, against NeMo Gym's (testdata/extract_letter.json)", () => {
  for (const { text, letter } of fixture as Array<{ text: string; letter: string | null }>) {
    it(JSON.stringify(text), () => expect(extractGpqaLetter(text) ?? null).toBe(letter));
  }
});

describe("reward rules", () => {
  const cases: Array<[string, string | null, number, Record<string, unknown>?]> = [
    ["Reasoning… \\boxed{C}", "C", 1],
    ["Answer: C", "C", 1],
    ["**Answer:** c", "C", 1],
    ["\\boxed{A} at first, finally \\boxed{C}", "C", 1],
    ["\\boxed{C} at first, but Answer: A", "C", 1], // a box wins over an Answer line
    ["\\boxed{x} Answer: C", "C", 1], // a box without a capital falls through to the Answer line
    ["\\boxed{E}", null, 0], // not an option
    ["\\boxed{c}", null, 0], // lower case in a box is not read
    ["\\boxed{A or C}", "C", 1], // the last capital in the box: a known leniency of NeMo Gym's rule, kept
    ["Answer: Cat", null, 0],
    ["The answer is C", null, 0],
    ["\\boxed{10^{-4} eV}", null, 0],
    ["", null, 0],
    ["\\boxed{C}", "C", 0, { expected_answer: "" }], // no gold never rewards
    ["\\boxed{C}", "C", 1, { expected_answer: " c " }],
    ["\\boxed{E}", "E", 1, { options: null, expected_answer: "E" }], // without options any letter counts
    ["Choice: d", "D", 1, { expected_answer: "D", template_metadata: { output_regex: "Choice:\\s*([A-D])" } }],
    ["Choice: optB", "B", 1, { expected_answer: "B", template_metadata: { output_regex: "Choice:\\s*(.+)" } }],
    ["no choice line \\boxed{C}", "C", 1, { template_metadata: { output_regex: "Choice:\\s*([A-D])" } }],
  ];
  for (const [text, extracted, reward, row] of cases) {
    it(`${JSON.stringify(text)} ${row ? JSON.stringify(row) : ""} → ${extracted}, ${reward}`, async () => {
      const r = await verify(text, row);
      expect([r.extracted_answer, r.reward]).toEqual([extracted, reward]);
    });
  }
  it("a list of template patterns is an error, as NeMo Gym's re.findall raises on one", async () => {
    const body = { responses_create_params: { input: "q" }, options: ABCD, expected_answer: "C", template_metadata: { output_regex: ["x"] }, response: responseWith([assistantMessage("C")]) };
    expect((await env.request("/verify", body)).status).toBe(500);
  });
  it("answers NeMo Gym's MCQAVerifyResponse fields only", async () => {
    const body = { ...exampleRows[0], response: responseWith([assistantMessage("\\boxed{C}")]) };
    const result = await env.request("/verify", body);
    expect(Object.keys(result.body)).toEqual(["responses_create_params", "response", "reward", "expected_answer", "extracted_answer"]);
  });
  it("reports reverify mode unknown, as NeMo Gym pins it", async () => {
    expect((await env.request("/reverify_mode")).body).toBe("unknown");
  });
});

describe("strict: true (Gymkit's own; closes the audit's guess.all_boxes and wrong.negation)", () => {
  let strictEnv: RunningInstance;
  beforeAll(async () => {
    strictEnv = await startInstance(gpqa, { config: { strict: true } });
  });
  afterAll(() => strictEnv.close());
  // [response, reward by default (NeMo Gym's), reward under strict]; the gold is C.
  const cases: Array<[string, number, number]> = [
    ["\\boxed{B}\n\\boxed{C}\n\\boxed{not C}", 1, 0], // the audit's guess.all_boxes: several boxes, the last "not C" read as C
    ["\\boxed{not C}", 1, 0], // the audit's wrong.negation
    ["\\boxed{A or C}", 1, 0],
    ["\\boxed{B} at first, finally \\boxed{C}", 1, 0],
    ["\\boxed{C} and Answer: A", 1, 0],
    ["Reasoning… \\boxed{C}", 1, 1],
    ["\\boxed{(C)}", 1, 1],
    ["\\boxed{\\text{C}} Answer: C", 1, 1],
    ["Answer: C", 1, 1],
  ];
  for (const [text, byDefault, strict] of cases) {
    it(`${JSON.stringify(text)} → ${byDefault} by default, ${strict} under strict`, async () => {
      expect((await verify(text)).reward).toBe(byDefault);
      const r = await strictEnv.request("/verify", { responses_create_params: { input: "q" }, options: ABCD, expected_answer: "C", response: responseWith([assistantMessage(text)]) });
      expect(r.status, r.text).toBe(200);
      expect((r.body as { reward: number }).reward).toBe(strict);
    });
  }
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl)", () => {
  it("re-verify to the recorded rewards (5/5) with gym eval reverify (--force: NeMo Gym pins the mode to unknown)", async () => {
    const { result, recorded, reverified, rows } = await reverifyRecorded("gpqa_diamond", ["--resources-server", "gpqa_diamond", "--force"]);
    expect(result.code, result.stderr).toBe(0);
    expect(reverified).toEqual(recorded);
    expect(rows.map((r) => r?.extracted_answer)).toEqual(["D", "B", "A", "D", "B"]);
  }, 180_000);
});

describe("NeMo Gym's configs/gpqa_diamond.yaml, unchanged", () => {
  it("runs every example row; rewards and mcqa metrics as NeMo Gym computes them", async () => {
    // Right (boxed), wrong, right ("Answer:"), no answer, right (\text box).
    const texts = ["\\boxed{C}", "Answer: B", "Thinking.\nAnswer: B", "I cannot decide.", "\\boxed{\\text{C}}"];
    const answers = new Map(exampleRows.map((row, i) => [promptOf(row), texts[i]!]));
    const { result, rows, metrics } = await runNemoGymConfig("gpqa_diamond", "gpqa_diamond.yaml", answers);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(rows).toHaveLength(5);
    expect(rows.map((r) => r.extracted_answer)).toEqual(["C", "B", "B", null, "C"]);
    expect(rows.map((r) => r.reward)).toEqual([1, 0, 1, 0, 1]);
    const m = metrics[0]!.agent_metrics;
    expect(m["mean/reward"]).toBeCloseTo(0.6, 12);
    expect(m["pass@1/accuracy"]).toBeCloseTo(60, 10);
    expect(m["pass@1/no_answer"]).toBeCloseTo(20, 10);
    expect(m["majority@1/accuracy"]).toBeCloseTo(60, 10);
    expect(metrics[0]!.key_metrics).toEqual({
      "mean/reward": m["mean/reward"],
      "pass@1[avg-of-1]/accuracy": m["pass@1[avg-of-1]/accuracy"],
      "pass@1[avg-of-1]/no_answer": m["pass@1[avg-of-1]/no_answer"],
      "pass@1/no_answer": m["pass@1/no_answer"],
      "majority@1/accuracy": m["majority@1/accuracy"],
      "pass@1/accuracy": m["pass@1/accuracy"],
    });
  }, 180_000);
});
