// lc_niah: the answer F1, the three copy measures and the three grading rules on our own cases (the
// measures' values from NeMo Gym's own code, test/fixtures/longctx/expected.json), NeMo Gym's
// recorded rollouts re-verified through `gym eval reverify`, and NeMo Gym's config run unchanged
// through `gym eval run` with default metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import lcNiah from "./index.js";
import { answerScore, parseQuotedNodeList } from "./answer.js";
import { normalize, overlapLcs, overlapNgram, overlapSeqMatch } from "./overlap.js";
import { inputText } from "./texts.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { exampleRows, longctxExpected, runNemoGymConfig } from "../../../test/helpers/longctx.js";

let lcsMultiply: RunningInstance;
let seqMinus: RunningInstance;
let ngramBase: RunningInstance;
beforeAll(async () => {
  lcsMultiply = await startInstance(lcNiah);
  seqMinus = await startInstance(lcNiah, { name: "seq_minus", config: { overlap_metric_rule: "seq_match", overlap_grading_rule: "minus" } });
  ngramBase = await startInstance(lcNiah, { name: "ngram_base", config: { overlap_metric_rule: "ngram16", overlap_grading_rule: "base" } });
});
afterAll(async () => {
  await Promise.all([lcsMultiply.close(), seqMinus.close(), ngramBase.close()]);
});

const reasoningItem = (text: string) => ({ type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text }] });

async function verify(instance: RunningInstance, row: Record<string, any>, answer: string, reasoning: string) {
  const output = [...(reasoning ? [reasoningItem(reasoning)] : []), assistantMessage(answer)];
  const result = await instance.request("/verify", { ...row, response: responseWith(output) });
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

describe("answer score", () => {
  const cases: Array<[string, string, number]> = [
    ["Final Answer: [a, b]", '["a", "b"]', 1],
    ['Final Answer: ["a", \'b\']', '["a", "b"]', 1],
    ["Final Answer: [a]", '["a", "b"]', 2 / 3],
    ["Final Answer: []", "[]", 1],
    ["Final Answer: [a]", "[]", 0],
    ["Final Answer: [a, b]\nthat is all", '["a", "b"]', 0],
    ["no answer", "[]", 0],
  ];
  for (const [text, expected, score] of cases) {
    it(`${JSON.stringify(text)} vs ${expected} → ${score.toFixed(3)}`, () => expect(answerScore(text, expected)).toBeCloseTo(score, 15));
  }
  it("quotes around items are removed (unlike graphwalks)", () => {
    expect(parseQuotedNodeList('Final Answer: ["x", " y "]').nodes).toEqual(["x", "y"]);
  });
});

describe("copy measures and grading rules, against NeMo Gym's own code", () => {
  const expected = longctxExpected.lc_niah;
  const rows = exampleRows("lc_niah");
  rows.forEach((row, i) => {
    it(`example row ${i}: answer_score and the three overlaps; reward under each rule`, async () => {
      const want = expected.results[i];
      const answer = expected.answers[i] as string;
      const reasoning = expected.reasonings[i] as string;
      const a = await verify(lcsMultiply, row, answer, reasoning);
      for (const key of ["answer_score", "overlap_seq_match", "overlap_ngram16", "overlap_lcs"]) expect(a[key], key).toBe(want[key]);
      expect(a.reasoning_overlap).toBe(want.overlap_lcs);
      expect(a.reward).toBe(want.answer_score * (1.0 - want.overlap_lcs));
      const b = await verify(seqMinus, row, answer, reasoning);
      expect([b.reasoning_overlap, b.reward]).toEqual([want.overlap_seq_match, want.answer_score - want.overlap_seq_match]);
      const c = await verify(ngramBase, row, answer, reasoning);
      expect([c.reasoning_overlap, c.reward]).toEqual([want.overlap_ngram16, want.answer_score]);
    });
  });
  it("trap: a correct answer whose reasoning is the whole prompt earns nothing under lcs/multiply", async () => {
    const row = rows[2]!;
    const body = await verify(lcsMultiply, row, `Final Answer: [${JSON.parse(row.expected_answer).join(", ")}]`, row.responses_create_params.input[0].content);
    expect([body.answer_score, body.overlap_lcs, body.reward]).toEqual([1, 1, 0]);
  });
  it("minus can go negative", async () => {
    const row = rows[0]!;
    const body = await verify(seqMinus, row, "Final Answer: [x]", row.responses_create_params.input[0].content);
    expect(body.reward).toBe(-1);
  });
  it("no reasoning → no penalty; fewer than 16 words → ngram16 is 0", () => {
    expect([overlapSeqMatch("", "abc"), overlapLcs("  ", "abc"), overlapNgram("a b c", "a b c", 16)]).toEqual([0, 0, 0]);
    expect(overlapNgram(Array.from({ length: 16 }, (_, i) => `w${i}`).join(" "), Array.from({ length: 20 }, (_, i) => `W${i}`).join("\n"), 16)).toBe(1);
  });
  it("normalizes case and whitespace runs (Python's \\s), and reads input strings or content blocks", () => {
    expect(normalize("  A\u00a0\u2003B\n\nc ")).toBe("a b c");
    expect(inputText({ input: "plain" })).toBe("plain");
    expect(inputText({ input: [{ role: "user", content: [{ type: "input_text", text: "x" }, { type: "input_text", text: "" }] }, { role: "user", content: "y" }] })).toBe("x\ny");
  });
  it("echoes every row field (NeMo Gym's model allows extras)", async () => {
    const body = await verify(lcsMultiply, { ...rows[0]!, custom: 7 }, "Final Answer: []", "");
    expect(body).toMatchObject({ custom: 7, source: "graphwalks", problem_type: "parents", n_tokens: 1369, expected_answer: "[]" });
  });
  it("rejects an unknown rule in config", async () => {
    await expect(startInstance(lcNiah, { name: "bad", config: { overlap_metric_rule: "rouge" } })).rejects.toThrow();
  });
});

describe("NeMo Gym's recorded rollouts", () => {
  it("re-verify to the recorded reward, answer_score and all three overlaps (5/5)", async () => {
    const recordedRows = recordedRollouts("lc_niah");
    const { result, recorded, reverified, rows } = await reverifyRecorded("lc_niah", ["--resources-server", "lc_niah"]);
    expect(result.code, result.stderr).toBe(0);
    expect(reverified).toEqual(recorded);
    const keys = ["answer_score", "reasoning_overlap", "overlap_seq_match", "overlap_ngram16", "overlap_lcs"];
    expect(rows.map((r) => keys.map((k) => r?.[k]))).toEqual(recordedRows.map((r) => keys.map((k) => r[k])));
  }, 200_000);
});

describe("NeMo Gym's config, unchanged", () => {
  it("configs/lc_niah.yaml (lcs, multiply): every example row back, rewards from NeMo Gym's code, default metrics", async () => {
    const expected = longctxExpected.lc_niah;
    const actions = expected.answers.map((text: string, i: number) => ({ text, ...(expected.reasonings[i] ? { reasoning: expected.reasonings[i] } : {}) }));
    const run = await runNemoGymConfig("lc_niah", "lc_niah.yaml", actions);
    expect(run.result.code, run.result.stderr + run.result.stdout).toBe(0);
    const rewards = expected.results.map((r: Record<string, number>) => r.answer_score! * (1.0 - r.overlap_lcs!));
    expect(run.rows.map((r) => r.reward)).toEqual(rewards);
    const agent = run.metrics[0]!;
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(agent.agent_metrics["mean/reward"]).toBeCloseTo(mean(rewards), 12);
    expect(agent.agent_metrics["mean/answer_score"]).toBeCloseTo(mean(expected.results.map((r: Record<string, number>) => r.answer_score)), 12);
    expect(agent.agent_metrics["max/overlap_lcs"]).toBe(1);
    expect(Object.keys(agent.agent_metrics).some((k) => k.startsWith("pass@"))).toBe(false);
    expect(Object.keys(agent.key_metrics).every((k) => k.startsWith("mean/"))).toBe(true);
  }, 200_000);
});
