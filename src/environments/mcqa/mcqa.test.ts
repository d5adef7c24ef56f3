// mcqa over HTTP: every case of the NeMo Gym spec (nemo-gym-examples/README.md §5), at least twenty
// of our own per grading mode and for the template step, the config override, the example rows with
// hand-written answers, and the metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import mcqa from "./index.js";
import { assistantMessage, responseWith, readJsonlFile, replayExampleRollouts, startInstance, type RunningInstance } from "../../environment_kit/testing.js";

type Options = Array<Record<string, string | null>>;
const ABCD: Options = [{ A: "optA" }, { B: "optB" }, { C: "optC" }, { D: "optD" }];

const exampleRows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));

interface Case {
  text: string;
  /** The letter we expect to be extracted, or null. */
  expected: string | null;
  options?: Options;
  gold?: string;
  template?: unknown;
}

let env: RunningInstance;
let mdEnv: RunningInstance;
let colonEnv: RunningInstance;

beforeAll(async () => {
  env = await startInstance(mcqa);
  mdEnv = await startInstance(mcqa, { name: "mcqa_md", config: { grading_mode: "lenient_answer_colon_md" } });
  colonEnv = await startInstance(mcqa, { name: "mcqa_colon", config: { grading_mode: "lenient_answer_colon" } });
});
afterAll(async () => {
  await Promise.all([env.close(), mdEnv.close(), colonEnv.close()]);
});

function row(c: Partial<Case> & { grading_mode?: string }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    responses_create_params: { input: [{ role: "user", content: "Pick one." }] },
    options: c.options ?? ABCD,
    expected_answer: c.gold ?? "C",
    ...(c.grading_mode ? { grading_mode: c.grading_mode } : {}),
    ...(c.template !== undefined ? { template_metadata: { output_regex: c.template } } : {}),
    ...extra,
  };
}

async function verify(instance: RunningInstance, body: Record<string, unknown>, text: string | null) {
  const output = text === null ? [] : [assistantMessage(text)];
  const result = await instance.request("/verify", { ...body, response: responseWith(output) });
  expect(result.status, result.text).toBe(200);
  return result.body as { reward: number; extracted_answer: string | null; expected_answer: string } & Record<string, unknown>;
}

/** Runs each case through /verify under `mode`; reward must be 1 exactly when the extracted letter is the gold. */
function runCases(mode: string, cases: Case[], instance: () => RunningInstance = () => env) {
  for (const c of cases) {
    it(`${JSON.stringify(c.text).slice(0, 70)} → ${c.expected}`, async () => {
      const result = await verify(instance(), row({ ...c, grading_mode: mode }), c.text);
      expect(result.extracted_answer).toBe(c.expected);
      const gold = (c.gold ?? "C").trim().toUpperCase();
      expect(result.reward).toBe(c.expected !== null && c.expected === gold ? 1.0 : 0.0);
    });
  }
}

const optionsOf = (i: number): Options => exampleRows[i]!.options;

describe("spec cases (README §5)", () => {
  it('"The answer is C." under strict → no answer, 0', async () => {
    const r = await verify(env, row({ grading_mode: "strict_single_letter_boxed" }), "The answer is C.");
    expect([r.extracted_answer, r.reward]).toEqual([null, 0]);
  });
  it("`Final: \\boxed{ [C] }` under strict → 1", async () => {
    const r = await verify(env, row({ grading_mode: "strict_single_letter_boxed" }), "Final: \\boxed{ [C] }");
    expect([r.extracted_answer, r.reward]).toEqual(["C", 1]);
  });
  it("`\\boxed{ optC }` under lenient_boxed → 1", async () => {
    const r = await verify(env, row({ grading_mode: "lenient_boxed" }), "\\boxed{ optC }");
    expect([r.extracted_answer, r.reward]).toEqual(["C", 1]);
  });
  it('"Answer: c" under lenient_answer_colon → 1', async () => {
    const r = await verify(env, row({ grading_mode: "lenient_answer_colon" }), "Answer: c");
    expect([r.extracted_answer, r.reward]).toEqual(["C", 1]);
  });
  it("`\\boxed{\\text{I: NGS can …}}` under strict → I", async () => {
    const text = "\\boxed{\\text{I: NGS can detect both coding and non-coding regions of the genome}}";
    const r = await verify(env, row({ options: optionsOf(2), gold: "I", grading_mode: "strict_single_letter_boxed" }), text);
    expect([r.extracted_answer, r.reward]).toEqual(["I", 1]);
  });
  it("`\\boxed{A polygenic risk…}` under strict → null, 0", async () => {
    const text = "\\boxed{A polygenic risk score can provide a probability of developing Type 2 Diabetes Mellitus.}";
    const r = await verify(env, row({ options: optionsOf(3), gold: "E", grading_mode: "strict_single_letter_boxed" }), text);
    expect([r.extracted_answer, r.reward]).toEqual([null, 0]);
  });
  it("`\\boxed{B` (never closed) → null", async () => {
    expect((await verify(env, row({ gold: "B" }), "\\boxed{B")).extracted_answer).toBeNull();
  });
  it('"Candidate is \\boxed{C}, … \\boxed{E}" → E (the last box)', async () => {
    const r = await verify(env, row({ options: optionsOf(0), gold: "E" }), "Candidate is \\boxed{C}, but on reflection \\boxed{E}");
    expect([r.extracted_answer, r.reward]).toEqual(["E", 1]);
  });
  it('colon_md: "**Answer: C**" → C, but null under lenient_answer_colon', async () => {
    expect((await verify(mdEnv, row({}), "**Answer: C**")).extracted_answer).toBe("C");
    expect((await verify(env, row({ grading_mode: "lenient_answer_colon" }), "**Answer: C**")).extracted_answer).toBeNull();
  });
  it('colon_md: "Answer: B/B" → B', async () => {
    expect((await verify(mdEnv, row({ gold: "B" }), "Answer: B/B")).extracted_answer).toBe("B");
  });
  for (const text of ["Answer: A or B", "Answer: A, B", "Answer: A/B/C"]) {
    it(`colon_md: ${JSON.stringify(text)} → null`, async () => {
      expect((await verify(mdEnv, row({}), text)).extracted_answer).toBeNull();
    });
  }
  it('colon_md: "Answer: B\\nAnswer: G" (G not an option) → B', async () => {
    const options: Options = ["A", "B", "C", "D", "E", "F"].map((l) => ({ [l]: `opt${l}` }));
    expect((await verify(mdEnv, row({ options, gold: "B" }), "Answer: B\nAnswer: G")).extracted_answer).toBe("B");
  });
  it("template regex `الإجابة:\\s*([أ-د])` on \"الإجابة: ب\" → B", async () => {
    const r = await verify(env, row({ gold: "B", template: "الإجابة:\\s*([أ-د])" }), "الإجابة: ب");
    expect([r.extracted_answer, r.reward]).toEqual(["B", 1]);
  });
  it("config grading_mode=lenient_answer_colon overrides a strict row: \"Answer: B\" → B, reward 1", async () => {
    const r = await verify(colonEnv, row({ gold: "B", grading_mode: "strict_single_letter_boxed" }), "Answer: B");
    expect([r.extracted_answer, r.reward]).toEqual(["B", 1]);
    // The same row on an instance without the override: strict, so no answer.
    expect((await verify(env, row({ gold: "B", grading_mode: "strict_single_letter_boxed" }), "Answer: B")).extracted_answer).toBeNull();
  });
});

describe("strict_single_letter_boxed (our cases)", () => {
  runCases("strict_single_letter_boxed", [
    { text: "\\boxed{C}", expected: "C" },
    { text: "\\boxed{(C)}", expected: "C" },
    { text: "The final answer is \\boxed{ C }.", expected: "C" },
    { text: "\\boxed{\\text{C}}", expected: "C" },
    { text: "\\boxed{\\text{ \\text{C} }}", expected: "C" },
    { text: "\\boxed{{C}}", expected: "C" },
    { text: "$\\boxed{**C**}$", expected: "C" },
    { text: "\\boxed{C: optC}", expected: "C" },
    { text: "\\boxed{C) optC}", expected: "C" },
    { text: "\\boxed{C. optC}", expected: "C" },
    { text: "\\boxed{C- optC}", expected: "C" },
    { text: "\\boxed{A} no wait \\boxed{C}", expected: "C" },
    { text: "\\boxed{C} no wait \\boxed{A}", expected: "A" },
    { text: "\\boxed{c}", expected: null },
    { text: "\\boxed{optC}", expected: null },
    { text: "\\boxed{E}", expected: null },
    { text: "\\boxed{AB}", expected: null },
    { text: "\\boxed{A or C}", expected: null },
    { text: "\\boxed{}", expected: null },
    { text: "\\boxed{C} and then \\boxed{D", expected: null },
    { text: "Answer: C", expected: null },
    { text: "\\boxed{\\textbf{C}}", expected: null },
    { text: "\\boxed{C D}", expected: null },
    { text: "\\boxed{C}", expected: "C", gold: " c " },
    { text: "\\boxed{C}", expected: null, options: [{ A: "optA" }, { B: "optB" }, { C: null }, { D: "optD" }] },
    { text: "\\boxed{C}", expected: "C", options: [{ a: "optA" }, { b: "optB" }, { c: "optC" }] },
    { text: "\\boxed{C}", expected: null, options: [{ A: "optA" }, { CC: "optC" }] },
  ]);
});

describe("lenient_boxed (our cases)", () => {
  const pcr: Options = [{ A: "PCR" }, { B: "Methylation-specific PCR" }, { C: "Whole   genome sequencing" }, { D: "FISH" }];
  runCases("lenient_boxed", [
    { text: "\\boxed{C}", expected: "C" },
    { text: "\\boxed{[C]}", expected: "C" },
    { text: "\\boxed{optC}", expected: "C" },
    { text: "\\boxed{ OPTC }", expected: "C" },
    { text: "\\boxed{\\text{optC}}", expected: "C" },
    { text: "\\boxed{The answer is optC}", expected: "C" },
    { text: "\\boxed{optC\n}", expected: "C" },
    { text: "\\boxed{optA or optC}", expected: null },
    { text: "\\boxed{optE}", expected: null },
    { text: "\\boxed{c}", expected: null },
    { text: "\\boxed{opt C}", expected: null },
    { text: "optC", expected: null },
    { text: "\\boxed{optC} then \\boxed{optA}", expected: "A" },
    { text: "\\boxed{optC} then \\boxed{nothing}", expected: null },
    { text: "\\boxed{optC", expected: null },
    { text: "\\boxed{Whole genome sequencing}", expected: "C", options: pcr },
    { text: "\\boxed{whole   GENOME\tsequencing}", expected: "C", options: pcr },
    { text: "\\boxed{Methylation-specific PCR}", expected: null, options: pcr, gold: "B" },
    { text: "\\boxed{PCR}", expected: "A", options: pcr, gold: "A" },
    { text: "\\boxed{\\text{FISH}}", expected: "D", options: pcr, gold: "D" },
    { text: "\\boxed{E: optE}", expected: null },
    { text: "\\boxed{C: optA}", expected: "C" },
    { text: "\\boxed{optB}", expected: "B" },
  ]);
});

describe("lenient_answer_colon (our cases)", () => {
  runCases("lenient_answer_colon", [
    { text: "Answer: C", expected: "C" },
    { text: "answer: c", expected: "C" },
    { text: "ANSWER:C", expected: "C" },
    { text: "Answer : C", expected: "C" },
    { text: "Answer:\nC", expected: "C" },
    { text: "Answer: optC", expected: "C" },
    { text: "Answer:   OPTC   ", expected: "C" },
    { text: "Answer: \\text{C}", expected: "C" },
    { text: "Answer: \\text{optC}", expected: "C" },
    { text: "The final answer: B", expected: "B" },
    { text: "Reasoning...\nAnswer: C\nAnswer: A", expected: "C" },
    { text: "Answer: C.", expected: null },
    { text: "Answer: (C)", expected: null },
    { text: "Answer: C is correct", expected: null },
    { text: "**Answer: C**", expected: null },
    { text: "Answer: E", expected: null },
    { text: "Answers: C", expected: null },
    { text: "No answer here", expected: null },
    { text: "\\boxed{C}", expected: null },
    { text: "Answer: A", expected: "A" },
    { text: "Answer: opt", expected: null },
    { text: "Answer: b", expected: "B", gold: "b" },
  ]);
});

describe("lenient_answer_colon_md (config override; our cases)", () => {
  const aToJ: Options = "ABCDEFGHIJ".split("").map((l) => ({ [l]: `opt${l}` }));
  runCases(
    "strict_single_letter_boxed",
    [
      { text: "**Answer:** C", expected: "C" },
      { text: "**Answer**: C", expected: "C" },
      { text: "_Answer_: C", expected: "C" },
      { text: "Answer: `C`", expected: "C" },
      { text: "Answer: C.", expected: "C" },
      { text: "answer: c", expected: "C" },
      { text: "ANSWER: D", expected: "D" },
      { text: "Answer: (C)", expected: "C" },
      { text: "Answer: C) optC", expected: "C" },
      { text: "Answer: The correct option is C", expected: "C" },
      { text: "Answer: A and B", expected: null },
      { text: "Answer: A & C", expected: null },
      { text: "Answer: A | C", expected: null },
      { text: "Answer: A; C", expected: null },
      { text: "Answer: A C", expected: null },
      { text: "Answer: E", expected: null },
      { text: "Answer: أ", expected: "A", gold: "A" },
      { text: "Answer: Ｃ", expected: "C" },
      { text: "Answer: ঢ", expected: "D", gold: "D" },
      { text: "Answer: A\nAnswer: C", expected: "C" },
      { text: "Answer: C\nmore thoughts\nAnswer: unsure", expected: "C" },
      { text: "Answer: C (because A is wrong)", expected: "C" },
      { text: "\\boxed{C}", expected: null },
      { text: "Answer: H", expected: "H", options: aToJ, gold: "H" },
    ],
    () => mdEnv,
  );
});

describe("template step (output_regex)", () => {
  const ar = "الإجابة:\\s*([أ-د])";
  runCases("strict_single_letter_boxed", [
    { text: "الإجابة: ب", expected: "B", gold: "B", template: ar },
    { text: "الإجابة: ج", expected: "C", template: [ar] },
    { text: "الإجابة: أ ثم الإجابة: د", expected: "D", gold: "D", template: ar },
    { text: "উত্তর: ড", expected: "C", template: "উত্তর:\\s*(\\S)" },
    { text: "Final choice -> Ｃ", expected: "C", template: "choice\\s*->\\s*(\\S)" },
    { text: "FINAL CHOICE: c", expected: "C", template: "final choice:\\s*([a-d])" },
    { text: "Choice: E", expected: "E", gold: "E", template: "Choice:\\s*([A-Z])" },
    { text: "Choice: optC", expected: "C", template: "Choice:\\s*(.+)" },
    { text: "Choice:   opt   C  ", expected: null, template: "Choice:\\s*(.+)" },
    { text: "Choice: nothing \\boxed{C}", expected: "C", template: "Choice:\\s*([A-D])\\b" },
    { text: "Choice: C", expected: "C", template: ["([", "Choice:\\s*([A-D])"] },
    { text: "Choice: C; Pick: A", expected: "C", template: ["Choice:\\s*([A-D])", "Pick:\\s*([A-D])"] },
    { text: "Pick: A", expected: "A", gold: "A", template: ["Choice:\\s*([A-D])", "Pick:\\s*([A-D])"] },
    { text: "Choice: C", expected: "C", template: "(?<=Choice: )[A-D]" },
    { text: "option(B) then option(C)", expected: "C", template: "option\\((\\w)\\)" },
    { text: "Choice: C", expected: "C", template: "Choice:\\s*(?P<letter>[A-D])" },
    { text: "nothing matches here", expected: null, template: "Choice:\\s*([A-D])" },
    { text: "nothing matches \\boxed{B}", expected: "B", gold: "B", template: "Choice:\\s*([A-D])" },
    { text: "Choice: \\boxed{A}", expected: "A", gold: "A", template: 42 },
    { text: "Choice: C", expected: "C", template: [7, "Choice:\\s*([A-D])"] },
    { text: "Choice:\tc", expected: "C", template: "choice:\\s*(\\w)" },
  ]);
});

describe("request and response shape", () => {
  it("answers NeMo Gym's MCQAVerifyResponse: the normalised gold and the extraction, not the row's other fields", async () => {
    const body = { responses_create_params: { input: "q" }, options: ABCD, expected_answer: " c " };
    const result = await env.request("/verify", { ...body, response: responseWith([assistantMessage("\\boxed{C}")]) });
    expect(result.status).toBe(200);
    expect(Object.keys(result.body)).toEqual(["responses_create_params", "response", "reward", "expected_answer", "extracted_answer"]);
    expect(result.body).toMatchObject({ expected_answer: "C", extracted_answer: "C", reward: 1 });
  });
  it("an empty or missing output text gives no answer", async () => {
    expect(await verify(env, row({}), null)).toMatchObject({ extracted_answer: null, reward: 0 });
    expect(await verify(env, row({}), "   \n ")).toMatchObject({ extracted_answer: null, reward: 0 });
  });
  it("a missing gold never rewards", async () => {
    const body = { responses_create_params: { input: "q" }, options: ABCD };
    const r = await env.request("/verify", { ...body, response: responseWith([assistantMessage("\\boxed{C}")]) });
    expect(r.body).toMatchObject({ expected_answer: "", extracted_answer: "C", reward: 0 });
  });
  it("joins the text of every assistant message (no separator)", async () => {
    const output = [assistantMessage("I pick \\boxed{"), { type: "reasoning", summary: [] }, assistantMessage("C}")];
    const r = await env.request("/verify", { ...row({}), response: responseWith(output) });
    expect(r.body.extracted_answer).toBe("C");
  });
  it("rejects an unknown row grading_mode (and the config-only md mode) with 422", async () => {
    for (const mode of ["bogus", "lenient_answer_colon_md"]) {
      const r = await env.request("/verify", { ...row({ grading_mode: mode }), response: responseWith([]) });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", "grading_mode"]);
    }
  });
  it("rejects an unknown config grading_mode", async () => {
    await expect(startInstance(mcqa, { config: { grading_mode: "bogus" } })).rejects.toThrow();
  });
  it("says verification is stateless", async () => {
    expect((await env.request("/reverify_mode")).body).toBe("stateless");
  });
});

describe("example.jsonl rows with hand-written answers", () => {
  const answers: Array<[string, string | null, number]> = [
    ["PCR amplifies the mutated region, so the answer is \\boxed{B}", "B", 1],
    ["Carrier testing is not predictive; BRCA is. \\boxed{D}", "D", 0],
    ["\\boxed{\\text{I: NGS can detect both coding and non-coding regions}}", "I", 1],
    ["\\boxed{A polygenic risk score can provide a probability}", null, 0],
    ["16S sequencing profiles the microbiome. \\boxed{(E)}", "E", 1],
  ];
  exampleRows.forEach((r, i) => {
    const [text, extracted, reward] = answers[i]!;
    it(`row ${i} (${r.uuid})`, async () => {
      const result = await verify(env, r, text);
      expect([result.extracted_answer, result.reward]).toEqual([extracted, reward]);
      expect(result.expected_answer).toBe(r.expected_answer);
    });
  });
});

describe("aggregate metrics", () => {
  it("adds pass@k, majority@k and no_answer on extracted_answer, with the spec's key metrics", async () => {
    // Task 0: answers C, C, A (gold C); task 1: null, B, B (gold B).
    const responses = [
      { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1, extracted_answer: "C" },
      { _ng_task_index: 0, _ng_rollout_index: 1, reward: 1, extracted_answer: "C" },
      { _ng_task_index: 0, _ng_rollout_index: 2, reward: 0, extracted_answer: "A" },
      { _ng_task_index: 1, _ng_rollout_index: 0, reward: 0, extracted_answer: null },
      { _ng_task_index: 1, _ng_rollout_index: 1, reward: 1, extracted_answer: "B" },
      { _ng_task_index: 1, _ng_rollout_index: 2, reward: 1, extracted_answer: "B" },
    ];
    const result = await env.request("/aggregate_metrics", { verify_responses: responses });
    expect(result.status).toBe(200);
    const m = result.body.agent_metrics;
    expect(m["mean/reward"]).toBeCloseTo(4 / 6, 12);
    expect(m["pass@1/accuracy"]).toBeCloseTo(100 * (2 / 3), 10);
    expect(m["pass@3/accuracy"]).toBe(100);
    expect(m["pass@1[avg-of-3]/accuracy"]).toBeCloseTo(100 * (2 / 3), 10);
    expect(m["majority@3/accuracy"]).toBe(100);
    // First two rollouts of task 1: one null, one B → majority B (correct); task 0: C → 100.
    expect(m["majority@2/accuracy"]).toBe(100);
    expect(m["pass@1[avg-of-3]/no_answer"]).toBeCloseTo(100 * (1 / 6), 10);
    expect(Object.keys(result.body.key_metrics)).toEqual([
      "mean/reward",
      "pass@1[avg-of-3]/accuracy",
      "pass@1[avg-of-3]/no_answer",
      "pass@3/no_answer",
      "majority@3/accuracy",
      "pass@1/accuracy",
    ]);
    expect(result.body.per_sample_aggregate.accuracy).toHaveLength(3);
  });
});

describe("data/example_rollouts.jsonl (NeMo Gym's, 07d6b0d)", () => {
  it("every line, replayed, scores the reward it records", async () => {
    const replayed = await replayExampleRollouts(env, new URL("./data/", import.meta.url));
    expect(replayed.length).toBeGreaterThan(0);
    for (const { line, status, reward, recorded } of replayed) {
      expect(status, `line ${line}`).toBe(200);
      expect(reward, `line ${line}`).toBe(RESCORED_SINCE_RECORDING[line] ?? recorded);
    }
  });
});

/**
 * Lines whose recorded reward NeMo Gym's own parser no longer gives at 07d6b0d: line 3 answers
 * `\boxed{C: An individual …}`, which the recording's older strict parser did not read (reward 0);
 * "improve MCQA answer parsing" (NVIDIA-NeMo/Gym#1945) reads a leading letter with its option text,
 * so it scores 1 there, as here.
 */
const RESCORED_SINCE_RECORDING: Record<number, number> = { 3: 1 };
