// math_with_judge over HTTP on 127.0.0.1: NeMo Gym's fields and cases, the example rows with
// hand-written responses, the judge path through a real vllm_model server in front of the fake
// engine, judge failures (`judge_failed`, never a zero), the pool deadline, and the metrics.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDispatcher } from "../../http/client.js";
import mathWithJudge from "./index.js";
import { JUDGE_SYSTEM_PROMPT } from "../../verifiers/math/judge_prompt.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import vllmModel from "../../models/vllm_model.js";
import { METADATA_KEYS } from "../../http/implementation.js";
import { environmentConfigPath, loadImplementation } from "../../orchestrate/registry.js";
import { startFakeEngine, type FakeEngine } from "../../../test/doubles/fake_engine.js";

const ROWS = readFileSync(new URL("./data/example.jsonl", import.meta.url), "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as Record<string, any>);

const JUDGE_REF = { type: "responses_api_models", name: "judge_model" };
const baseConfig = { judge_model_server: JUDGE_REF, judge_responses_create_params: { input: [] } };

/** The judge engine answers from this queue; an empty queue answers with no label at all. */
const verdicts: string[] = [];
let engine: FakeEngine;
let judge: RunningInstance;
const instances: RunningInstance[] = [];

async function env(config: Record<string, unknown> = {}, servers?: Record<string, string>): Promise<RunningInstance> {
  const instance = await startInstance(mathWithJudge, { config: { ...baseConfig, ...config }, servers: servers ?? { judge_model: judge.url } });
  instances.push(instance);
  return instance;
}

function verifyBody(row: Record<string, unknown>, text: string, extra: Record<string, unknown> = {}) {
  return { ...row, response: responseWith([assistantMessage(text)]), ...extra };
}

const mathRow = (question: string, expected: string) => ({
  responses_create_params: { input: [{ role: "user", content: question }] },
  question,
  expected_answer: expected,
});

beforeAll(async () => {
  engine = await startFakeEngine({ model: "judge", policy: () => ({ text: verdicts.shift() ?? "I cannot decide." }) });
  judge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: engine.baseUrl, model: "judge" } });
});

afterAll(async () => {
  await Promise.all(instances.map((i) => i.close()));
  await judge.close();
  await engine.close();
  await closeDispatcher();
});

describe("registration and config", () => {
  it("is registered as a resources server and its YAML validates, with the judge off", async () => {
    expect((await loadImplementation("resources_servers", "math_with_judge")).id).toBe("math_with_judge");
    const yaml = parseYaml(readFileSync(environmentConfigPath("math_with_judge"), "utf8"));
    expect(Object.keys(yaml)).toEqual(["math_with_judge", "math_with_judge_simple_agent"]);
    const fields = Object.fromEntries(
      Object.entries(yaml.math_with_judge.resources_servers.math_with_judge).filter(([key]) => !(METADATA_KEYS as readonly string[]).includes(key)),
    );
    const config = mathWithJudge.configSchema.parse(fields);
    expect(config).toMatchObject({ should_use_judge: false, library_verifier_timeout_seconds: 10, library_verifier_max_concurrency: 32 });
    // NeMo Gym's code default is to use the judge.
    expect(mathWithJudge.configSchema.parse(baseConfig)).toMatchObject({ should_use_judge: true });
  });

  it("answers /reverify_mode with stateless", async () => {
    const e = await env({ should_use_judge: false });
    expect((await e.request("/reverify_mode")).body).toBe("stateless");
  });
});

describe("/verify on the example rows with hand-written responses", () => {
  let e: RunningInstance;
  beforeAll(async () => {
    e = await env({ should_use_judge: false });
  });

  const right = [
    "Deleting any digit but the first must leave a divisor; the case analysis gives \\boxed{32}.",
    "The recursion solves to $x_n$ in closed form, so $x_{2016} = \\boxed{\\dfrac{(3+\\sqrt{3})(2+\\sqrt{3})^{2016}+(3-\\sqrt{3})(2-\\sqrt{3})^{2016}}{6}}$.",
    "Counting pairs of roots with |v+w| large enough: the probability is \\boxed{\\frac{333}{1997}}.",
    "By the radical axis argument, $AP = \\boxed{\\sqrt 2}$.",
    "Only $x = -3$ works, so the answer is \\boxed{-3}.",
  ];
  const wrong = ["\\boxed{31}", "\\boxed{2^{2016}}", "\\boxed{\\frac{1}{1997}}", "\\boxed{\\frac{\\sqrt{2}}{2}}", "\\boxed{3}"];

  it("scores each right answer 1.0 and each wrong one 0.0, with NeMo Gym's fields", async () => {
    for (const [i, row] of ROWS.entries()) {
      const good = await e.request("/verify", verifyBody(row, right[i]!));
      expect(good.status).toBe(200);
      expect(good.body).toMatchObject({ reward: 1, library_reward: 1, judge_evaluations: null, expected_answer: row.expected_answer });
      // NeMo Gym's LibraryJudgeMathVerifyResponse declares expected_answer, not question.
      expect(good.body).not.toHaveProperty("question");
      expect(typeof good.body.extracted_answer).toBe("string");
      const bad = await e.request("/verify", verifyBody(row, wrong[i]!));
      expect(bad.body).toMatchObject({ reward: 0, library_reward: 0, judge_evaluations: null });
    }
  });

  it("reads all output_text of assistant messages, joined", async () => {
    const row = ROWS[0]!;
    const response = responseWith([assistantMessage("The count is"), { type: "reasoning", summary: [] }, assistantMessage(" \\boxed{32}.")]);
    expect((await e.request("/verify", { ...row, response })).body.reward).toBe(1);
  });

  it("reports NeMo Gym's extracted answers", async () => {
    const cases: Array<[string, string, number, string | null]> = [
      ["8", "3 + 5 = \\boxed{8}", 1, "8"],
      ["4.0", "\\boxed{\\frac{8}{2}}", 1, "4"],
      ["17.001", "\\boxed{17}", 0, "17"],
      ["", "", 0, null],
    ];
    for (const [expected, text, reward, extracted] of cases) {
      const result = await e.request("/verify", verifyBody(mathRow("q", expected), text));
      expect(result.body, `${expected} vs ${text}`).toMatchObject({ reward, library_reward: reward, extracted_answer: extracted });
    }
  });

  it("rejects a row without question or expected_answer (422)", async () => {
    const { question: _q, ...noQuestion } = mathRow("q", "1");
    expect((await e.request("/verify", verifyBody(noQuestion, "\\boxed{1}"))).status).toBe(422);
  });
});

describe("the judge", () => {
  let e: RunningInstance;
  const row = mathRow("What is 7/5 as a decimal?", "1.4");
  const text = "Final answer: {7 / 5}";
  const judgeCalls = () => engine.requests.filter((r) => r.path.endsWith("/chat/completions"));
  beforeAll(async () => {
    e = await env({ should_use_judge: true });
  });

  it("asks twice with the order swapped; both [[A=B]] → 1.0 with two evaluations", async () => {
    const before = judgeCalls().length;
    verdicts.push("They are the same number. [[A=B]]", "Equivalent: [[A=B]]");
    const result = await e.request("/verify", verifyBody(row, text));
    expect(result.body).toMatchObject({ reward: 1, library_reward: 0, extracted_answer: "5" });
    expect(result.body.judge_evaluations).toHaveLength(2);
    const [first, second] = result.body.judge_evaluations;
    expect(first.responses_create_params.input[0]).toMatchObject({ role: "system", content: JUDGE_SYSTEM_PROMPT });
    expect(first.responses_create_params.input[1].content).toBe(
      "<|Problem|>\nWhat is 7/5 as a decimal?\n\n<|Start of Assistant A's Answer|>\n1.4\n<|End of Assistant A's Answer|>\n\n<|Start of Assistant B's Answer|>\n5\n<|End of Assistant B's Answer|>",
    );
    expect(second.responses_create_params.input[1].content).toContain("<|Start of Assistant A's Answer|>\n5\n");
    expect(second.responses_create_params.input[1].content).toContain("<|Start of Assistant B's Answer|>\n1.4\n");
    expect(first.response.object).toBe("response");
    // Both calls went through the judge model server to its engine.
    expect(judgeCalls().length - before).toBe(2);
  });

  it("a first [[A!=B]] → 0.0 after one evaluation", async () => {
    verdicts.push("Different. [[A!=B]]");
    const result = await e.request("/verify", verifyBody(row, text));
    expect(result.body).toMatchObject({ reward: 0, library_reward: 0 });
    expect(result.body.judge_evaluations).toHaveLength(1);
  });

  it("the swapped call must agree too", async () => {
    verdicts.push("[[A=B]]", "On reflection [[A!=B]]");
    const result = await e.request("/verify", verifyBody(row, text));
    expect(result.body.reward).toBe(0);
    expect(result.body.judge_evaluations).toHaveLength(2);
  });

  it("the first label in the text wins; no label means not equal (not a failure)", async () => {
    verdicts.push("[[A!=B]] ... though one could say [[A=B]]");
    expect((await e.request("/verify", verifyBody(row, text))).body).toMatchObject({ reward: 0 });
    const noLabel = await e.request("/verify", verifyBody(row, text));
    expect(noLabel.body.reward).toBe(0);
    expect(noLabel.body._ng_failure_class).toBeUndefined();
    expect(noLabel.body.judge_evaluations).toHaveLength(1);
  });

  it("judges the whole text when nothing was extracted", async () => {
    verdicts.push("[[A=B]]", "[[A=B]]");
    const result = await e.request("/verify", verifyBody(row, "one point four"));
    expect(result.body).toMatchObject({ reward: 1, extracted_answer: null, library_reward: 0 });
    expect(result.body.judge_evaluations[0].responses_create_params.input[1].content).toContain("B's Answer|>\none point four\n");
  });

  it("is not asked when the library already says 1, or when should_use_judge is false", async () => {
    const before = judgeCalls().length;
    expect((await e.request("/verify", verifyBody(row, "\\boxed{\\frac{7}{5}}"))).body).toMatchObject({ reward: 1, judge_evaluations: null });
    const off = await env({ should_use_judge: false });
    expect((await off.request("/verify", verifyBody(row, text))).body).toMatchObject({ reward: 0, judge_evaluations: null });
    expect(judgeCalls().length).toBe(before);
  });
});

describe("judge failures are judge_failed, never a zero", () => {
  const row = mathRow("q", "1.4");
  const text = "Final answer: {7 / 5}";

  function expectJudgeFailed(body: Record<string, any>, errorType: string) {
    expect(body).toMatchObject({ reward: 0, _ng_failure_class: "judge_failed" });
    expect(body._ng_failure_judge_error).toMatch(new RegExp(`^${errorType}: `));
    // None of the server's own extra fields.
    for (const key of ["extracted_answer", "library_reward", "judge_evaluations"]) expect(body).not.toHaveProperty(key);
    // The request and response are still there, as in every verify response.
    expect(body.responses_create_params).toBeDefined();
    expect(body.response).toBeDefined();
  }

  it("a non-2xx judge reply", async () => {
    const broken = await startFakeEngine({ respond: () => ({ status: 500, body: { error: { message: "engine down" } } }) });
    try {
      const brokenJudge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: broken.baseUrl, model: "judge", max_retries: 0 } });
      instances.push(brokenJudge);
      const e = await env({ should_use_judge: true }, { judge_model: brokenJudge.url });
      const result = await e.request("/verify", verifyBody(row, text));
      expect(result.status).toBe(200);
      expectJudgeFailed(result.body, "HTTPStatusError");
    } finally {
      await broken.close();
    }
  });

  it("an unreachable judge", async () => {
    const gone = await startFakeEngine();
    const url = gone.url;
    await gone.close();
    const e = await env({ should_use_judge: true }, { judge_model: url });
    expectJudgeFailed((await e.request("/verify", verifyBody(row, text))).body, "ConnectionError");
  });

  it("a judge that does not answer in time", async () => {
    // A judge that never answers: the verdict can only come from the 0.5 s judge deadline (were it
    // not enforced, the request would wait until the test's own timeout fails it).
    const slow = await startFakeEngine({ faults: { seed: 1, hang: 1 }, policy: () => ({ text: "[[A=B]]" }) });
    try {
      const e = await env({ should_use_judge: true, judge_timeout_seconds: 0.5 }, { judge_model: slow.url });
      expectJudgeFailed((await e.request("/verify", verifyBody(row, text))).body, "TimeoutError");
      expect(slow.faultsServed.hang).toBeGreaterThan(0);
    } finally {
      await slow.close();
    }
  });

  it("a 200 whose body is not a Response", async () => {
    const odd = await startFakeEngine({ respond: (path) => (path.endsWith("/responses") ? { status: 200, body: { choices: [] } } : undefined) });
    try {
      const e = await env({ should_use_judge: true }, { judge_model: odd.url });
      expectJudgeFailed((await e.request("/verify", verifyBody(row, text))).body, "ValidationError");
    } finally {
      await odd.close();
    }
  });
});

describe("the verifier deadline over HTTP", () => {
  it("pathological answers get 0 in time while other verifications complete", async () => {
    const e = await env({ should_use_judge: false, library_verifier_timeout_seconds: 1, library_verifier_max_concurrency: 2 });
    const row = mathRow("q", "1");
    await e.request("/verify", verifyBody(row, "\\boxed{1}"));
    // The binomial is computed exactly, digit by digit, for minutes (past this test's timeout): its
    // 0 can only come from the 1 s deadline. The tower and the long sum are refused outright.
    const hard = ["\\boxed{9^{9^{9^9}}}", `\\boxed{${Array.from({ length: 5000 }, () => "1").join("+")}}`, "\\boxed{\\binom{10^{1000}}{5000}}"].map((t) =>
      e.request("/verify", verifyBody(row, t)),
    );
    const normal = Array.from({ length: 12 }, (_, i) => e.request("/verify", verifyBody(mathRow("q", String(i)), `\\boxed{${i}}`)));
    for (const result of await Promise.all(hard)) expect(result.body.reward).toBe(0);
    for (const result of await Promise.all(normal)) expect(result.body.reward).toBe(1);
  }, 60_000);
});

describe("/aggregate_metrics", () => {
  it("adds symbolic/judge accuracy with pass@k and majority@k on extracted_answer", async () => {
    const e = await env({ should_use_judge: false });
    const r = (task: number, rollout: number, library: number, extracted: string | null, judged?: number) => ({
      _ng_task_index: task,
      _ng_rollout_index: rollout,
      reward: judged ?? library,
      library_reward: library,
      extracted_answer: extracted,
      judge_evaluations: judged === undefined ? null : [{}],
      response: { usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30 } },
    });
    const rows = [r(0, 0, 1, "4"), r(0, 1, 0, "5", 1), r(1, 0, 0, "3", 0), r(1, 1, 0, null)];
    const result = (await e.request("/aggregate_metrics", { verify_responses: rows })).body;
    expect(result.agent_metrics).toMatchObject({
      "pass@1/symbolic_accuracy": 25,
      "pass@2/symbolic_accuracy": 50,
      "pass@1[avg-of-2]/symbolic_accuracy": 25,
      // As NeMo Gym's compute_pass_majority_metrics: avg-of-1 looks only at each task's first rollout,
      // which the judge saw only in task 1 (0); pass@k/no_answer is the unbiased pass@k of no_answer
      // (task 1 has one of two without an answer: pass@2 = 1).
      "pass@1[avg-of-1]/judge_accuracy": 0,
      "pass@2/no_answer": 50,
      "majority@2/no_answer": 0,
      "pass@1[avg-of-2]/no_answer": 25,
      "mean/reward": 0.5,
    });
    expect(result.key_metrics).toMatchObject({ "mean/input_tokens": 10, "mean/output_tokens": 20, "pass@2/symbolic_accuracy": 50, "majority@2/symbolic_accuracy": 25 });
    // NeMo Gym's get_key_metrics keeps the avg-of-k no_answer and drops the others and every std.
    expect(Object.keys(result.key_metrics).filter((k) => k.includes("no_answer") || k.includes("std_"))).toEqual(["pass@1[avg-of-2]/no_answer"]);
    expect(result.per_sample_aggregate.symbolic_accuracy).toEqual([50, 0]);
  });
});

describe("stored rollouts", () => {
  it("re-verify to the reward they were stored with (reverify is stateless)", async () => {
    const e = await env({ should_use_judge: false });
    const text = readFileSync(new URL("./data/example_rollouts.jsonl", import.meta.url), "utf8");
    const rollouts = text.trim().split("\n").map((line) => JSON.parse(line) as Record<string, any>);
    expect(rollouts.length).toBe(10);
    for (const rollout of rollouts) {
      const { reward, extracted_answer, library_reward, judge_evaluations: _j, ...request } = rollout;
      const result = await e.request("/verify", request);
      expect(result.body, `task ${rollout._ng_task_index}/${rollout._ng_rollout_index}`).toMatchObject({ reward, extracted_answer, library_reward });
    }
  });
});
