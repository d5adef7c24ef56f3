// physics_judge: the reward rules over HTTP with the judge (vllm_model in front of the fake engine) on
// both judge APIs, NeMo Skills' case-insensitive [Correct] rule with its traps, judge failures
// (judge_failed, never a zero), the metrics with the per-domain breakdown, NeMo Gym's recorded
// rollouts re-scored with the judge replayed, and NeMo Gym's two configs run unchanged together.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import env, { physicsVerdict } from "./index.js";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { closeDispatcher } from "../../http/client.js";
import vllmModel from "../../models/vllm_model.js";
import { startFakeEngine } from "../../../test/doubles/fake_engine.js";
import { judgeReplayArgs } from "../../../test/helpers/judges.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { answersFor, runScienceConfig, startJudgeStack, type JudgeStack } from "../../../test/helpers/science_slice.js";

const exampleRows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const JUDGE = { type: "responses_api_models", name: "judge_model" };
const baseConfig = { judge_model_server: JUDGE, judge_responses_create_params: { input: [], max_output_tokens: 2048, temperature: 0.0, top_p: 1.0 } };

let stack: JudgeStack;
let e: RunningInstance;
let chat: RunningInstance;
const instances: RunningInstance[] = [];

async function instance(config: Record<string, unknown> = {}, judgeUrl?: string): Promise<RunningInstance> {
  const started = await startInstance(env, { config: { ...baseConfig, ...config }, servers: { judge_model: judgeUrl ?? stack.judge.url } });
  instances.push(started);
  return started;
}

const row = (question: string, expected: string) => ({ responses_create_params: { input: [{ role: "user", content: question }] }, question, expected_answer: expected });
const ROW = row("What is the period of a pendulum of length L?", "2\\pi\\sqrt{L/g}");

async function verify(target: RunningInstance, text: string, r: Record<string, unknown> = ROW) {
  const result = await target.request("/verify", { ...r, response: responseWith([assistantMessage(text)]) });
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

beforeAll(async () => {
  stack = await startJudgeStack();
  [e, chat] = await Promise.all([instance(), instance({ use_chat_completions_for_judge: true })]);
});

afterAll(async () => {
  await Promise.all(instances.map((i) => i.close()));
  await stack.close();
  await closeDispatcher();
});

describe("the verdict (NeMo Skills' PhysicsMetrics.is_correct_judgement)", () => {
  const cases: Array<[string | undefined, boolean]> = [
    ["[Correct]", true],
    ["Judgement: [correct]", true],
    ["[CORRECT]", true],
    ["[Incorrect]", false],
    ["[Incorrect] at first, but on reflection [Correct]", true], // [correct] anywhere wins
    ["[Correct] no wait [Incorrect]", true],
    ["Correct", false],
    ["[ Correct ]", false],
    ["", false],
    [undefined, false],
  ];
  for (const [text, verdict] of cases) it(JSON.stringify(text), () => expect(physicsVerdict(text)).toBe(verdict));

  it("strict: the last of [correct] / [incorrect] decides, so a [Correct] quoted from the answer does not", () => {
    const quoting = 'The solution says "... [Correct]". Its result differs from the reference.\n[Incorrect]';
    expect([physicsVerdict(quoting), physicsVerdict(quoting, true)]).toEqual([true, false]);
    expect(physicsVerdict("[Incorrect] at first, but on reflection [CORRECT]", true)).toBe(true);
    expect(physicsVerdict("Correct", true)).toBe(false);
    expect(physicsVerdict(undefined, true)).toBe(false);
  });
});

describe("reward rules", () => {
  it("a symbolic match scores 1 without the judge, with NeMo Gym's fields in order", async () => {
    const before = stack.engine.requests.length;
    const body = await verify(e, "So $T = \\boxed{2\\pi\\sqrt{L/g}}$.");
    expect(Object.keys(body)).toEqual(["responses_create_params", "response", "reward", "expected_answer", "extracted_answer", "library_reward", "judge_evaluations"]);
    expect(body).toMatchObject({ reward: 1, library_reward: 1, judge_evaluations: null });
    expect(stack.engine.requests.length).toBe(before);
  });

  it("on a miss the judge sees the whole generation in NeMo Skills' prompt (one user message); [Correct] → 1", async () => {
    stack.verdicts.push("The output matches. [Correct]");
    const text = "Small oscillations: the period is two pi times the square root of L over g.";
    const body = await verify(e, text);
    expect(body).toMatchObject({ reward: 1, library_reward: 0 });
    const request = body.judge_evaluations[0].responses_create_params;
    expect(request.input).toHaveLength(1);
    expect(request.input[0].role).toBe("user");
    expect(request.input[0].content.endsWith(`Question: ${ROW.question}, Output sentence: ${text}, Correct answer: ${ROW.expected_answer}, Judgement:`)).toBe(true);
    expect(request.input[0].content.startsWith("You are a diligent and precise assistant")).toBe(true);
    expect(request).toMatchObject({ max_output_tokens: 2048, temperature: 0, top_p: 1, parallel_tool_calls: true, tool_choice: "auto" });
  });

  it("[Incorrect] → 0, no label → 0: verdicts, not failures", async () => {
    stack.verdicts.push("[Incorrect]", "I am not sure.");
    for (const reward of [0, 0]) {
      const body = await verify(e, "\\boxed{\\pi\\sqrt{L/g}}");
      expect(body).toMatchObject({ reward });
      expect(body._ng_failure_class).toBeUndefined();
    }
  });

  it("on Chat Completions: NeMo Gym's chat request, and the reply recorded as a minimal Response", async () => {
    stack.verdicts.push("[correct]");
    const before = stack.calls("/chat/completions").length;
    const body = await verify(chat, "two pi times the square root of L over g");
    expect(body.reward).toBe(1);
    const sent = stack.calls("/chat/completions").slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ messages: [{ role: "user" }], max_tokens: 2048, temperature: 0, top_p: 1 });
    const recorded = body.judge_evaluations[0];
    expect(recorded.response.output).toEqual([
      { id: "msg_chat", content: [{ annotations: [], text: "[correct]", type: "output_text", logprobs: null }], role: "assistant", status: "completed", type: "message" },
    ]);
    expect(recorded.response).toMatchObject({ object: "response", parallel_tool_calls: false, tool_choice: "none", tools: [], error: null });
    expect(recorded.responses_create_params.input[0].content).toBe((sent[0]!.messages as Array<{ content: string }>)[0]!.content);
  });

  it("on Chat Completions an empty reply is 0 (not a failure); sampling defaults fill unset fields", async () => {
    const bare = await instance({ use_chat_completions_for_judge: true, judge_responses_create_params: { input: [] } });
    stack.verdicts.push("");
    const before = stack.calls("/chat/completions").length;
    const body = await verify(bare, "\\boxed{3}");
    expect(body).toMatchObject({ reward: 0, library_reward: 0 });
    expect(body.judge_evaluations[0].response.output[0].content[0].text).toBe("");
    expect(stack.calls("/chat/completions")[before]).toMatchObject({ max_tokens: 2048, temperature: 0, top_p: 1 });
  });

  it("should_use_judge: false never asks", async () => {
    const off = await instance({ should_use_judge: false });
    const before = stack.engine.requests.length;
    expect(await verify(off, "\\boxed{3}")).toMatchObject({ reward: 0, judge_evaluations: null });
    expect(stack.engine.requests.length).toBe(before);
  });

  it("a failing judge gives judge_failed, never a zero (both APIs)", async () => {
    const broken = await startFakeEngine({ respond: () => ({ status: 500, body: { error: { message: "engine down" } } }) });
    try {
      const brokenJudge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: broken.baseUrl, model: "judge", max_retries: 0 } });
      instances.push(brokenJudge);
      for (const useChat of [false, true]) {
        const failing = await instance({ use_chat_completions_for_judge: useChat }, brokenJudge.url);
        const body = await verify(failing, "\\boxed{3}");
        expect(body).toMatchObject({ reward: 0, _ng_failure_class: "judge_failed" });
        expect(body._ng_failure_judge_error).toMatch(/^HTTPStatusError: /);
        expect(body).not.toHaveProperty("judge_evaluations");
      }
    } finally {
      await broken.close();
    }
  });
});

describe("/aggregate_metrics", () => {
  it("math_with_judge's metrics, and the same per domain when rows carry one", async () => {
    const r = (task: number, domain: string | undefined, library: number, extracted: string, judged?: number) => ({
      _ng_task_index: task,
      _ng_rollout_index: 0,
      reward: judged ?? library,
      library_reward: library,
      extracted_answer: extracted,
      judge_evaluations: judged === undefined ? null : [{}],
      ...(domain ? { domain } : {}),
    });
    const rows = [r(0, "mechanics", 1, "a"), r(1, "mechanics", 0, "b", 1), r(2, "optics", 0, "c", 0)];
    const result = (await e.request("/aggregate_metrics", { verify_responses: rows })).body;
    expect(result.agent_metrics["pass@1/symbolic_accuracy"]).toBeCloseTo(100 / 3, 10);
    expect(result.agent_metrics).toMatchObject({
      "pass@1/judge_accuracy": 50,
      "mechanics/pass@1/symbolic_accuracy": 50,
      "mechanics/pass@1/judge_accuracy": 100,
      "optics/pass@1/judge_accuracy": 0,
    });
    expect(Object.keys(result.key_metrics).some((k) => k.includes("mechanics"))).toBe(false);
    const plain = (await e.request("/aggregate_metrics", { verify_responses: rows.map(({ domain: _d, ...rest }) => rest) })).body;
    expect(Object.keys(plain.agent_metrics).some((k) => k.startsWith("mechanics/"))).toBe(false);
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl)", () => {
  it("re-score to the recorded rewards (5/5) with the recorded judge replayed; every one was a symbolic match, so none asks the judge", async () => {
    const checkout = nemoGymCheckout(["physics_judge"]);
    const dir = mkdtempSync(join(tmpdir(), "physics-replay-"));
    try {
      const rolloutsPath = join(checkout.root, "resources_servers/physics_judge/data/example_rollouts.jsonl");
      // NeMo Gym's verify response does not echo `question`: the example rows give it (--inputs).
      const args = ["--config", "resources_servers/physics_judge/configs/physics_judge.yaml", "--inputs", "resources_servers/physics_judge/data/example.jsonl", ...judgeReplayArgs(dir, "physics_judge", "physics_judge", { rolloutsPath })];
      const { result, recorded, reverified, rows } = await reverifyRecorded("physics_judge", args, { cwd: checkout.root });
      expect(result.code, result.stderr).toBe(0);
      expect(reverified).toEqual(recorded);
      expect(rows.map((r) => [r?.library_reward, r?.judge_evaluations])).toEqual(Array(5).fill([1, null]));
      // extracted_answer is SymPy's str() of math-verify's parse. Gymkit's printer (verifiers/math/print.ts,
      // shared with math_with_judge) writes three of them differently — same values, other spellings:
      // a known difference of that printer, not of this environment (the rewards do not depend on it).
      expect(rows.map((r) => r?.extracted_answer)).toEqual(["h/p", "g*sin(theta)", "1/sqrt(1 - v**2/c**2)", "q/(4*pi*b**2)", "n*r*t*log(v_2/v_1)"]);
      expect(recordedRollouts("physics_judge").map((r) => r.extracted_answer)).toEqual(["h/p", "g*sin(theta)", "1/sqrt(1 - v**2/(c**2))", "q/((4*pi*b**2))", "n*r*t*log(v_2/v_1, E)"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      checkout.remove();
    }
  }, 180_000);
});

describe("NeMo Gym's configs/physics_judge.yaml + configs/judge_openai.yaml, unchanged", () => {
  it("runs every example row with the judge on Chat Completions through NeMo Gym's openai_model judge", async () => {
    // Right (symbolic); right in words the judge accepts; wrong; wrong with a judge saying [Incorrect]; no answer.
    const texts = ["\\boxed{g\\sin\\theta}", "The work is n R T times the log of V_2 over V_1.", "\\boxed{q/(2\\pi b^2)}", "\\boxed{p/h}", "I do not know."];
    const run = await runScienceConfig("physics_judge", {
      configs: ["resources_servers/physics_judge/configs/physics_judge.yaml", "resources_servers/physics_judge/configs/judge_openai.yaml"],
      answers: answersFor(exampleRows, texts),
      judge: (prompt) => (prompt.includes("Output sentence: The work is n R T") ? "[Correct]" : "[Incorrect]"),
      extraArgs: (judgeUrl) => [`++judge_model.responses_api_models.openai_model.openai_base_url=${judgeUrl}`],
      env: { NVIDIA_API_KEY: "test-key" },
    });
    expect(run.result.code, run.result.stderr + run.result.stdout).toBe(0);
    expect(run.rows.map((r) => r.reward)).toEqual([1, 1, 0, 0, 0]);
    expect(run.rows.map((r) => (r.judge_evaluations ?? []).length)).toEqual([0, 1, 1, 1, 1]);
    expect(run.judgeRequests.map((r) => r.path)).toEqual(Array(4).fill("/v1/chat/completions"));
    expect(run.judgeRequests[0]!.body).toMatchObject({ max_tokens: 2048, temperature: 0, top_p: 1, model: "openai/gpt-oss-20b" });
    const m = run.metrics[0]!;
    expect(m.agent_metrics["pass@1/symbolic_accuracy"]).toBeCloseTo(20, 10);
    expect(m.agent_metrics["pass@1/judge_accuracy"]).toBeCloseTo(25, 10);
    expect(m.agent_metrics["mean/reward"]).toBeCloseTo(0.4, 12);
  }, 180_000);
});
