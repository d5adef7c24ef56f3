// NeMo Gym's reverify flags on `gym eval reverify`: --judge-failed-only (with and without --append),
// --limit, --disable-aggregation, --inputs with a plain dataset file, and the refusal to replace an
// output without --overwrite. The judge failures are real: a run of math_with_judge whose judge (the
// engine double) refuses every judge request, then a recovery once the judge answers.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { REPO_ROOT, runGym } from "./helpers/cli.js";

const DATA = join(REPO_ROOT, "src", "environments", "math_with_judge", "data", "example.jsonl");
const ROWS = readFileSync(DATA, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { expected_answer: string });
const JUDGE_ON = "++math_with_judge.resources_servers.math_with_judge.should_use_judge=true";

const lines = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, any>) : []);
const keyOf = (row: Record<string, any>) => `${row._ng_task_index}/${row._ng_rollout_index}`;
const isJudgeRequest = (body: Record<string, unknown>) => JSON.stringify(body).includes("[[A=B]]");

let engine: FakeEngine;
let judgeUp = false;
let dir: string;
let rollouts: string;
let failures: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gym-reverify-recovery-"));
  engine = await startFakeEngine({
    // The policy answers the first task's gold and "7" to every other task; the symbolic check then
    // fails on those and asks the judge, who refuses (400) until `judgeUp`, then says equal.
    policy: (turns) =>
      turns.some((t) => t.content.includes("[[A=B]]"))
        ? { text: "[[A=B]]" }
        : { text: `\\boxed{${turns.some((t) => t.content.includes("1000 digit numbers")) ? ROWS[0]!.expected_answer : "7"}}` },
    respond: (_path, body) => (isJudgeRequest(body) && !judgeUp ? { status: 400, body: { error: { message: "judge refuses" } } } : undefined),
  });
  rollouts = join(dir, "run.jsonl");
  failures = join(dir, "run_failures.jsonl");
  const run = await runGym(["eval", "run", "--resources-server", "math_with_judge", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "-i", DATA, "-o", rollouts, "--num-repeats", "2", "--max-failures", "100%", "--quiet", JUDGE_ON]);
  if (![0, 3, 4].includes(run.code ?? -1)) throw new Error(`eval run failed (${run.code}): ${run.stderr}`);
});

afterAll(async () => {
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The judge's verdict now that it answers: every judged pair is equal. */
function judgeAgrees(): void {
  judgeUp = true;
}

const reverifyArgs = (output: string, ...extra: string[]) => ["eval", "reverify", "--resources-server", "math_with_judge", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "--rollouts", rollouts, "-o", output, "--quiet", JUDGE_ON, ...extra];

describe("a run whose judge failed", () => {
  it("keeps each judge failure's model output in the failures file, and only the first task succeeded", () => {
    const ok = lines(rollouts);
    const failed = lines(failures);
    expect(ok.map(keyOf).sort()).toEqual(["0/0", "0/1"]);
    expect(failed.length).toBe(2 * (ROWS.length - 1));
    for (const row of failed) {
      expect(row._ng_failure_class).toBe("judge_failed");
      expect(row.response.output.at(-1).content[0].text).toBe("\\boxed{7}");
      expect(row.responses_create_params).toBeDefined();
      expect(row).not.toHaveProperty("reward");
    }
  });
});

describe("gym eval reverify --judge-failed-only", () => {
  it("carries the successes through untouched and re-verifies only the judge failures", async () => {
    judgeAgrees();
    // Mark the stored successes so that carrying (not re-scoring) them shows.
    const marked = join(dir, "marked.jsonl");
    writeFileSync(marked, lines(rollouts).map((row) => JSON.stringify({ ...row, reward: 0.25 })).join("\n") + "\n");
    copyFileSync(failures, join(dir, "marked_failures.jsonl"));
    copyFileSync(join(dir, "run_materialized_inputs.jsonl"), join(dir, "marked_materialized_inputs.jsonl"));
    const output = join(dir, "recovered.jsonl");
    const args = reverifyArgs(output, "--judge-failed-only");
    args[args.indexOf(rollouts)] = marked;
    const result = await runGym(args);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("merges rewards from two verifications");
    const rows = lines(output);
    expect(rows.length).toBe(2 * ROWS.length);
    const byKey = new Map(rows.map((row) => [keyOf(row), row]));
    expect(byKey.get("0/0")!.reward).toBe(0.25);
    expect(byKey.get("0/1")!.reward).toBe(0.25);
    for (const [key, row] of byKey) {
      if (key.startsWith("0/")) continue;
      expect(row.reward).toBe(1);
      expect(row.judge_evaluations).toHaveLength(2);
    }
    // Metrics cover the union, as a clean run's would.
    const metrics = JSON.parse(readFileSync(join(dir, "recovered_aggregate_metrics.json"), "utf8"));
    expect(metrics[0].agent_metrics["mean/reward"]).toBeCloseTo((2 * 0.25 + 2 * (ROWS.length - 1)) / (2 * ROWS.length), 10);
  });

  it("--append adds the recovered rollouts to the run's own file, once however often it runs", async () => {
    judgeAgrees();
    const target = join(dir, "appended.jsonl");
    copyFileSync(rollouts, target);
    const first = await runGym(reverifyArgs(target, "--judge-failed-only", "--append"));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`appended ${2 * (ROWS.length - 1)} recovered rollout(s)`);
    const second = await runGym(reverifyArgs(target, "--judge-failed-only", "--append"));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain("appended 0 recovered rollout(s)");
    const rows = lines(target);
    expect(new Set(rows.map(keyOf)).size).toBe(rows.length);
    expect(rows.length).toBe(2 * ROWS.length);
    const metrics = JSON.parse(readFileSync(join(dir, "appended_aggregate_metrics.json"), "utf8"));
    expect(metrics[0].agent_metrics["mean/reward"]).toBe(1);
  });

  it("--append is refused without --judge-failed-only and beside --overwrite", async () => {
    const alone = await runGym(reverifyArgs(join(dir, "x.jsonl"), "--append"));
    expect(alone.code).not.toBe(0);
    expect(alone.stderr).toContain("only valid with --judge-failed-only");
    const both = await runGym(reverifyArgs(join(dir, "x.jsonl"), "--judge-failed-only", "--append", "--overwrite"));
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain("cannot be combined");
  });
});

describe("gym eval reverify: --limit, --disable-aggregation, --inputs, --overwrite", () => {
  it("--limit re-verifies only the first N rollouts; an existing output needs --overwrite", async () => {
    const output = join(dir, "limited.jsonl");
    const first = await runGym(reverifyArgs(output, "--limit", "1"));
    expect(first.code, first.stderr).toBe(0);
    expect(lines(output).length).toBe(1);
    const again = await runGym(reverifyArgs(output, "--limit", "1"));
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/--overwrite/);
    const bad = await runGym(reverifyArgs(output, "--limit", "0", "--overwrite"));
    expect(bad.stderr).toContain("--limit must be a whole number ≥ 1");
  });

  it("--disable-aggregation writes no environment metrics; --inputs joins a plain dataset file by task index", async () => {
    const output = join(dir, "plain.jsonl");
    // NeMo Gym-style rollout lines: no input fields (only what the verify response declares) …
    const stripped = join(dir, "stripped.jsonl");
    writeFileSync(stripped, lines(rollouts).map(({ expected_answer: _gold, question: _q, ...rest }) => JSON.stringify(rest)).join("\n") + "\n");
    const args = reverifyArgs(output, "--inputs", DATA, "--disable-aggregation");
    args[args.indexOf(rollouts)] = stripped;
    const result = await runGym(args);
    expect(result.code, result.stderr).toBe(0);
    // … joined with the dataset's rows: the first task's gold comes back, so its reward is 1 again.
    expect(lines(output).map((row) => row.reward)).toEqual([1, 1]);
    const metricsPath = join(dir, "plain_aggregate_metrics.json");
    const metrics = existsSync(metricsPath) ? JSON.parse(readFileSync(metricsPath, "utf8")) : [];
    for (const entry of metrics) expect(entry.key_metrics?.["pass@1[avg-of-2]/accuracy"]).toBeUndefined();
  });
});
