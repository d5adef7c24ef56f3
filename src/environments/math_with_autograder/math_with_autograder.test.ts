// math_with_autograder: the reward rules over HTTP with the judge (vllm_model in front of the fake
// engine), what the judge is shown (the raw boxed LaTeX), label-parsing edge cases, judge failures
// (judge_failed, never a zero), the metrics, NeMo Gym's recorded rollouts re-scored by replaying the
// recorded judge answers (requests checked byte for byte), and NeMo Gym's configs run unchanged.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import env, { autograderVerdict, CORRECT, INCORRECT } from "./index.js";
import { searchBoxed } from "./boxed.js";
import { BUNDLED_PROMPTS } from "./prompts.js";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { closeDispatcher } from "../../http/client.js";
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

const row = (question: string, expected: string) => ({ responses_create_params: { input: [{ role: "user", content: question }] }, question, expected_answer: expected });

async function verify(target: RunningInstance, text: string, r: Record<string, unknown> = row("Find x.", "3")) {
  const result = await target.request("/verify", { ...r, response: responseWith([assistantMessage(text)]) });
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

const judgedAnswer = (body: Record<string, any>) => /Model Solution: ([\s\S]*)\nGolden Answer:/.exec(body.judge_evaluations[0].responses_create_params.input[0].content)?.[1];

beforeAll(async () => {
  stack = await startJudgeStack();
  e = await instance();
});

afterAll(async () => {
  await Promise.all(instances.map((i) => i.close()));
  await stack.close();
  await closeDispatcher();
});

describe("searchBoxed (NeMo Skills' search_boxed)", () => {
  const cases: Array<[string, string | undefined]> = [
    ["\\boxed{3}", "3"],
    ["first \\boxed{1} then \\boxed{\\frac{3}{2}}", "\\frac{3}{2}"],
    ["\\boxed{g(x)=2x^3+C \\text{ or } g(x)=-2x^3+C, C\\in\\mathbb{R}}", "g(x)=2x^3+C \\text{ or } g(x)=-2x^3+C, C\\in\\mathbb{R}"],
    ["\\fbox{7}", "7"],
    ["\\fbox{7} and \\boxed{8}", "8"],
    ["\\boxed{8} and \\fbox{7}", "8"], // \boxed wins whenever there is one
    ["\\boxed{unclosed", undefined],
    ["\\boxed 3", undefined],
    ["\\boxed {3}", undefined], // a space after the command: not a box
    ["no box", undefined],
  ];
  for (const [text, inner] of cases) it(JSON.stringify(text), () => expect(searchBoxed(text)).toBe(inner));
});

describe("reward rules", () => {
  it("a symbolic match scores 1 without asking the judge, with NeMo Gym's fields in order", async () => {
    const before = stack.calls("/chat/completions").length;
    const body = await verify(e, "So \\boxed{3}.");
    expect(Object.keys(body)).toEqual(["responses_create_params", "response", "reward", "expected_answer", "extracted_answer", "library_reward", "judge_evaluations"]);
    expect(body).toMatchObject({ reward: 1, expected_answer: "3", extracted_answer: "3", library_reward: 1, judge_evaluations: null });
    expect(stack.calls("/chat/completions").length).toBe(before);
  });

  it("on a miss the judge grades the raw boxed LaTeX: \\boxed{Correct} → 1", async () => {
    stack.verdicts.push(`<thinking>same set</thinking>\n${CORRECT}`);
    const body = await verify(e, "Thus \\boxed{\\{1, 2\\} \\text{ only}}", row("Find all n.", "\\text{n is 1 or 2}"));
    expect(body).toMatchObject({ reward: 1, library_reward: 0 });
    expect(body.judge_evaluations).toHaveLength(1);
    expect(judgedAnswer(body)).toBe("\\{1, 2\\} \\text{ only}");
    const [message] = body.judge_evaluations[0].responses_create_params.input;
    // One user message (the prompt file has no system key); doubled braces came out single.
    expect(body.judge_evaluations[0].responses_create_params.input).toHaveLength(1);
    expect(message).toMatchObject({ role: "user", type: "message" });
    expect(message.content).toContain("* If Correct: \\boxed{Correct}");
    expect(message.content.endsWith("Problem: Find all n.\nModel Solution: \\{1, 2\\} \\text{ only}\nGolden Answer: \\text{n is 1 or 2}")).toBe(true);
    expect(body.judge_evaluations[0].responses_create_params).toMatchObject({ max_output_tokens: 2048, temperature: 0, top_p: 1 });
    expect(body.judge_evaluations[0].response.object).toBe("response");
  });

  it("strict: the label found last decides, so a \\boxed{Correct} quoted from the answer does not", () => {
    const quoting = `The answer reads "\\boxed{43} ${CORRECT}". It is not the golden answer.\n${INCORRECT}`;
    expect([autograderVerdict(quoting, false), autograderVerdict(quoting, true)]).toEqual([true, false]);
    expect(autograderVerdict(`${INCORRECT} ... on reflection ${CORRECT}`, true)).toBe(true);
    expect(autograderVerdict("Correct", true)).toBe(false);
    expect(autograderVerdict(undefined, true)).toBe(false);
  });

  const verdictCases: Array<[string, number]> = [
    [INCORRECT, 0],
    [`${INCORRECT} ... on reflection ${CORRECT}`, 0], // the first label wins
    [`${CORRECT} though one could say ${INCORRECT}`, 1],
    ["\\boxed{correct}", 0], // labels are case-sensitive
    ["Correct", 0], // bare word: no label
    ["", 0],
  ];
  for (const [verdict, reward] of verdictCases) {
    it(`judge says ${JSON.stringify(verdict)} → ${reward}, a verdict (not a failure)`, async () => {
      stack.verdicts.push(verdict);
      const body = await verify(e, "\\boxed{4}");
      expect(body.reward).toBe(reward);
      expect(body._ng_failure_class).toBeUndefined();
      expect(body.judge_evaluations).toHaveLength(1);
    });
  }

  it("without a box the judge sees math-verify's extraction, and without one either the whole text", async () => {
    stack.verdicts.push(INCORRECT, INCORRECT);
    expect(judgedAnswer(await verify(e, "The answer is 4"))).toBe("4");
    expect(judgedAnswer(await verify(e, "I cannot solve it."))).toBe("I cannot solve it.");
  });

  it("must not reward: a right-looking but wrong box with a judge that says nothing usable", async () => {
    stack.verdicts.push("The answer could be \\boxed{Correct or Incorrect}");
    expect((await verify(e, "\\boxed{33}")).reward).toBe(0);
  });

  it("should_use_judge: false never asks", async () => {
    const off = await instance({ should_use_judge: false });
    const before = stack.calls("/chat/completions").length;
    expect(await verify(off, "\\boxed{4}")).toMatchObject({ reward: 0, library_reward: 0, judge_evaluations: null });
    expect(stack.calls("/chat/completions").length).toBe(before);
  });

  it("reads a prompt file from the working directory first, with a system message when it has one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "autograder-prompt-"));
    try {
      const path = join(dir, "judge.yaml");
      (await import("node:fs")).writeFileSync(path, "system: Grade {{strictly}}.\nuser: 'P={problem} A={predicted_answer} G={expected_answer}'\n");
      const custom = await instance({ judge_prompt_path: path });
      stack.verdicts.push(CORRECT);
      const body = await verify(custom, "\\boxed{4}");
      expect(body.judge_evaluations[0].responses_create_params.input.map((m: any) => [m.role, m.content])).toEqual([
        ["system", "Grade {strictly}."],
        ["user", "P=Find x. A=4 G=3"],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a prompt file that is missing, or has no user template, fails at startup", async () => {
    await expect(startInstance(env, { config: { ...baseConfig, judge_prompt_path: "nowhere/judge.yaml" }, servers: { judge_model: stack.judge.url } })).rejects.toThrow(/judge_prompt_path/);
    expect(Object.keys(BUNDLED_PROMPTS)).toContain("resources_servers/math_with_autograder/prompts/judge.yaml");
  });

  it("a failing judge gives judge_failed, never a zero", async () => {
    const broken = await startFakeEngine({ respond: () => ({ status: 500, body: { error: { message: "engine down" } } }) });
    try {
      const brokenStack = await startInstance((await import("../../models/vllm_model.js")).default, { name: "judge_model", config: { base_url: broken.baseUrl, model: "judge", max_retries: 0 } });
      instances.push(brokenStack);
      const failing = await instance({}, brokenStack.url);
      const body = await verify(failing, "\\boxed{4}");
      expect(body).toMatchObject({ reward: 0, _ng_failure_class: "judge_failed" });
      expect(body._ng_failure_judge_error).toMatch(/^HTTPStatusError: /);
      expect(body).not.toHaveProperty("library_reward");
      // A symbolic match never needs the judge, so it still scores.
      expect((await verify(failing, "\\boxed{3}")).reward).toBe(1);
    } finally {
      await broken.close();
    }
  });
});

describe("/aggregate_metrics (math_with_judge's, inherited)", () => {
  it("symbolic and judge accuracy with pass@k / majority@k on extracted_answer; NeMo Gym's key metrics", async () => {
    const r = (task: number, rollout: number, library: number, extracted: string | null, judged?: number) => ({
      _ng_task_index: task,
      _ng_rollout_index: rollout,
      reward: judged ?? library,
      library_reward: library,
      extracted_answer: extracted,
      judge_evaluations: judged === undefined ? null : [{}],
      response: { usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30 } },
    });
    const rows = [r(0, 0, 1, "3"), r(0, 1, 0, "4", 1), r(1, 0, 0, "5", 0), r(1, 1, 0, null, 0)];
    const result = (await e.request("/aggregate_metrics", { verify_responses: rows })).body;
    expect(result.agent_metrics).toMatchObject({
      "pass@1[avg-of-2]/symbolic_accuracy": 25,
      "pass@2/symbolic_accuracy": 50,
      "pass@1[avg-of-2]/judge_accuracy": 50,
      "pass@1[avg-of-2]/no_answer": 25,
      "mean/reward": 0.5,
    });
    expect(Object.keys(result.key_metrics).filter((k) => k.includes("no_answer"))).toEqual(["pass@1[avg-of-2]/no_answer"]);
    expect(result.key_metrics).toMatchObject({ "mean/input_tokens": 10, "mean/output_tokens": 20, "pass@2/symbolic_accuracy": 50 });
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl)", () => {
  it("re-score to the recorded rewards (5/5) replaying the recorded judge answers, every request byte for byte NeMo Gym's", async () => {
    const checkout = nemoGymCheckout(["math_with_autograder"]);
    const dir = mkdtempSync(join(tmpdir(), "autograder-replay-"));
    try {
      const rolloutsPath = join(checkout.root, "resources_servers/math_with_autograder/data/example_rollouts.jsonl");
      // NeMo Gym recorded these with a judge template that had no max_output_tokens, temperature or
      // top_p (its recorded requests hold null), where 07d6b0d's config sets 2048 / 0.0 / 1.0: the
      // replay removes those three keys, and every other byte of each request is checked.
      const template = "math_with_autograder.resources_servers.math_with_autograder.judge_responses_create_params";
      const args = [
        "--config", "resources_servers/math_with_autograder/configs/math_with_autograder.yaml",
        `~${template}.max_output_tokens`, `~${template}.temperature`, `~${template}.top_p`,
        ...judgeReplayArgs(dir, "math_with_autograder", "math_with_autograder", { rolloutsPath }),
      ];
      const { result, recorded, reverified, rows } = await reverifyRecorded("math_with_autograder", args, { cwd: checkout.root });
      expect(result.code, result.stderr).toBe(0);
      expect(reverified).toEqual(recorded);
      // Each rollout asked the judge once (the model wrote nothing), with NeMo Gym's exact request.
      const recordedRows = readJsonlFile(pathToFileURL(rolloutsPath));
      for (const [i, out] of rows.entries()) {
        expect(out?._ng_failure_class).toBeUndefined();
        expect(out?.judge_evaluations).toHaveLength(1);
        expect(out?.judge_evaluations[0].responses_create_params.input[0].content).toBe(recordedRows[i]!.judge_evaluations[0].responses_create_params.input[0].content);
        expect(out?.judge_evaluations[0].response.output).toEqual(recordedRows[i]!.judge_evaluations[0].response.output);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      checkout.remove();
    }
  }, 180_000);
});

describe("NeMo Gym's configs/math_with_autograder.yaml + configs/judge_gptoss20b.yaml, unchanged", () => {
  it("runs every example row with the judge on NeMo Gym's openai_model instance pointed at the judge engine", async () => {
    // Right (symbolic), a boxed expression only the judge accepts, wrong, right as a decimal, no answer.
    const texts = ["\\boxed{3}", "\\boxed{A+\\frac{B}{x}-x}", "\\boxed{304}", "So the supremum is \\boxed{1.5}.", "I could not finish."];
    const run = await runScienceConfig("math_with_autograder", {
      configs: ["resources_servers/math_with_autograder/configs/math_with_autograder.yaml", "resources_servers/math_with_autograder/configs/judge_gptoss20b.yaml"],
      answers: answersFor(exampleRows, texts),
      judge: (prompt) => (prompt.includes("Model Solution: A+\\frac{B}{x}-x\n") ? `<thinking>ok</thinking>\n${CORRECT}` : `<thinking>no</thinking>\n${INCORRECT}`),
      extraArgs: (judgeUrl) => [`++judge_model.responses_api_models.openai_model.openai_base_url=${judgeUrl}`],
      env: { NVIDIA_API_KEY: "test-key" },
    });
    expect(run.result.code, run.result.stderr + run.result.stdout).toBe(0);
    expect(run.rows).toHaveLength(5);
    expect(run.rows.map((r) => r.reward)).toEqual([1, 1, 0, 1, 0]);
    expect(run.rows.map((r) => r.library_reward)).toEqual([1, 0, 0, 1, 0]);
    expect(run.rows.map((r) => (r.judge_evaluations ?? []).length)).toEqual([0, 1, 1, 0, 1]);
    // The judge was asked on its Responses API, three times.
    expect(run.judgeRequests.map((r) => r.path)).toEqual(["/v1/responses", "/v1/responses", "/v1/responses"]);
    const m = run.metrics[0]!;
    expect(m.agent_metrics["pass@1/symbolic_accuracy"]).toBeCloseTo(40, 10);
    expect(m.agent_metrics["pass@1/judge_accuracy"]).toBeCloseTo(100 / 3, 10);
    expect(m.agent_metrics["mean/reward"]).toBeCloseTo(0.6, 12);
    expect(Object.keys(m.key_metrics).sort()).toEqual(
      ["mean/input_tokens", "mean/output_tokens", "pass@1[avg-of-1]/judge_accuracy", "pass@1[avg-of-1]/no_answer", "pass@1[avg-of-1]/symbolic_accuracy", "pass@1/judge_accuracy", "pass@1/symbolic_accuracy", "majority@1/judge_accuracy", "majority@1/symbolic_accuracy"].sort(),
    );
  }, 180_000);
});
