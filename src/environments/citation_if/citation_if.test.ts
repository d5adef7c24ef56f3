// citation_if: the scorer against NeMo Gym's own (07d6b0d) on its test suites and our cases, the reward
// rules and their traps over HTTP, NeMo Gym's recorded rollouts re-verified, and NeMo Gym's config run
// unchanged through the CLI with metrics as its /aggregate_metrics computes them.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import citationIf from "./index.js";
import { extractResponseShape } from "./response_shape.js";
import { scoreCitationIf } from "./scorer.js";
import { GRAMMARS, TERMINAL_TOOL_RESPONSE } from "./grammars.js";
import { assistantMessage, functionCall, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine } from "../../../test/doubles/fake_engine.js";
import { readJsonlFile, runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";

interface ScorerCase {
  source: string;
  cell?: string;
  text: string;
  function_call_count: number;
  verifier: Record<string, unknown>;
  reward: number;
  details: Record<string, unknown>;
}

const CASES: ScorerCase[] = gunzipSync(readFileSync(new URL("./testdata/scorer_cases.jsonl.gz", import.meta.url)))
  .toString("utf8")
  .split("\n")
  .filter((line) => line !== "")
  .map((line) => JSON.parse(line) as ScorerCase);

describe("the scorer agrees with NeMo Gym's (07d6b0d), verdict and details", () => {
  for (const source of ["test_citation_if", "test_reward_hack_matrix", "test_residual_fuzz", "gymkit"]) {
    const cases = CASES.filter((c) => c.source === source);
    it(`${source}: ${cases.length} cases, every reward and match_details identical`, () => {
      expect(cases.length).toBeGreaterThan(40);
      const differing = cases.filter((c) => JSON.stringify(scoreCitationIf(c.text, c.function_call_count, c.verifier)) !== JSON.stringify({ reward: c.reward, details: c.details }));
      expect(differing.map((c) => [c.text, c.verifier.grammar])).toEqual([]);
    });
  }

  it("the reward-hack matrix is complete: 16 hack classes over 9 trained grammars and both granularities, all 0 but the two compliant ones", () => {
    const matrix = CASES.filter((c) => c.source === "test_reward_hack_matrix");
    const classes = new Set(matrix.map((c) => c.cell!.split("-")[2]));
    expect(classes.size).toBe(16);
    expect(matrix.length).toBe(14 * 9 * 2 + 2 * 2 + 9);
    for (const c of matrix) expect([c.cell, c.reward]).toEqual([c.cell, c.cell!.includes("-compliant_") ? 1 : 0]);
  });

  it("the fuzz's leak mutations never score 1, its benign ones always do", () => {
    const fuzz = CASES.filter((c) => c.source === "test_residual_fuzz");
    expect(fuzz.length).toBe(4000);
    expect(fuzz.every((c) => scoreCitationIf(c.text, 0, c.verifier).reward === c.reward)).toBe(true);
  });
});

const FULL = {
  type: "citation_if",
  mode: "cite",
  grammar: "ascii_brackets",
  id_kind: "full_source",
  id_regex: "citation_[a-z0-9]{4}",
  valid_id_set: ["citation_ab12", "citation_cd34", "citation_ef56"],
  expected_ids: ["citation_ab12"],
  expected_slack: 1,
  min_valid_citations: 1,
};
const SNIPPET = {
  ...FULL,
  grammar: "cite_xml",
  id_kind: "snippet",
  id_regex: "citation_[a-z0-9]{4}:snippet_[0-9]+",
  valid_id_set: ["citation_ab12:snippet_1", "citation_ab12:snippet_2", "citation_cd34:snippet_1"],
  expected_ids: ["citation_ab12:snippet_1"],
};

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(citationIf);
});
afterAll(() => env.close());

async function verify(verifier: Record<string, unknown>, output: Array<Record<string, unknown>>) {
  const result = await env.request("/verify", { responses_create_params: { input: [{ role: "user", content: "Q?" }] }, response: responseWith(output), verifier });
  expect(result.status, result.text).toBe(200);
  return result.body as { reward: number; verifier: unknown; match_details: Record<string, any> };
}

// [text, verifier, reward, gate]
const RULES: Array<[string, Record<string, unknown>, number, string | null]> = [
  ["Released in 1999 [citation_ab12].", FULL, 1, null],
  ["Released in 1999 [citation_ab12]. Also [citation_cd34].", FULL, 1, null],
  ["Released in 1999 [citation_ab12] [citation_cd34] [citation_ef56].", FULL, 0, "correctness_over_cap"],
  ["Released in 1999 [citation_cd34].", FULL, 0, "correctness_missed_gold"],
  ["Released in 1999 [citation_zz99].", FULL, 0, "must_cite"],
  ["Released [citation_ab12], see [citation_zz99].", FULL, 0, "no_hallucination"],
  ["Released in 1999 [citation_xmpl].", FULL, 0, "must_cite"],
  ["[citation_ab12]", FULL, 0, "no_answer"],
  ["Released in 1999.", FULL, 0, "must_cite"],
  ["Per citation_cd34, released in 1999 [citation_ab12].", FULL, 0, "malformed_attempt"],
  ["Released in 1999 [citation_ab12].\nSources: citation_ab12", FULL, 0, "malformed_attempt"],
  ["Released in 1999 [citation_ab12, citation_cd34].", FULL, 0, "malformed_attempt"],
  ["Released in 1999 [citation_ab12](https://example.com).", FULL, 0, "malformed_attempt"],
  ["Released in 1999 <cite>citation_ab12</cite>.", FULL, 0, "malformed_attempt"],
  ["Released in 1999 [CITATION_AB12].", FULL, 0, "malformed_attempt"],
  // Python's case folding: a dotless i still makes an ID-shaped token.
  ["Released in 1999 [citation_ab12]. c\u0131tation_x", FULL, 0, "malformed_attempt"],
  ["Released in 1999 <cite>citation_ab12:snippet_1</cite>.", SNIPPET, 1, null],
  ["Released in 1999 <cite>citation_ab12:snippet_1,citation_cd34:snippet_1</cite>.", SNIPPET, 1, null],
  ["Released in 1999 <cite>citation_ab12:snippet_2</cite>.", SNIPPET, 0, "correctness_missed_gold"],
  ["Released in 1999 <cite>citation_ab12</cite>.", SNIPPET, 0, "malformed_attempt"],
  ["Released in 1999 <cite>citation_ab12:snippet_1</cite> <cite></cite>", SNIPPET, 0, "malformed_attempt"],
  ["Released in 1999 <cite>citation_ab12:snippet_1</cite> <CITE>", SNIPPET, 0, "malformed_attempt"],
  ["\u00e9 <cite>citation_ab12:snippet_1</cite>", SNIPPET, 1, null],
  ["\u2014 <cite>citation_ab12:snippet_1</cite> !", SNIPPET, 0, "no_answer"],
  ['<cite index="citation_ab12:snippet_1">Released in 1999.</cite>', { ...SNIPPET, grammar: "claim_wrap_xml" }, 1, null],
  ['<cite index="citation_ab12:snippet_1">...</cite>', { ...SNIPPET, grammar: "claim_wrap_xml" }, 0, "no_answer"],
  ['<cite index="citation_ab12:snippet_1"> </cite> Released.', { ...SNIPPET, grammar: "claim_wrap_xml" }, 0, "malformed_attempt"],
  ["Released in 1999.", { ...FULL, mode: "no_cite", expected_ids: null }, 1, null],
  ["Released in 1999 [citation_ab12].", { ...FULL, mode: "no_cite", expected_ids: null }, 0, "no_cite"],
  ["Released in 1999, says citation_ab12.", { ...FULL, mode: "no_cite", expected_ids: null }, 0, "no_cite"],
  ["Released in 1999 <cite>", { ...SNIPPET, mode: "no_cite", expected_ids: null }, 0, "no_cite"],
  ["Released [citation_ab12] [citation_cd34] [citation_ef56].", { ...FULL, expected_ids: null }, 1, null],
  ["Released [citation_ab12].", { ...FULL, grammar: "ascii" }, 0, "unknown_grammar"],
];

describe("reward rules over /verify", () => {
  for (const [text, verifier, reward, gate] of RULES) {
    it(`${JSON.stringify(text).slice(0, 80)} (${String(verifier.grammar)}, ${String(verifier.mode)}) → ${reward} ${gate ?? ""}`, async () => {
      const body = await verify(verifier, [assistantMessage(text)]);
      expect([body.reward, body.match_details.gate_failed]).toEqual([reward, gate]);
      expect(body.verifier).toEqual(verifier);
    });
  }

  it("every grammar, holdouts included, parses its own markup", async () => {
    const markup: Record<string, string> = {
      cite_xml: "<cite>ID</cite>", ascii_brackets: "[ID]", claim_wrap_xml: '<cite index="ID">A fact.</cite>', fullwidth_brackets: "\u3010ID\u3011",
      ref_colon: "[ref:ID]", double_angle: "<<ID>>", web_brackets: "[web:ID]", paren_part: "(ID)", markdown_footnote: "[^ID]", curly_double: "{{ID}}", angle_pipe: "<ref|ID>",
    };
    expect(Object.keys(markup).sort()).toEqual([...GRAMMARS.keys()].sort());
    for (const [grammar, form] of Object.entries(markup)) {
      const body = await verify({ ...FULL, grammar }, [assistantMessage(`A fact. ${form.replace("ID", "citation_ab12")}`)]);
      expect([grammar, body.reward]).toEqual([grammar, 1]);
    }
  });

  it("a response that calls a tool scores 0 (structural), whatever its text", async () => {
    const body = await verify(FULL, [functionCall("web_search", { query: "x" }), assistantMessage("Released in 1999 [citation_ab12].")]);
    expect([body.reward, body.match_details.gate_failed, body.match_details.function_call_count]).toEqual([0, "structural", 1]);
  });

  it("a citation only in the reasoning earns nothing: reasoning is not answer text", async () => {
    const reasoning = { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "cite [citation_ab12]" }] };
    const body = await verify(FULL, [reasoning, assistantMessage("   ")]);
    expect([body.reward, body.match_details.gate_failed]).toEqual([0, "structural"]);
  });

  it("the verify response carries the request, reward, verifier and match_details, in NeMo Gym's order", async () => {
    const body = await verify(FULL, [assistantMessage("Released [citation_ab12].")]);
    expect(Object.keys(body)).toEqual(["responses_create_params", "response", "reward", "verifier", "match_details"]);
    expect(Object.keys(body.match_details)).toEqual([
      "gate_failed", "mode", "grammar", "id_kind", "id_regex", "structural_ok", "function_call_count", "attempt_hits", "bare_id_hits",
      "parsed_ids", "cited_ids", "valid_cited", "invalid_cited", "num_valid_cited", "expected_ids", "missed_ids", "over_cap",
    ]);
  });

  it("any tool name answers the terminal text, as plain text", async () => {
    for (const name of ["web_search", "anything_else"]) {
      const result = await env.request(`/${name}`, { query: "x" });
      expect([result.status, result.text]).toEqual([200, TERMINAL_TOOL_RESPONSE]);
    }
  });

  it("response shape: assistant text blocks joined by newlines and stripped; function calls counted; other items ignored", () => {
    expect(extractResponseShape({})).toEqual({ text: "", functionCallCount: 0 });
    expect(extractResponseShape({ output: null })).toEqual({ text: "", functionCallCount: 0 });
    expect(extractResponseShape({ output: ["not a dict", 42] })).toEqual({ text: "", functionCallCount: 0 });
    expect(extractResponseShape({ output: [{ type: "message", role: "user", content: [{ type: "output_text", text: "no" }] }] })).toEqual({ text: "", functionCallCount: 0 });
    const output = [
      { type: "function_call", name: "a", arguments: "{}" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: " One. " }, { type: "text", text: "" }, { type: "refusal", refusal: "x" }, { type: "text", text: "Two." }] },
      { type: "function_call", name: "b", arguments: "{}" },
    ];
    expect(extractResponseShape({ output })).toEqual({ text: "One. \nTwo.", functionCallCount: 2 });
  });
});

describe("NeMo Gym's recorded rollouts", () => {
  it("re-verify to the recorded rewards (5/5)", async () => {
    const { result, recorded, reverified, rows } = await reverifyRecorded("citation_if", ["--resources-server", "citation_if", "--force"]);
    expect(result.code, result.stderr).toBe(0);
    expect(recorded).toEqual([0, 1, 1, 0, 1]);
    expect(reverified).toEqual(recorded);
    const original = recordedRollouts("citation_if");
    expect(rows.map((row) => row?.match_details)).toEqual(original.map((row) => row.match_details));
  });
});

describe("NeMo Gym's config, unchanged, through `gym eval run`", () => {
  let engine: FakeEngine;
  let dir: string;
  const recorded = recordedRollouts("citation_if");
  const rows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url).pathname);
  /** The recorded answer of the task whose evidence IDs the conversation shows. */
  const answerFor = (conversation: string) => {
    const task = rows.findIndex((row) => (row.verifier.valid_id_set as string[]).every((id) => conversation.includes(id)));
    const rollout = recorded.find((r) => r._ng_task_index === task);
    return rollout?.response.output.find((o: any) => o.type === "message").content[0].text as string | undefined;
  };
  beforeAll(async () => {
    engine = await startFakeEngine({ policy: (turns) => ({ text: answerFor(turns.map((t) => t.content).join("\n")) ?? "I do not know." }) });
    dir = mkdtempSync(join(tmpdir(), "gym-citation-if-"));
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("configs/citation_if.yaml on data/example.jsonl: every row back with its recorded reward, metrics as NeMo Gym's defaults", async () => {
    const checkout = nemoGymCheckout(["citation_if"]);
    try {
      const output = join(dir, "citation_if.jsonl");
      const result = await runGym(
        ["eval", "run", "--config", "resources_servers/citation_if/configs/citation_if.yaml", "--input", "resources_servers/citation_if/data/example.jsonl", "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "-o", output],
        { cwd: checkout.root, timeoutMs: 180_000 },
      );
      expect(result.code, result.stderr).toBe(0);
      const out = readJsonlFile(output);
      expect(out.map((row) => row._ng_task_index).sort()).toEqual([0, 1, 2, 3, 4]);
      const expected = [0, 1, 2, 3, 4].map((task) => recorded.find((r) => r._ng_task_index === task)!.reward);
      expect(out.sort((a, b) => a._ng_task_index - b._ng_task_index).map((row) => row.reward)).toEqual(expected);
      const metrics = JSON.parse(readFileSync(join(dir, "citation_if_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
      const agent = metrics.find((m) => m.agent_ref?.name === "citation_if_simple_agent")!;
      expect(agent.agent_metrics["mean/reward"]).toBeCloseTo(0.6);
      // NeMo Gym's citation_if has no compute_metrics/get_key_metrics override: the reward profiler's
      // statistics of every top-level number (reward and usage), key metrics = every mean/*.
      const fields = ["reward", "input_tokens", "output_tokens", "total_tokens"];
      expect(Object.keys(agent.agent_metrics).sort()).toEqual(["mean", "max", "min", "median", "std"].flatMap((s) => fields.map((f) => `${s}/${f}`)).sort());
      expect([agent.agent_metrics["max/reward"], agent.agent_metrics["min/reward"], agent.agent_metrics["median/reward"]]).toEqual([1, 0, 1]);
      expect(agent.agent_metrics["std/reward"]).toBeCloseTo(Math.sqrt(0.3));
      expect(agent.key_metrics).toEqual(Object.fromEntries(Object.entries(agent.agent_metrics).filter(([k]) => k.startsWith("mean/"))));
      expect(agent.group_level_metrics.map((g: any) => g["mean/reward"])).toEqual(expected);
    } finally {
      checkout.remove();
    }
  });
});
