// ugphysics_judge: the UGPhysics verdict parser with its edge cases, the reward rules over HTTP with the
// judge (vllm_model in front of the fake engine) on both judge APIs, the verify response's fields
// (extracted_verdict, subject, then the row), judge failures (judge_failed, never a zero), metrics per
// subject voting on the verdict, NeMo Gym's recorded rollouts re-scored with the judge replayed, and
// NeMo Gym's config run unchanged with a judge engine given as its undefined `judge_model`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import env, { ugphysicsVerdict } from "./index.js";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { closeDispatcher } from "../../http/client.js";
import vllmModel from "../../models/vllm_model.js";
import { startFakeEngine } from "../../../test/doubles/fake_engine.js";
import { judgeReplayArgs } from "../../../test/helpers/judges.js";
import { nemoGymCheckout, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { answersFor, runScienceConfig, startJudgeStack, type JudgeStack } from "../../../test/helpers/science_slice.js";

const exampleRows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const JUDGE = { type: "responses_api_models", name: "judge_model" };
const baseConfig = { judge_model_server: JUDGE, judge_responses_create_params: { input: [], max_output_tokens: 2048, temperature: 0.0, top_p: 1.0 } };

let stack: JudgeStack;
let e: RunningInstance;
const instances: RunningInstance[] = [];

async function instance(config: Record<string, unknown> = {}, judgeUrl?: string): Promise<RunningInstance> {
  const started = await startInstance(env, { config: { ...baseConfig, ...config }, servers: { judge_model: judgeUrl ?? stack.judge.url } });
  instances.push(started);
  return started;
}

const ROW = {
  responses_create_params: { input: [{ role: "user", content: "A 2 kg mass moves at 3 m/s. Kinetic energy?" }] },
  question: "A 2 kg mass moves at 3 m/s. Kinetic energy?",
  expected_answer: "9",
  solution: "E = m v^2 / 2 = 9 J.",
  subject: "ClassicalMechanics",
  extra_field: "kept",
};

async function verify(target: RunningInstance, text: string, r: Record<string, unknown> = ROW) {
  const result = await target.request("/verify", { ...r, response: responseWith([assistantMessage(text)]) });
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

beforeAll(async () => {
  stack = await startJudgeStack();
  e = await instance();
});

afterAll(async () => {
  await Promise.all(instances.map((i) => i.close()));
  await stack.close();
  await closeDispatcher();
});

describe("the verdict (NeMo Skills' UGPhysicsMetrics.is_correct_judgement)", () => {
  const cases: Array<[string | undefined, boolean | undefined]> = [
    ["## Equivalence Judgement\nTRUE", true],
    ["## Equivalence Judgement\nfalse", false],
    ["##Equivalence   Judgement \n  True\n\n## Justification\nit is FALSE that they differ", true], // the header wins
    ["## Equivalence Judgement: TRUE", true], // no newline after the header: the last word decides
    ["It is TRUE ... no, FALSE.", false], // the last standalone word
    ["FALSE at first; finally TRUE", true],
    ["TRUEly equivalent", undefined], // not standalone
    ["UNTRUE", undefined],
    ["éTRUE", undefined], // Python's \b is Unicode: é is a word character
    ["TRUE_", undefined],
    ["(true)", true],
    ["no verdict", undefined],
    ["", undefined],
    [undefined, undefined],
  ];
  for (const [text, verdict] of cases) it(JSON.stringify(text), () => expect(ugphysicsVerdict(text)).toBe(verdict));
});

describe("reward rules", () => {
  it("a symbolic match scores 1 (verdict TRUE) without the judge; NeMo Gym's fields, then the row's", async () => {
    const before = stack.engine.requests.length;
    const body = await verify(e, "E = \\boxed{9} J");
    expect(Object.keys(body)).toEqual([
      "responses_create_params", "response", "reward", "expected_answer", "extracted_answer", "library_reward", "judge_evaluations",
      "extracted_verdict", "subject", "question", "solution", "extra_field",
    ]);
    expect(body).toMatchObject({ reward: 1, library_reward: 1, judge_evaluations: null, extracted_verdict: "TRUE", subject: "ClassicalMechanics", solution: ROW.solution, extra_field: "kept" });
    expect(stack.engine.requests.length).toBe(before);
  });

  it("a row without solution or subject answers solution \"\" and subject null", async () => {
    const { solution: _s, subject: _t, ...bare } = ROW;
    const body = await verify(e, "\\boxed{9}", bare);
    expect(body).toMatchObject({ subject: null, solution: "" });
  });

  it("on a miss the judge sees problem, solution, answer and the whole generation; the header verdict decides", async () => {
    stack.verdicts.push("## Equivalence Judgement\nTRUE\n\n## Justification\nSame energy.");
    const text = "Half m v squared is nine joules.";
    const body = await verify(e, text);
    expect(body).toMatchObject({ reward: 1, library_reward: 0, extracted_verdict: "TRUE" });
    const content: string = body.judge_evaluations[0].responses_create_params.input[0].content;
    expect(body.judge_evaluations[0].responses_create_params.input).toHaveLength(1);
    expect(content.startsWith("# CONTEXT #\nI am a teacher")).toBe(true);
    expect(content.endsWith(`<physics solution>\n**Question**:\n${ROW.question}\n\n**Reference Solution**:\n${ROW.solution}\n\n**Reference Answer(s)**:\n9\n\n**Student Solution**:\n${text}\n\n</physics solution>`)).toBe(true);
    // The few-shot examples' doubled braces came out single.
    expect(content).toContain("\\chi_0 \\frac{E_2 - E_1}{kT}");
  });

  it("FALSE → 0 with verdict FALSE; an unparsable reply → 0 with verdict null (not a failure)", async () => {
    stack.verdicts.push("## Equivalence Judgement\nFALSE", "I cannot tell.");
    expect(await verify(e, "about ten joules")).toMatchObject({ reward: 0, extracted_verdict: "FALSE" });
    const body = await verify(e, "about ten joules");
    expect(body).toMatchObject({ reward: 0, extracted_verdict: null });
    expect(body._ng_failure_class).toBeUndefined();
  });

  it("should_use_judge: false → verdict FALSE without asking", async () => {
    const off = await instance({ should_use_judge: false });
    const before = stack.engine.requests.length;
    expect(await verify(off, "about ten joules")).toMatchObject({ reward: 0, extracted_verdict: "FALSE", judge_evaluations: null });
    expect(stack.engine.requests.length).toBe(before);
  });

  it("on Chat Completions: NeMo Gym's chat request; an empty reply is verdict null", async () => {
    const chat = await instance({ use_chat_completions_for_judge: true });
    stack.verdicts.push("The answers agree. TRUE", "");
    const before = stack.calls("/chat/completions").length;
    expect(await verify(chat, "nine joules")).toMatchObject({ reward: 1, extracted_verdict: "TRUE" });
    const body = await verify(chat, "nine joules");
    expect(body).toMatchObject({ reward: 0, extracted_verdict: null });
    expect(body.judge_evaluations[0].response.output[0]).toMatchObject({ id: "msg_chat", content: [{ text: "" }] });
    expect(stack.calls("/chat/completions").slice(before)[0]).toMatchObject({ max_tokens: 2048, temperature: 0, top_p: 1 });
  });

  it("a failing judge gives judge_failed, never a zero", async () => {
    const broken = await startFakeEngine({ respond: () => ({ status: 500, body: { error: { message: "engine down" } } }) });
    try {
      const brokenJudge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: broken.baseUrl, model: "judge", max_retries: 0 } });
      instances.push(brokenJudge);
      const failing = await instance({ use_chat_completions_for_judge: true }, brokenJudge.url);
      const body = await verify(failing, "about ten joules");
      expect(body).toMatchObject({ reward: 0, _ng_failure_class: "judge_failed" });
      expect(body._ng_failure_judge_error).toMatch(/^HTTPStatusError: /);
      expect(body).not.toHaveProperty("extracted_verdict");
    } finally {
      await broken.close();
    }
  });
});

describe("strict: true (Gymkit's own; closes the audit's null.echo_prompt)", () => {
  it("math-verify reads only the last box: the echoed prompt of row 0 (g = 10, answer 10) goes to the judge", async () => {
    const strict = await instance({ strict: true });
    const row = exampleRows[0]!;
    const prompt: string = row.responses_create_params.input[0].content;
    // By default (NeMo Gym's reward) the echo is a symbolic match and the judge is not asked.
    expect(await verify(e, prompt, row)).toMatchObject({ reward: 1, library_reward: 1, extracted_verdict: "TRUE" });
    const before = stack.engine.requests.length;
    stack.verdicts.push("## Equivalence Judgement\nFALSE");
    expect(await verify(strict, prompt, row)).toMatchObject({ reward: 0, library_reward: 0, extracted_verdict: "FALSE" });
    expect(stack.engine.requests.length).toBe(before + 1);
    // The final box still matches without the judge; several boxes: the last one counts.
    expect(await verify(strict, "So the final answer is \\boxed{10}(m/s).", row)).toMatchObject({ reward: 1, library_reward: 1, judge_evaluations: null });
    stack.verdicts.push("## Equivalence Judgement\nFALSE");
    expect(await verify(strict, "\\boxed{10} or rather \\boxed{11}", row)).toMatchObject({ reward: 0, library_reward: 0 });
    expect(stack.engine.requests.length).toBe(before + 2);
    // NeMo Gym's recorded answers all end with their box: the same rewards, still without the judge.
    const recorded = readJsonlFile(new URL("./data/example_rollouts.jsonl", import.meta.url));
    const rescored = [];
    for (const { reward: _r, ...r } of recorded) rescored.push((await strict.request("/verify", r)).body as Record<string, any>);
    expect(rescored.map((b) => [b.reward, b.library_reward])).toEqual(recorded.map(() => [1, 1]));
    expect(stack.engine.requests.length).toBe(before + 2);
  });
});

describe("/aggregate_metrics", () => {
  it("symbolic and judge accuracy on every rollout, majority@k on the verdict, per subject; NeMo Gym's key metrics", async () => {
    const r = (task: number, rollout: number, subject: string, library: number, reward: number, verdict: string | null) => ({
      _ng_task_index: task,
      _ng_rollout_index: rollout,
      reward,
      library_reward: library,
      extracted_verdict: verdict,
      subject,
    });
    const rows = [r(0, 0, "Optics", 1, 1, "TRUE"), r(0, 1, "Optics", 0, 0, "FALSE"), r(1, 0, "Relativity", 0, 1, "TRUE"), r(1, 1, "Relativity", 0, 0, null)];
    const result = (await e.request("/aggregate_metrics", { verify_responses: rows })).body;
    expect(result.agent_metrics).toMatchObject({
      "pass@1[avg-of-2]/judge_accuracy": 50,
      "pass@2/judge_accuracy": 100,
      "pass@1[avg-of-2]/symbolic_accuracy": 25,
      "pass@1[avg-of-2]/no_answer": 25,
      "Optics/pass@2/judge_accuracy": 100,
      "Relativity/pass@2/symbolic_accuracy": 0,
      "Relativity/pass@1[avg-of-2]/no_answer": 50,
    });
    expect(Object.keys(result.key_metrics).filter((k) => k.includes("/") && !k.startsWith("mean/")).sort()).toEqual(
      ["majority@2/judge_accuracy", "majority@2/symbolic_accuracy", "pass@1[avg-of-2]/judge_accuracy", "pass@1[avg-of-2]/no_answer", "pass@1[avg-of-2]/symbolic_accuracy", "pass@2/judge_accuracy", "pass@2/symbolic_accuracy"].sort(),
    );
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl)", () => {
  it("re-score to the recorded rewards and verdicts (5/5) with the recorded judge replayed; all five were symbolic matches", async () => {
    const checkout = nemoGymCheckout(["ugphysics_judge"]);
    const dir = mkdtempSync(join(tmpdir(), "ugphysics-replay-"));
    try {
      const rolloutsPath = join(checkout.root, "resources_servers/ugphysics_judge/data/example_rollouts.jsonl");
      const args = ["--config", "resources_servers/ugphysics_judge/configs/ugphysics_judge.yaml", ...judgeReplayArgs(dir, "ugphysics_judge", "ugphysics_judge", { rolloutsPath })];
      const { result, recorded, reverified, rows } = await reverifyRecorded("ugphysics_judge", args, { cwd: checkout.root });
      expect(result.code, result.stderr).toBe(0);
      expect(reverified).toEqual(recorded);
      expect(rows.map((r) => [r?.extracted_verdict, r?.library_reward, r?.judge_evaluations, r?.subject])).toEqual([
        ["TRUE", 1, null, "ClassicalMechanics"],
        ["TRUE", 1, null, "Thermodynamics"],
        ["TRUE", 1, null, "QuantumMechanics"],
        ["TRUE", 1, null, "ClassicalElectromagnetism"],
        ["TRUE", 1, null, "Relativity"],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      checkout.remove();
    }
  }, 180_000);
});

describe("NeMo Gym's configs/ugphysics_judge.yaml, unchanged (its judge_model given with --judge-url)", () => {
  it("runs every example row with the judge on Chat Completions", async () => {
    // Right (symbolic); right in words (judge TRUE); wrong (judge FALSE); no answer (judge says nothing usable); right.
    const texts = ["\\boxed{10}", "About two and a half kilojoules, in words.", "\\boxed{\\frac{\\pi^2 \\hbar^2}{m L^2}}", "I do not know.", "\\boxed{1.25}"];
    const run = await runScienceConfig("ugphysics_judge", {
      configs: ["resources_servers/ugphysics_judge/configs/ugphysics_judge.yaml"],
      answers: answersFor(exampleRows, texts),
      judge: (prompt) => (prompt.includes("in words.") ? "## Equivalence Judgement\nTRUE" : prompt.includes("I do not know.") ? "Hmm." : "## Equivalence Judgement\nFALSE"),
      // The judge NeMo Gym leaves undefined, given as a running engine's URL.
      extraArgs: (judgeUrl) => ["--judge-url", `judge_model=${judgeUrl}`, "--judge-model", "judge_model=judge"],
    });
    expect(run.result.code, run.result.stderr + run.result.stdout).toBe(0);
    expect(run.rows.map((r) => [r.reward, r.extracted_verdict])).toEqual([[1, "TRUE"], [1, "TRUE"], [0, "FALSE"], [0, null], [1, "TRUE"]]);
    expect(run.rows.map((r) => r.library_reward)).toEqual([1, 0, 0, 0, 1]);
    expect(run.judgeRequests.map((r) => r.path)).toEqual(Array(3).fill("/v1/chat/completions"));
    const m = run.metrics[0]!;
    expect(m.agent_metrics["pass@1/judge_accuracy"]).toBeCloseTo(60, 10);
    expect(m.agent_metrics["pass@1/symbolic_accuracy"]).toBeCloseTo(40, 10);
    expect(m.agent_metrics["Thermodynamics/pass@1/judge_accuracy"]).toBeCloseTo(100, 10);
    expect(m.agent_metrics["pass@1/no_answer"]).toBeCloseTo(20, 10);
  }, 180_000);
});
