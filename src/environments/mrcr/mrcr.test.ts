// mrcr: the prefix gate and the SequenceMatcher ratio on our own cases, NeMo Gym's recorded
// rollouts re-verified through `gym eval reverify`, NeMo Gym's config run unchanged through
// `gym eval run`, and the metrics against NeMo Gym's own compute_metrics
// (test/fixtures/longctx/expected.json).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import mrcr from "./index.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { environmentFolder, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";
import { longctxExpected, runNemoGymConfig } from "../../../test/helpers/longctx.js";

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(mrcr);
});
afterAll(() => env.close());

const row = (expected: string, prefix: string) => ({
  responses_create_params: { input: [{ role: "user", content: "Repeat the poem." }] },
  expected_answer: expected,
  random_string_to_prepend: prefix,
  n_needles: 2,
  n_tokens: 100,
});

async function verify(expected: string, prefix: string, text: string) {
  const result = await env.request("/verify", { ...row(expected, prefix), response: responseWith([assistantMessage(text)]) });
  expect(result.status, result.text).toBe(200);
  return result.body as Record<string, any>;
}

describe("reward rules", () => {
  it("exact reproduction with the prefix → 1", async () => {
    const body = await verify("PFXhello world", "PFX", "PFXhello world");
    expect([body.reward, body.prefix_matched, body.seq_match_ratio]).toEqual([1, true, 1]);
  });
  it("surrounding whitespace is stripped before the prefix check", async () => {
    expect((await verify("PFXhello", "PFX", "  \n PFXhello\n")).reward).toBe(1);
  });
  it("trap: the right text without the prefix → 0", async () => {
    const body = await verify("PFXhello world", "PFX", "hello world");
    expect([body.reward, body.prefix_matched]).toEqual([0, false]);
  });
  it("trap: the prefix later in the text → 0; wrong case → 0", async () => {
    expect((await verify("PFXhello", "PFX", "Sure: PFXhello")).reward).toBe(0);
    expect((await verify("PFXhello", "PFX", "pfxhello")).reward).toBe(0);
  });
  it("partial reproduction → the ratio of the texts after the prefix (difflib: 2·M/T)", async () => {
    // "abcd" vs "abxd": matching blocks ab, d → M = 3, T = 8.
    expect((await verify("PFXabcd", "PFX", "PFXabxd")).reward).toBe(0.75);
    // The prefix is removed from the expected answer only when it starts with it.
    expect((await verify("abcd", "PFX", "PFXabcd")).reward).toBe(1);
  });
  it("only the prefix → ratio of empty against the answer: 0 (both empty → 1)", async () => {
    expect((await verify("PFXabc", "PFX", "PFX")).reward).toBe(0);
    expect((await verify("PFX", "PFX", "PFX")).reward).toBe(1);
  });
  it("a long answer (≥ 200 characters) uses difflib's autojunk rule", async () => {
    const answer = "the river runs to the sea and the sea runs to the sky ".repeat(8);
    const body = await verify("P" + answer, "P", "P" + answer.replace(/sea/g, "bay"));
    // From Python: SequenceMatcher(None, a.replace("sea", "bay").strip(), a).ratio() for this a
    // (432 characters; the response is stripped, the expected answer is not). Without the
    // autojunk rule the ratio would be far higher: its common letters and spaces are "popular".
    expect(body.reward).toBe(0.05098493626882966);
  });
});

describe("NeMo Gym's recorded rollouts", () => {
  it("as recorded, NeMo Gym's own /verify rejects all five (usage in Chat Completions shape); Gymkit too (422)", async () => {
    // The file's `response.usage` has prompt_tokens/completion_tokens, not the Responses API's
    // input_tokens/output_tokens that NeMo Gym's response model (the OpenAI SDK's ResponseUsage)
    // requires: every line is stale for NeMo Gym at 07d6b0d as much as for Gymkit.
    const { result, reverified } = await reverifyRecorded("mrcr", ["--resources-server", "mrcr"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("5 rollouts failed");
    expect(reverified).toEqual([undefined, undefined, undefined, undefined, undefined]);
  }, 200_000);
  it("without the malformed usage, they re-verify to the recorded rewards (5/5)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-mrcr-recorded-"));
    try {
      const lines = readFileSync(join(environmentFolder("mrcr"), "data", "example_rollouts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
      const rolloutsPath = join(dir, "rollouts.jsonl");
      writeFileSync(rolloutsPath, lines.map((l) => JSON.stringify({ ...l, response: { ...l.response, usage: undefined } })).join("\n") + "\n");
      const { result, recorded, reverified, rows } = await reverifyRecorded("mrcr", ["--resources-server", "mrcr"], { rolloutsPath });
      expect(result.code, result.stderr).toBe(0);
      expect(reverified).toEqual(recorded);
      expect(rows.map((r) => [r?.prefix_matched, r?.seq_match_ratio])).toEqual(lines.map((l) => [l.prefix_matched, l.seq_match_ratio]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 200_000);
});

describe("NeMo Gym's config, unchanged", () => {
  it("configs/mrcr.yaml: every example row back, rewards and metrics as NeMo Gym's code computes them", async () => {
    const expected = longctxExpected.mrcr;
    const run = await runNemoGymConfig("mrcr", "mrcr.yaml", expected.answers.map((text: string) => ({ text })));
    expect(run.result.code, run.result.stderr + run.result.stdout).toBe(0);
    expect(run.rows).toHaveLength(5);
    expect(run.rows.map((r) => r.reward)).toEqual(expected.rewards);
    const agent = run.metrics[0]!;
    for (const [key, value] of Object.entries(expected.metrics as Record<string, number>)) expect(agent.agent_metrics[key], key).toBeCloseTo(value, 9);
    expect(Object.keys(agent.key_metrics).filter((k) => !k.startsWith("mean/")).sort()).toEqual(Object.keys(expected.key_metrics).sort());
  }, 200_000);
});
