// Issue 16's acceptance test of judge failures, through the CLI: math_with_judge with the judge on
// and a policy whose answers only the judge can score, plus proof_judge (its example problems, one
// verifier call each) in the same runs, and a judge engine that fails 20% of its calls
// (500s, connection resets, hangs — a seeded schedule) with every retry layer set to give up at once
// (the judge instance's max_retries 0 and a 1 s deadline, so hangs end; the environment's
// judge_max_retries 0). Every rollout ends scored or `judge_failed`, never a zero for a failed judge;
// `gym eval reverify --judge-failed-only --append` with a healthy judge then completes the run, and
// its metrics equal those of a run whose judge was healthy from the start.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJsonlFile, REPO_ROOT, runGym } from "./helpers/cli.js";
import { engineOf } from "./helpers/scope.js";
import type { FakeEngine, Policy } from "./doubles/fake_engine.js";
import { JUDGE_EQUAL, JUDGE_NOT_EQUAL } from "../src/verifiers/math/judge_prompt.js";

// Answers in words, which math-verify cannot read, so the judge decides each: half right, half wrong.
const WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "twenty-one", "twenty-two", "twenty-three", "twenty-four", "twenty-five"];
const CASES = Array.from({ length: 12 }, (_, k) => {
  const n = k + 1;
  const equal = k % 2 === 0;
  return { tag: `[Q${n}]`, question: `[Q${n}] What is ${n} plus ${n}?`, expected: String(2 * n), answer: `It is ${WORDS[equal ? 2 * n : 2 * n + 1]}.`, equal };
});
const REPEATS = 2;
const caseOf = (text: string) => CASES.find((c) => text.includes(c.tag));

// proof_judge: NeMo Gym's example problems, a well-formed proof each; the verifier passes the even ones.
const PROOF_ROWS = readJsonlFile(join(REPO_ROOT, "src", "environments", "proof_judge", "data", "example.jsonl"));
const PROOF_PASSES = PROOF_ROWS.map((_, i) => i % 2 === 0);
const VERIFIER_START = "## Instruction\n\nYour task is to evaluate the quality of a solution";
const proofIndexOf = (text: string) => PROOF_ROWS.findIndex((r) => text.includes(r.problem));
const isProofRow = (row: Record<string, any>) => row.agent_ref?.name === "proof_simple_agent";
/** The reward a rollout gets when its judge answers. */
const expectedReward = (row: Record<string, any>) =>
  isProofRow(row) ? (PROOF_PASSES[proofIndexOf(String(row.responses_create_params.input[0].content))] ? 1 : 0) : caseOf(JSON.stringify(row.responses_create_params))!.equal ? 1 : 0;
/** The judge calls a rollout needs when its judge answers. */
const expectedCalls = (row: Record<string, any>) => (isProofRow(row) ? 1 : caseOf(JSON.stringify(row.responses_create_params))!.equal ? 2 : 1);

const ENV = "++math_with_judge.resources_servers.math_with_judge";
const PROOF = "++proof_judge.resources_servers.proof_judge";
const JUDGED = [
  `${ENV}.should_use_judge=true`, `${ENV}.judge_model_server.name=judge_model`, `${ENV}.judge_max_retries=0`, `${ENV}.judge_timeout_seconds=10`,
  "--config", join(REPO_ROOT, "src", "environments", "proof_judge", "configs", "proof_judge.yaml"),
  `${PROOF}.judge_model_server.name=judge_model`, `${PROOF}.judge_max_retries=0`, `${PROOF}.judge_timeout_seconds=10`,
];

/** The judge: equal exactly for the math cases marked so (whichever order the two answers come in); the proof verifier's score. */
const judgePolicy: Policy = (turns) => {
  const prompt = turns.map((t) => t.content).join("\n");
  if (prompt.startsWith(VERIFIER_START)) return { text: `Checked.\n\\boxed{${PROOF_PASSES[proofIndexOf(prompt)] ? 1 : 0}}` };
  return { text: `Verdict: ${caseOf(prompt)?.equal ? JUDGE_EQUAL : JUDGE_NOT_EQUAL}` };
};

let dir: string;
let policy: FakeEngine;
let flakyJudge: FakeEngine;
let healthyJudge: FakeEngine;
let input: string;

/** A config defining `judge_model` in front of `engine`, giving up on the first failed attempt after at most 1 s. */
function judgeConfig(name: string, engine: FakeEngine): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, stringify({ judge_model: { responses_api_models: { vllm_model: { base_url: engine.baseUrl, api_key: "dummy", model: "judge", max_retries: 0, request_timeout_s: 1 } } } }));
  return path;
}

const policyArgs = () => ["--model-type", "vllm_model", "--model-url", policy.baseUrl, "--model", "m"];
const judgeCalls = (engine: FakeEngine) => engine.requests.filter((r) => r.path.startsWith("/v1/")).length;

async function evalRun(judge: FakeEngine, name: string): Promise<string> {
  const output = join(dir, `${name}.jsonl`);
  const result = await runGym(
    ["eval", "run", "--resources-server", "math_with_judge", "--config", judgeConfig(`${name}_judge`, judge), ...JUDGED, "--input", input, "--num-repeats", String(REPEATS), ...policyArgs(), "-o", output, "--max-failures", "100%", "--quiet"],
    { timeoutMs: 180_000 },
  );
  expect(result.code, result.stderr + result.stdout).toBe(0);
  return output;
}

const ROLLOUTS = (CASES.length + PROOF_ROWS.length) * REPEATS;
const lines = (path: string) => (existsSync(path) ? readJsonlFile(path) : []);
const keyOf = (row: Record<string, any>) => `${row._ng_task_index}/${row._ng_rollout_index}`;
const metricsOf = (output: string) => JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
const agentMetrics = (output: string, agent: string) => metricsOf(output).find((m) => m.agent_ref.name === agent)!;

let flakyOut: string;
let healthyOut: string;
let flakyFailures: Array<Record<string, any>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gym-judge-failures-"));
  input = join(dir, "rows.jsonl");
  const mathRows = CASES.map((c) => ({ agent_ref: { name: "math_with_judge_simple_agent" }, responses_create_params: { input: [{ role: "user", content: c.question }] }, question: c.question, expected_answer: c.expected }));
  writeFileSync(input, [...mathRows, ...PROOF_ROWS].map((r) => JSON.stringify(r)).join("\n") + "\n");
  policy = await engineOf({
    model: "m",
    policy: (turns) => {
      const prompt = turns.map((t) => t.content).join("\n");
      const proof = proofIndexOf(prompt);
      if (proof >= 0) return { text: `## Solution\nProof ${proof}: by induction.\n\n## Self Evaluation\nComplete. \\boxed{1}` };
      return { text: caseOf(prompt)?.answer ?? "no idea" };
    },
  });
  // Seed 16 serves a reset, a 500 and a hang within its first nine calls (20% in all).
  flakyJudge = await engineOf({ model: "judge", policy: judgePolicy, faults: { seed: 16, error: 0.1, reset: 0.05, hang: 0.05 } });
  healthyJudge = await engineOf({ model: "judge", policy: judgePolicy });
  flakyOut = await evalRun(flakyJudge, "flaky");
  flakyFailures = lines(flakyOut.replace(/\.jsonl$/, "_failures.jsonl"));
}, 240_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a judge failing 20% of its calls, retries exhausted", () => {
  it("served every kind of fault", () => {
    expect(flakyJudge.faultsServed.error).toBeGreaterThan(0);
    expect(flakyJudge.faultsServed.reset).toBeGreaterThan(0);
    expect(flakyJudge.faultsServed.hang).toBeGreaterThan(0);
  });

  it("every rollout ends scored or judge_failed; none is a zero for a failed judge", () => {
    const scored = lines(flakyOut);
    expect(flakyFailures.length).toBeGreaterThan(0);
    expect(scored.length).toBeGreaterThan(0);
    expect(new Set([...scored, ...flakyFailures].map(keyOf)).size).toBe(ROLLOUTS);
    expect(scored.length + flakyFailures.length).toBe(ROLLOUTS);
    expect(scored.filter(isProofRow).length + flakyFailures.filter(isProofRow).length).toBe(PROOF_ROWS.length * REPEATS);
    for (const row of scored) {
      // A scored rollout carries exactly the verdict the judge gives it when it answers.
      expect(row.reward, keyOf(row)).toBe(expectedReward(row));
      if (!isProofRow(row)) expect(row.judge_evaluations.length).toBe(expectedCalls(row));
      expect(row).not.toHaveProperty("_ng_failure_class");
    }
    for (const row of flakyFailures) {
      expect(row._ng_failure_class).toBe("judge_failed");
      expect(row).not.toHaveProperty("reward");
      if (!isProofRow(row)) expect(row.response.output.at(-1).content[0].text).toBe(caseOf(JSON.stringify(row.responses_create_params))!.answer);
    }
    // The failures' causes are the injected ones, as the judge kit names them.
    expect(flakyFailures.map((row) => String(row._ng_failure_error)).every((e) => /judge_failed: HTTPStatusError: /.test(e))).toBe(true);
  });

  it("the metrics of the partial run cover the scored rollouts only", () => {
    const scored = lines(flakyOut).filter((row) => !isProofRow(row));
    const mean = scored.reduce((sum, row) => sum + row.reward, 0) / scored.length;
    expect(agentMetrics(flakyOut, "math_with_judge_simple_agent").agent_metrics["mean/reward"]).toBeCloseTo(mean, 12);
  });
});

describe("gym eval reverify --judge-failed-only --append with a healthy judge", () => {
  it("completes the run without re-running the policy; its metrics equal a run whose judge was healthy from the start", async () => {
    const policyCalls = judgeCalls(policy);
    const healthyBefore = judgeCalls(healthyJudge);
    const result = await runGym(
      ["eval", "reverify", "--resources-server", "math_with_judge", "--config", judgeConfig("recovery_judge", healthyJudge), ...JUDGED, ...policyArgs(),
        "--rollouts", flakyOut, "-o", flakyOut, "--judge-failed-only", "--append", "--force", "--quiet"],
      { timeoutMs: 180_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toContain(`appended ${flakyFailures.length} recovered rollout(s)`);
    expect(judgeCalls(policy)).toBe(policyCalls);
    const recoveredCalls = judgeCalls(healthyJudge) - healthyBefore;
    expect(recoveredCalls).toBe(flakyFailures.reduce((n, row) => n + expectedCalls(row), 0));

    const completed = lines(flakyOut);
    expect(completed).toHaveLength(ROLLOUTS);
    expect(new Set(completed.map(keyOf)).size).toBe(ROLLOUTS);
    for (const row of completed) expect(row.reward, keyOf(row)).toBe(expectedReward(row));

    healthyOut = await evalRun(healthyJudge, "healthy");
    expect(lines(healthyOut.replace(/\.jsonl$/, "_failures.jsonl"))).toEqual([]);
    expect(agentMetrics(flakyOut, "math_with_judge_simple_agent").agent_metrics["mean/reward"]).toBe(0.5);
    expect(agentMetrics(flakyOut, "proof_simple_agent").agent_metrics["mean/reward"]).toBe(0.6);
    const healthy = metricsOf(healthyOut);
    const recovered = metricsOf(flakyOut);
    expect(recovered.map((m) => m.agent_ref.name).sort()).toEqual(["math_with_judge_simple_agent", "proof_simple_agent"]);
    for (const agent of ["math_with_judge_simple_agent", "proof_simple_agent"]) {
      const h = healthy.find((m) => m.agent_ref.name === agent)!;
      const r = recovered.find((m) => m.agent_ref.name === agent)!;
      // The recovered rows are appended after the others, so sums run in another order: equal to the
      // last few bits, as NeMo Gym's own metrics of a reordered file are.
      expect(roundedFloats(r.agent_metrics), agent).toEqual(roundedFloats(h.agent_metrics));
      expect(roundedFloats(r.key_metrics), agent).toEqual(roundedFloats(h.key_metrics));
    }
  }, 400_000);
});

/** The metrics with every number rounded to 12 significant digits. */
function roundedFloats(metrics: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(metrics).map(([key, value]) => [key, typeof value === "number" ? Number(value.toPrecision(12)) : value]),
  );
}
