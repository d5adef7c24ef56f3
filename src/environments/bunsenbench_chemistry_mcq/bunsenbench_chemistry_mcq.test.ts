// bunsenbench_chemistry_mcq: extraction, normalisation, gold letter, options from `choices`, error modes
// and metric segments against NeMo Gym's own functions (fixture generated from 07d6b0d), the reward rules
// over HTTP with must-not-reward traps, NeMo Gym's recorded rollouts re-verified through `gym eval
// reverify`, its config run unchanged, and the metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import bunsen, { classifyErrorMode, metricSegment } from "./index.js";
import { allowedLetters, expectedAnswerLetter, extractBunsenAnswer, normalizeChemistryText, optionsFromRow, type Options } from "./extract.js";
import fixture from "./testdata/extract.json" with { type: "json" };
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { promptOf, recordedAnswers, runNemoGymConfig } from "../../../test/helpers/mcq_slice.js";

type RawOptions = Array<Record<string, string | null>>;
interface Fixture {
  normalized: Array<{ text: string; normalized: string }>;
  segments: Array<{ value: unknown; segment: string }>;
  extractions: Array<{ options: RawOptions; gold: string; text: string; pred: string | null }>;
  expected: Array<{ options: RawOptions; expected: string; gold: string }>;
  from_choices: Array<{ choices: Array<string | Record<string, unknown>>; options: Options }>;
  modes: Array<{ shape: string; text: string; pred: string | null; mode: string }>;
}
const data = fixture as unknown as Fixture;
const exampleRows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));

describe("against NeMo Gym's own functions (testdata/extract.json)", () => {
  it(`normalize_chemistry_text on ${data.normalized.length} strings (html.unescape, NFKC, sub/superscripts, format characters)`, () => {
    expect(data.normalized.map((c) => normalizeChemistryText(c.text))).toEqual(data.normalized.map((c) => c.normalized));
  });
  it("_metric_segment", () => {
    expect(data.segments.map((c) => metricSegment(c.value))).toEqual(data.segments.map((c) => c.segment));
  });
  it(`extract_bunsen_answer on ${data.extractions.length} response/option-set pairs`, () => {
    const mismatches = data.extractions.filter((c) => {
      const options = optionsFromRow(c.options, null);
      const allowed = allowedLetters(options).add(c.gold);
      const text = c.text.trim();
      return (text ? (extractBunsenAnswer(text, options, allowed) ?? null) : null) !== c.pred;
    });
    expect(mismatches).toEqual([]);
  });
  it("_expected_answer_letter", () => {
    expect(data.expected.map((c) => expectedAnswerLetter(c.expected, optionsFromRow(c.options, null)))).toEqual(data.expected.map((c) => c.gold));
  });
  it("_options_from_body from `choices`", () => {
    for (const c of data.from_choices) expect(optionsFromRow(null, c.choices)).toEqual(c.options);
  });
  it(`classify_error_mode on ${data.modes.length} response shapes/texts`, () => {
    const shapes: Record<string, Record<string, unknown>> = {
      plain: {},
      incomplete: { status: "incomplete" },
      max_tokens: { incomplete_details: { reason: "max_output_tokens" } },
      item_incomplete: { itemStatus: "incomplete" },
      refusal_part: { refusal: true },
    };
    for (const c of data.modes) {
      const s = shapes[c.shape]!;
      const part = s.refusal ? { type: "refusal", refusal: "no" } : { type: "output_text", text: "x" };
      const response = { status: s.status ?? null, incomplete_details: s.incomplete_details ?? null, output: [{ type: "message", status: s.itemStatus ?? null, content: [part] }] };
      expect(classifyErrorMode(response, c.text, c.pred ?? undefined, "B"), `${c.shape} ${JSON.stringify(c.text)} ${c.pred}`).toBe(c.mode);
    }
  });
});

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(bunsen);
});
afterAll(() => env.close());

const OPTIONS = [{ A: "OH-" }, { B: "H₂O" }, { C: "H3O+" }, { D: "O2" }];
async function verify(text: string, row: Record<string, unknown> = {}, response: Record<string, unknown> = {}) {
  const body = { responses_create_params: { input: "q" }, options: OPTIONS, expected_answer: "B", ...row, response: responseWith([assistantMessage(text)], response) };
  const result = await env.request("/verify", body);
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

describe("reward rules", () => {
  const cases: Array<[string, string | null, number, string]> = [
    ["<choice>H2O</choice>", "B", 1, "correct"],
    ["<choice>H<sub>2</sub>O</choice>", null, 0, "malformed_choice"], // markup is not unescaped into text
    ["<choice>H&#8322;O</choice>", "B", 1, "correct"],
    ["Answer: B", "B", 1, "correct"],
    ["\\boxed{\\text{H2O}}", "B", 1, "correct"],
    ["<choice>O2</choice>", "D", 0, "wrong_answer"],
    ["<choice>H2O</choice> on second thought <choice>OH-</choice>", "A", 0, "wrong_answer"], // the latest candidate wins
    ["<choices><choice>OH-</choice><choice>H2O</choice></choices>", null, 0, "format_violation"], // echoing the option list is no answer (trap)
    ["<choice>water</choice>", null, 0, "malformed_choice"],
    ["I'm sorry, but I can't help with that.", null, 0, "refusal"],
    ["<think>Let me weigh H2O against", null, 0, "early_termination"],
    ["It is one of them.", null, 0, "format_violation"],
    ["", null, 0, "format_violation"],
  ];
  for (const [text, extracted, reward, mode] of cases) {
    it(`${JSON.stringify(text).slice(0, 60)} → ${extracted}, ${reward}, ${mode}`, async () => {
      const r = await verify(text);
      expect([r.extracted_answer, r.reward, r.error_mode, r.no_answer]).toEqual([extracted, reward, mode, extracted === null]);
    });
  }
  it("a truncated generation without an answer is early_termination", async () => {
    expect((await verify("Thinking about", {}, { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } })).error_mode).toBe("early_termination");
  });
  it("options from `choices` when the row has none; gold given as option text", async () => {
    const r = await verify("<choice>Kelvin</choice>", { options: null, choices: ["Photon", { letter: "b", text: "Kelvin" }], expected_answer: "Kelvin" });
    expect([r.expected_answer, r.extracted_answer, r.reward]).toEqual(["B", "B", 1]);
  });
  it("source and bct fields from the row's metadata; the response keeps NeMo Gym's fields", async () => {
    const r = await verify("<choice>H2O</choice>", { uuid: "u1", metadata: { source: "s1", bct_field: "general", bct_subfield: "acids", bunsen_id: "b1" } });
    expect(r).toMatchObject({ uuid: "u1", source: "s1", bct_field: "general", bct_subfield: "acids", bunsen_id: "b1", choices: null });
    expect(r.options).toBeUndefined();
  });
  it("reports reverify mode unknown, as NeMo Gym pins it", async () => {
    expect((await env.request("/reverify_mode")).body).toBe("unknown");
  });
});

describe("strict: true (Gymkit's own; closes the audit's guess.all_boxes)", () => {
  let strictEnv: RunningInstance;
  beforeAll(async () => {
    strictEnv = await startInstance(bunsen, { config: { strict: true } });
  });
  afterAll(() => strictEnv.close());
  // [response, reward by default (NeMo Gym's), reward under strict]; the gold is B.
  const cases: Array<[string, number, number]> = [
    ["\\boxed{C}\n\\boxed{B}\n\\boxed{not B}", 1, 0], // the audit's guess.all_boxes: the latest box that parses wins
    ["\\boxed{A} \\boxed{C} \\boxed{B}", 1, 0],
    ["Answer: A\n\\boxed{B}", 1, 0],
    ["\\boxed{B}", 1, 1],
    ["Answer: B\n\\boxed{B}", 1, 1],
  ];
  for (const [text, byDefault, strict] of cases) {
    it(`${JSON.stringify(text)} → ${byDefault} by default, ${strict} under strict`, async () => {
      expect((await verify(text)).reward).toBe(byDefault);
      const r = await strictEnv.request("/verify", { responses_create_params: { input: "q" }, options: OPTIONS, expected_answer: "B", response: responseWith([assistantMessage(text)]) });
      expect(r.status, r.text).toBe(200);
      expect((r.body as { reward: number }).reward).toBe(strict);
    });
  }
});

describe("aggregate metrics", () => {
  it("mcqa's metrics, grouped by source / field / subfield, error-mode shares, and NeMo Gym's key metrics", async () => {
    const rows = [
      { _ng_task_index: 0, reward: 1, extracted_answer: "B", error_mode: "correct", source: "s 1", bct_field: "general", bct_subfield: "acids/bases" },
      { _ng_task_index: 1, reward: 0, extracted_answer: "A", error_mode: "wrong_answer", source: "s 1", bct_field: "organic", bct_subfield: null },
      { _ng_task_index: 2, reward: 0, extracted_answer: null, error_mode: null, source: null, bct_field: "organic", bct_subfield: "rings" },
    ];
    const result = await env.request("/aggregate_metrics", { verify_responses: rows });
    const m = result.body.agent_metrics;
    expect(m["pass@1/accuracy"]).toBeCloseTo(100 / 3, 10);
    expect(m["by_source/s_1/pass@1/accuracy"]).toBe(50);
    expect(m["by_bct_field/organic/pass@1/accuracy"]).toBe(0);
    expect(m["by_bct_subfield/general/acids__bases/pass@1/accuracy"]).toBe(100);
    expect(m["by_bct_subfield/organic/rings/pass@1/no_answer"]).toBe(100);
    expect([m["error_modes/correct/count"], m["error_modes/format_violation"], m["error_modes/refusal"]]).toEqual([1, 100 / 3, 0]);
    expect(Object.keys(result.body.key_metrics)).toEqual([
      "mean/reward", "pass@1[avg-of-1]/accuracy", "pass@1[avg-of-1]/no_answer", "pass@1/no_answer", "majority@1/accuracy", "pass@1/accuracy",
      ...["correct", "wrong_answer", "refusal", "early_termination", "malformed_choice", "format_violation"].map((mode) => `error_modes/${mode}`),
    ]);
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl)", () => {
  it("re-verify to the recorded rewards (5/5) and error modes (--force: NeMo Gym pins the mode to unknown)", async () => {
    const { result, recorded, reverified, rows } = await reverifyRecorded("bunsenbench_chemistry_mcq", ["--resources-server", "bunsenbench_chemistry_mcq", "--force"]);
    expect(result.code, result.stderr).toBe(0);
    expect(reverified).toEqual(recorded);
    expect(rows.map((r) => [r?.extracted_answer, r?.error_mode])).toEqual(["B", "B", "B", "D", "B"].map((l) => [l, "correct"]));
  }, 180_000);
});

describe("NeMo Gym's configs/bunsenbench_chemistry_mcq.yaml, unchanged", () => {
  it("runs every example row (recorded answers, one replaced by a refusal); rewards and metrics", async () => {
    const answers = recordedAnswers("bunsenbench_chemistry_mcq");
    answers.set(promptOf(exampleRows[4]!), "I'm sorry, but I cannot help with that.");
    const { result, rows, metrics } = await runNemoGymConfig("bunsenbench_chemistry_mcq", "bunsenbench_chemistry_mcq.yaml", answers);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(rows.map((r) => [r.reward, r.error_mode])).toEqual([[1, "correct"], [1, "correct"], [1, "correct"], [1, "correct"], [0, "refusal"]]);
    const m = metrics[0]!.agent_metrics;
    expect(m["pass@1/accuracy"]).toBeCloseTo(80, 10);
    expect([m["error_modes/correct"], m["error_modes/refusal"], m["error_modes/refusal/count"]]).toEqual([80, 20, 1]);
    expect(m["by_source/example/pass@1/accuracy"]).toBeCloseTo(80, 10);
    expect(m["by_bct_field/physical/pass@1/accuracy"]).toBe(0);
    expect(metrics[0]!.key_metrics["error_modes/refusal"]).toBe(20);
  }, 180_000);
});
