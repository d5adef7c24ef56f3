// hotpotqa_qa: the scoring against NeMo Gym's own scoring.py (fixture generated from 07d6b0d), the
// reward rules over HTTP with must-not-reward traps, NeMo Gym's recorded rollouts re-verified through
// `gym eval reverify`, its config run unchanged (the engine replaying the recorded answers), and the
// metrics with their filtered channels.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import hotpotqa from "./index.js";
import { parseGeneration } from "./parse.js";
import { answerExactMatch, answerF1Score, isCorrect, isCorrectStrict, normalizeAnswer, normalizeGt } from "./scoring.js";
import fixture from "./testdata/scoring.json" with { type: "json" };
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { recordedAnswers, runNemoGymConfig } from "../../../test/helpers/mcq_slice.js";

interface Fixture {
  ground_truths: Array<{ gt: string; alternatives: string[]; should_remove: boolean; remove_reason: string }>;
  pairs: Array<{ prediction: string; gt: string; normalized: [string, string]; em: number; f1: [number, number, number]; is_correct: boolean; is_correct_strict: boolean }>;
  generations: Array<{ generation: string; answer: string }>;
}
const data = fixture as Fixture;

describe("scoring, against NeMo Gym's scoring.py (testdata/scoring.json)", () => {
  it(`normalize_gt on ${data.ground_truths.length} ground truths`, () => {
    for (const g of data.ground_truths) expect(normalizeGt(g.gt), JSON.stringify(g.gt)).toEqual({ alternatives: g.alternatives, should_remove: g.should_remove, remove_reason: g.remove_reason });
  });
  it(`normalize_answer, EM, F1, is_correct and is_correct_strict on ${data.pairs.length} pairs`, () => {
    const mismatches = data.pairs.filter((p) => {
      const alts = normalizeGt(p.gt).alternatives;
      const ours = {
        normalized: [normalizeAnswer(p.prediction), normalizeAnswer(p.gt)],
        em: answerExactMatch(p.prediction, p.gt),
        f1: answerF1Score(p.prediction, p.gt),
        is_correct: isCorrect(alts, p.prediction),
        is_correct_strict: isCorrectStrict(alts, p.prediction),
      };
      return JSON.stringify(ours) !== JSON.stringify({ normalized: p.normalized, em: p.em, f1: p.f1, is_correct: p.is_correct, is_correct_strict: p.is_correct_strict });
    });
    expect(mismatches).toEqual([]);
  });
  for (const g of data.generations) {
    it(`parse_generation ${JSON.stringify(g.generation).slice(0, 60)}`, () => expect(parseGeneration(g.generation)).toBe(g.answer));
  }
});

let env: RunningInstance;
let unfilteredEnv: RunningInstance;
beforeAll(async () => {
  env = await startInstance(hotpotqa);
  unfilteredEnv = await startInstance(hotpotqa, { name: "hotpotqa_unfiltered", config: { report_filtered_metrics: false } });
});
afterAll(async () => {
  await Promise.all([env.close(), unfilteredEnv.close()]);
});

async function verify(text: string, expected: string, extra: Record<string, unknown> = {}) {
  const result = await env.request("/verify", { responses_create_params: { input: "q" }, expected_answer: expected, ...extra, response: responseWith([assistantMessage(text)]) });
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

describe("reward rules (reward = strict alternative-aware match)", () => {
  const cases: Array<[string, string, number, string | null]> = [
    ['{"answer": "yes"}', "yes", 1, "yes"],
    ['Thinking… {"answer": "The Beatles"}', "the Beatles", 1, "The Beatles"],
    ['{"answer": "Beatles"}', "The Beatles", 1, "Beatles"], // the article-less form is an alternative
    ['{"answer": "3677"}', "3,677", 1, "3677"],
    ['{"answer": "Los Angeles"}', "Los Angeles (California)", 1, "Los Angeles"],
    ['{"answer": "5"}', "five", 1, "5"],
    ['```json\n{"answer": "Chicago"}\n```', "Chicago", 1, "Chicago"],
    ['{"answer": "yes"} then {"answer": "no"}', "yes", 0, "no"], // the last object counts
    ['{"answer": "no"}', "yes", 0, "no"],
    ['{"answer": "nowhere"}', "no", 0, "nowhere"], // a short gold must stand as a word (trap)
    ['{"answer": "The Yes Men"}', "yes", 1, "The Yes Men"], // …but a word inside a longer answer counts (lenient by design)
    [`{"answer": "${"a very long preamble ".repeat(3)}and finally Ed Wood"}`, "Ed Wood", 0, `${"a very long preamble ".repeat(3)}and finally Ed Wood`], // past position 40 of a long answer (trap)
    ["Ed Wood", "Ed Wood", 1, "Ed Wood"], // no JSON: the whole text is the answer
    ["", "Ed Wood", 0, null],
    ['{"answer": ""}', "Ed Wood", 0, null],
    ['{"answer": "Steven Spielberg"}', "Ed Wood", 0, "Steven Spielberg"],
  ];
  for (const [text, gold, reward, extracted] of cases) {
    it(`${JSON.stringify(text).slice(0, 70)} vs ${JSON.stringify(gold)} → ${reward}`, async () => {
      const r = await verify(text, gold);
      expect([r.reward, r.extracted_answer]).toEqual([reward, extracted]);
      expect(r.is_correct_strict).toBe(reward);
    });
  }
  it("reports every score, the ground-truth flags and echoes the row", async () => {
    const r = await verify('{"answer": "Chief Protocol Officer"}', "Chief of Protocol", { id: "x1", level: "hard" });
    expect(r).toMatchObject({ answer_em: 0, is_correct: 0, is_correct_strict: 0, gt_should_remove: false, gt_remove_reason: "", id: "x1", level: "hard" });
    const flagged = await verify('{"answer": "Obama"}', "Barack Hussein Obama");
    expect(flagged).toMatchObject({ reward: 0, gt_should_remove: true, gt_remove_reason: "multi_word_name" });
    const long = await verify('{"answer": "x"}', "a ground truth far longer than forty characters");
    expect(long).toMatchObject({ gt_should_remove: true, gt_remove_reason: "gt_too_long" });
    expect(r.answer_f1).toBeCloseTo(2 / 3, 12); // 2 of 3 tokens shared each way
  });
  it("requires expected_answer (422)", async () => {
    const result = await env.request("/verify", { responses_create_params: { input: "q" }, response: responseWith([assistantMessage("x")]) });
    expect(result.status).toBe(422);
  });
  it("an infinite supporting-fact index fails the request, as NeMo Gym's int() raises OverflowError", async () => {
    const result = await env.request("/verify", { responses_create_params: { input: "q" }, expected_answer: "x", response: responseWith([assistantMessage('{"answer": "x", "supporting_facts": [["a", Infinity]]}')]) });
    expect(result.status).toBe(500);
  });
});

describe("strict: true (Gymkit's own; closes the audit's wrong.in_comment, wrong.negation and guess.all_boxes)", () => {
  let strictEnv: RunningInstance;
  beforeAll(async () => {
    strictEnv = await startInstance(hotpotqa, { name: "hotpotqa_strict", config: { strict: true } });
  });
  afterAll(() => strictEnv.close());
  // [response, gold, reward by default (NeMo Gym's), reward under strict]
  const cases: Array<[string, string, number, number]> = [
    ['<!-- {"answer": "yes"} -->\n```\n{"answer": "yes"}\n```\n{"answer": "yet"}', "yes", 1, 0], // wrong.in_comment: a fence wins over the last object
    ['{"answer": "not Chief of Protocol"}', "Chief of Protocol", 1, 0], // wrong.negation: contains the gold
    ['{"answer": "Chief of Protocom"}\n{"answer": "Chief of Protocol"}\n{"answer": "not Chief of Protocol"}', "Chief of Protocol", 1, 0], // guess.all_boxes
    ['{"answer": "Ed Wood, Steven Spielberg, Tim Burton"}', "Ed Wood", 1, 0], // a list of guesses
    ['{"answer": "Chief of Protocol"}', "Chief of Protocol", 1, 1],
    ['Thinking… {"answer": "the Beatles."}', "The Beatles", 1, 1], // SQuAD normalisation: case, article, punctuation
    ['{"answer": "5"}', "five", 1, 1], // an accepted form
    ["Ed Wood", "Ed Wood", 1, 1], // no JSON: the whole text
    ['{"answer": "no"}', "yes", 0, 0],
  ];
  for (const [text, gold, byDefault, strict] of cases) {
    it(`${JSON.stringify(text).slice(0, 70)} vs ${JSON.stringify(gold)} → ${byDefault} by default, ${strict} under strict`, async () => {
      expect((await verify(text, gold)).reward).toBe(byDefault);
      const r = await strictEnv.request("/verify", { responses_create_params: { input: "q" }, expected_answer: gold, response: responseWith([assistantMessage(text)]) });
      expect(r.status, r.text).toBe(200);
      expect((r.body as { reward: number }).reward).toBe(strict);
    });
  }
  it("NeMo Gym's five recorded answers keep their rewards under strict (1,1,0,0,0)", async () => {
    const rows = readFileSync(new URL("./data/example_rollouts.jsonl", import.meta.url), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
    const rewards = [];
    for (const row of rows) {
      const r = await strictEnv.request("/verify", { responses_create_params: row.responses_create_params, expected_answer: row.expected_answer, response: row.response });
      rewards.push((r.body as { reward: number }).reward);
    }
    expect(rewards).toEqual([1, 1, 0, 0, 0]);
  });
});

describe("aggregate metrics", () => {
  const rows = [
    { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1, extracted_answer: "yes", answer_em: 1, answer_f1: 1, is_correct: 1, is_correct_strict: 1, gt_should_remove: false },
    { _ng_task_index: 0, _ng_rollout_index: 1, reward: 0, extracted_answer: "no", answer_em: 0, answer_f1: 0, is_correct: 0, is_correct_strict: 0, gt_should_remove: false },
    { _ng_task_index: 1, _ng_rollout_index: 0, reward: 1, extracted_answer: "Chief of Protocol", answer_em: 1, answer_f1: 1, is_correct: 1, is_correct_strict: 1, gt_should_remove: true },
    { _ng_task_index: 1, _ng_rollout_index: 1, reward: 0, extracted_answer: null, answer_em: 0, answer_f1: 0.5, is_correct: 0, is_correct_strict: 0, gt_should_remove: true },
  ];
  it("pass@k for the four scores, filtered channels over the reliable tasks, and NeMo Gym's key metrics", async () => {
    const result = await env.request("/aggregate_metrics", { verify_responses: rows });
    const m = result.body.agent_metrics;
    expect(m["pass@1[avg-of-2]/answer_f1"]).toBeCloseTo(100 * ((0.5 + 0.75) / 2), 10);
    expect(m["pass@2/answer_f1"]).toBeCloseTo(100 * ((1 + 1) / 2), 10);
    expect(m["pass@2/is_correct_strict"]).toBe(100);
    expect(m["filtered_pass@1[avg-of-2]/is_correct_strict"]).toBe(50);
    expect(m["filtered_pass@1/answer_em"]).toBe(50); // unbiased pass@1 over the kept task's two rollouts
    expect(m.filtered_num_tasks).toBe(1);
    expect(m.unfiltered_num_tasks).toBe(2);
    const keys = Object.keys(result.body.key_metrics);
    expect(keys).toContain("pass@1[avg-of-2]/is_correct_strict");
    expect(keys).toContain("filtered_majority@2/answer_f1");
    expect(keys.every((k) => /^(mean\/(input|output)_tokens|(filtered_)?(pass@1\[avg-of-2\]|pass@2|majority@2)\/(answer_em|answer_f1|is_correct|is_correct_strict))$/.test(k))).toBe(true);
  });
  it("report_filtered_metrics: false leaves the filtered channels out", async () => {
    const m = (await unfilteredEnv.request("/aggregate_metrics", { verify_responses: rows })).body.agent_metrics;
    expect(Object.keys(m).filter((k) => k.startsWith("filtered_") || k.endsWith("num_tasks"))).toEqual([]);
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl)", () => {
  it("re-verify to the recorded rewards (5/5), every score as recorded", async () => {
    const { result, recorded, reverified, rows } = await reverifyRecorded("hotpotqa_qa", ["--resources-server", "hotpotqa_qa"]);
    expect(result.code, result.stderr).toBe(0);
    expect(reverified).toEqual(recorded);
    expect(rows.map((r) => r?.extracted_answer)).toEqual(["yes", "Chief of Protocol", "First for Women", "5 lbs", "Steven Spielberg"]);
    expect(rows.map((r) => [r?.answer_em, r?.is_correct, r?.gt_should_remove])).toEqual([[1, 1, false], [1, 1, false], [0, 0, false], [0, 0, false], [0, 0, false]]);
  }, 180_000);
});

describe("NeMo Gym's configs/hotpotqa_qa.yaml, unchanged", () => {
  it("runs every example row with the recorded answers: rewards 1,1,0,0,0 and the metrics", async () => {
    const { result, rows, metrics } = await runNemoGymConfig("hotpotqa_qa", "hotpotqa_qa.yaml", recordedAnswers("hotpotqa_qa"));
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(rows.map((r) => r.reward)).toEqual([1, 1, 0, 0, 0]);
    const m = metrics[0]!.agent_metrics;
    expect(m["pass@1/is_correct_strict"]).toBeCloseTo(40, 10);
    expect(m["pass@1/answer_f1"]).toBeCloseTo((100 * (1 + 1 + 0 + 1 / 3 + 0)) / 5, 10); // "5 lbs" vs "5 to 6 pounds": F1 1/3
    expect(m["filtered_pass@1/is_correct_strict"]).toBeCloseTo(40, 10);
    expect([m.filtered_num_tasks, m.unfiltered_num_tasks]).toEqual([5, 5]);
    expect(metrics[0]!.key_metrics["pass@1/is_correct_strict"]).toBeCloseTo(40, 10);
  }, 180_000);
});
