// proof_judge: the reward rules over HTTP with a scripted judge (a real vllm_model server in front of
// the fake engine), NeMo Gym's request to the judge and its verify response fields, the group rule,
// a failing judge, NeMo Gym's aggregate metrics on its recorded rollouts, and, through the CLI,
// NeMo Gym's config run unchanged (one engine as policy and judge, as that config has it), recorded
// with record_path and re-verified from that recording with zero engine calls.
//
// NeMo Gym's data/example_rollouts.jsonl carries rewards but no judge output (proof_judge's verify
// response is the request, the response and the reward only): there is nothing to replay as the
// judge, so its recorded rewards cannot be re-scored here. Our own run is recorded and replayed instead.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import proofJudge from "./index.js";
import { extractBoxedScore, parseProofAnswer } from "./parse.js";
import { META_VERIFIER_TEMPLATE, PROVER_TEMPLATE, VERIFIER_TEMPLATE } from "./judge.js";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import vllmModel from "../../models/vllm_model.js";
import type { Turn } from "../../../test/doubles/fake_engine.js";
import { engineOf, onTeardown } from "../../../test/helpers/scope.js";
import { readJsonlFile as readJsonlPath, runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";

const DATA = new URL("./data/", import.meta.url);
const exampleRows = readJsonlFile(new URL("example.jsonl", DATA));

const VERIFIER_START = "## Instruction\n\nYour task is to evaluate the quality of a solution";
const META_START = 'You are given a "problem", "solution", and "solution evaluation"';
const PROVER_START = "Your task is to solve a given problem.";

/** The scripted judge: the verifier answers what the proof's VERDICT<<…>> says, the meta-verifier what the self-evaluation's META<<…>> says. */
function judgeReply(prompt: string): string {
  if (prompt.startsWith(META_START)) return /META<<([\s\S]*?)>>/.exec(prompt)?.[1] ?? "no score";
  if (prompt.startsWith(VERIFIER_START)) return /VERDICT<<([\s\S]*?)>>/.exec(prompt)?.[1] ?? "no score";
  return "not a judge prompt";
}
const lastUser = (turns: Turn[]) => turns.findLast((t) => t.role === "user")?.content ?? "";

const answer = (proof: string, selfEval: string) => `## Solution\n${proof}\n\n## Self Evaluation\n${selfEval}`;

let judgeEngineCalls: () => Array<{ body: Record<string, unknown> }>;
let judgeUrl: string;
let failingJudgeUrl: string;
const instances: RunningInstance[] = [];

beforeAll(async () => {
  const engine = await engineOf({ model: "judge", policy: (turns) => ({ text: judgeReply(lastUser(turns)) }) });
  judgeEngineCalls = () => engine.requests.filter((r) => r.path.startsWith("/v1/"));
  const judge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: engine.baseUrl, model: "judge" } });
  onTeardown(() => judge.close());
  judgeUrl = judge.url;
  const broken = await engineOf({ respond: () => ({ status: 500, body: { error: { message: "engine down" } } }) });
  const failing = await startInstance(vllmModel, { name: "judge_model", config: { base_url: broken.baseUrl, model: "judge", max_retries: 0 } });
  onTeardown(() => failing.close());
  failingJudgeUrl = failing.url;
});
afterAll(async () => {
  await Promise.all(instances.map((i) => i.close()));
});

async function env(config: Record<string, unknown> = {}, url = judgeUrl): Promise<RunningInstance> {
  const instance = await startInstance(proofJudge, {
    config: { judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_max_retries: 0, ...config },
    servers: { judge_model: url },
  });
  instances.push(instance);
  return instance;
}

const row = (problem = "Prove that 1 + 1 = 2.") => ({ responses_create_params: { input: [{ role: "user", content: problem }] }, problem });

async function verify(instance: RunningInstance, text: string, extra: Record<string, unknown> = {}) {
  const result = await instance.request("/verify", { ...row(), ...extra, response: responseWith(text === "" ? [] : [assistantMessage(text)]) });
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

describe("scores and answers as NeMo Gym reads them", () => {
  const scores: Array<[string, number | undefined]> = [
    ["\\boxed{1}", 1],
    ["\\boxed{0.5}", 0.5],
    ["\\boxed{ 0 }", 0],
    ["\\boxed{1.0}", 1],
    ["\\boxed{5e-1}", 0.5],
    ["\\boxed{+1}", 1],
    ["\\boxed{0.7}", undefined],
    ["\\boxed{2}", undefined],
    ["\\boxed{1/2}", undefined],
    ["\\boxed{\\frac{1}{2}}", undefined], // up to the first }: "\\frac{1" is not a number
    ["\\boxed{1} then \\boxed{0}", 0], // the last box
    ["\\boxed{0} then \\boxed{oops}", undefined], // the last box only, even when unreadable
    ["\\boxed{1", undefined],
    ["no box", undefined],
  ];
  for (const [text, score] of scores) it(`${JSON.stringify(text)} → ${score}`, () => expect(extractBoxedScore(text)).toBe(score));

  it("splits the answer after the last </think> into proof and self-evaluation", () => {
    expect(parseProofAnswer("## Solution\nP\n## Self Evaluation\nE \\boxed{1}", false)).toEqual({ proof: "P", selfAnalysis: "E \\boxed{1}", sPrime: 1 });
    expect(parseProofAnswer("<think>## Solution x ## Self Evaluation \\boxed{1}</think> nothing", false)).toBe("missing_solution_header");
    expect(parseProofAnswer("## Solution P", false)).toBe("missing_self_eval_header");
    expect(parseProofAnswer("## Self Evaluation \\boxed{1} ## Solution P", false)).toBe("missing_self_eval_header");
    expect(parseProofAnswer("## Solution P ## Self Evaluation fine", false)).toBe("invalid_boxed_score");
    expect(parseProofAnswer("## Solution P ## Self Evaluation \\boxed{1}", true)).toBe("missing_think_end");
    expect(parseProofAnswer("t</think>## Solution P ## Self Evaluation \\boxed{0.5}", true)).toMatchObject({ proof: "P", sPrime: 0.5 });
  });

  it("the bundled prover prompt is the one that built NeMo Gym's example rows", () => {
    for (const r of exampleRows) expect(r.responses_create_params.input[0].content).toBe(PROVER_TEMPLATE.fill({ problem: r.problem }));
  });
});

describe("reward rules (alpha 1, beta 0: the verifier's score)", () => {
  let e: RunningInstance;
  beforeAll(async () => {
    e = await env();
  });

  const cases: Array<[string, string, number]> = [
    ["a complete proof", answer("Proof. VERDICT<<Fine. \\boxed{1}>>", "I am sure. \\boxed{1}"), 1],
    ["a proof with gaps", answer("Proof. VERDICT<<Minor gap. \\boxed{0.5}>>", "\\boxed{1}"), 0.5],
    ["a wrong proof", answer("Proof. VERDICT<<Fatal. \\boxed{0}>>", "\\boxed{1}"), 0],
    ["a judge reply without a score (a verdict of 0, not a failure)", answer("Proof. VERDICT<<I cannot tell.>>", "\\boxed{1}"), 0],
    ["a judge score outside 0, 0.5, 1", answer("Proof. VERDICT<<\\boxed{0.9}>>", "\\boxed{1}"), 0],
    ["the judge's last box counts", answer("Proof. VERDICT<<\\boxed{1} on reflection \\boxed{0}>>", "\\boxed{1}"), 0],
  ];
  for (const [name, text, reward] of cases) {
    it(`${name} → ${reward}`, async () => {
      const before = judgeEngineCalls().length;
      expect((await verify(e, text)).reward).toBe(reward);
      expect(judgeEngineCalls().length).toBe(before + 1);
    });
  }

  // Must not reward, and must not ask the judge, even though the proof invites a 1.
  const traps: Array<[string, string, Record<string, unknown>?]> = [
    ["no answer at all", ""],
    ["no ## Solution header", "Proof. VERDICT<<\\boxed{1}>>\n## Self Evaluation \\boxed{1}"],
    ["no ## Self Evaluation header", "## Solution\nProof. VERDICT<<\\boxed{1}>>"],
    ["a self-evaluation without a valid boxed score", answer("Proof. VERDICT<<\\boxed{1}>>", "\\boxed{0.8}")],
    ["the headers only inside the thinking", "<think>" + answer("VERDICT<<\\boxed{1}>>", "\\boxed{1}") + "</think>\nDone."],
    ["a proof over 40,000 characters", answer("VERDICT<<\\boxed{1}>>" + "x".repeat(40_001), "\\boxed{1}")],
    ["a self-evaluation over 20,000 characters", answer("VERDICT<<\\boxed{1}>>", "y".repeat(20_001) + " \\boxed{1}")],
  ];
  for (const [name, text] of traps) {
    it(`${name} → 0, judge not asked`, async () => {
      const before = judgeEngineCalls().length;
      expect((await verify(e, text)).reward).toBe(0);
      expect(judgeEngineCalls().length).toBe(before);
    });
  }

  it("a proof of exactly 40,000 characters (code points) is judged", async () => {
    expect((await verify(e, answer("VERDICT<<\\boxed{1}>>" + "é".repeat(40_000 - 20), "\\boxed{1}"))).reward).toBe(1);
  });

  it("with assert_think_end an answer without </think> is 0; with it, the text after it is judged", async () => {
    const strict = await env({ assert_think_end: true });
    expect((await verify(strict, answer("VERDICT<<\\boxed{1}>>", "\\boxed{1}"))).reward).toBe(0);
    expect((await verify(strict, "thinking</think>" + answer("VERDICT<<\\boxed{1}>>", "\\boxed{1}"))).reward).toBe(1);
  });

  it("alpha scales the verifier's score", async () => {
    const scaled = await env({ alpha: 2.5 });
    expect((await verify(scaled, answer("VERDICT<<\\boxed{0.5}>>", "\\boxed{1}"))).reward).toBe(1.25);
  });

  it("sends NeMo Gym's request: the verifier prompt as one user message, the config's sampling, the judge's name as model", async () => {
    const tuned = await env({ temperature: 0.3, top_p: 0.7, max_tokens: 1234 });
    const before = judgeEngineCalls().length;
    const proof = "By definition VERDICT<<\\boxed{1}>> holds.";
    await verify(tuned, answer(proof, "\\boxed{1}"), { problem: "Show {x} is fine." });
    const sent = judgeEngineCalls()[before]!.body as Record<string, any>;
    const messages = (sent.messages ?? sent.input) as Array<Record<string, any>>;
    expect(messages).toHaveLength(1);
    expect(messages[0]!.role).toBe("user");
    expect(messages[0]!.content).toBe(VERIFIER_TEMPLATE.fill({ problem: "Show {x} is fine.", proof }));
    expect(messages[0]!.content).toContain("\\boxed{...}");
    expect(sent.temperature).toBe(0.3);
    expect(sent.top_p).toBe(0.7);
  });

  it("answers NeMo Gym's verify response fields only: the request, the response and the reward", async () => {
    const body = { ...exampleRows[0], response: responseWith([assistantMessage(answer("VERDICT<<\\boxed{1}>>", "\\boxed{1}"))]) };
    const result = await e.request("/verify", body);
    expect(Object.keys(result.body)).toEqual(["responses_create_params", "response", "reward"]);
  });

  it("reports reverify mode unknown, as NeMo Gym's base server does", async () => {
    expect((await e.request("/reverify_mode")).body).toBe("unknown");
  });
});

describe("beta ≠ 0: the meta-verifier and the self-consistency term", () => {
  const cases: Array<[string, string, string, number]> = [
    // reward = alpha·r_y + beta·(1 − |s′ − r_y|)·r_meta, alpha = beta = 1
    ["right proof, honest self-score, meta agrees", "VERDICT<<\\boxed{1}>>", "META<<\\boxed{1}>> \\boxed{1}", 2],
    ["right proof, self-score 0", "VERDICT<<\\boxed{1}>>", "META<<\\boxed{1}>> \\boxed{0}", 1],
    ["gappy proof, self-score 0.5, meta 0.5", "VERDICT<<\\boxed{0.5}>>", "META<<\\boxed{0.5}>> \\boxed{0.5}", 1],
    ["wrong proof, honest self-score 0, meta agrees", "VERDICT<<\\boxed{0}>>", "META<<\\boxed{1}>> \\boxed{0}", 1],
    ["meta without a score", "VERDICT<<\\boxed{1}>>", "META<<unsure>> \\boxed{1}", 1],
  ];
  for (const [name, proof, selfEval, reward] of cases) {
    it(`${name} → ${reward}, two judge calls`, async () => {
      const e = await env({ beta: 1.0 });
      const before = judgeEngineCalls().length;
      expect((await verify(e, answer(proof, selfEval))).reward).toBe(reward);
      const calls = judgeEngineCalls().slice(before);
      expect(calls).toHaveLength(2);
      const prompts = calls.map((c) => (((c.body.messages ?? c.body.input) as Array<Record<string, any>>)[0]!.content as string));
      const parsed = parseProofAnswer(answer(proof, selfEval), false) as Exclude<ReturnType<typeof parseProofAnswer>, string>;
      expect(prompts.sort()).toEqual(
        [VERIFIER_TEMPLATE.fill({ problem: row().problem, proof: parsed.proof }), META_VERIFIER_TEMPLATE.fill({ problem: row().problem, proof: parsed.proof, proof_analysis: parsed.selfAnalysis })].sort(),
      );
    });
  }
});

describe("zero_reward_incorrect_groups", () => {
  it("requires expected_group_size > 0", () => {
    expect(() => proofJudge.configSchema.parse({ judge_model_server: { type: "responses_api_models", name: "j" }, zero_reward_incorrect_groups: true })).toThrow(/expected_group_size/);
  });

  it("waits for the group; zeroes it when every r_y is 0, keeps it otherwise", async () => {
    const e = await env({ beta: 1.0, zero_reward_incorrect_groups: true, expected_group_size: 2 });
    // r_y = 0 but an honest self-score: 1 each on its own, zeroed because the whole group failed the verifier.
    const honestWrong = answer("VERDICT<<\\boxed{0}>>", "META<<\\boxed{1}>> \\boxed{0}");
    const a = await Promise.all([verify(e, honestWrong, { problem: "P1" }), verify(e, honestWrong, { problem: "P1" })]);
    expect(a.map((r) => r.reward)).toEqual([0, 0]);
    const right = answer("VERDICT<<\\boxed{1}>>", "META<<\\boxed{1}>> \\boxed{1}");
    const b = await Promise.all([verify(e, honestWrong, { problem: "P2" }), verify(e, right, { problem: "P2" })]);
    expect(b.map((r) => r.reward)).toEqual([1, 2]);
    // A malformed answer counts as r_y = 0 in its group.
    const c = await Promise.all([verify(e, "no headers", { problem: "P3" }), verify(e, honestWrong, { problem: "P3" })]);
    expect(c.map((r) => r.reward)).toEqual([0, 0]);
  });

  it("a row without a problem is an error (500), as NeMo Gym's ValueError", async () => {
    const e = await env({ zero_reward_incorrect_groups: true, expected_group_size: 1 });
    const result = await e.request("/verify", { ...row(""), response: responseWith([assistantMessage(answer("VERDICT<<\\boxed{1}>>", "\\boxed{1}"))]) });
    expect(result.status).toBe(500);
  });
});

describe("a failing judge", () => {
  it("is a judge_failed row, never a zero", async () => {
    const e = await env({}, failingJudgeUrl);
    const body = await verify(e, answer("VERDICT<<\\boxed{1}>>", "\\boxed{1}"));
    expect(body._ng_failure_class).toBe("judge_failed");
    expect(body._ng_failure_judge_error).toMatch(/^HTTPStatusError: /);
  });
  it("is not asked for a malformed answer, which scores 0 as NeMo Gym does", async () => {
    const e = await env({}, failingJudgeUrl);
    const body = await verify(e, "no headers");
    expect(body).toMatchObject({ reward: 0 });
    expect(body).not.toHaveProperty("_ng_failure_class");
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl)", () => {
  it("hold rewards but no judge output, so there is nothing to replay as the judge", () => {
    const rows = readJsonlFile(new URL("example_rollouts.jsonl", DATA));
    expect(rows.map((r) => r.reward)).toEqual([1, 1, 0, 1, 0]);
    for (const r of rows) expect(Object.keys(r).sort()).toEqual(["_ng_rollout_index", "_ng_task_index", "agent_ref", "problem", "response", "responses_create_params", "reward"]);
    // Each is well formed, so each one's reward was the judge's verdict on its proof.
    for (const r of rows) {
      const text = r.response.output.filter((o: any) => o.type === "message").flatMap((o: any) => o.content.map((c: any) => c.text)).join("");
      expect(typeof parseProofAnswer(text, false)).toBe("object");
    }
    // The materialized inputs are the example rows with their indices.
    const inputs = readJsonlFile(new URL("example_rollouts_materialized_inputs.jsonl", DATA));
    // (with the sampling of the run that made them: temperature 1, max_output_tokens 50000).
    for (const [i, input] of inputs.entries()) {
      const { _ng_task_index, _ng_rollout_index, ...rest } = input;
      expect([_ng_task_index, _ng_rollout_index]).toEqual([i, 0]);
      expect(rest.responses_create_params).toMatchObject({ temperature: 1, max_output_tokens: 50000 });
      const { temperature: _t, max_output_tokens: _m, ...params } = rest.responses_create_params;
      expect({ ...rest, responses_create_params: params }).toEqual(exampleRows[i]);
    }
  });

  it("aggregate to NeMo Gym's example_rollouts_aggregate_metrics.json (the default metrics)", async () => {
    const e = await env();
    const rows = readJsonlFile(new URL("example_rollouts.jsonl", DATA));
    const expected = JSON.parse(readFileSync(new URL("example_rollouts_aggregate_metrics.json", DATA), "utf8"))[0];
    const { body } = await e.request("/aggregate_metrics", { verify_responses: rows });
    expect(Object.keys(body.agent_metrics).sort()).toEqual(Object.keys(expected.agent_metrics).sort());
    for (const [key, value] of Object.entries(expected.agent_metrics)) expect(body.agent_metrics[key], key).toBeCloseTo(value as number, 9);
    expect(body.key_metrics).toEqual(expected.key_metrics);
    expect(body.group_level_metrics.map((g: any) => [g._ng_task_index, g["mean/reward"]])).toEqual(expected.group_level_metrics.map((g: any) => [g._ng_task_index, g["mean/reward"]]));
  });
});

describe("NeMo Gym's configs/proof_judge.yaml, unchanged, then re-verified from the run's recording", () => {
  // The config's judge is policy_model itself: one engine answers the prover prompts (with a proof
  // per example row) and the verifier prompts (with the score the proof asks for).
  const PROOFS = [
    answer("Row 0 proof. VERDICT<<Complete. \\boxed{1}>>", "\\boxed{1}"),
    answer("Row 1 proof. VERDICT<<A gap. \\boxed{0.5}>>", "\\boxed{1}"),
    answer("Row 2 proof. VERDICT<<Wrong. \\boxed{0}>>", "\\boxed{1}"),
    "Row 3: I only sketch an idea. VERDICT<<\\boxed{1}>>", // no headers: 0, not judged
    answer("Row 4 proof. VERDICT<<\\boxed{1}>>", "\\boxed{0.5}"),
  ];
  const REWARDS = [1, 0.5, 0, 0, 1];
  let dir: string;
  let checkout: ReturnType<typeof nemoGymCheckout>;
  let engineRequests: () => number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gym-proof-judge-"));
    checkout = nemoGymCheckout(["proof_judge"]);
    const problems = exampleRows.map((r) => r.problem as string);
    const engine = await engineOf({
      model: "m",
      policy: (turns) => {
        const prompt = lastUser(turns);
        if (prompt.startsWith(PROVER_START)) return { text: PROOFS[problems.findIndex((p) => prompt.endsWith(p))] ?? "?" };
        return { text: judgeReply(prompt) };
      },
    });
    engineRequests = () => engine.requests.length;
    const result = await runGym(
      ["eval", "run", "--config", "resources_servers/proof_judge/configs/proof_judge.yaml", "--input", "resources_servers/proof_judge/data/example.jsonl",
        "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m",
        `++policy_model.responses_api_models.vllm_model.record_path=${join(dir, "recording.jsonl")}`, "-o", join(dir, "run.jsonl"), "--quiet"],
      { cwd: checkout.root, timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
  }, 150_000);
  afterAll(() => {
    checkout?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("scores every example row as the scripted judge implies; 5 policy + 4 judge calls", () => {
    const rows = readJsonlPath(join(dir, "run.jsonl")).sort((a, b) => a._ng_task_index - b._ng_task_index);
    expect(rows.map((r) => r.reward)).toEqual(REWARDS);
    expect(engineRequests()).toBe(9);
    const metrics = JSON.parse(readFileSync(join(dir, "run_aggregate_metrics.json"), "utf8"))[0];
    expect(metrics.agent_metrics["mean/reward"]).toBeCloseTo(0.5, 12);
    expect(Object.keys(metrics.key_metrics)).toEqual(["mean/reward", "mean/input_tokens", "mean/output_tokens", "mean/total_tokens"]);
  });

  it("re-verifies from the recording (replay_model as policy_model, the config's judge): same rewards, zero engine calls", async () => {
    const before = engineRequests();
    const replay = join(dir, "replay.yaml");
    writeFileSync(replay, stringify({ policy_model: { responses_api_models: { replay_model: { recording_path: join(dir, "recording.jsonl") } } } }));
    const out = join(dir, "reverified.jsonl");
    const result = await runGym(
      ["eval", "reverify", "--config", "resources_servers/proof_judge/configs/proof_judge.yaml", "--config", replay, "--force",
        "--rollouts", join(dir, "run.jsonl"), "-o", out, "--overwrite", "--quiet"],
      { cwd: checkout.root, timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonlPath(out).sort((a, b) => a._ng_task_index - b._ng_task_index);
    expect(rows.map((r) => r.reward)).toEqual(REWARDS);
    expect(engineRequests()).toBe(before);
  }, 150_000);
});
