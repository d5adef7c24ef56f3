// equivalence_rule over HTTP: NeMo Gym's own grading rules' answers on our cases (reference.json, made
// by testdata/generate.py from NeMo Gym's app.py at 07d6b0d with Python's difflib) under each of the
// three rules, must-not-reward traps, NeMo Gym's recorded rollouts re-verified through its lc.yaml, and
// lc.yaml run unchanged by `gym eval run` with the engine double replaying each recorded answer.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded, type NemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import equivalenceRule from "./index.js";
import { GRADING_RULES, type GradingRule } from "./grade.js";

interface ReferenceCase {
  response: string;
  answer: string;
  exact: number;
  seq_match: number;
  weighted_seq_match: number;
}
const reference = JSON.parse(readFileSync(new URL("./testdata/reference.json", import.meta.url), "utf8")) as { cases: ReferenceCase[] };

const instances = new Map<GradingRule, RunningInstance>();
beforeAll(async () => {
  for (const rule of GRADING_RULES) instances.set(rule, await startInstance(equivalenceRule, { name: `er_${rule}`, config: { grading_rule: rule } }));
});
afterAll(async () => {
  await Promise.all([...instances.values()].map((instance) => instance.close()));
});

async function verify(rule: GradingRule, output: Array<Record<string, unknown>>, expected: string, extra: Record<string, unknown> = {}) {
  const result = await instances.get(rule)!.request("/verify", { responses_create_params: { input: [] }, expected_answer: expected, ...extra, response: responseWith(output) });
  expect(result.status, result.text).toBe(200);
  return result.body as { reward: number; equivalence_score: number } & Record<string, unknown>;
}

describe("NeMo Gym's grading rules (reference.json) on our cases", () => {
  for (const rule of GRADING_RULES) {
    for (const c of reference.cases) {
      it(`${rule}: ${JSON.stringify(c.response).slice(0, 40)} vs ${JSON.stringify(c.answer).slice(0, 30)} → ${c[rule]}`, async () => {
        const r = await verify(rule, [assistantMessage(c.response)], c.answer);
        expect(r.reward).toBe(c[rule]);
        expect(r.equivalence_score).toBe(c[rule]);
      });
    }
  }
});

describe("reward rules", () => {
  it("exact: near misses, extra words and a wrong count are not rewarded", async () => {
    for (const [text, answer] of [["5", "6"], ["The answer is 6", "6"], ["6.", "6"], ["six", "6"]] as const) {
      expect((await verify("exact", [assistantMessage(text)], answer)).reward, text).toBe(0);
    }
  });
  it("every output_text part of every message is joined without separator; reasoning and other items are ignored", async () => {
    const output = [
      { type: "reasoning", id: "r", summary: [{ type: "summary_text", text: "thinking 6" }] },
      { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "1", annotations: [] }, { type: "output_text", text: "2", annotations: [] }] },
      assistantMessage("3"),
    ];
    expect((await verify("exact", output, "123")).reward).toBe(1);
    expect((await verify("exact", [], "")).reward).toBe(1);
    expect((await verify("exact", [], "x")).reward).toBe(0);
  });
  it("the reply echoes every row field (NeMo Gym's response model allows extra fields)", async () => {
    const r = await verify("exact", [assistantMessage("6")], "6", { hashid: "h1", context_length: 1024, question: "how many?" });
    expect([r.hashid, r.context_length, r.question, r.expected_answer, r.reward, r.equivalence_score]).toEqual(["h1", 1024, "how many?", "6", 1, 1]);
  });
  it("a row without expected_answer is refused (422); an unknown grading_rule is a config error", async () => {
    const result = await instances.get("exact")!.request("/verify", { responses_create_params: { input: [] }, response: responseWith([]) });
    expect(result.status).toBe(422);
    expect(() => equivalenceRule.configSchema.parse({ grading_rule: "fuzzy" })).toThrow();
  });
});

describe("NeMo Gym's recordings and config", () => {
  let checkout: NemoGymCheckout;
  let engine: FakeEngine;
  let dir: string;
  beforeAll(async () => {
    checkout = nemoGymCheckout(["equivalence_rule"]);
    const answers = new Map<string, string>();
    for (const rollout of recordedRollouts("equivalence_rule")) {
      const prompt = rollout.responses_create_params.input.at(-1).content as string;
      const message = (rollout.response.output as Array<Record<string, any>>).findLast((item) => item.type === "message");
      // One recording ends in reasoning only (no message): its replay answers with empty text.
      answers.set(prompt, message ? message.content.map((part: { text: string }) => part.text).join("") : "");
    }
    engine = await startFakeEngine({ policy: (turns: Turn[]) => ({ text: answers.get(turns.findLast((t) => t.role === "user")?.content ?? "") ?? "no idea" }) });
    dir = mkdtempSync(join(tmpdir(), "gym-equivalence-rule-"));
  });
  afterAll(async () => {
    checkout.remove();
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("recorded rollouts re-verify through lc.yaml to the recorded rewards (5/5)", async () => {
    const { result, recorded, reverified, rows } = await reverifyRecorded("equivalence_rule", ["--config", "resources_servers/equivalence_rule/configs/lc.yaml"], { cwd: checkout.root });
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(recorded).toEqual([1, 0, 0, 0, 0]);
    expect(reverified).toEqual(recorded);
    expect(rows.map((row) => row?.equivalence_score)).toEqual(recorded);
  }, 200_000);

  it("lc.yaml runs unchanged: every row back, the recorded rewards, default metrics", async () => {
    const out = join(dir, "lc.jsonl");
    const result = await runGym(
      ["eval", "run", "--config", "resources_servers/equivalence_rule/configs/lc.yaml", "--input", "resources_servers/equivalence_rule/data/example.jsonl", "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", out, "--quiet"],
      { cwd: checkout.root, timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonlFile(new URL(`file://${out}`)).sort((a, b) => a._ng_task_index - b._ng_task_index);
    expect(rows).toHaveLength(5);
    expect(rows.map((r) => r.reward)).toEqual([1, 0, 0, 0, 0]);
    expect(rows.every((r) => typeof r.hashid === "string" && typeof r.context_length === "string" && r.source === "mrcr")).toBe(true);
    const metrics = JSON.parse(readFileSync(out.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    const agent = metrics[0]!.agent_metrics as Record<string, number>;
    expect(agent["mean/reward"]).toBeCloseTo(0.2, 12);
    expect(agent["mean/equivalence_score"]).toBeCloseTo(0.2, 12);
    expect(agent["max/reward"]).toBe(1);
    expect(agent["median/reward"]).toBe(0);
  }, 200_000);
});
