// Issue 16's acceptance test of judge failures, through the CLI: math_with_judge with the judge on,
// a policy whose answers only the judge can score, and a judge engine that fails 20% of its calls
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
import { readJsonlFile, runGym } from "./helpers/cli.js";
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
const ROLLOUTS = CASES.length * REPEATS;
const caseOf = (text: string) => CASES.find((c) => text.includes(c.tag));

const ENV = "++math_with_judge.resources_servers.math_with_judge";
const JUDGED = [`${ENV}.should_use_judge=true`, `${ENV}.judge_model_server.name=judge_model`, `${ENV}.judge_max_retries=0`, `${ENV}.judge_timeout_seconds=10`];

/** The judge: equal exactly for the cases marked so, whichever order the two answers come in. */
const judgePolicy: Policy = (turns) => ({ text: `Verdict: ${caseOf(turns.map((t) => t.content).join("\n"))?.equal ? JUDGE_EQUAL : JUDGE_NOT_EQUAL}` });

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

const lines = (path: string) => (existsSync(path) ? readJsonlFile(path) : []);
const keyOf = (row: Record<string, any>) => `${row._ng_task_index}/${row._ng_rollout_index}`;
const metricsOf = (output: string) => JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8"))[0] as Record<string, any>;

let flakyOut: string;
let healthyOut: string;
let flakyFailures: Array<Record<string, any>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gym-judge-failures-"));
  input = join(dir, "rows.jsonl");
  writeFileSync(input, CASES.map((c) => JSON.stringify({ responses_create_params: { input: [{ role: "user", content: c.question }] }, question: c.question, expected_answer: c.expected })).join("\n") + "\n");
  policy = await engineOf({ model: "m", policy: (turns) => ({ text: caseOf(turns.map((t) => t.content).join("\n"))?.answer ?? "no idea" }) });
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
    for (const row of scored) {
      // A scored rollout carries exactly the verdict the judge gives it when it answers.
      const c = caseOf(JSON.stringify(row.responses_create_params))!;
      expect(row.reward, keyOf(row)).toBe(c.equal ? 1 : 0);
      expect(row.judge_evaluations.length).toBe(c.equal ? 2 : 1);
      expect(row).not.toHaveProperty("_ng_failure_class");
    }
    for (const row of flakyFailures) {
      expect(row._ng_failure_class).toBe("judge_failed");
      expect(row).not.toHaveProperty("reward");
      expect(row.response.output.at(-1).content[0].text).toBe(caseOf(JSON.stringify(row.responses_create_params))!.answer);
    }
    // The failures' causes are the injected ones, as the judge kit names them.
    expect(flakyFailures.map((row) => String(row._ng_failure_error)).every((e) => /judge_failed: HTTPStatusError: /.test(e))).toBe(true);
  });

  it("the metrics of the partial run cover the scored rollouts only", () => {
    const scored = lines(flakyOut);
    const mean = scored.reduce((sum, row) => sum + row.reward, 0) / scored.length;
    expect(metricsOf(flakyOut).agent_metrics["mean/reward"]).toBeCloseTo(mean, 12);
  });
});

describe("gym eval reverify --judge-failed-only --append with a healthy judge", () => {
  it("completes the run without re-running the policy; its metrics equal a run whose judge was healthy from the start", async () => {
    const policyCalls = judgeCalls(policy);
    const healthyBefore = judgeCalls(healthyJudge);
    const result = await runGym(
      ["eval", "reverify", "--resources-server", "math_with_judge", "--config", judgeConfig("recovery_judge", healthyJudge), ...JUDGED, ...policyArgs(),
        "--rollouts", flakyOut, "-o", flakyOut, "--judge-failed-only", "--append", "--quiet"],
      { timeoutMs: 180_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toContain(`appended ${flakyFailures.length} recovered rollout(s)`);
    expect(judgeCalls(policy)).toBe(policyCalls);
    const recoveredCalls = judgeCalls(healthyJudge) - healthyBefore;
    expect(recoveredCalls).toBe(flakyFailures.reduce((n, row) => n + (caseOf(JSON.stringify(row.responses_create_params))!.equal ? 2 : 1), 0));

    const completed = lines(flakyOut);
    expect(completed).toHaveLength(ROLLOUTS);
    expect(new Set(completed.map(keyOf)).size).toBe(ROLLOUTS);
    for (const row of completed) expect(row.reward, keyOf(row)).toBe(caseOf(JSON.stringify(row.responses_create_params))!.equal ? 1 : 0);

    healthyOut = await evalRun(healthyJudge, "healthy");
    expect(lines(healthyOut.replace(/\.jsonl$/, "_failures.jsonl"))).toEqual([]);
    const healthy = metricsOf(healthyOut);
    const recovered = metricsOf(flakyOut);
    expect(recovered.agent_metrics["mean/reward"]).toBe(0.5);
    expect(recovered.agent_metrics).toEqual(healthy.agent_metrics);
    expect(recovered.key_metrics).toEqual(healthy.key_metrics);
  }, 400_000);
});
