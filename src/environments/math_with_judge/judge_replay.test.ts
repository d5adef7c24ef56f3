// math_with_judge's judge paths through the CLI: a run whose answers need the judge (given by its
// engine's URL with --judge-url) records every
// judge call under `judge_evaluations`; replaying that file as the judge (judge_replay_model)
// re-scores it to the same rewards without one call to the judge engine; a judge request that no
// longer matches the recording is refused (a judge failure), not answered with a stale verdict.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJsonlFile, runGym } from "../../../test/helpers/cli.js";
import { judgeReplayArgs } from "../../../test/helpers/judges.js";
import { engineOf } from "../../../test/helpers/scope.js";
import type { FakeEngine } from "../../../test/doubles/fake_engine.js";
import { JUDGE_EQUAL, JUDGE_NOT_EQUAL } from "../../verifiers/math/judge_prompt.js";

// Answers math-verify cannot match, so the judge decides: two equal in words, one not.
const CASES = [
  { question: "What is one half as a decimal?", expected: "0.5", answer: "It is one half, i.e. point five.", equal: true },
  { question: "How many sides has a hexagon?", expected: "6", answer: "A hexagon has six sides.", equal: true },
  { question: "What is two plus two?", expected: "4", answer: "Two plus two is five.", equal: false },
];
const JUDGED_ON = ["++math_with_judge.resources_servers.math_with_judge.should_use_judge=true"];

let dir: string;
let policy: FakeEngine;
let judge: FakeEngine;
let rolloutsPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gym-math-judge-replay-"));
  policy = await engineOf({ model: "m", policy: (turns) => ({ text: CASES.find((c) => turns.some((t) => t.content.includes(c.question)))?.answer ?? "no idea" }) });
  // The judge says equal exactly for the cases marked so, whichever order the two answers come in.
  judge = await engineOf({
    model: "judge",
    policy: (turns) => {
      const prompt = turns.map((t) => t.content).join("\n");
      const hit = CASES.find((c) => prompt.includes(c.question));
      return { text: `Verdict: ${hit?.equal ? JUDGE_EQUAL : JUDGE_NOT_EQUAL}` };
    },
  });
  const input = join(dir, "rows.jsonl");
  writeFileSync(input, CASES.map((c) => JSON.stringify({ responses_create_params: { input: [{ role: "user", content: c.question }] }, question: c.question, expected_answer: c.expected })).join("\n") + "\n");
  rolloutsPath = join(dir, "run.jsonl");
  const result = await runGym(
    ["eval", "run", "--resources-server", "math_with_judge", "--judge-url", `judge_model=${judge.baseUrl}`, "--judge-model", "judge_model=judge", ...JUDGED_ON,
      "++math_with_judge.resources_servers.math_with_judge.judge_model_server.name=judge_model",
      "--input", input, "--num-repeats", "2", "--model-type", "vllm_model", "--model-url", policy.baseUrl, "--model", "m", "-o", rolloutsPath, "--quiet"],
    { timeoutMs: 120_000 },
  );
  expect(result.code, result.stderr + result.stdout).toBe(0);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("math_with_judge judge paths, recorded and replayed", () => {
  it("records each judge call (request and response) under judge_evaluations, swapped second call only after an equal", () => {
    const rows = readJsonlFile(rolloutsPath);
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      const c = CASES.find((x) => x.expected === row.expected_answer)!;
      expect(row.reward).toBe(c.equal ? 1 : 0);
      expect(row.library_reward).toBe(0);
      expect(row.judge_evaluations).toHaveLength(c.equal ? 2 : 1);
      for (const evaluation of row.judge_evaluations) expect(Object.keys(evaluation)).toEqual(["responses_create_params", "response"]);
    }
    // Every judge call carried its rollout and its ordinal within that rollout's verification.
    const judged = judge.requests.filter((r) => r.path === "/v1/responses" || r.path === "/v1/chat/completions");
    expect(judged.length).toBe(2 * (2 + 2 + 1));
  });

  it("re-scores from the file with the recorded answers as the judge: same rewards, no judge engine call", async () => {
    const before = judge.requests.length;
    const out = join(dir, "replayed.jsonl");
    const result = await runGym(
      ["eval", "reverify", "--resources-server", "math_with_judge", ...JUDGED_ON, ...judgeReplayArgs(dir, "math_with_judge", "math_with_judge", { rolloutsPath }),
        "--rollouts", rolloutsPath, "-o", out, "--overwrite", "--quiet"],
      { timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const key = (r: Record<string, any>) => `${r._ng_task_index}/${r._ng_rollout_index}`;
    const recorded = new Map(readJsonlFile(rolloutsPath).map((r) => [key(r), r]));
    const replayed = readJsonlFile(out);
    expect(replayed).toHaveLength(6);
    for (const row of replayed) {
      const original = recorded.get(key(row))!;
      expect(row.reward).toBe(original.reward);
      expect(row.judge_evaluations.map((e: any) => e.response.output)).toEqual(original.judge_evaluations.map((e: any) => e.response.output));
    }
    expect(judge.requests.length).toBe(before);
  });

  it("--judge-model without --judge-url is refused, naming it; a configured GenRM keeps its implementation", async () => {
    const result = await runGym(["env", "resolve", "--resources-server", "math_with_judge", "--judge-url", `judge_model=${judge.baseUrl}`, "--judge-model", "judge_modle=judge"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--judge-model judge_modle=…: no --judge-url judge_modle=URL defines that instance. Did you mean `judge_model`?");
    // A GenRM instance the configs define keeps its implementation (it rewrites requests into GenRM's roles); only its engine URL is set.
    const genrm = join(dir, "genrm.yaml");
    writeFileSync(genrm, "genrm_model:\n  responses_api_models:\n    genrm_model:\n      model: nvidia/genrm\n      supports_principle_role: true\n");
    const kept = await runGym(["env", "resolve", "--resources-server", "math_with_judge", "--model-type", "vllm_model", "--model-url", policy.baseUrl, "--model", "m", "--config", genrm, "--judge-url", "genrm_model=http://127.0.0.1:9/v1"]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain("genrm_model:\n  responses_api_models:\n    genrm_model:\n      model: nvidia/genrm\n      supports_principle_role: true\n      base_url: http://127.0.0.1:9/v1");
  });

  it("a changed judge prompt does not reuse a stale verdict: the replayed judge refuses it and the rollout is judge_failed", async () => {
    // Rewrite the recorded requests' first judge message, as if the prompt had changed since recording.
    const tampered = join(dir, "tampered.jsonl");
    const rows = readJsonlFile(rolloutsPath).map((row) => {
      for (const evaluation of row.judge_evaluations ?? []) evaluation.responses_create_params.input[1].content += " (older prompt)";
      return row;
    });
    writeFileSync(tampered, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const out = join(dir, "tampered_replayed.jsonl");
    const result = await runGym(
      ["eval", "reverify", "--resources-server", "math_with_judge", ...JUDGED_ON, ...judgeReplayArgs(dir, "math_with_judge", "math_with_judge", { rolloutsPath: tampered }),
        "--rollouts", rolloutsPath, "-o", out, "--overwrite", "--quiet", "--max-failures", "100%"],
      { timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(readJsonlFile(out)).toHaveLength(0);
    const failures = readJsonlFile(join(dir, "tampered_replayed_failures.jsonl"));
    expect(failures).toHaveLength(6);
    for (const failure of failures) {
      expect(failure._ng_failure_class).toBe("judge_failed");
      expect(failure._ng_failure_error).toMatch(/judge_failed: HTTPStatusError: .*409.*differs from the recorded one at input\[1\]\.content/);
    }
  });
});
