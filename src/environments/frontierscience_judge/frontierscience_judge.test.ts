// frontierscience_judge: the parsers against NeMo Gym's own functions (testdata/parsers.json, generated
// from 07d6b0d), the reward rules in both modes over HTTP with the judge (vllm_model in front of the fake
// engine) on both APIs, the verify response's fields, judge failures (judge_failed, never a zero), the
// metrics per subject, NeMo Gym's recorded rollouts re-scored with the recorded judge_output replayed,
// and NeMo Gym's config (which defines its own judge_model) run unchanged.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import env from "./index.js";
import { parseJudgement, parseRubricScore, stripThinking, assistantText } from "./parse.js";
import fixture from "./testdata/parsers.json" with { type: "json" };
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { closeDispatcher } from "../../http/client.js";
import vllmModel from "../../models/vllm_model.js";
import { startFakeEngine } from "../../../test/doubles/fake_engine.js";
import { judgeReplayArgs } from "../../../test/helpers/judges.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { answersFor, runScienceConfig, startJudgeStack, type JudgeStack } from "../../../test/helpers/science_slice.js";

const exampleRows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const JUDGE = { type: "responses_api_models", name: "judge_model" };
const baseConfig = { judge_model_server: JUDGE, judge_responses_create_params: { input: [], max_output_tokens: 2048 } };

let stack: JudgeStack;
let e: RunningInstance;
const instances: RunningInstance[] = [];

async function instance(config: Record<string, unknown> = {}, judgeUrl?: string): Promise<RunningInstance> {
  const started = await startInstance(env, { config: { ...baseConfig, ...config }, servers: { judge_model: judgeUrl ?? stack.judge.url } });
  instances.push(started);
  return started;
}

const ROW = { responses_create_params: { input: [{ role: "user", content: "Formula of water?" }] }, id: 7, subject: "chemistry", question: "Formula of water?", expected_answer: "H2O", note: "kept" };

async function verify(target: RunningInstance, output: unknown[], r: Record<string, unknown> = ROW) {
  const result = await target.request("/verify", { ...r, response: responseWith(output as never) });
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}
const say = (text: string) => [assistantMessage(text)];

beforeAll(async () => {
  stack = await startJudgeStack();
  e = await instance();
});

afterAll(async () => {
  await Promise.all(instances.map((i) => i.close()));
  await stack.close();
  await closeDispatcher();
});

describe("parsers, against NeMo Gym's own (testdata/parsers.json)", () => {
  for (const c of fixture as Array<{ text: string; judgement: string | null; rubric_score: number | null; rubric_score_max_5: number | null; stripped: string }>) {
    it(JSON.stringify(c.text), () => {
      expect(parseJudgement(c.text) ?? null).toBe(c.judgement);
      expect(parseRubricScore(c.text) ?? null).toBe(c.rubric_score);
      expect(parseRubricScore(c.text, 5.0) ?? null).toBe(c.rubric_score_max_5);
      expect(stripThinking(c.text)).toBe(c.stripped);
    });
  }
  it("the answer is the last assistant message with text, parts joined by newlines", () => {
    const response = {
      output: [
        assistantMessage("first"),
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "<think>x</think>a" }, { type: "output_text", text: "b " }] },
        { type: "message", role: "assistant", content: [{ type: "refusal", refusal: "no" }] },
        { type: "reasoning", summary: [] },
      ],
    };
    expect(assistantText(response)).toBe("a\nb");
    expect(assistantText(response, true)).toBe("<think>x</think>a\nb");
    expect(assistantText({ output: [] })).toBe("");
  });
});

describe("olympiad mode", () => {
  it("Judgement: YES → 1; NeMo Gym's fields in order, then the row's; the prompt filled as NeMo Gym fills it", async () => {
    stack.verdicts.push("Same compound.\nJudgement: YES");
    const body = await verify(e, say("<think>hmm</think>It is H2O."));
    expect(Object.keys(body)).toEqual([
      "responses_create_params", "response", "reward", "extracted_answer", "expected_answer", "verdict", "judge_output",
      "rubric_score", "rubric_score_normalized", "invalid_judge_response", "id", "subject", "question", "rubric", "note",
    ]);
    expect(body).toMatchObject({
      reward: 1, extracted_answer: "It is H2O.", expected_answer: "H2O", verdict: "YES", judge_output: "Same compound.\nJudgement: YES",
      rubric_score: null, rubric_score_normalized: null, invalid_judge_response: false, id: 7, subject: "chemistry", rubric: null, note: "kept",
    });
    const sent = stack.calls("/chat/completions").at(-1)!;
    const content = (sent.messages as Array<{ content: string }>)[0]!.content;
    expect(content).toContain("***\nThe problem: Formula of water?\n***\nThe reference answer: H2O\n***\nThe attempted answer: It is H2O.\n***\n");
    expect(content.startsWith("You are grading an attempted answer to a science olympiad problem.")).toBe(true);
  });

  const cases: Array<[string, number, string | null]> = [
    ["Judgement: NO", 0, "NO"],
    ["Judgement: YES\n...\nJudgement: NO", 0, "NO"], // the last one wins
    ["judgement: yes", 1, "YES"],
    ["Looks right to me.", 0, null],
    ["", 0, null],
  ];
  for (const [judgeText, reward, verdict] of cases) {
    it(`judge says ${JSON.stringify(judgeText)} → ${reward} (a verdict, not a failure)`, async () => {
      stack.verdicts.push(judgeText);
      const body = await verify(e, say("H2O"));
      expect(body).toMatchObject({ reward, verdict, judge_output: judgeText });
      expect(body._ng_failure_class).toBeUndefined();
    });
  }

  it("an unclosed thinking trace is no answer: the judge sees an empty attempt, extracted_answer null", async () => {
    stack.verdicts.push("Judgement: YES");
    const body = await verify(e, say("<think>H2O, surely... and then"));
    expect(body).toMatchObject({ extracted_answer: null, reward: 1 });
    const content = (stack.calls("/chat/completions").at(-1)!.messages as Array<{ content: string }>)[0]!.content;
    expect(content).toContain("The attempted answer: \n***");
  });

  it("a row's own extracted_answer is dropped; a null expected_answer is judged as \"\"", async () => {
    stack.verdicts.push("Judgement: NO");
    const body = await verify(e, say("H2O"), { ...ROW, expected_answer: null, extracted_answer: "stale" });
    expect(body).toMatchObject({ extracted_answer: "H2O", expected_answer: "" });
  });
});

describe("the judge request", () => {
  it("Responses: the template with one user message, the judge's last assistant text without thinking", async () => {
    const responses = await instance({ use_chat_completions_for_judge: false });
    stack.verdicts.push("<think>Compare.</think>\nJudgement: YES");
    const before = stack.calls("/chat/completions").length;
    const body = await verify(responses, say("H2O"));
    expect(body).toMatchObject({ reward: 1, judge_output: "Judgement: YES" });
    // vllm_model turned the Responses call into one chat call to the engine.
    expect(stack.calls("/chat/completions").slice(before)).toHaveLength(1);
  });

  it("Chat Completions: max_tokens from the template; temperature/top_p from it, else greedy in olympiad mode only", async () => {
    const olympiad = await instance({ use_chat_completions_for_judge: true });
    const research = await instance({ use_chat_completions_for_judge: true, judge_mode: "research" });
    const tuned = await instance({ use_chat_completions_for_judge: true, judge_responses_create_params: { input: [], temperature: 0.6, top_p: 0.9 } });
    const sent = async (target: RunningInstance) => {
      stack.verdicts.push("Judgement: NO");
      await verify(target, say("H2O"));
      const { messages: _m, ...rest } = stack.calls("/chat/completions").at(-1)!;
      return rest;
    };
    expect(await sent(olympiad)).toMatchObject({ max_tokens: 2048, temperature: 0, top_p: 1 });
    const researchBody = await sent(research);
    expect(researchBody.max_tokens).toBe(2048);
    expect(researchBody).not.toHaveProperty("temperature");
    expect(researchBody).not.toHaveProperty("top_p");
    expect(await sent(tuned)).toMatchObject({ max_tokens: 2048, temperature: 0.6, top_p: 0.9 });
  });
});

describe("research mode", () => {
  let research: RunningInstance;
  beforeAll(async () => {
    research = await instance({ use_chat_completions_for_judge: true, judge_mode: "research", judge_prompt_path: "prompts/research_judge.yaml" });
  });
  const cases: Array<[string, number, string | null, number | null, number | null, boolean]> = [
    ["Items…\nScore: 8/10\nJudgement: YES", 1, "YES", 8, 0.8, false],
    ["Score: 7/10", 1, "YES", 7, 0.7, false], // the score decides; a missing verdict follows it
    ["Score: 6.5/10\nJudgement: YES", 0, "YES", 6.5, 0.65, false], // the score decides, the verdict is kept
    ["Score: 12/10", 1, "YES", 12, 1, false], // normalized score clamped
    ["Score: 3/0\nJudgement: YES", 1, "YES", null, null, true], // no usable score: the verdict decides
    ["no score here", 0, null, null, null, true],
  ];
  for (const [judgeText, reward, verdict, score, normalized, invalid] of cases) {
    it(`${JSON.stringify(judgeText)} → ${reward}`, async () => {
      stack.verdicts.push(judgeText);
      const body = await verify(research, say("An answer"), { ...ROW, rubric: "1 pt: mentions hydrogen" });
      expect(body).toMatchObject({ reward, verdict, rubric_score: score, invalid_judge_response: invalid });
      if (normalized === null) expect(body.rubric_score_normalized).toBeNull();
      else expect(body.rubric_score_normalized).toBeCloseTo(normalized, 12);
    });
  }
  it("the rubric (else the expected answer) fills {rubric}", async () => {
    stack.verdicts.push("Score: 1/10", "Score: 1/10");
    await verify(research, say("x"), { ...ROW, rubric: "R1: names H2O" });
    expect((stack.calls("/chat/completions").at(-1)!.messages as Array<{ content: string }>)[0]!.content).toContain("The grading rubric:\nR1: names H2O\n***");
    await verify(research, say("x"));
    expect((stack.calls("/chat/completions").at(-1)!.messages as Array<{ content: string }>)[0]!.content).toContain("The grading rubric:\nH2O\n***");
  });
});

describe("failures and metrics", () => {
  it("a failing judge gives judge_failed, never a zero", async () => {
    const broken = await startFakeEngine({ respond: () => ({ status: 500, body: { error: { message: "engine down" } } }) });
    try {
      const brokenJudge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: broken.baseUrl, model: "judge", max_retries: 0 } });
      instances.push(brokenJudge);
      const failing = await instance({ use_chat_completions_for_judge: true }, brokenJudge.url);
      const body = await verify(failing, say("H2O"));
      expect(body).toMatchObject({ reward: 0, _ng_failure_class: "judge_failed" });
      expect(body._ng_failure_judge_error).toMatch(/^HTTPStatusError: /);
      expect(body).not.toHaveProperty("judge_output");
    } finally {
      await broken.close();
    }
  });

  it("pass@k / majority@k of accuracy (and rubric_score where scored) on the answer, per subject", async () => {
    const r = (task: number, rollout: number, subject: string, reward: number, answer: string | null, normalized: number | null = null) => ({
      _ng_task_index: task,
      _ng_rollout_index: rollout,
      reward,
      extracted_answer: answer,
      rubric_score_normalized: normalized,
      subject,
    });
    const rows = [r(0, 0, "physics", 1, "a", 0.8), r(0, 1, "physics", 0, "b", 0.4), r(1, 0, "chemistry", 0, null), r(1, 1, "chemistry", 1, "c")];
    const result = (await e.request("/aggregate_metrics", { verify_responses: rows })).body;
    expect(result.agent_metrics).toMatchObject({
      "pass@1[avg-of-2]/accuracy": 50,
      "pass@2/accuracy": 100,
      "pass@1[avg-of-2]/no_answer": 25,
      "physics/pass@2/accuracy": 100,
      "chemistry/pass@1[avg-of-2]/no_answer": 50,
    });
    expect(result.agent_metrics["pass@1[avg-of-2]/rubric_score"]).toBeCloseTo(60, 10);
    expect(result.key_metrics["pass@2/accuracy"]).toBe(100);
    expect(Object.keys(result.key_metrics).some((k) => k.startsWith("physics/"))).toBe(false);
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl)", () => {
  it("re-score to the recorded rewards and verdicts (5/5) with the recorded judge_output replayed on Chat Completions", async () => {
    const checkout = nemoGymCheckout(["frontierscience_judge"]);
    const dir = mkdtempSync(join(tmpdir(), "frontierscience-replay-"));
    try {
      const rolloutsPath = join(checkout.root, "resources_servers/frontierscience_judge/data/example_rollouts.jsonl");
      const args = ["--config", "resources_servers/frontierscience_judge/configs/frontierscience_judge.yaml", ...judgeReplayArgs(dir, "frontierscience_judge", "frontierscience_judge", { rolloutsPath, keys: ["judge_output"] })];
      const { result, recorded, reverified, rows } = await reverifyRecorded("frontierscience_judge", args, { cwd: checkout.root });
      expect(result.code, result.stderr).toBe(0);
      expect(reverified).toEqual(recorded);
      const recordedRows = recordedRollouts("frontierscience_judge");
      for (const [i, out] of rows.entries()) {
        const was = recordedRows[i]!;
        expect(out).toMatchObject({ verdict: was.verdict, judge_output: was.judge_output, extracted_answer: was.extracted_answer, expected_answer: was.expected_answer, id: was.id, subject: was.subject });
        // 07d6b0d adds three fields the recorded file (from an earlier version) lacks.
        expect(out).toMatchObject({ rubric_score: null, rubric_score_normalized: null, invalid_judge_response: false });
        expect(was).not.toHaveProperty("rubric_score");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      checkout.remove();
    }
  }, 180_000);
});

describe("NeMo Gym's configs/frontierscience_judge.yaml, unchanged", () => {
  it("runs every example row with its own judge_model (openai_model, base URL given by its judge_base_url key)", async () => {
    const texts = ["H2O", "<think>insulin comes from</think>The pancreas", "Einstein", "<think>counting electrons and", "299,792 km/s"];
    const run = await runScienceConfig("frontierscience_judge", {
      configs: ["resources_servers/frontierscience_judge/configs/frontierscience_judge.yaml"],
      answers: answersFor(exampleRows, texts),
      judge: (prompt) => (/The attempted answer: (H2O|The pancreas|299,792 km\/s)\n/.test(prompt) ? "Matches.\nJudgement: YES" : "Judgement: NO"),
      extraArgs: (judgeUrl) => [`++judge_base_url=${judgeUrl}`],
      env: { NVIDIA_API_KEY: "test-key" },
    });
    expect(run.result.code, run.result.stderr + run.result.stdout).toBe(0);
    expect(run.rows.map((r) => [r.reward, r.verdict, r.extracted_answer])).toEqual([
      [1, "YES", "H2O"],
      [1, "YES", "The pancreas"],
      [0, "NO", "Einstein"],
      [0, "NO", null],
      [1, "YES", "299,792 km/s"],
    ]);
    expect(run.judgeRequests.map((r) => r.path)).toEqual(Array(5).fill("/v1/chat/completions"));
    expect(run.judgeRequests[0]!.body).toMatchObject({ model: "openai/gpt-oss-20b", max_tokens: 2048, temperature: 0, top_p: 1 });
    const m = run.metrics[0]!;
    expect(m.agent_metrics["pass@1/accuracy"]).toBeCloseTo(60, 10);
    expect(m.agent_metrics["pass@1/no_answer"]).toBeCloseTo(20, 10);
    expect(m.agent_metrics["physics/pass@1/accuracy"]).toBeCloseTo(50, 10);
    expect(m.key_metrics["pass@1/accuracy"]).toBeCloseTo(60, 10);
  }, 180_000);
});
