// abstention: the grade reading, the boxed answer and its normalisation, and the prompt against NeMo
// Gym's own code (fixture generated from 07d6b0d), the reward rules over HTTP with a judge
// (vllm_model in front of the fake engine), judge failures, NeMo Gym's recorded rollouts re-scored by
// replaying their judge answers, and NeMo Gym's config run unchanged with the default metrics.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import abstention from "./index.js";
import { abstentionAnswer, lastBoxed, normalizeAnswer } from "./answer.js";
import { DEFAULT_JUDGE_PROMPT_TEMPLATE } from "./prompts.js";
import reference from "./testdata/reference.json" with { type: "json" };
import { closeDispatcher } from "../../http/client.js";
import { PromptTemplate } from "../../judge/index.js";
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
  judge_responses_create_params: { input: [], max_output_tokens: 64, temperature: 0.0, top_p: 1.0 },
};

const verdicts: string[] = [];
let engine: FakeEngine;
let judge: RunningInstance;
let env: RunningInstance;

beforeAll(async () => {
  engine = await startFakeEngine({ model: "judge", policy: () => ({ text: verdicts.shift() ?? "" }) });
  judge = await startInstance(vllmModel, { name: "genrm_model", config: { base_url: engine.baseUrl, model: "judge" } });
  env = await startInstance(abstention, { config: CONFIG, servers: { genrm_model: judge.url } });
});

afterAll(async () => {
  await env?.close();
  await judge?.close();
  await engine?.close();
  await closeDispatcher();
});

const body = (text: string, row: Record<string, unknown> = exampleRows[0]!) => ({ ...row, response: responseWith([assistantMessage(text)]) });
const judgeCalls = () => engine.requests.filter((r) => r.path.endsWith("/chat/completions") || r.path.endsWith("/responses")).length;

describe("against NeMo Gym's own abstention code (testdata/reference.json, from generate.py)", () => {
  it("reads the grade as parse_judge_grade does (fallback B)", () => {
    for (const { text, grade } of reference.grades) expect(exactLetterGrade(text, ["A", "B", "C"], "B"), JSON.stringify(text)).toBe(grade);
  });
  it("normalises as normalize_answer does", () => {
    for (const { text, normalized } of reference.normalized) expect(normalizeAnswer(text), JSON.stringify(text)).toBe(normalized);
  });
  it("reads the last box as extract_boxed_answer does", () => {
    for (const { text, boxed } of reference.boxed) expect(lastBoxed(text) ?? null, JSON.stringify(text)).toBe(boxed);
  });
  it("scores the answer verify computes, and abstains where it does", () => {
    for (const { output, answer, abstains } of reference.answers) {
      expect(abstentionAnswer({ output }), JSON.stringify(output)).toBe(answer);
      expect(normalizeAnswer(answer) === normalizeAnswer("[IDK]")).toBe(abstains);
    }
  });
  it("carries the default prompt verbatim and fills it as str.format does", () => {
    expect(DEFAULT_JUDGE_PROMPT_TEMPLATE).toBe(reference.template);
    for (const { values, prompt } of reference.fills) expect(new PromptTemplate(DEFAULT_JUDGE_PROMPT_TEMPLATE, "t").fill(values)).toBe(prompt);
  });
});

describe("reward rules over HTTP", () => {
  const judged: Array<[string, string, string, number, number]> = [
    ["\\boxed{Yes}", "A", "correct", 1, 1],
    ["\\boxed{No}", "B", "incorrect", 0, -1],
    ["\\boxed{Maybe}", "C", "abstain", 0.5, 0],
    ["\\boxed{Yes}", "Reasoning.\nA", "correct", 1, 1],
    // Must not reward: words, lower case, an unknown letter fall back to B.
    ["\\boxed{Yes}", "correct", "incorrect", 0, -1],
    ["\\boxed{Yes}", "a", "incorrect", 0, -1],
    ["\\boxed{Yes}", "D", "incorrect", 0, -1],
    // The first of A, B, C found anywhere wins.
    ["\\boxed{Yes}", "CORRECT", "abstain", 0.5, 0],
  ];
  for (const [text, reply, verdict, reward, index] of judged) {
    it(`${JSON.stringify(text)}, judge ${JSON.stringify(reply)} → ${verdict}, ${reward}`, async () => {
      verdicts.push(reply);
      const result = await env.request("/verify", body(text));
      expect(result.status, result.text).toBe(200);
      expect(result.body).toMatchObject({ reward, verdict, judge_output: reply.trim(), omniscience_index: index, ground_truth: "Yes" });
      expect([result.body.is_correct, result.body.is_abstain, result.body.is_incorrect]).toEqual(["correct", "abstain", "incorrect"].map((v) => (v === verdict ? 1 : 0)));
    });
  }

  it("abstains without asking the judge when the boxed answer normalises to the token", async () => {
    for (const text of ["\\boxed{[IDK]}", "<think>hmm</think>\\boxed{ idk. }", "The [IDK]", "\\boxed{The IDK}"]) {
      const before = judgeCalls();
      const result = await env.request("/verify", body(text));
      expect(result.body, text).toMatchObject({ reward: 0.5, verdict: "abstain", judge_output: null, is_abstain: 1, omniscience_index: 0 });
      expect(judgeCalls()).toBe(before);
    }
  });

  it("judges the boxed answer (else the whole text) with the question and gold answer, over /v1/responses", async () => {
    const before = engine.requests.length;
    verdicts.push("A", "B");
    await env.request("/verify", body("<think>\\boxed{No}</think>So: \\boxed{\\text{Yes}}"));
    await env.request("/verify", body("I do not know"));
    const sent = engine.requests.slice(before);
    const question = exampleRows[0]!.question as string;
    const fill = (predicted: string) => new PromptTemplate(DEFAULT_JUDGE_PROMPT_TEMPLATE, "t").fill({ question, target: "Yes", predicted_answer: predicted });
    const prompts = sent.map((r) => JSON.stringify(r.body));
    expect(prompts[0]).toContain(JSON.stringify(fill("\\text{Yes}")));
    expect(prompts[1]).toContain(JSON.stringify(fill("I do not know")));
  });

  it("answers NeMo Gym's AbstentionVerifyResponse fields, the row echoed; the rewards come from config", async () => {
    const custom = await startInstance(abstention, {
      config: { ...CONFIG, abstention_reward: 0.25, abstention_token: "PASS", correct_reward: 2, incorrect_reward: -1 },
      servers: { genrm_model: judge.url },
    });
    try {
      const { id: _id, ...row } = exampleRows[0]!;
      const pass = await custom.request("/verify", body("\\boxed{pass}", row));
      expect(Object.keys(pass.body).sort()).toEqual([
        "responses_create_params", "response", "reward", "extracted_answer", "ground_truth", "verdict", "judge_output",
        "is_correct", "is_abstain", "is_incorrect", "omniscience_index", "id", "question", "answer", "agent_ref",
      ].sort());
      expect(pass.body).toMatchObject({ id: null, reward: 0.25, verdict: "abstain" });
      verdicts.push("A", "B", "C");
      const rewards = [];
      for (let i = 0; i < 3; i++) rewards.push((await custom.request("/verify", body("\\boxed{Yes}"))).body.reward);
      expect(rewards).toEqual([2, -1, 0.25]);
      // [IDK] is an ordinary answer under another token: judged.
      verdicts.push("B");
      expect((await custom.request("/verify", body("\\boxed{[IDK]}"))).body).toMatchObject({ verdict: "incorrect", reward: -1 });
    } finally {
      await custom.close();
    }
  });

  it("an empty judge reply (or one that is only reasoning) is judge_failed, never a zero", async () => {
    for (const reply of ["", "<think>hmm</think>"]) {
      verdicts.push(reply);
      const result = await env.request("/verify", body("\\boxed{Yes}"));
      expect(result.body).toMatchObject({ reward: 0, _ng_failure_class: "judge_failed", _ng_failure_judge_error: "empty judge response" });
    }
  });

  it("reports reverify mode unknown, as NeMo Gym leaves it", async () => {
    expect((await env.request("/reverify_mode")).body).toBe("unknown");
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl), the recorded judge answers replayed", () => {
  it("re-score to the recorded rewards and fields (5/5; the abstaining row asks no judge)", async () => {
    const checkout = nemoGymCheckout(["abstention"]);
    const dir = mkdtempSync(join(tmpdir(), "gym-abstention-replay-"));
    try {
      const rolloutsPath = join(environmentFolder("abstention"), "data", "example_rollouts.jsonl");
      const args = ["--config", "resources_servers/abstention/configs/abstention.yaml", ...judgeReplayArgs(dir, "abstention", "abstention", { rolloutsPath, keys: ["judge_output"] }), "--force"];
      const { result, recorded, reverified, rows } = await reverifyRecorded("abstention", args, { cwd: checkout.root });
      expect(result.code, result.stderr).toBe(0);
      expect(reverified).toEqual(recorded);
      for (const field of ["extracted_answer", "ground_truth", "verdict", "judge_output", "is_correct", "is_abstain", "is_incorrect", "omniscience_index"]) {
        expect(rows.map((r) => r?.[field]), field).toEqual(recordedRows.map((r) => r[field]));
      }
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
  return predicted.includes("Not sure") ? "C" : "B";
}

describe("NeMo Gym's configs/abstention.yaml, unchanged (its genrm_model given as a judge engine)", () => {
  it("runs every example row; rewards and NeMo Gym's default metrics as the script implies", async () => {
    const judgeEngine = await startFakeEngine({ model: "judge", policy: (turns) => ({ text: scriptedGrade(turns) }) });
    const dir = mkdtempSync(join(tmpdir(), "gym-abstention-judge-"));
    try {
      const texts = ["\\boxed{Yes}", "\\boxed{Senator}", "\\boxed{[IDK]}", "It is Greenwich Village", "\\boxed{Not sure}"];
      const answers = new Map(exampleRows.map((row, i) => [promptOf(row), texts[i]!]));
      const { result, rows, metrics } = await runNemoGymConfig("abstention", "abstention.yaml", answers, ["--config", judgeEngineConfig(dir, "genrm_model", judgeEngine.baseUrl)]);
      expect(result.code, result.stderr + result.stdout).toBe(0);
      expect(rows.map((r) => r.verdict)).toEqual(["correct", "incorrect", "abstain", "correct", "abstain"]);
      expect(rows.map((r) => r.reward)).toEqual([1, 0, 0.5, 1, 0.5]);
      expect(judgeEngine.requests.filter((r) => r.path.endsWith("/chat/completions") || r.path.endsWith("/responses"))).toHaveLength(4);
      const m = metrics[0]!.agent_metrics;
      expect(m["mean/reward"]).toBeCloseTo(0.6, 12);
      expect(m["mean/omniscience_index"]).toBeCloseTo(0.2, 12);
      expect(m["mean/is_abstain"]).toBeCloseTo(0.4, 12);
      // No compute_metrics of its own: NeMo Gym's key metrics are every mean/* entry.
      const key = metrics[0]!.key_metrics as Record<string, number>;
      expect(Object.keys(key)).toEqual(Object.keys(m).filter((k) => k.startsWith("mean/")));
      expect(Object.keys(key)).toContain("mean/omniscience_index");
    } finally {
      await judgeEngine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
