// string_match over HTTP: NeMo Gym's own grading functions' answers on our cases (reference.json,
// made by testdata/generate.py from NeMo Gym's app.py at 07d6b0d), must-not-reward traps, NeMo Gym's
// recorded rollouts re-verified through `gym eval reverify`, and NeMo Gym's config run unchanged by
// `gym eval run` with the engine double replaying each recorded answer.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import stringMatch from "./index.js";

interface ReferenceCase {
  text: string;
  mode: string;
  expected: string;
  case_sensitive: boolean;
  extracted: string | null;
  reward: number;
}
const reference = JSON.parse(readFileSync(new URL("./testdata/reference.json", import.meta.url), "utf8")) as { cases: ReferenceCase[] };
const exampleRows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(stringMatch);
});
afterAll(() => env.close());

async function verify(text: string | null, row: Record<string, unknown>) {
  const output = text === null ? [] : [assistantMessage(text)];
  const result = await env.request("/verify", { responses_create_params: { input: [{ role: "user", content: "q" }] }, ...row, response: responseWith(output) });
  expect(result.status, result.text).toBe(200);
  return result.body as { reward: number; extracted_answer: string | null; expected_answer: string } & Record<string, unknown>;
}

describe("NeMo Gym's grading functions (reference.json) on our cases", () => {
  for (const c of reference.cases) {
    it(`${JSON.stringify(c.text).slice(0, 60)} [${c.mode}${c.case_sensitive ? ", case-sensitive" : ""}] vs ${JSON.stringify(c.expected)} → ${c.reward}`, async () => {
      const r = await verify(c.text, { expected_answer: c.expected, extraction_mode: c.mode, case_sensitive: c.case_sensitive });
      expect(r.extracted_answer).toBe(c.extracted);
      expect(r.reward).toBe(c.reward);
    });
  }
});

describe("reward rules", () => {
  it("traps that must not be rewarded: near-miss numbers, wrong entities, unclosed boxes, answers on the wrong line", async () => {
    const traps: Array<[string, Record<string, unknown>]> = [
      ["\\boxed{12}", { expected_answer: "21", extraction_mode: "boxed" }],
      ["\\boxed{-80}", { expected_answer: "80", extraction_mode: "boxed" }],
      ["\\boxed{78}", { expected_answer: "80", extraction_mode: "boxed" }],
      ["\\boxed{Paris", { expected_answer: "Paris", extraction_mode: "boxed" }],
      ["Paris\nI am not sure", { expected_answer: "Paris", extraction_mode: "last_line" }],
      ["Saturn is big. Final answer: Jupiter", { expected_answer: "Saturn", extraction_mode: "final_answer" }],
      ["\\boxed{paris}", { expected_answer: "Paris", extraction_mode: "boxed", case_sensitive: true }],
    ];
    for (const [text, row] of traps) expect((await verify(text, row)).reward, text).toBe(0);
  });
  it("a number within 1% earns 0.98, not 1", async () => {
    expect((await verify("\\boxed{79.5}", { expected_answer: "80", extraction_mode: "boxed" })).reward).toBe(0.98);
  });
  it("an empty expected answer never rewards; the default mode is final_answer, falling back to \\boxed{}", async () => {
    expect((await verify("\\boxed{}", { expected_answer: "", extraction_mode: "boxed" })).reward).toBe(0);
    expect((await verify("so \\boxed{7}", { expected_answer: "7" })).reward).toBe(1);
  });
  it("no assistant message: no answer, reward 0; the reply keeps only the declared fields", async () => {
    const r = await verify(null, { expected_answer: "7", metadata: { k: 1 } });
    expect([r.extracted_answer, r.reward, r.expected_answer]).toEqual([null, 0, "7"]);
    expect(Object.keys(r).sort()).toEqual(["expected_answer", "extracted_answer", "response", "responses_create_params", "reward"]);
  });
  it("a row without expected_answer or with an unknown extraction_mode is refused (422)", async () => {
    const base = { responses_create_params: { input: [] }, response: responseWith([assistantMessage("x")]) };
    expect((await env.request("/verify", base)).status).toBe(422);
    expect((await env.request("/verify", { ...base, expected_answer: "x", extraction_mode: "regex" })).status).toBe(422);
  });
});

describe("NeMo Gym's recorded rollouts", () => {
  it("re-verify to the recorded rewards (5/5), joined with the example rows by task index", async () => {
    const inputs = new URL("./data/example.jsonl", import.meta.url).pathname;
    const { result, recorded, reverified } = await reverifyRecorded("string_match", ["--resources-server", "string_match", "--inputs", inputs]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(recorded).toHaveLength(5);
    expect(reverified).toEqual(recorded);
  }, 200_000);
});

/** The final assistant text of each recorded rollout, by the user prompt of its task. */
function recordedAnswers(): Map<string, string> {
  const answers = new Map<string, string>();
  for (const rollout of recordedRollouts("string_match")) {
    const row = exampleRows[rollout._ng_task_index as number]!;
    const prompt = row.responses_create_params.input[0].content[0].text as string;
    const message = (rollout.response.output as Array<Record<string, any>>).findLast((item) => item.type === "message");
    answers.set(prompt, message!.content.map((part: { text: string }) => part.text).join(""));
  }
  return answers;
}

describe("NeMo Gym's config, unchanged", () => {
  let engine: FakeEngine;
  let dir: string;
  beforeAll(async () => {
    const answers = recordedAnswers();
    engine = await startFakeEngine({ policy: (turns: Turn[]) => ({ text: answers.get(turns.findLast((t) => t.role === "user")?.content ?? "") ?? "no idea" }) });
    dir = mkdtempSync(join(tmpdir(), "gym-string-match-"));
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("string_match.yaml: every row back with the recorded rewards, default metrics", async () => {
    const checkout = nemoGymCheckout(["string_match"]);
    try {
      const out = join(dir, "string_match.jsonl");
      const result = await runGym(
        ["eval", "run", "--config", "resources_servers/string_match/configs/string_match.yaml", "--input", "resources_servers/string_match/data/example.jsonl", "--agent", "string_match_simple_agent", "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", out, "--quiet"],
        { cwd: checkout.root, timeoutMs: 120_000 },
      );
      expect(result.code, result.stderr + result.stdout).toBe(0);
      const rows = readJsonlFile(new URL(`file://${out}`)).sort((a, b) => a._ng_task_index - b._ng_task_index);
      expect(rows).toHaveLength(5);
      expect(rows.map((r) => r.extracted_answer)).toEqual(["Paris", "80", "Saturn", "15", "Pacific Ocean"]);
      expect(rows.map((r) => r.reward)).toEqual([1, 1, 1, 1, 1]);
      const metrics = JSON.parse(readFileSync(out.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
      const agent = metrics[0]!.agent_metrics as Record<string, number>;
      expect(agent["mean/reward"]).toBe(1);
      expect(agent["std/reward"]).toBe(0);
      expect(Object.keys(agent).filter((k) => k.endsWith("/reward")).sort()).toEqual(["max/reward", "mean/reward", "median/reward", "min/reward", "std/reward"]);
    } finally {
      checkout.remove();
    }
  }, 200_000);
});
