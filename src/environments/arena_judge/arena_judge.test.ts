// arena_judge over HTTP on 127.0.0.1: the reward rules and verdict parsing (judge = a real vllm_model in
// front of the fake engine, scripted from the judge prompt), the prompts and parameters sent, NeMo
// Gym's recorded rollouts re-scored by replaying their judge texts, NeMo Gym's config run unchanged,
// a failing judge, and the metrics against NeMo Gym's compute_metrics on the recorded rollouts.
// (Arena-Elo itself against numpy/pandas/scikit-learn: elo.test.ts.)
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDispatcher } from "../../http/client.js";
import arena from "./index.js";
import { BUNDLED_PROMPTS } from "./prompts.js";
import { parseVerdict, sanitizeGeneration } from "./verdict.js";
import fixture from "./testdata/elo.json" with { type: "json" };
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import vllmModel from "../../models/vllm_model.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import { runGym } from "../../../test/helpers/cli.js";
import { judgeReplayArgs } from "../../../test/helpers/judges.js";
import { environmentFolder, nemoGymCheckout, recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";

const ROWS = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const JUDGE_REF = { type: "responses_api_models", name: "judge_model" };
const BASE_CONFIG = { judge_model_server: JUDGE_REF, judge_chat_completions_create_params: { messages: [], max_tokens: 4096, temperature: 0.0 } };

/** The two answers of a judge prompt (A, B). */
function answersOf(turns: Turn[]): { a: string; b: string; system: string } {
  const user = turns.findLast((t) => t.role === "user")?.content ?? "";
  const a = /<\|The Start of Assistant A's Answer\|>\n([\s\S]*?)\n<\|The End of Assistant A's Answer\|>/.exec(user)?.[1] ?? "";
  const b = /<\|The Start of Assistant B's Answer\|>\n([\s\S]*?)\n<\|The End of Assistant B's Answer\|>/.exec(user)?.[1] ?? "";
  return { a, b, system: turns.find((t) => t.role === "system")?.content ?? "" };
}

/** The judge's reply for (answer A, answer B); set per test. */
let judgeScript: (a: string, b: string) => string = () => "no verdict";
let engine: FakeEngine;
let judge: RunningInstance;
const instances: RunningInstance[] = [];

async function env(config: Record<string, unknown> = {}, judgeUrl?: string): Promise<RunningInstance> {
  const instance = await startInstance(arena, { config: { ...BASE_CONFIG, ...config }, servers: { judge_model: judgeUrl ?? judge.url } });
  instances.push(instance);
  return instance;
}

const row = (extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: "user", content: "Q?" }] },
  question: "Q?",
  baseline_answer: "BASELINE",
  category: "hard_prompt",
  uid: "u1",
  ...extra,
});

async function verify(instance: RunningInstance, text: string, extra: Record<string, unknown> = {}) {
  const result = await instance.request("/verify", { ...row(extra), response: responseWith([assistantMessage(text)]) });
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

let plain: RunningInstance;
beforeAll(async () => {
  engine = await startFakeEngine({
    model: "judge",
    policy: (turns) => {
      const { a, b } = answersOf(turns);
      return { text: judgeScript(a, b) };
    },
  });
  judge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: engine.baseUrl, model: "judge" } });
  plain = await env();
});

afterAll(async () => {
  await Promise.all(instances.map((i) => i.close()));
  await judge.close();
  await engine.close();
  await closeDispatcher();
});

describe("verdict parsing (NeMo Gym's _parse_verdict)", () => {
  const cases: Array<[string, string | null]> = [
    ["my final verdict is [[A>B]]", "A>B"],
    ["verdict: [[A>>B]]", "A>>B"],
    ["close call, [[A=B]]", "A=B"],
    ["[[B>A]]", "B>A"],
    ["[[B>>A]]", "B>>A"],
    ["first: [[A>B]] then again [[A>B]]", "A>B"],
    ["[[A>B]] ... [[B>A]]", null], // conflicting labels
    ["[[A<B]]", null], // a label of the right characters that is no verdict
    ["[[A>>>B]]", null],
    ["[[A>B]] and [[A<B]]", null], // two different labels, even if one is no verdict
    ["[[a>b]]", null],
    ["[A>B]", null],
    ["[[ A>B ]]", null],
    ["[[A>B]", null],
    ["no verdict was given", null],
    ["", null],
    ["[[[A>B]]]", "A>B"],
  ];
  for (const [text, verdict] of cases) it(`${JSON.stringify(text)} → ${verdict}`, () => expect(parseVerdict(text)).toBe(verdict));
});

describe("sanitize_generation", () => {
  it("replaces each lone surrogate by three U+FFFD and keeps valid pairs and NULs, as NeMo Gym's round trip does", () => {
    // Expected values printed by NeMo Gym's sanitize_generation (Python 3.11).
    expect(sanitizeGeneration("a\ud83db")).toBe("a\ufffd\ufffd\ufffdb");
    expect(sanitizeGeneration("\udc00")).toBe("\ufffd\ufffd\ufffd");
    expect(sanitizeGeneration("hello 🐀 world")).toBe("hello 🐀 world");
    expect(sanitizeGeneration("a\u0000b")).toBe("a\u0000b");
    expect(sanitizeGeneration("\ud800\ud800")).toBe("\ufffd".repeat(6));
  });
});

describe("reward rules over HTTP", () => {
  // The judge answers the gen-base call (A = the policy's answer) with `gen`, the base-gen call with `base`.
  const script = (gen: string, base: string) => (a: string, b: string) => (b === "BASELINE" ? gen : a === "BASELINE" ? base : "?");
  const cases: Array<[string, string, string, number, string | null, string | null]> = [
    ["strong win, confirmed", "Mine is better. [[A>>B]]", "[[B>>A]]", 1, "A>>B", "B>>A"],
    ["slight win", "[[A>B]]", "[[A>B]]", 1, "A>B", "A>B"],
    ["tie", "[[A=B]]", "[[A=B]]", 0, "A=B", "A=B"],
    ["slight loss", "[[B>A]]", "[[A>B]]", 0, "B>A", "A>B"],
    ["strong loss", "[[B>>A]]", "[[A>>B]]", 0, "B>>A", "A>>B"],
    ["a base-gen win alone is not rewarded", "[[A=B]]", "[[B>>A]]", 0, "A=B", "B>>A"],
    ["conflicting gen-base labels", "[[A>B]] or maybe [[B>A]]", "[[B>A]]", 0, null, "B>A"],
    ["gen-base without a label", "A is clearly better", "[[B>A]]", 0, null, "B>A"],
    ["a win the judge repeats", "[[A>>B]] ... so [[A>>B]]", "nothing", 1, "A>>B", null],
    ["an empty reply", "", "[[A>B]]", 0, null, "A>B"],
  ];
  for (const [name, gen, base, reward, verdictGen, verdictBase] of cases) {
    it(name, async () => {
      judgeScript = script(gen, base);
      const body = await verify(plain, "MINE");
      expect([body.reward, body.verdict_gen_base, body.verdict_base_gen, body.invalid_gen_base, body.invalid_base_gen]).toEqual([
        reward,
        verdictGen,
        verdictBase,
        verdictGen === null,
        verdictBase === null,
      ]);
      expect([body.judgement_gen_base, body.judgement_base_gen]).toEqual([gen, base]);
    });
  }

  it("answers NeMo Gym's ArenaJudgeVerifyResponse: declared fields, then the row's own", async () => {
    judgeScript = () => "[[A>B]]";
    const result = await plain.request("/verify", { ...row(), agent_ref: { type: "responses_api_agents", name: "x" }, extra_field: 7, response: responseWith([assistantMessage("MINE")]) });
    expect(Object.keys(result.body)).toEqual([
      "responses_create_params", "response", "reward", "judgement_gen_base", "judgement_base_gen", "verdict_gen_base", "verdict_base_gen",
      "category", "invalid_gen_base", "invalid_base_gen", "question", "baseline_answer", "uid", "agent_ref", "extra_field",
    ]);
    expect(result.text).toContain('"reward":1.0');
    // Absent optional row fields are null, as pydantic dumps them.
    const bare = await plain.request("/verify", { responses_create_params: { input: "Q" }, response: responseWith([assistantMessage("MINE")]) });
    expect(bare.body).toMatchObject({ question: null, baseline_answer: null, uid: null, category: "hard_prompt" });
  });

  it("a recorded rollout sent back is re-scored, its old verdict fields replaced in place", async () => {
    judgeScript = (a) => (a === "MINE" ? "[[A>B]]" : "[[B>A]]");
    const result = await plain.request("/verify", { ...row(), reward: 0.0, verdict_gen_base: "B>>A", judgement_gen_base: "old", response: responseWith([assistantMessage("MINE")]) });
    expect(result.body).toMatchObject({ reward: 1, verdict_gen_base: "A>B", judgement_gen_base: "[[A>B]]" });
  });
});

describe("the judge requests", () => {
  const sent = () => engine.requests.filter((r) => r.path.endsWith("/chat/completions")).slice(-2).map((r) => r.body as Record<string, any>);
  const prompt = (file: string) => parseYaml(BUNDLED_PROMPTS[`resources_servers/arena_judge/prompts/${file}`]!) as { system: string; user: string };

  it("hard_prompt: arena.yaml's system and user messages, both orders, with the config's parameters", async () => {
    judgeScript = () => "[[A=B]]";
    await verify(plain, "MINE {not a field}");
    const [genBase, baseGen] = sent() as [Record<string, any>, Record<string, any>];
    const user = (a: string, b: string) =>
      `<|User Prompt|>\nQ?\n\n<|The Start of Assistant A's Answer|>\n${a}\n<|The End of Assistant A's Answer|>\n\n<|The Start of Assistant B's Answer|>\n${b}\n<|The End of Assistant B's Answer|>`;
    expect(genBase.messages).toEqual([
      { role: "system", content: prompt("arena.yaml").system },
      { role: "user", content: user("MINE {not a field}", "BASELINE") },
    ]);
    expect(baseGen.messages[1].content).toBe(user("BASELINE", "MINE {not a field}"));
    expect(genBase.messages[0].content).toContain("Begin your evaluation by generating your own answer");
    expect(genBase).toMatchObject({ max_tokens: 4096, temperature: 0 });
  });

  it("creative_writing uses arena_creative.yaml; an unknown or missing category falls back to the default", async () => {
    judgeScript = () => "[[A>B]]";
    expect((await verify(plain, "MINE", { category: "creative_writing" })).category).toBe("creative_writing");
    expect(sent()[0]!.messages[0].content).toBe(prompt("arena_creative.yaml").system);
    expect(sent()[0]!.messages[0].content).not.toContain("generating your own answer");
    const unknown = await verify(plain, "MINE", { category: "does_not_exist" });
    expect([unknown.category, unknown.reward]).toEqual(["hard_prompt", 1]);
    expect(sent()[0]!.messages[0].content).toBe(prompt("arena.yaml").system);
    expect((await verify(plain, "MINE", { category: null })).category).toBe("hard_prompt");
  });

  it("sanitize_generations scrubs lone surrogates from both answers before judging", async () => {
    judgeScript = () => "[[A>B]]";
    const sanitizing = await env({ sanitize_generations: true });
    await verify(sanitizing, "candidate \ud83d answer", { baseline_answer: "baseline \udc00 answer" });
    const [genBase] = sent() as [Record<string, any>];
    expect(genBase.messages[1].content).toContain("candidate \ufffd\ufffd\ufffd answer");
    expect(genBase.messages[1].content).toContain("baseline \ufffd\ufffd\ufffd answer");
  });

  it("a default_category missing from judge_prompt_paths stops the instance from starting", async () => {
    await expect(env({ default_category: "nonexistent" })).rejects.toThrow(/default_category/);
  });
});

describe("a failing judge", () => {
  it("is a judge_failed failure of the rollout, never a zero", async () => {
    const broken = await startFakeEngine({ respond: (path) => (path.endsWith("/chat/completions") ? { status: 500, body: { error: { message: "engine down" } } } : undefined) });
    try {
      const brokenJudge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: broken.baseUrl, model: "judge", max_retries: 0 } });
      instances.push(brokenJudge);
      const e = await env({}, brokenJudge.url);
      const body = await verify(e, "MINE");
      expect(body).toMatchObject({ reward: 0, _ng_failure_class: "judge_failed" });
      expect(body._ng_failure_judge_error).toMatch(/^HTTPStatusError: /);
      for (const key of ["judgement_gen_base", "verdict_gen_base", "invalid_gen_base"]) expect(body).not.toHaveProperty(key);
    } finally {
      await broken.close();
    }
  });
});

describe("/aggregate_metrics", () => {
  const recorded = recordedRollouts("arena_judge");

  it("on the recorded rollouts: NeMo Gym's compute_metrics, value for value (testdata/elo.json)", async () => {
    const result = (await plain.request("/aggregate_metrics", { verify_responses: recorded })).body;
    const expected = fixture.compute_metrics as Record<string, unknown>;
    const { per_sample_aggregate: expectedPerSample, ...expectedMetrics } = expected;
    for (const [key, value] of Object.entries(expectedMetrics)) {
      if (key.startsWith("arena_elo/")) expect(result.agent_metrics[key], key).toBe(value);
      else expect(result.agent_metrics[key], key).toBeCloseTo(value as number, 10);
    }
    const custom = Object.keys(result.agent_metrics).filter((k) => !/^(mean|max|min|median|std)\//.test(k));
    expect(custom.sort()).toEqual(Object.keys(expectedMetrics).sort());
    expect(result.per_sample_aggregate).toEqual(expectedPerSample);
    expect(result.agent_metrics["arena_elo/score"]).toBe(47.22);
    // NeMo Gym's get_key_metrics: token means, the Elo four, highest-k avg-of-k (all) and pass@k (no no_answer).
    const scores = ["double_wins", "invalid_gen_base", "losses", "no_answer", "strict_wins", "ties", "wins"];
    expect(Object.keys(result.key_metrics).sort()).toEqual(
      [
        "mean/input_tokens", "mean/output_tokens", "arena_elo/score", "arena_elo/ci_lower", "arena_elo/ci_upper", "arena_elo/invalid_scores",
        ...scores.map((s) => `pass@1[avg-of-1]/${s}`),
        ...scores.filter((s) => s !== "no_answer").map((s) => `pass@1/${s}`),
      ].sort(),
    );
  });

  it("with several rollouts per task: the best verdict per task, and the bootstrap as NeMo Gym's (fixture set)", async () => {
    const set = (fixture.sets as Array<{ name: string; tasks: Array<Array<Record<string, unknown>>>; metrics: Record<string, number> }>).find((s) => s.name.startsWith("random 50 tasks x4"))!;
    // Shuffled arrival: tasks are grouped by index and rollouts ordered by rollout index.
    const rows = set.tasks.flatMap((task, t) => task.map((r, i) => ({ ...r, invalid_gen_base: r.verdict_gen_base === null, reward: 0, _ng_task_index: t, _ng_rollout_index: i }))).reverse();
    const result = (await plain.request("/aggregate_metrics", { verify_responses: rows })).body;
    for (const [key, value] of Object.entries(set.metrics)) expect(result.agent_metrics[key], key).toBe(value);
  });

  it("data/example_metrics.json: NeMo Gym's dataset statistics of the example rows (counts)", () => {
    const stats = JSON.parse(readFileSync(join(environmentFolder("arena_judge"), "data", "example_metrics.json"), "utf8")) as Record<string, any>;
    const distinct = (key: string) => new Set(ROWS.map((r) => r[key])).size;
    expect(stats["Number of examples"]).toBe(ROWS.length);
    for (const key of ["uid", "category", "question", "baseline_answer"]) expect(stats[key]).toEqual({ unique_count: distinct(key), total_count: ROWS.length });
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl)", () => {
  it("re-score to the recorded rewards and verdicts (5/5), the recorded judge texts replayed as the judge", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-arena-replay-"));
    try {
      const rolloutsPath = join(environmentFolder("arena_judge"), "data", "example_rollouts.jsonl");
      const replay = judgeReplayArgs(dir, "arena_judge", "arena_judge", { rolloutsPath, keys: ["judgement_gen_base", "judgement_base_gen"] });
      const { result, recorded, reverified, rows } = await reverifyRecorded("arena_judge", ["--resources-server", "arena_judge", ...replay]);
      expect(result.code, result.stderr + result.stdout).toBe(0);
      expect(reverified).toEqual(recorded);
      const fields = ["verdict_gen_base", "verdict_base_gen", "invalid_gen_base", "invalid_base_gen", "category", "judgement_gen_base", "judgement_base_gen"];
      const pick = (r: Record<string, any> | undefined) => Object.fromEntries(fields.map((f) => [f, r?.[f]]));
      expect(rows.map(pick)).toEqual(recordedRollouts("arena_judge").map(pick));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe("NeMo Gym's configs/arena_judge.yaml, unchanged", () => {
  it("runs every example row with a policy and a scripted judge (its judge instance from ARENA_JUDGE_*)", async () => {
    const checkout = nemoGymCheckout(["arena_judge"]);
    // The policy answers each question with a tag; the judge prefers the policy on hard prompts and
    // the baseline on creative ones, whichever side it is on.
    const policy = await startFakeEngine({ policy: (turns) => ({ text: `POLICY: ${turns.findLast((t) => t.role === "user")?.content}` }) });
    const judgeEngine = await startFakeEngine({
      model: "judge",
      policy: (turns) => {
        const { a, b, system } = answersOf(turns);
        const creative = !system.includes("generating your own answer");
        const policySide = a.startsWith("POLICY: ") ? "A" : b.startsWith("POLICY: ") ? "B" : "?";
        if (policySide === "?") return { text: "no verdict" };
        const winner = creative ? (policySide === "A" ? "B" : "A") : policySide;
        return { text: `My final verdict: [[${winner === "A" ? "A>B" : "B>A"}]]` };
      },
    });
    const dir = mkdtempSync(join(tmpdir(), "gym-arena-config-"));
    try {
      const output = join(dir, "out.jsonl");
      const result = await runGym(
        ["eval", "run", "--config", "resources_servers/arena_judge/configs/arena_judge.yaml", "--input", "resources_servers/arena_judge/data/example.jsonl",
          "--agent", "arena_judge_simple_agent", "--model-type", "vllm_model", "--model-url", policy.baseUrl, "--model", "m", "-o", output, "--quiet"],
        { cwd: checkout.root, timeoutMs: 120_000, env: { ARENA_JUDGE_BASE_URL: judgeEngine.baseUrl, ARENA_JUDGE_API_KEY: "dummy", ARENA_JUDGE_MODEL: "judge" } },
      );
      expect(result.code, result.stderr + result.stdout).toBe(0);
      const rows = readFileSync(output, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>).sort((x, y) => x._ng_task_index - y._ng_task_index);
      expect(rows.map((r) => r.category)).toEqual(ROWS.map((r) => r.category));
      expect(rows.map((r) => r.reward)).toEqual(ROWS.map((r) => (r.category === "hard_prompt" ? 1 : 0)));
      expect(rows.map((r) => [r.verdict_gen_base, r.verdict_base_gen])).toEqual(ROWS.map((r) => (r.category === "hard_prompt" ? ["A>B", "B>A"] : ["B>A", "A>B"])));
      expect(judgeEngine.requests.filter((r) => r.path.endsWith("/chat/completions"))).toHaveLength(10);
      const metrics = JSON.parse(readFileSync(join(dir, "out_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
      const m = metrics[0]!.agent_metrics;
      // 3 hard prompts won, 2 creative lost, each in both orders: 6 + 4 battles, p = 6/10.
      expect([m["arena_elo/score"], m["arena_elo/hard_prompt/score"], m["arena_elo/creative_writing/score"]]).toEqual([60, 100, 0]);
      expect(m["pass@1/wins"]).toBeCloseTo(60, 10);
      expect(metrics[0]!.key_metrics["arena_elo/score"]).toBe(60);
    } finally {
      await policy.close();
      await judgeEngine.close();
      rmSync(dir, { recursive: true, force: true });
      checkout.remove();
    }
  }, 180_000);
});
