// format_verification over HTTP: NeMo Gym's own checks' answers on our cases (reference.json, made by
// testdata/generate.py from NeMo Gym's app.py at 07d6b0d with Python's `re`), must-not-reward traps,
// NeMo Gym's recorded rollouts re-verified, and both of NeMo Gym's configs run unchanged by `gym eval run`.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded, type NemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import formatVerification from "./index.js";

interface ReferenceCase {
  text: string;
  verifier: Record<string, unknown>;
  reward: number;
  match_details: Record<string, unknown>;
}
const reference = JSON.parse(readFileSync(new URL("./testdata/reference.json", import.meta.url), "utf8")) as { regex: ReferenceCase[]; string_match: ReferenceCase[] };

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(formatVerification);
});
afterAll(() => env.close());

async function verify(output: Array<Record<string, unknown>>, verifier: Record<string, unknown>) {
  return env.request("/verify", { responses_create_params: { input: [{ role: "user", content: "q" }] }, verifier, response: responseWith(output) });
}

describe("NeMo Gym's checks (reference.json) on our cases", () => {
  for (const c of [...reference.regex, ...reference.string_match]) {
    it(`${c.verifier.type}: ${JSON.stringify(c.text).slice(0, 50)} → ${c.reward}`, async () => {
      const result = await verify([assistantMessage(c.text)], c.verifier);
      expect(result.status, result.text).toBe(200);
      expect(result.body.reward).toBe(c.reward);
      expect(result.body.match_details).toEqual(c.match_details);
      expect(result.body.verifier).toEqual(c.verifier);
    });
  }
});

describe("reward rules", () => {
  it("inline_prose is checked as regex; the reply's output_text parts are joined without separator", async () => {
    const output = [assistantMessage("-- a\n-- "), assistantMessage("b\n-- c")];
    const result = await verify(output, { type: "inline_prose", verify_regex: ["^-- .+"], verify_min_matches: 3 });
    expect([result.body.reward, result.body.match_details.matching_lines]).toEqual([1, 3]);
  });
  it("traps: a line matching two patterns counts once; markers in other brackets do not count", async () => {
    const twice = await verify([assistantMessage("- a\n- b")], { type: "regex", verify_regex: ["^- .+", "^-"], verify_min_matches: 3 });
    expect([twice.body.reward, twice.body.match_details.matching_lines]).toEqual([0, 2]);
    const brackets = await verify([assistantMessage("(ref:2) {ref:2}")], { type: "string_match", expected_markers: ["[ref:2]"], patterns: ["\\[ref:2\\]"] });
    expect(brackets.body.reward).toBe(0);
  });
  it("an unknown verifier type, or a pattern Python cannot compile, fails the request as NeMo Gym's does", async () => {
    expect((await verify([assistantMessage("x")], { type: "json" })).status).toBe(500);
    expect((await verify([assistantMessage("x")], { type: "regex", verify_regex: ["(unclosed"] })).status).toBe(500);
  });
  it("a row without verifier is refused (422)", async () => {
    expect((await env.request("/verify", { responses_create_params: { input: [] }, response: responseWith([]) })).status).toBe(422);
  });
});

describe("NeMo Gym's recordings and configs", () => {
  let checkout: NemoGymCheckout;
  let engine: FakeEngine;
  let dir: string;
  const citationRows = readJsonlFile(new URL("./data/ds3_citation_format_example.jsonl", import.meta.url));
  beforeAll(async () => {
    checkout = nemoGymCheckout(["format_verification"]);
    const answers = new Map<string, string>();
    for (const rollout of recordedRollouts("format_verification")) {
      const message = (rollout.response.output as Array<Record<string, any>>).findLast((item) => item.type === "message");
      answers.set(rollout.responses_create_params.input[0].content as string, message ? message.content.map((p: { text: string }) => p.text).join("") : "");
    }
    // Citation rows: the first three cite every expected marker, the fourth none, the fifth all but the last.
    citationRows.forEach((row, i) => {
      const markers = row.verifier.expected_markers as string[];
      const cited = i < 3 ? markers : i === 3 ? [] : markers.slice(0, -1);
      answers.set(row.responses_create_params.input[0].content as string, `The answer, from the sources ${cited.join(" ")}.`);
    });
    engine = await startFakeEngine({ policy: (turns: Turn[]) => ({ text: answers.get(turns.findLast((t) => t.role === "user")?.content ?? "") ?? "no idea" }) });
    dir = mkdtempSync(join(tmpdir(), "gym-format-verification-"));
  });
  afterAll(async () => {
    checkout.remove();
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("recorded rollouts re-verify through freeform_formatting.yaml to the recorded rewards (5/5)", async () => {
    const { result, recorded, reverified, rows } = await reverifyRecorded("format_verification", ["--config", "resources_servers/format_verification/configs/freeform_formatting.yaml"], { cwd: checkout.root });
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(recorded).toEqual([1, 1, 1, 1, 1]);
    expect(reverified).toEqual(recorded);
    expect(rows.map((r) => r?.match_details)).toEqual(recordedRollouts("format_verification").map((r) => r.match_details));
  }, 200_000);

  async function evalRun(config: string, input: string) {
    const out = join(dir, `${config}.jsonl`);
    const result = await runGym(
      ["eval", "run", "--config", `resources_servers/format_verification/configs/${config}.yaml`, "--input", `resources_servers/format_verification/data/${input}`, "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", out, "--quiet"],
      { cwd: checkout.root, timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonlFile(new URL(`file://${out}`)).sort((a, b) => a._ng_task_index - b._ng_task_index);
    const metrics = JSON.parse(readFileSync(out.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    return { rows, agent: metrics[0]!.agent_metrics as Record<string, number> };
  }

  it("freeform_formatting.yaml runs unchanged on example.jsonl: the recorded answers score as recorded", async () => {
    const { rows, agent } = await evalRun("freeform_formatting", "example.jsonl");
    expect(rows).toHaveLength(5);
    expect(rows.map((r) => r.reward)).toEqual([1, 1, 1, 1, 1]);
    expect(agent["mean/reward"]).toBe(1);
  }, 200_000);

  it("citation_format.yaml runs unchanged on its example rows: missing markers score 0", async () => {
    const { rows, agent } = await evalRun("citation_format", "ds3_citation_format_example.jsonl");
    expect(rows).toHaveLength(5);
    expect(rows.map((r) => r.reward)).toEqual([1, 1, 1, 0, 0]);
    expect(rows[3]!.match_details.missing).toEqual(citationRows[3]!.verifier.expected_markers);
    expect(agent["mean/reward"]).toBeCloseTo(0.6, 12);
    // Default metrics only: nothing but numbers of the verify response is aggregated (match_details is nested).
    expect(Object.keys(agent).filter((k) => k.startsWith("mean/") && !k.includes("tokens"))).toEqual(["mean/reward"]);
  }, 200_000);
});
