// simpleqa: the grade reading, answer text, prompt and metrics against NeMo Gym's own code (fixture
// generated from 07d6b0d), the reward rules over HTTP with a judge (vllm_model in front of the fake
// engine) on both judge APIs, judge failures, NeMo Gym's recorded rollouts re-scored by replaying
// their judge answers, and NeMo Gym's config run unchanged with a policy and a scripted judge.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import simpleqa from "./index.js";
import { simpleqaGrade } from "./grade.js";
import { simpleqaMetrics } from "./metrics.js";
import { PROMPTS } from "./prompts.js";
import reference from "./testdata/reference.json" with { type: "json" };
import { closeDispatcher } from "../../http/client.js";
import { PromptTemplate, readPromptYaml } from "../../judge/index.js";
import vllmModel from "../../models/vllm_model.js";
import { chatGraderRequest } from "../../verifiers/graded_qa/judge.js";
import { lastAssistantText } from "../../verifiers/graded_qa/text.js";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import { judgeReplayArgs } from "../../../test/helpers/judges.js";
import { environmentFolder, nemoGymCheckout, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { promptOf, runNemoGymConfig } from "../../../test/helpers/mcq_slice.js";

const exampleRows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const JUDGE_REF = { type: "responses_api_models", name: "genrm_model" };
const CONFIG = { judge_model_server: JUDGE_REF, judge_responses_create_params: { input: [], max_output_tokens: 2048, temperature: 0.0, top_p: 1.0 } };

/** The judge engine answers from this queue. */
const verdicts: string[] = [];
let engine: FakeEngine;
let judge: RunningInstance;
let chatEnv: RunningInstance;
let responsesEnv: RunningInstance;

beforeAll(async () => {
  engine = await startFakeEngine({ model: "judge", policy: () => ({ text: verdicts.shift() ?? "" }) });
  judge = await startInstance(vllmModel, { name: "genrm_model", config: { base_url: engine.baseUrl, model: "judge" } });
  chatEnv = await startInstance(simpleqa, { config: { ...CONFIG, use_chat_completions_for_judge: true }, servers: { genrm_model: judge.url } });
  responsesEnv = await startInstance(simpleqa, { config: CONFIG, servers: { genrm_model: judge.url } });
});

afterAll(async () => {
  await Promise.all([chatEnv?.close(), responsesEnv?.close()]);
  await judge?.close();
  await engine?.close();
  await closeDispatcher();
});

const body = (text: string, row: Record<string, unknown> = exampleRows[1]!) => ({ ...row, response: responseWith([assistantMessage(text)]) });

describe("against NeMo Gym's own simpleqa code (testdata/reference.json, from generate.py)", () => {
  it("reads the grade as parse_judge_grade does", () => {
    for (const { text, grade } of reference.grades) expect(simpleqaGrade(text), JSON.stringify(text)).toBe(grade);
  });
  it("reads the answer as extract_text_from_response does", () => {
    for (const { output, text } of reference.texts) expect(lastAssistantText({ output }), JSON.stringify(output)).toBe(text);
  });
  it("bundles the prompt file byte for byte and fills it as str.format does", () => {
    const template = readPromptYaml("prompts/judge.yaml", "user", { key: "judge_prompt_path", bundled: PROMPTS });
    expect(template).toBe(reference.prompt);
    for (const { values, prompt } of reference.fills) expect(new PromptTemplate(template, "t").fill(values)).toBe(prompt);
  });
  it("computes compute_metrics and get_key_metrics as NeMo Gym does (3 tasks × 3 rollouts)", () => {
    const rows = reference.synthetic.tasks.flatMap((task, t) => task.map((r, i) => ({ ...r, _ng_task_index: t, _ng_rollout_index: i })));
    const defaults = { agent_metrics: { "mean/reward": 0.5, "mean/input_tokens": 10.0 }, key_metrics: {}, group_level_metrics: [] };
    const result = simpleqaMetrics(rows, defaults);
    const { per_sample_aggregate, ...expected } = reference.synthetic.metrics as Record<string, any>;
    const mine = Object.fromEntries(Object.entries(result.agent_metrics).filter(([k]) => !k.startsWith("mean/")));
    expect(Object.keys(mine)).toEqual(Object.keys(expected));
    for (const [key, value] of Object.entries(expected)) expect(mine[key], key).toBeCloseTo(value as number, 10);
    // Per run position; Gymkit's pass@k helper takes 100·mean where NeMo Gym takes 100·sum/len (last-bit rounding).
    expect(Object.keys(result.per_sample_aggregate!)).toEqual(Object.keys(per_sample_aggregate));
    for (const [name, runs] of Object.entries(per_sample_aggregate as Record<string, number[]>)) {
      runs.forEach((value, i) => expect(result.per_sample_aggregate![name]![i], `${name}[${i}]`).toBeCloseTo(value, 10));
    }
    expect(Object.keys(result.key_metrics)).toEqual(Object.keys(reference.synthetic.key_metrics));
    for (const [key, value] of Object.entries(reference.synthetic.key_metrics)) expect(result.key_metrics[key], key).toBeCloseTo(value, 10);
  });
  it("computes NeMo Gym's metrics on the recorded rollouts as recorded (data/example_metrics.json is the dataset profile, no metrics to match)", () => {
    const recorded = readJsonlFile(new URL("./data/example_rollouts.jsonl", import.meta.url));
    const defaults = { agent_metrics: { "mean/reward": 0.5, "mean/input_tokens": 10.0 }, key_metrics: {}, group_level_metrics: [] };
    const result = simpleqaMetrics(recorded, defaults);
    const { per_sample_aggregate: _p, ...expected } = reference.recorded.metrics_as_recorded.metrics as Record<string, any>;
    for (const [key, value] of Object.entries(expected)) expect(result.agent_metrics[key], key).toBeCloseTo(value as number, 10);
    expect(result.key_metrics).toEqual(reference.recorded.metrics_as_recorded.key_metrics);
    expect(result.agent_metrics["pass@1/f1"]).toBeCloseTo(100 * ((2 * 0.75 * 0.6) / 1.35), 10);
  });
});

describe("reward rules over HTTP (judge over /v1/chat/completions, as NeMo Gym's config sets)", () => {
  const cases: Array<[string, string, number]> = [
    ["A", "correct", 1],
    ["B", "incorrect", 0],
    ["C", "not_attempted", 0],
    ["  B\n", "incorrect", 0],
    ["Reasoning first.\nA", "correct", 1],
    ["The grade is A.", "correct", 1],
    // Must not reward: words, lower case, an unknown letter fall back to C.
    ["Correct", "not_attempted", 0],
    ["INCORRECT", "not_attempted", 0],
    ["a", "not_attempted", 0],
    ["D", "not_attempted", 0],
    ["The grade is b", "not_attempted", 0],
    // NeMo Gym's leniency, kept: a reply starting with A (the word "After", "NOT_ATTEMPTED" holding an A) grades A.
    ["After review, the grade is B.", "correct", 1],
    ["NOT_ATTEMPTED", "correct", 1],
  ];
  for (const [reply, verdict, reward] of cases) {
    it(`judge ${JSON.stringify(reply)} → ${verdict}, ${reward}`, async () => {
      verdicts.push(reply);
      const result = await chatEnv.request("/verify", body("The capital of France is Paris."));
      expect(result.status, result.text).toBe(200);
      expect(result.body).toMatchObject({ reward, verdict, judge_output: reply.trim() });
      expect([result.body.is_correct, result.body.is_incorrect, result.body.is_not_attempted]).toEqual(["correct", "incorrect", "not_attempted"].map((v) => (v === verdict ? 1 : 0)));
    });
  }

  it("sends the filled prompt as one user message with the sampling parameters mapped as NeMo Gym maps them", async () => {
    const before = engine.requests.length;
    verdicts.push("A");
    const text = "  <think>hmm</think>Paris  ";
    await chatEnv.request("/verify", body(text));
    const sent = engine.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toMatch(/\/chat\/completions$/);
    const prompt = new PromptTemplate(reference.prompt, "t").fill({ question: "What is the capital of France?", expected_answer: "Paris", generation: "<think>hmm</think>Paris" });
    expect(sent[0]!.body).toMatchObject({ messages: [{ role: "user", content: prompt }], max_tokens: 2048, temperature: 0, top_p: 1 });
  });

  it("maps the Responses sampling parameters with Python's `or` defaults (unset or zero → 64, 0.0, 1.0)", () => {
    expect(chatGraderRequest({ input: [] }, "p")).toEqual({ messages: [{ role: "user", content: "p" }], max_tokens: 64, temperature: 0, top_p: 1 });
    expect(chatGraderRequest({ input: [], max_output_tokens: 10, temperature: 0.7, top_p: 0 }, "p")).toMatchObject({ max_tokens: 10, temperature: 0.7, top_p: 1 });
  });

  it("answers NeMo Gym's SimpleQAVerifyResponse fields, the row echoed (absent declared fields as null)", async () => {
    verdicts.push("A");
    const { id: _id, question: _q, ...row } = exampleRows[1]!;
    const result = await chatEnv.request("/verify", body("Paris", row));
    expect(Object.keys(result.body).sort()).toEqual([
      "responses_create_params", "response", "reward", "extracted_answer", "expected_answer", "verdict", "judge_output",
      "is_correct", "is_incorrect", "is_not_attempted", "id", "question", "agent_ref",
    ].sort());
    expect(result.body).toMatchObject({ id: null, question: null, expected_answer: "Paris", extracted_answer: "Paris" });
    expect(result.text).toContain('"reward":1.0');
  });

  it("asks over /v1/responses without use_chat_completions_for_judge, reading the last assistant text", async () => {
    const before = engine.requests.length;
    verdicts.push("B");
    const result = await responsesEnv.request("/verify", body("Lyon"));
    expect(result.body).toMatchObject({ reward: 0, verdict: "incorrect", judge_output: "B" });
    expect(engine.requests.length).toBe(before + 1);
  });

  it("an empty judge reply is judge_failed (NeMo Gym's JudgeError 'empty judge response'), never a zero", async () => {
    for (const env of [chatEnv, responsesEnv]) {
      verdicts.push("   ");
      const result = await env.request("/verify", body("Paris"));
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ reward: 0, _ng_failure_class: "judge_failed", _ng_failure_judge_error: "empty judge response" });
      expect(result.body).not.toHaveProperty("verdict");
    }
  });

  it("a judge answering 500 is judge_failed", async () => {
    const broken = await startFakeEngine({ respond: () => ({ status: 500, body: { error: "down" } }) });
    const brokenJudge = await startInstance(vllmModel, { name: "genrm_model", config: { base_url: broken.baseUrl, model: "judge" } });
    const env = await startInstance(simpleqa, { config: { ...CONFIG, use_chat_completions_for_judge: true }, servers: { genrm_model: brokenJudge.url } });
    try {
      const result = await env.request("/verify", body("Paris"));
      expect(result.body).toMatchObject({ reward: 0, _ng_failure_class: "judge_failed" });
      expect(result.body._ng_failure_judge_error).toMatch(/^HTTPStatusError: /);
    } finally {
      await env.close();
      await brokenJudge.close();
      await broken.close();
    }
  });

  it("reports reverify mode unknown, as NeMo Gym leaves it", async () => {
    expect((await chatEnv.request("/reverify_mode")).body).toBe("unknown");
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl), the recorded judge answers replayed", () => {
  it("re-score as NeMo Gym's 07d6b0d code scores them", async () => {
    const checkout = nemoGymCheckout(["simpleqa"]);
    const dir = mkdtempSync(join(tmpdir(), "gym-simpleqa-replay-"));
    try {
      const rolloutsPath = join(environmentFolder("simpleqa"), "data", "example_rollouts.jsonl");
      const args = ["--config", "resources_servers/simpleqa/configs/simpleqa.yaml", ...judgeReplayArgs(dir, "simpleqa", "simpleqa", { rolloutsPath, keys: ["judge_output"] }), "--force"];
      const { result, recorded, reverified, rows } = await reverifyRecorded("simpleqa", args, { cwd: checkout.root });
      expect(result.code, result.stderr).toBe(0);
      expect(rows.map((r) => r?.extracted_answer)).toEqual(reference.recorded.extracted);
      expect(rows.map((r) => r?.judge_output)).toEqual(readJsonlFile(new URL("./data/example_rollouts.jsonl", import.meta.url)).map((r) => r.judge_output));
      // Rows 0–2 match (3/5). Rows 3 and 4 were recorded as incorrect / not_attempted, but every
      // recorded judge_output starts "After reviewing…", and NeMo Gym's own parse_judge_grade at
      // 07d6b0d reads a leading "A" first (reference.recorded.grades: all "A"), so its code scores
      // them 1.0 too: the file predates that parser.
      expect(recorded).toEqual([1, 1, 1, 0, 0]);
      expect(reference.recorded.grades).toEqual(["A", "A", "A", "A", "A"]);
      expect(reverified).toEqual([1, 1, 1, 1, 1]);
      expect(rows.map((r) => r?.verdict)).toEqual(["correct", "correct", "correct", "correct", "correct"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      checkout.remove();
    }
  }, 180_000);
});

/** Scripted judge: A when the predicted answer holds the gold target, C when it hedges, else B. */
function scriptedGrade(turns: Turn[]): string {
  const prompt = turns.findLast((t) => t.role === "user")?.content ?? "";
  const gold = prompt.slice(prompt.lastIndexOf("Gold target: ") + 13).split("\n")[0]!;
  const predicted = prompt.slice(prompt.lastIndexOf("Predicted answer: ") + 18).split("\n")[0]!;
  if (predicted.includes(gold)) return "A";
  return predicted.includes("not sure") ? "C" : "B";
}

describe("NeMo Gym's configs/simpleqa.yaml, unchanged (its genrm_model given with --judge-url)", () => {
  it("runs every example row; rewards and metrics as the script implies", async () => {
    const judgeEngine = await startFakeEngine({ model: "judge", policy: (turns) => ({ text: scriptedGrade(turns) }) });
    try {
      const texts = ["Michio Sugeno.", "Paris", "It fell in 1990.", "I'm not sure.", "William Shakespeare wrote it."];
      const answers = new Map(exampleRows.map((row, i) => [promptOf(row), texts[i]!]));
      // The judge given as a running engine's URL, as the README shows.
      const { result, rows, metrics } = await runNemoGymConfig("simpleqa", "simpleqa.yaml", answers, ["--judge-url", `genrm_model=${judgeEngine.baseUrl}`, "--judge-model", "genrm_model=judge"]);
      expect(result.code, result.stderr + result.stdout).toBe(0);
      expect(rows.map((r) => r.verdict)).toEqual(["correct", "correct", "incorrect", "not_attempted", "correct"]);
      expect(rows.map((r) => r.reward)).toEqual([1, 1, 0, 0, 1]);
      expect(judgeEngine.requests.filter((r) => r.path.endsWith("/chat/completions"))).toHaveLength(5);
      const m = metrics[0]!.agent_metrics;
      expect(m["pass@1/correct"]).toBeCloseTo(60, 10);
      expect(m["pass@1/accuracy_given_attempted"]).toBeCloseTo(75, 10);
      expect(m["pass@1/f1"]).toBeCloseTo((2 * 0.75 * 0.6 * 100) / 1.35, 10);
      expect(Object.keys(metrics[0]!.key_metrics)).toEqual([
        "mean/input_tokens", "mean/output_tokens",
        "pass@1[avg-of-1]/correct", "pass@1[avg-of-1]/incorrect", "pass@1[avg-of-1]/no_answer", "pass@1[avg-of-1]/not_attempted",
        "pass@1[avg-of-1]/f1", "pass@1[avg-of-1]/accuracy_given_attempted",
        "pass@1/correct", "pass@1/incorrect", "pass@1/not_attempted", "pass@1/f1", "pass@1/accuracy_given_attempted",
      ]);
    } finally {
      await judgeEngine.close();
    }
  }, 180_000);
});
