// spartqa: the answer reading and label resolution against NeMo Gym's own (fixture generated from
// 07d6b0d), the reward rules over HTTP with must-not-reward traps, NeMo Gym's recorded rollouts
// re-verified through `gym eval reverify`, both of its configs run unchanged, and the metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import spartqa from "./index.js";
import { candidateLabels, extractAnswer, labelKey, matchLabel, normalize } from "./extract.js";
import fixture from "./testdata/answers.json" with { type: "json" };
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { postJson, recordedAnswers, runNemoGymConfig, serveNemoGymConfig } from "../../../test/helpers/mcq_slice.js";

interface Case {
  text: string;
  answer: string;
  key: string;
  normalized: string;
  matches: Array<{ options: string[]; labels: string[]; match: string | null }>;
}

describe("answer reading and label resolution, against NeMo Gym's spartqa (testdata/answers.json)", () => {
  for (const c of fixture as Case[]) {
    it(JSON.stringify(c.text).slice(0, 70), () => {
      const answer = extractAnswer(c.text);
      expect(answer).toBe(c.answer);
      expect([labelKey(answer), normalize(answer)]).toEqual([c.key, c.normalized]);
      for (const m of c.matches) {
        expect(candidateLabels(m.options)).toEqual(m.labels);
        expect(matchLabel(answer, m.labels) ?? null).toBe(m.match);
      }
    });
  }
});

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(spartqa);
});
afterAll(() => env.close());

const OPTIONS = ["a small blue square", "a big blue square"];
async function verify(text: string, target: string, extra: Record<string, unknown> = { options: OPTIONS }) {
  const result = await env.request("/verify", { responses_create_params: { input: "q" }, target, ...extra, response: responseWith([assistantMessage(text)]) });
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

describe("strict: true (Gymkit's own; closes the audit's wrong.negation and guess.all_boxes)", () => {
  let strictEnv: RunningInstance;
  beforeAll(async () => {
    strictEnv = await startInstance(spartqa, { config: { strict: true } });
  });
  afterAll(() => strictEnv.close());
  // [response, reward by default (NeMo Gym's), reward under strict]; the gold is "both of them".
  const cases: Array<[string, number, number]> = [
    ["Final answer: not both of them", 1, 0], // the audit's wrong.negation: found by containment
    ["Final answer: both of then\nFinal answer: both of them\nFinal answer: not both of them", 1, 0], // the audit's guess.all_boxes
    ["Final answer: both of them", 1, 1],
    ["Final answer: both", 1, 1], // an alias
  ];
  for (const [text, byDefault, strict] of cases) {
    it(`${JSON.stringify(text)} → ${byDefault} by default, ${strict} under strict`, async () => {
      expect((await verify(text, "both of them")).reward).toBe(byDefault);
      const r = await strictEnv.request("/verify", { responses_create_params: { input: "q" }, target: "both of them", options: OPTIONS, response: responseWith([assistantMessage(text)]) });
      expect(r.status, r.text).toBe(200);
      expect((r.body as { reward: number }).reward).toBe(strict);
    });
  }
});

describe("reward rules", () => {
  const cases: Array<[string, string, number, boolean, string]> = [
    // text, target, reward, exact, predicted_label
    ["Final answer: a big blue square", "a big blue square", 1, true, "a big blue square"],
    ["Final answer: big blue square", "a big blue square", 1, true, "a big blue square"], // article-insensitive
    ["Final answer: I pick the big blue square.", "a big blue square", 1, false, "a big blue square"],
    ["Final answer: a small blue square or a big blue square", "a big blue square", 0, false, ""], // trap: echoing both options
    ["Final answer: a small blue square", "a big blue square", 0, false, "a small blue square"],
    ["Final answer: both", "both of them", 1, false, "both of them"],
    ["Final answer: neither", "none of them", 1, false, "none of them"],
    ["Final answer: both of them", "none of them", 0, false, "both of them"],
    ["Final answer: <candidate answer>", "a big blue square", 0, false, ""], // the template echo is no answer
    ["", "a big blue square", 0, false, ""],
    ["Final answer: a big blue square", "", 0, false, "a big blue square"], // no gold never rewards
  ];
  for (const [text, target, reward, exact, label] of cases) {
    it(`${JSON.stringify(text)} vs ${JSON.stringify(target)} → ${reward}`, async () => {
      const r = await verify(text, target);
      expect([r.reward, r.exact, r.predicted_label]).toEqual([reward, exact, label]);
    });
  }
  it("options and target from verifier_metadata when the row's are empty (the native driver drops lists)", async () => {
    const r = await verify("Final answer: a big blue square", "", { verifier_metadata: { target: "a big blue square", options: OPTIONS } });
    expect([r.reward, r.predicted_label]).toEqual([1, "a big blue square"]);
    const alone = await verify("Final answer: a small blue square or a big blue square", "", { verifier_metadata: { target: "a big blue square", options: OPTIONS } });
    expect(alone.reward).toBe(0);
  });
  it("without options the gold is the only object label: a wrong object is not rewarded", async () => {
    expect((await verify("Final answer: a big blue square", "a big blue square", {})).reward).toBe(1);
    expect((await verify("Final answer: a red circle", "a big blue square", {})).reward).toBe(0);
  });
  it("reports parsed, extracted (200 characters at most) and echoes the row", async () => {
    const long = `Final answer: ${"x".repeat(300)}`;
    const r = await verify(long, "a big blue square");
    expect([r.parsed, r.extracted.length, r.target, r.options]).toEqual([true, 200, "a big blue square", OPTIONS]);
  });
});

describe("aggregate metrics", () => {
  it("mean reward, rates and per-label accuracy; key metrics mean_reward and exact_match_rate", async () => {
    const rows = [
      { _ng_task_index: 0, reward: 1, exact: true, parsed: true, predicted_label: "both of them", target: "both of them" },
      { _ng_task_index: 1, reward: 0, exact: false, parsed: true, predicted_label: "", target: "both of them" },
      { _ng_task_index: 2, reward: 1, exact: false, parsed: true, predicted_label: "none of them", target: "None of them" },
      { _ng_task_index: 3, reward: 0, exact: false, parsed: false, predicted_label: "", target: "a box" },
    ];
    const result = await env.request("/aggregate_metrics", { verify_responses: rows });
    const m = result.body.agent_metrics;
    expect([m.mean_reward, m.count, m.exact_match_rate, m.parse_rate, m.label_resolve_rate, m.accuracy_both_of_them, m.accuracy_none_of_them]).toEqual([0.5, 4, 0.25, 0.75, 0.5, 0.5, 1]);
    expect(result.body.key_metrics).toEqual({ mean_reward: 0.5, exact_match_rate: 0.25 });
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl)", () => {
  it("re-verify to the recorded rewards (5/5) and fields", async () => {
    const { result, recorded, reverified, rows } = await reverifyRecorded("spartqa", ["--resources-server", "spartqa"]);
    expect(result.code, result.stderr).toBe(0);
    expect(reverified).toEqual(recorded);
    expect(rows.map((r) => [r?.exact, r?.parsed, r?.extracted, r?.predicted_label])).toEqual(recordedRollouts("spartqa").map((r) => [r.exact, r.parsed, r.extracted, r.predicted_label]));
  }, 180_000);
});

describe("NeMo Gym's configs, unchanged", () => {
  it("spartqa.yaml: every example row with its recorded answer; rewards and metrics", async () => {
    const { result, rows, metrics } = await runNemoGymConfig("spartqa", "spartqa.yaml", recordedAnswers("spartqa"));
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(rows.map((r) => r.reward)).toEqual([1, 1, 1, 0, 1]);
    const m = metrics[0]!.agent_metrics;
    expect([m.mean_reward, m.count, m.exact_match_rate, m.parse_rate, m.label_resolve_rate, m.accuracy_both_of_them, m.accuracy_none_of_them]).toEqual([0.8, 5, 0.4, 1, 0.8, 1, 1]);
    expect(metrics[0]!.key_metrics).toEqual({ mean_reward: 0.8, exact_match_rate: 0.4 });
  }, 180_000);

  it("spartqa_serve.yaml (the scorer alone): started with gym env start, /verify scores the recorded rollouts as recorded", async () => {
    const served = await serveNemoGymConfig("spartqa", "spartqa_serve.yaml");
    try {
      for (const rollout of recordedRollouts("spartqa")) {
        const { reward: _r, exact: _x, parsed: _p, extracted: _e, predicted_label: _l, ...request } = rollout;
        const reply = await postJson(`${served.url}/verify`, request);
        expect(reply.status).toBe(200);
        expect([reply.body.reward, reply.body.exact, reply.body.predicted_label]).toEqual([rollout.reward, rollout.exact, rollout.predicted_label]);
      }
    } finally {
      await served.stop();
    }
  }, 120_000);
});
