// ragtruth: the response parsing against NeMo Gym's own (fixture generated from 07d6b0d), the reward
// rules over HTTP with must-not-reward traps, NeMo Gym's recorded rollouts re-verified through
// `gym eval reverify`, both of its configs run unchanged, and the corpus metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ragtruth from "./index.js";
import { parseResponse, stripJsonFence, stripThink } from "./parse.js";
import fixture from "./testdata/parse.json" with { type: "json" };
import { pyJsonDumps } from "../../verifiers/mcq/python_json.js";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { postJson, promptOf, recordedAnswers, runNemoGymConfig, serveNemoGymConfig } from "../../../test/helpers/mcq_slice.js";

const exampleRows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));

describe("parsing, against NeMo Gym's ragtruth (testdata/parse.json)", () => {
  for (const c of fixture as Array<{ text: string; tag: string; stripped: string; unfenced: string; parsed: boolean; pred_halu: boolean; extracted: string }>) {
    it(`${c.tag}: ${JSON.stringify(c.text).slice(0, 60)}`, () => {
      expect(stripThink(c.text, c.tag)).toBe(c.stripped);
      expect(stripJsonFence(c.stripped)).toBe(c.unfenced);
      const parsed = parseResponse(c.text, c.tag);
      expect(parsed !== undefined).toBe(c.parsed);
      const list = parsed?.get("hallucination list");
      expect(list?.k === "list" && list.v.length > 0).toBe(c.pred_halu);
      expect(list?.k === "list" ? Array.from(pyJsonDumps(list)).slice(0, 500).join("") : "").toBe(c.extracted);
    });
  }
});

let env: RunningInstance;
let reasoningEnv: RunningInstance;
beforeAll(async () => {
  env = await startInstance(ragtruth);
  reasoningEnv = await startInstance(ragtruth, { name: "ragtruth_reasoning", config: { think_tag: "reasoning" } });
});
afterAll(async () => {
  await Promise.all([env.close(), reasoningEnv.close()]);
});

async function verify(text: string, isHalu: unknown, instance = env) {
  const result = await instance.request("/verify", { responses_create_params: { input: "q" }, is_halu: isHalu, task_type: "QA", response: responseWith([assistantMessage(text)]) });
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

describe("reward rules", () => {
  const cases: Array<[string, unknown, number, number, number]> = [
    // text, is_halu, reward, pred_halu, parse_fail
    ['{"hallucination list": ["1889"]}', true, 1, 1, 0],
    ['{"hallucination list": []}', false, 1, 0, 0],
    ['{"hallucination list": []}', true, 0, 0, 0],
    ['{"hallucination list": ["x"]}', false, 0, 1, 0],
    ["There is a hallucination.", true, 0, 0, 1], // unparseable → "no hallucination" (trap: never credited as yes)
    ["There is none.", false, 1, 0, 1], // …which scores on a clean case, as in NeMo Gym
    ['{"hallucination list": "1889"}', true, 0, 0, 0], // not a list
    ['<think>{"hallucination list": ["x"]}</think>{"hallucination list": []}', false, 1, 0, 0],
    ['```json\n{"hallucination list": ["y"]}\n```', 1, 1, 1, 0],
    ['{"hallucination list": ["y"]}', "yes", 1, 1, 0],
    ['{"hallucination list": []}', 0, 1, 0, 0],
  ];
  for (const [text, isHalu, reward, pred, fail] of cases) {
    it(`${JSON.stringify(text).slice(0, 60)} with is_halu ${JSON.stringify(isHalu)} → ${reward}`, async () => {
      const r = await verify(text, isHalu);
      expect([r.reward, r.pred_halu, r.parse_fail]).toEqual([reward, pred, fail]);
      expect(r.is_halu).toBe(isHalu === true || isHalu === 1 || isHalu === "yes" ? 1 : 0);
    });
  }
  it("think_tag config: <reasoning> blocks are removed instead of <think>", async () => {
    const text = '<reasoning>{"hallucination list": ["x"]}</reasoning>{"hallucination list": []}';
    expect((await verify(text, false, reasoningEnv)).reward).toBe(1);
    expect((await verify(text, false)).parse_fail).toBe(1);
  });
  it("a non-boolean is_halu is a 422, as pydantic rejects it", async () => {
    const result = await env.request("/verify", { responses_create_params: { input: "q" }, is_halu: "maybe", response: responseWith([assistantMessage("{}")]) });
    expect(result.status).toBe(422);
  });
  it("extracted is the list as Python's json.dumps writes it, cut at 500 characters", async () => {
    const r = await verify('{"hallucination list": ["é", 1.0, 1e16, null]}', true);
    expect(r.extracted).toBe('["é", 1.0, 1e+16, null]');
  });
});

describe("aggregate metrics", () => {
  it("mean reward, parse failures, corpus precision/recall/F1 overall and per task type, NeMo Gym's key metrics", async () => {
    const rows = [
      { _ng_task_index: 0, reward: 1, is_halu: 1, pred_halu: 1, parse_fail: 0, task_type: "QA" },
      { _ng_task_index: 1, reward: 0, is_halu: 0, pred_halu: 1, parse_fail: 0, task_type: "QA" },
      { _ng_task_index: 2, reward: 0, is_halu: 1, pred_halu: 0, parse_fail: 1, task_type: "Summary" },
      { _ng_task_index: 3, reward: 1, is_halu: 0, pred_halu: 0, parse_fail: 0, task_type: "" },
    ];
    const result = await env.request("/aggregate_metrics", { verify_responses: rows });
    const m = result.body.agent_metrics;
    expect([m.mean_reward, m.count, m.parse_fail_rate, m.precision, m.recall]).toEqual([0.5, 4, 0.25, 0.5, 0.5]);
    expect(m.f1).toBeCloseTo(0.5, 12);
    expect([m["task_type/QA/precision"], m["task_type/QA/recall"], m["task_type/QA/accuracy"], m["task_type/QA/count"]]).toEqual([0.5, 1, 0.5, 2]);
    expect([m["task_type/Summary/f1"], m["task_type/unknown/accuracy"]]).toEqual([0, 1]);
    expect(Object.keys(result.body.key_metrics)).toEqual(["mean_reward", "f1", "precision", "recall", "task_type/QA/f1", "task_type/QA/accuracy", "task_type/Summary/f1", "task_type/Summary/accuracy", "task_type/unknown/f1", "task_type/unknown/accuracy"]);
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl)", () => {
  it("re-verify to the recorded rewards (5/5) and flags", async () => {
    const { result, recorded, reverified, rows } = await reverifyRecorded("ragtruth", ["--resources-server", "ragtruth"]);
    expect(result.code, result.stderr).toBe(0);
    expect(reverified).toEqual(recorded);
    const recordedLines = recordedRollouts("ragtruth");
    expect(rows.map((r) => [r?.pred_halu, r?.parse_fail, r?.extracted])).toEqual(recordedLines.map((r) => [r.pred_halu, r.parse_fail, r.extracted]));
  }, 180_000);
});

describe("NeMo Gym's configs, unchanged", () => {
  it("ragtruth.yaml: every example row runs; rewards and metrics", async () => {
    const answers = recordedAnswers("ragtruth");
    // Rows 3 and 4 have no recorded answer of their own: a correct "clean" verdict, then unparseable text.
    answers.set(promptOf(exampleRows[3]!), '<think>Checked every claim.</think>{"hallucination list": []}');
    answers.set(promptOf(exampleRows[4]!), "It contains a hallucination.");
    const { result, rows, metrics } = await runNemoGymConfig("ragtruth", "ragtruth.yaml", answers);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(rows.map((r) => [r.reward, r.pred_halu, r.parse_fail])).toEqual([[1, 1, 0], [1, 0, 0], [1, 1, 0], [1, 0, 0], [0, 0, 1]]);
    const m = metrics[0]!.agent_metrics;
    expect([m.mean_reward, m.count, m.parse_fail_rate, m.precision, m.recall]).toEqual([0.8, 5, 0.2, 1, 2 / 3]);
    expect(m.f1).toBeCloseTo(0.8, 12);
    expect(m["task_type/Summary/recall"]).toBe(0);
    expect(metrics[0]!.key_metrics).toMatchObject({ mean_reward: 0.8, precision: 1, "task_type/QA/accuracy": 1, "task_type/Summary/accuracy": 0.5 });
  }, 180_000);

  it("ragtruth_serve.yaml (the scorer alone): started with gym env start, /verify scores the recorded rollouts as recorded", async () => {
    const served = await serveNemoGymConfig("ragtruth", "ragtruth_serve.yaml");
    try {
      for (const rollout of recordedRollouts("ragtruth")) {
        const { reward: _reward, pred_halu: _p, parse_fail: _f, extracted: _e, ...request } = rollout;
        const reply = await postJson(`${served.url}/verify`, request);
        expect(reply.status).toBe(200);
        expect([reply.body.reward, reply.body.pred_halu, reply.body.extracted]).toEqual([rollout.reward, rollout.pred_halu, rollout.extracted]);
      }
    } finally {
      await served.stop();
    }
  }, 120_000);
});
