// omniscience: the grade reading, the judged answer (reasoning removed, cut-off reasoning empty), the
// prompt and the metrics against NeMo Gym's own code (fixture generated from 07d6b0d), the reward
// rules over HTTP with a judge (vllm_model in front of the fake engine), judge failures, NeMo Gym's
// recorded rollouts re-scored by replaying their judge answers, and NeMo Gym's config run unchanged.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import omniscience from "./index.js";
import { omniscienceAnswer } from "./answer.js";
import { omniscienceMetrics } from "./metrics.js";
import { PROMPTS } from "./prompts.js";
import reference from "./testdata/reference.json" with { type: "json" };
import { closeDispatcher } from "../../http/client.js";
import { PromptTemplate, readPromptYaml } from "../../judge/index.js";
import vllmModel from "../../models/vllm_model.js";
import { exactLetterGrade } from "../../verifiers/graded_qa/grades.js";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import { judgeEngineConfig, judgeReplayArgs } from "../../../test/helpers/judges.js";
import { environmentFolder, nemoGymCheckout, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { promptOf, runNemoGymConfig } from "../../../test/helpers/mcq_slice.js";

const exampleRows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const recordedRows = readJsonlFile(new URL("./data/example_rollouts.jsonl", import.meta.url));
const CONFIG = {
  judge_model_server: { type: "responses_api_models", name: "genrm_model" },
  judge_responses_create_params: { input: [], max_output_tokens: 2048, temperature: 0.0, top_p: 1.0 },
};
const DEFAULTS = { agent_metrics: { "mean/reward": 0.5, "mean/input_tokens": 10.0 }, key_metrics: {}, group_level_metrics: [] };

const verdicts: string[] = [];
let engine: FakeEngine;
let judge: RunningInstance;
let chatEnv: RunningInstance;
let responsesEnv: RunningInstance;

beforeAll(async () => {
  engine = await startFakeEngine({ model: "judge", policy: () => ({ text: verdicts.shift() ?? "" }) });
  judge = await startInstance(vllmModel, { name: "genrm_model", config: { base_url: engine.baseUrl, model: "judge" } });
  chatEnv = await startInstance(omniscience, { config: { ...CONFIG, use_chat_completions_for_judge: true }, servers: { genrm_model: judge.url } });
  responsesEnv = await startInstance(omniscience, { config: CONFIG, servers: { genrm_model: judge.url } });
});

afterAll(async () => {
  await Promise.all([chatEnv?.close(), responsesEnv?.close()]);
  await judge?.close();
  await engine?.close();
  await closeDispatcher();
});

const body = (text: string, row: Record<string, unknown> = exampleRows[1]!) => ({ ...row, response: responseWith([assistantMessage(text)]) });

function expectMetrics(tasks: Array<Array<Record<string, unknown>>>, expected: { metrics: Record<string, any>; key_metrics: Record<string, number> }) {
  const rows = tasks.flatMap((task, t) => task.map((r, i) => ({ ...r, _ng_task_index: t, _ng_rollout_index: i })));
  const result = omniscienceMetrics(rows, DEFAULTS);
  const { per_sample_aggregate, ...metrics } = expected.metrics;
  const mine = Object.fromEntries(Object.entries(result.agent_metrics).filter(([k]) => !k.startsWith("mean/")));
  expect(Object.keys(mine)).toEqual(Object.keys(metrics));
  for (const [key, value] of Object.entries(metrics)) expect(mine[key], key).toBeCloseTo(value as number, 10);
  for (const [name, runs] of Object.entries(per_sample_aggregate as Record<string, number[]>)) {
    runs.forEach((value, i) => expect(result.per_sample_aggregate![name]![i], `${name}[${i}]`).toBeCloseTo(value, 10));
  }
  expect(Object.keys(result.key_metrics)).toEqual(Object.keys(expected.key_metrics));
  for (const [key, value] of Object.entries(expected.key_metrics)) expect(result.key_metrics[key], key).toBeCloseTo(value, 10);
}

describe("against NeMo Gym's own omniscience code (testdata/reference.json, from generate.py)", () => {
  it("reads the grade as parse_judge_grade does (fallback B)", () => {
    for (const { text, grade } of reference.grades) expect(exactLetterGrade(text, ["A", "B", "C", "D"], "B"), JSON.stringify(text)).toBe(grade);
  });
  it("judges the answer verify computes: reasoning removed, cut-off reasoning empty", () => {
    for (const { output, answer } of reference.answers) expect(omniscienceAnswer({ output }), JSON.stringify(output)).toBe(answer);
  });
  it("bundles the prompt file byte for byte and fills it as str.format does", () => {
    const template = readPromptYaml("prompts/judge.yaml", "user", { key: "judge_prompt_path", bundled: PROMPTS });
    expect(template).toBe(reference.prompt);
    for (const { values, prompt } of reference.fills) expect(new PromptTemplate(template, "t").fill(values)).toBe(prompt);
  });
  it("computes compute_metrics and get_key_metrics as NeMo Gym does (3 tasks × 3 rollouts; all correct)", () => {
    expectMetrics(reference.synthetic.tasks, reference.synthetic);
    expectMetrics(reference.all_correct.tasks, reference.all_correct);
  });
  it("computes NeMo Gym's metrics on the recorded rollouts as recorded (data/example_metrics.json is the dataset profile, no metrics to match)", () => {
    const result = omniscienceMetrics(recordedRows, DEFAULTS);
    const { per_sample_aggregate: _p, ...expected } = reference.recorded.metrics_as_recorded.metrics as Record<string, any>;
    for (const [key, value] of Object.entries(expected)) expect(result.agent_metrics[key], key).toBeCloseTo(value as number, 10);
    expect(result.agent_metrics["pass@1/judge_omni_index"]).toBeCloseTo(0, 10);
    expect(result.agent_metrics["pass@1/judge_omni_hallucination"]).toBeCloseTo((100 * 40) / 60, 10);
  });
});

describe("reward rules over HTTP (judge over /v1/chat/completions, as NeMo Gym's config sets)", () => {
  const cases: Array<[string, string, number, number]> = [
    ["A", "correct", 1, 1],
    ["B", "incorrect", 0, -1],
    ["C", "partial", 0, 0],
    ["D", "not_attempted", 0, 0],
    ["Reasoning.\n D ", "not_attempted", 0, 0],
    // Must not reward: words, lower case, no letter fall back to B (a hallucination).
    ["correct", "incorrect", 0, -1],
    ["a", "incorrect", 0, -1],
    ["E", "incorrect", 0, -1],
    // The first letter found in A, B, C, D order wins, wherever it is.
    ["I'd say D, maybe C", "partial", 0, 0],
    ["PARTIAL_ANSWER", "correct", 1, 1],
  ];
  for (const [reply, verdict, reward, index] of cases) {
    it(`judge ${JSON.stringify(reply)} → ${verdict}, ${reward}`, async () => {
      verdicts.push(reply);
      const result = await chatEnv.request("/verify", body("1989"));
      expect(result.status, result.text).toBe(200);
      expect(result.body).toMatchObject({ reward, verdict, judge_output: reply.trim(), omniscience_index: index, is_hallucination: verdict === "incorrect" ? 1 : 0 });
      const flags = [result.body.is_correct, result.body.is_incorrect, result.body.is_partial, result.body.is_not_attempted];
      expect(flags).toEqual(["correct", "incorrect", "partial", "not_attempted"].map((v) => (v === verdict ? 1 : 0)));
    });
  }

  it("judges the answer after the reasoning, and an empty answer when the reasoning was cut off", async () => {
    const before = engine.requests.length;
    verdicts.push("A", "D");
    const done = await chatEnv.request("/verify", body("<think>The wall fell in</think>\n1989"));
    const cut = await chatEnv.request("/verify", body("<think>The wall fell in"));
    expect([done.body.extracted_answer, cut.body.extracted_answer]).toEqual(["1989", ""]);
    const prompts = engine.requests.slice(before).map((r) => (r.body.messages as Array<{ content: string }>)[0]!.content);
    expect(prompts[0]).toBe(new PromptTemplate(reference.prompt, "t").fill({ question: "In what year did the Berlin Wall fall?", expected_answer: "1989", generation: "1989" }));
    expect(prompts[1]).toContain("Predicted answer: \n");
    expect(engine.requests[before]!.body).toMatchObject({ max_tokens: 2048, temperature: 0, top_p: 1 });
  });

  it("answers NeMo Gym's OmniscienceVerifyResponse fields, the row echoed (absent declared fields as null)", async () => {
    verdicts.push("A");
    const { domain: _d, topic: _t, ...row } = exampleRows[1]!;
    const result = await chatEnv.request("/verify", body("1989", row));
    expect(Object.keys(result.body).sort()).toEqual([
      "responses_create_params", "response", "reward", "extracted_answer", "expected_answer", "verdict", "judge_output",
      "is_correct", "is_incorrect", "is_partial", "is_not_attempted", "omniscience_index", "is_hallucination",
      "id", "domain", "topic", "question", "agent_ref",
    ].sort());
    expect(result.body).toMatchObject({ domain: null, topic: null, id: "example_1" });
  });

  it("over /v1/responses, removes the judge's own <think> block before reading its grade", async () => {
    verdicts.push("<think>B? no</think>A");
    const result = await responsesEnv.request("/verify", body("1989"));
    expect(result.body).toMatchObject({ reward: 1, verdict: "correct", judge_output: "A" });
  });

  it("an empty judge reply is judge_failed, never a zero", async () => {
    for (const env of [chatEnv, responsesEnv]) {
      verdicts.push("");
      const result = await env.request("/verify", body("1989"));
      expect(result.body).toMatchObject({ reward: 0, _ng_failure_class: "judge_failed", _ng_failure_judge_error: "empty judge response" });
    }
    // Over Responses, a reply that is only reasoning is empty too.
    verdicts.push("<think>hmm</think>");
    expect((await responsesEnv.request("/verify", body("1989"))).body).toMatchObject({ _ng_failure_class: "judge_failed" });
  });

  it("reports reverify mode unknown, as NeMo Gym leaves it", async () => {
    expect((await chatEnv.request("/reverify_mode")).body).toBe("unknown");
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl), the recorded judge answers replayed", () => {
  it("re-score to the recorded rewards and verdicts (5/5)", async () => {
    const checkout = nemoGymCheckout(["omniscience"]);
    const dir = mkdtempSync(join(tmpdir(), "gym-omniscience-replay-"));
    try {
      const rolloutsPath = join(environmentFolder("omniscience"), "data", "example_rollouts.jsonl");
      const args = ["--config", "resources_servers/omniscience/configs/omniscience.yaml", ...judgeReplayArgs(dir, "omniscience", "omniscience", { rolloutsPath, keys: ["judge_output"] }), "--force"];
      const { result, recorded, reverified, rows } = await reverifyRecorded("omniscience", args, { cwd: checkout.root });
      expect(result.code, result.stderr).toBe(0);
      expect(reverified).toEqual(recorded);
      for (const field of ["verdict", "judge_output", "omniscience_index", "is_hallucination", "is_not_attempted"]) {
        expect(rows.map((r) => r?.[field]), field).toEqual(recordedRows.map((r) => r[field]));
      }
      // The judged answer: 4/5 as recorded. Line 3 (task 4) was recorded with an empty answer, but its
      // text has no <think> tag at all, so NeMo Gym's 07d6b0d verify (reference.recorded.answers) and
      // this port judge the whole text; the replayed grade (D) and reward are the same.
      expect(rows.map((r) => r?.extracted_answer)).toEqual(reference.recorded.answers);
      expect(recordedRows.map((r, i) => r.extracted_answer === reference.recorded.answers[i])).toEqual([true, true, false, true, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      checkout.remove();
    }
  }, 180_000);
});

/** Scripted judge: A when the predicted answer holds the gold target, D when it declines, else B. */
function scriptedGrade(turns: Turn[]): string {
  const prompt = turns.findLast((t) => t.role === "user")?.content ?? "";
  const gold = prompt.slice(prompt.lastIndexOf("Gold target: ") + 13).split("\n")[0]!;
  const predicted = prompt.slice(prompt.lastIndexOf("Predicted answer: ") + 18).split("\n")[0]!;
  if (predicted.includes(gold)) return "A";
  return predicted.includes("do not know") || predicted === "" ? "D" : "B";
}

describe("NeMo Gym's configs/omniscience.yaml, unchanged (its genrm_model given as a judge engine)", () => {
  it("runs every example row; rewards and metrics as the script implies", async () => {
    const judgeEngine = await startFakeEngine({ model: "judge", policy: (turns) => ({ text: scriptedGrade(turns) }) });
    const dir = mkdtempSync(join(tmpdir(), "gym-omniscience-judge-"));
    try {
      const texts = ["<think>c is exact</think>299792458", "1990", "I do not know.", "<think>beta cells, in the", "13th Amendment"];
      const answers = new Map(exampleRows.map((row, i) => [promptOf(row), texts[i]!]));
      const { result, rows, metrics } = await runNemoGymConfig("omniscience", "omniscience.yaml", answers, ["--config", judgeEngineConfig(dir, "genrm_model", judgeEngine.baseUrl)]);
      expect(result.code, result.stderr + result.stdout).toBe(0);
      expect(rows.map((r) => r.extracted_answer)).toEqual(["299792458", "1990", "I do not know.", "", "13th Amendment"]);
      expect(rows.map((r) => r.verdict)).toEqual(["correct", "incorrect", "not_attempted", "not_attempted", "correct"]);
      expect(rows.map((r) => r.reward)).toEqual([1, 0, 0, 0, 1]);
      const m = metrics[0]!.agent_metrics;
      expect(m["mean/omniscience_index"]).toBeCloseTo(0.2, 12);
      expect(m["pass@1/judge_omni_index"]).toBeCloseTo(20, 10);
      expect(m["pass@1/judge_omni_hallucination"]).toBeCloseTo(100 / 3, 10);
      expect(Object.keys(metrics[0]!.key_metrics)).toEqual([
        "mean/input_tokens", "mean/output_tokens",
        "pass@1[avg-of-1]/judge_abstained", "pass@1[avg-of-1]/judge_correct", "pass@1[avg-of-1]/judge_incorrect",
        "pass@1[avg-of-1]/judge_partially_correct", "pass@1[avg-of-1]/no_answer", "pass@1[avg-of-1]/judge_omni_index", "pass@1[avg-of-1]/judge_omni_hallucination",
        "pass@1/judge_abstained", "pass@1/judge_correct", "pass@1/judge_incorrect", "pass@1/judge_partially_correct", "pass@1/judge_omni_index", "pass@1/judge_omni_hallucination",
      ]);
    } finally {
      await judgeEngine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
