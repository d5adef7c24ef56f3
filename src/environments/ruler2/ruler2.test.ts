// ruler2: the soft match (substring or 1 − WER) per match type and the multiple-choice route on our
// own cases, the word error rate against the real `editdistance` package, NeMo Gym's recorded
// rollouts re-verified through `gym eval reverify`, NeMo Gym's config run unchanged through
// `gym eval run`, and the metrics (suite mean included) against NeMo Gym's own compute_metrics.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ruler2, { ruler2Metrics } from "./index.js";
import { extractMcqLetter } from "./mcq.js";
import { defaultParse, matchPart, matchTwoSteps, softMatch, wordErrorRate } from "./soft_match.js";
import { aggregateMetrics } from "../../metrics/aggregate.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { environmentFolder, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { longctxExpected, runNemoGymConfig } from "../../../test/helpers/longctx.js";

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(ruler2);
});
afterAll(() => env.close());

async function verify(fields: Record<string, unknown>, text: string) {
  const result = await env.request("/verify", { responses_create_params: { input: [{ role: "user", content: "Q" }] }, ...fields, response: responseWith([assistantMessage(text)]) });
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

describe("word error rate equals NeMo Gym's (editdistance 0.8.1)", () => {
  const cases = JSON.parse(readFileSync(new URL("../../verifiers/text/testdata/edit_distance.json", import.meta.url), "utf8")) as Array<{ a: string; b: string; wer: number | null }>;
  it(`${cases.length} pairs, long ones included`, () => {
    for (const c of cases) {
      const p = c.a.toLowerCase();
      const r = c.b.toLowerCase();
      expect(wordErrorRate(p, r), JSON.stringify([c.a, c.b]).slice(0, 80)).toBe(c.wer ?? Infinity);
    }
  });
});

describe("soft match (eval_type ruler2)", () => {
  it("substring of the lower-cased prediction → 1", async () => {
    expect((await verify({ expected_answer: ["ABC123"], task: "mk_niah_basic", length: 10 }, "the code is abc123.")).reward).toBe(1);
  });
  it("otherwise 1 − WER, never below 0 when nothing matches (values from NeMo Gym's _soft_match)", async () => {
    // "the magic number is 42" vs "magic number 42": WER = 2 deletions / 3 words → 1 − 2/3.
    for (const [p, r, value] of longctxExpected.ruler2_soft as Array<[string, string, number]>) expect(softMatch(p, r), `${p} | ${r}`).toBe(value);
    expect((await verify({ expected_answer: ["one two three four"] }, "one two three five")).reward).toBe(0.75);
  });
  it("all: mean over references; part: the best; 2steps: the last paragraph only", async () => {
    expect((await verify({ expected_answer: ["aaa", "bbb"], match_type: "all" }, "aaa")).reward).toBe(0.5);
    expect((await verify({ expected_answer: ["aaa", "bbb"], match_type: "part" }, "aaa")).reward).toBe(1);
    expect((await verify({ expected_answer: ["aaa"], match_type: "2steps" }, "aaa\n\nsomething else")).reward).toBe(0);
    expect(matchTwoSteps("draft: bbb\n\nfinal aaa", ["aaa"])).toBe(1);
  });
  it("part: `Document N:` blocks (up to a blank line) are removed before matching — a trap for copied documents", () => {
    expect(matchPart("Document 12:\nthe answer is zeta\n\nI think alpha", ["zeta"])).toBe(0);
    expect(matchPart("I think zeta", ["zeta"])).toBe(1);
  });
  it("a non-list expected answer is one reference (Python's str of it)", async () => {
    expect((await verify({ expected_answer: 1234 }, "1234")).reward).toBe(1);
    expect((await verify({ expected_answer: null }, "it is none")).reward).toBe(1);
  });
  it("no references → 0; an empty reference is found in anything", async () => {
    expect((await verify({ expected_answer: [] }, "x")).reward).toBe(0);
    expect((await verify({ expected_answer: [""] }, "x")).reward).toBe(1);
  });
  it("an unknown match_type is a server error, as NeMo Gym's ValueError", async () => {
    const result = await env.request("/verify", { responses_create_params: { input: [] }, expected_answer: ["a"], match_type: "fuzzy", response: responseWith([assistantMessage("a")]) });
    expect(result.status).toBe(500);
  });
  it("response fields: predicted_answer (controls → newlines), extracted_answer null, the row's eval/match type, task, length; no expected_answer", async () => {
    const body = await verify({ expected_answer: ["a"], task: "qa_hard" }, "  a\u0001b \t");
    expect(body).toMatchObject({ predicted_answer: "a\nb", extracted_answer: null, eval_type: "ruler2", match_type: "all", task: "qa_hard", length: null });
    expect(body).not.toHaveProperty("expected_answer");
    expect(defaultParse("\u0002x\u0003")).toBe("x");
  });
});

describe("multiple choice (eval_type multichoice)", () => {
  // Each text's letter as NeMo Gym's extract_mcq_letter gives it (test/fixtures/longctx/expected.json).
  const cases = longctxExpected.ruler2_mcq as Array<[string, string | null]>;
  it("covers the final-answer line, boxes, glyphs, Answer: and traps", () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
    expect(cases.filter(([, letter]) => letter === null).length).toBeGreaterThanOrEqual(4);
  });
  for (const [text, letter] of cases) {
    it(`${JSON.stringify(text)} → ${letter}`, () => expect(extractMcqLetter(text)).toBe(letter));
  }
  it("reward 1 only for the gold letter (stripped, upper-cased)", async () => {
    expect((await verify({ eval_type: "multichoice", expected_answer: " c " }, "The final answer is C")).reward).toBe(1);
    const wrong = await verify({ eval_type: "multichoice", expected_answer: "C" }, "The final answer is D");
    expect([wrong.reward, wrong.extracted_answer]).toEqual([0, "D"]);
    expect((await verify({ eval_type: "multichoice", expected_answer: "C" }, "no idea")).extracted_answer).toBeNull();
  });
});

describe("NeMo Gym's recorded rollouts", () => {
  it("as recorded, NeMo Gym's own /verify rejects all five (usage in Chat Completions shape); Gymkit too (422)", async () => {
    const { result, reverified } = await reverifyRecorded("ruler2", ["--resources-server", "ruler2"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("5 rollouts failed");
    expect(reverified).toEqual([undefined, undefined, undefined, undefined, undefined]);
  }, 200_000);
  it("without the malformed usage, they re-verify to the recorded rewards (5/5)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-ruler2-recorded-"));
    try {
      const lines = readFileSync(join(environmentFolder("ruler2"), "data", "example_rollouts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
      const rolloutsPath = join(dir, "rollouts.jsonl");
      writeFileSync(rolloutsPath, lines.map((l) => JSON.stringify({ ...l, response: { ...l.response, usage: undefined } })).join("\n") + "\n");
      const { result, recorded, reverified, rows } = await reverifyRecorded("ruler2", ["--resources-server", "ruler2"], { rolloutsPath });
      expect(result.code, result.stderr).toBe(0);
      expect(reverified).toEqual(recorded);
      expect(rows.map((r) => [r?.predicted_answer, r?.extracted_answer])).toEqual(lines.map((l) => [l.predicted_answer, l.extracted_answer]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 200_000);
});

describe("metrics", () => {
  it("the suite mean appears when all twelve tasks are present, as NeMo Gym's compute_metrics gives it", () => {
    const expected = longctxExpected.ruler2_suite;
    const rows = expected.rows as Array<Record<string, unknown>>;
    const result = ruler2Metrics(rows, aggregateMetrics(rows));
    for (const [key, value] of Object.entries(expected.metrics as Record<string, number>)) expect(result.agent_metrics[key], key).toBeCloseTo(value, 9);
    for (const [key, value] of Object.entries(expected.key_metrics as Record<string, number>)) expect(result.key_metrics[key], key).toBeCloseTo(value, 9);
    expect(result.agent_metrics["ruler2_suite_avg/pass@1/accuracy"]).toBeCloseTo(100 * (66 / 12 / 12), 9);
  });
});

describe("NeMo Gym's config, unchanged", () => {
  it("configs/ruler2.yaml: every example row back, rewards and metrics as NeMo Gym's code computes them", async () => {
    const expected = longctxExpected.ruler2;
    const run = await runNemoGymConfig("ruler2", "ruler2.yaml", expected.answers.map((text: string) => ({ text })));
    expect(run.result.code, run.result.stderr + run.result.stdout).toBe(0);
    expect(run.rows.map((r) => r.reward)).toEqual(expected.rewards);
    expect(run.rows.map((r) => r.extracted_answer)).toEqual(expected.extracted);
    expect(run.rows.map((r) => r.predicted_answer)).toEqual(expected.predicted);
    const agent = run.metrics[0]!;
    for (const [key, value] of Object.entries(expected.metrics as Record<string, number>)) expect(agent.agent_metrics[key], key).toBeCloseTo(value, 9);
    expect(Object.keys(agent.key_metrics).filter((k) => !k.startsWith("mean/")).sort()).toEqual(Object.keys(expected.key_metrics).sort());
    expect(Object.keys(agent.agent_metrics).some((k) => k.startsWith("ruler2_suite_avg/"))).toBe(false);
  }, 200_000);
});
