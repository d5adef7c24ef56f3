// equivalence_llm_judge over HTTP on 127.0.0.1: the reward rules on our own cases (labels, regex
// extraction from config and row, length threshold, swap check, whole-message retry, concurrency
// limit), judge failures as judge_failed, NeMo Gym's two recorded rollout files re-scored by replaying
// their judge answers (requests checked byte for byte), its three config files run unchanged, and the
// default metrics on the recorded rollouts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import implementation from "./index.js";
import { PROMPTS } from "./prompts.js";
import { readVerdict } from "./judge.js";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import vllmModel from "../../models/vllm_model.js";
import { METADATA_KEYS } from "../../http/implementation.js";
import { environmentConfigPath, loadImplementation } from "../../orchestrate/registry.js";
import type { FakeEngine, Turn } from "../../../test/doubles/fake_engine.js";
import { engineOf, onTeardown } from "../../../test/helpers/scope.js";
import { runGym } from "../../../test/helpers/cli.js";
import { judgeReplayArgs } from "../../../test/helpers/judges.js";
import { environmentFolder, nemoGymCheckout, reverifyRecorded, type NemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";

const ID = "equivalence_llm_judge";
const data = (file: string) => join(environmentFolder(ID), "data", file);
const JUDGE_REF = { type: "responses_api_models", name: "judge_model" };
const baseConfig = { judge_model_server: JUDGE_REF, judge_responses_create_params: { input: [] } };
const EQ = "[[A=B]]";
const NEQ = "[[A!=B]]";
const STEM_PROMPT = PROMPTS["prompt_templates/equivalence_llm_judge.txt"]!.trim();

/** The judge engine answers from this queue; an empty queue answers with no label at all. */
const verdicts: string[] = [];
let engine: FakeEngine;
let judge: RunningInstance;
const instances: RunningInstance[] = [];

async function env(config: Record<string, unknown> = {}, judgeUrl?: string): Promise<RunningInstance> {
  const instance = await startInstance(implementation, { config: { ...baseConfig, ...config }, servers: { judge_model: judgeUrl ?? judge.url } });
  instances.push(instance);
  return instance;
}

const row = (question: string, expected: string, extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: "user", content: question }] },
  expected_answer: expected,
  ...extra,
});

async function verify(e: RunningInstance, body: Record<string, unknown>, text: string | null, ...answers: string[]) {
  verdicts.push(...answers);
  const response = responseWith(text === null ? [] : [assistantMessage(text)]);
  const result = await e.request("/verify", { ...body, response });
  expect(result.status, result.text).toBe(200);
  expect(verdicts).toEqual([]);
  return result.body as { reward: number; expected_answer: string; judge_evaluations: Array<Record<string, any>> } & Record<string, any>;
}

/** The user prompt of the i-th judge call of a verify answer. */
const judgePrompt = (body: { judge_evaluations: Array<Record<string, any>> }, i = 0): string => body.judge_evaluations[i]!.responses_create_params.input.at(-1).content;
const candidateOf = (prompt: string) => prompt.slice(prompt.lastIndexOf("CANDIDATE:\n") + "CANDIDATE:\n".length);
const goldOf = (prompt: string) => prompt.slice(prompt.lastIndexOf("GOLD:\n") + "GOLD:\n".length, prompt.lastIndexOf("\n\nCANDIDATE:"));

beforeAll(async () => {
  engine = await engineOf({ model: "judge", policy: () => ({ text: verdicts.shift() ?? "I cannot decide." }) });
  judge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: engine.baseUrl, model: "judge" } });
  onTeardown(() => judge.close());
});

afterAll(async () => {
  await Promise.all(instances.map((i) => i.close()));
});

describe("registration and config", () => {
  it("is registered, its YAML validates with NeMo Gym's defaults, and it reports reverify mode unknown", async () => {
    expect((await loadImplementation("resources_servers", ID)).id).toBe(ID);
    const yaml = parseYaml(readFileSync(environmentConfigPath(ID), "utf8"));
    expect(Object.keys(yaml)).toEqual([ID, `${ID}_simple_agent`]);
    const fields = Object.fromEntries(Object.entries(yaml[ID].resources_servers[ID]).filter(([key]) => !(METADATA_KEYS as readonly string[]).includes(key)));
    expect(implementation.configSchema.parse(fields)).toMatchObject({ check_twice_swap: false, extraction_length_threshold: null, judge_endpoint_max_concurrency: 64 });
    // The code defaults (what a config that leaves them out gets).
    expect(implementation.configSchema.parse(baseConfig)).toMatchObject({
      judge_prompt_template_fpath: "prompt_templates/equivalence_llm_judge.txt",
      msg_extraction_failure: "[NO VALID ANSWER EXTRACTED]",
      use_per_record_regex: true,
      extraction_length_threshold: 120,
      check_full_generation_on_fail: true,
      reward_if_full_generation_succeeds: 0.5,
      check_twice_swap: false,
      reward_if_swap_fails: 0,
    });
    expect(implementation.noEffectFields).toHaveProperty("judge_prompt_template");
    const e = await env();
    expect((await e.request("/reverify_mode")).body).toBe("unknown");
  });
});

describe("the verdict label", () => {
  it("first label wins (NeMo Gym's); strict (last): the label found last decides, so one quoted from the answer does not", () => {
    const quoting = `The response says "42 ${EQ}". It is a different number.\n${NEQ}`;
    expect(readVerdict(quoting, EQ, NEQ)).toEqual({ equal: true, label: EQ });
    expect(readVerdict(quoting, EQ, NEQ, true)).toEqual({ equal: false, label: NEQ });
    expect(readVerdict(`${NEQ} on reflection ${EQ}`, EQ, NEQ, true)).toEqual({ equal: true, label: EQ });
    expect(readVerdict("none", EQ, NEQ, true)).toEqual({ equal: false, label: null });
    expect(readVerdict(undefined, EQ, NEQ, true)).toEqual({ equal: false, label: null });
  });
});

describe("reward rules", () => {
  let e: RunningInstance;
  beforeAll(async () => {
    e = await env();
  });

  it("equal → 1.0 with one evaluation; NeMo Gym's fields, in order; the bundled prompt, stripped, filled", async () => {
    const body = await verify(e, row("Who proposed evolution by natural selection?", "darwin", { uuid: 7, extra: "x" }), "Charles Darwin", `Same person. ${EQ} they are equivalent`);
    expect(Object.keys(body)).toEqual(["responses_create_params", "response", "reward", "expected_answer", "judge_evaluations"]);
    expect(body).toMatchObject({ reward: 1, expected_answer: "darwin" });
    expect(body.judge_evaluations).toHaveLength(1);
    const [evaluation] = body.judge_evaluations;
    expect(Object.keys(evaluation!)).toEqual(["responses_create_params", "response", "verdict_label"]);
    expect(evaluation!.verdict_label).toBe(EQ);
    expect(evaluation!.responses_create_params.input).toEqual([
      { type: "message", role: "user", content: STEM_PROMPT.replace("{question}", "Who proposed evolution by natural selection?").replace("{expected_answer}", "darwin").replace("{generated_answer}", "Charles Darwin") },
    ]);
    expect(judgePrompt(body).startsWith("===== System role =====\n")).toBe(true);
  });

  it("reads labels as NeMo Gym does: first label wins; none → 0 with verdict null (not a failure)", async () => {
    const r = row("q", "4");
    expect((await verify(e, r, "4", `${NEQ} though some would say ${EQ}`)).reward).toBe(0);
    const later = await verify(e, r, "4", `${EQ}, not ${NEQ}`);
    expect([later.reward, later.judge_evaluations[0]!.verdict_label]).toEqual([1, EQ]);
    const none = await verify(e, r, "4", "I cannot tell.");
    expect([none.reward, none.judge_evaluations[0]!.verdict_label, none._ng_failure_class]).toEqual([0, null, undefined]);
    // A label written differently is no label.
    expect((await verify(e, r, "4", "[[a=b]] [A=B]")).judge_evaluations[0]!.verdict_label).toBe(null);
  });

  it("lc_judge's labels: INCORRECT contains CORRECT but comes first, so it is not equal", async () => {
    const lc = await env({ judge_prompt_template_fpath: "prompt_templates/lc_judge.txt", judge_equal_label: "CORRECT", judge_not_equal_label: "INCORRECT" });
    const r = row("What is 2+2?", "4");
    const wrong = await verify(lc, r, "5", "INCORRECT");
    expect([wrong.reward, wrong.judge_evaluations[0]!.verdict_label]).toEqual([0, "INCORRECT"]);
    const right = await verify(lc, r, "4", "CORRECT");
    expect([right.reward, right.judge_evaluations[0]!.verdict_label]).toEqual([1, "CORRECT"]);
    expect(judgePrompt(right)).toBe(
      "Assess whether the following CANDIDATE ANSWER is CORRECT or INCORRECT.\nFor the CANDIDATE ANSWER to be correct, it must be consistent with the OFFICIAL ANSWER.\n\nThe question, for reference only: What is 2+2?\nThe OFFICIAL ANSWER: 4\nCANDIDATE ANSWER TO ASSESS: 4\n\nReply only with CORRECT or INCORRECT.",
    );
  });

  it("a system message goes first; the question is the last user message, narrowed by question_extract_regex", async () => {
    const lcRegex = "^QUESTION:\\s*(.*)$|</text>\\n\\n(.*)$";
    const q = await env({ judge_system_message: "Be strict.", question_extract_regex: lcRegex });
    const input = [
      { role: "user", content: "an earlier turn" },
      { role: "assistant", content: "ok" },
      { role: "user", content: [{ type: "input_text", text: "<text>context</text>" }, { type: "input_text", text: "\nWhat colour is the sky?" }] },
    ];
    const body = await verify(q, { responses_create_params: { input }, expected_answer: "blue" }, "Blue.", EQ);
    const sent = body.judge_evaluations[0]!.responses_create_params.input;
    expect(sent[0]).toEqual({ type: "message", role: "system", content: "Be strict." });
    // The parts are joined with a newline: "</text>\n\nWhat colour…", and the second group is the first non-blank one.
    expect(sent[1].content).toContain("QUESTION:\nWhat colour is the sky?\n\nGOLD:");
    const plain = await verify(q, row("QUESTION:  Why?\nignored line", "because"), "because", EQ);
    // DOTALL: (.*) runs to the end of the text; the pick is stripped.
    expect(judgePrompt(plain)).toContain("QUESTION:\nWhy?\nignored line\n\nGOLD:");
    const noMatch = await verify(q, row("Just a question", "x"), "x", EQ);
    expect(judgePrompt(noMatch)).toContain("QUESTION:\nJust a question\n\nGOLD:");
  });

  it("the candidate is the last assistant message, narrowed by response_extract_regex (last match, first non-blank group)", async () => {
    const r = await env({ response_extract_regex: "Answer:\\s*```(?:\\w+)?\\s*([\\s\\S]*?)\\s*```(?=[\\s\\S]*$)" });
    const text = "Answer: ```sh\nls -a\n```\nor better\nAnswer: ```sh\nfind . -type f\n```";
    expect(candidateOf(judgePrompt(await verify(r, row("q", "find . -type f"), text, EQ)))).toBe("find . -type f");
    // No match: the whole message.
    expect(candidateOf(judgePrompt(await verify(r, row("q", "x"), "  just text  ", EQ)))).toBe("just text");
    // A pattern Python cannot compile matches nothing: the whole message.
    const broken = await env({ response_extract_regex: "(unclosed" });
    expect(candidateOf(judgePrompt(await verify(broken, row("q", "x"), "whole", EQ)))).toBe("whole");
    // Several text parts of one message are joined by newlines; earlier messages are not read.
    const parts = { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "one", annotations: [] }, { type: "output_text", text: "two", annotations: [] }] };
    verdicts.push(EQ);
    const joined = await e.request("/verify", { ...row("q", "x"), response: responseWith([assistantMessage("earlier"), parts, { type: "reasoning", id: "rs", summary: [] }]) });
    expect(candidateOf(judgePrompt(joined.body))).toBe("one\ntwo");
  });

  it("no assistant text → msg_extraction_failure is judged (default and configured)", async () => {
    expect(candidateOf(judgePrompt(await verify(e, row("q", "x"), null, NEQ)))).toBe("[NO VALID ANSWER EXTRACTED]");
    expect(candidateOf(judgePrompt(await verify(e, row("q", "x"), "   ", NEQ)))).toBe("[NO VALID ANSWER EXTRACTED]");
    const empty = await env({ msg_extraction_failure: "" });
    expect(candidateOf(judgePrompt(await verify(empty, row("q", "x"), null, NEQ)))).toBe("");
  });

  it("the expected answer falls back to metadata.expected_answer, then to empty", async () => {
    expect(goldOf(judgePrompt(await verify(e, { ...row("q", ""), metadata: { expected_answer: 42 } }, "42", EQ)))).toBe("42");
    const none = await verify(e, { responses_create_params: { input: [{ role: "user", content: "q" }] } }, "a", NEQ);
    expect(none.expected_answer).toBe("");
    // NeMo Gym's request model: expected_answer is a string.
    verdicts.length = 0;
    expect((await e.request("/verify", { ...row("q", ""), expected_answer: 42, response: responseWith([assistantMessage("42")]) })).status).toBe(422);
  });

  it("check_twice_swap: an equal is asked again with the answers swapped; a swapped not-equal gives reward_if_swap_fails", async () => {
    const s = await env({ check_twice_swap: true, reward_if_swap_fails: -1 });
    const both = await verify(s, row("q", "gold"), "cand", EQ, EQ);
    expect([both.reward, both.judge_evaluations.map((x) => x.verdict_label)]).toEqual([1, [EQ, EQ]]);
    expect([goldOf(judgePrompt(both, 1)), candidateOf(judgePrompt(both, 1))]).toEqual(["cand", "gold"]);
    const fails = await verify(s, row("q", "gold"), "cand", EQ, NEQ);
    expect([fails.reward, fails.judge_evaluations.length]).toEqual([-1, 2]);
    // A first not-equal is final: no swap.
    const first = await verify(s, row("q", "gold"), "cand", NEQ);
    expect([first.reward, first.judge_evaluations.length]).toEqual([0, 1]);
  });

  describe("a row's template_metadata.output_regex (use_per_record_regex)", () => {
    const tm = (output_regex: unknown) => ({ template_metadata: { output_regex } });
    const boxed = "<final_answer>\\s*(.+?)\\s*</final_answer>";
    const text = "Work… <final_answer>16</final_answer> and finally <final_answer> 25 </final_answer>";

    it("replaces response_extract_regex; a first not-equal retries the whole message for reward_if_full_generation_succeeds", async () => {
      const p = await env({ response_extract_regex: "nothing-matches-this" });
      const hit = await verify(p, row("q", "25", tm(boxed)), text, EQ);
      expect([hit.reward, candidateOf(judgePrompt(hit))]).toEqual([1, "25"]);
      const rescued = await verify(p, row("q", "25", tm(boxed)), text, NEQ, EQ);
      expect([rescued.reward, rescued.judge_evaluations.length, candidateOf(judgePrompt(rescued, 1))]).toEqual([0.5, 2, text]);
      const notRescued = await verify(p, row("q", "25", tm(boxed)), text, NEQ, NEQ);
      expect([notRescued.reward, notRescued.judge_evaluations.length]).toEqual([0, 2]);
      // Without a row regex there is no retry.
      expect((await verify(p, row("q", "25"), text, NEQ)).judge_evaluations).toHaveLength(1);
      // An empty output_regex is no row regex.
      expect((await verify(p, row("q", "25", tm("")), text, NEQ)).judge_evaluations).toHaveLength(1);
    });

    it("is skipped for an expected answer longer than extraction_length_threshold: whole message, no retry, no swap", async () => {
      const p = await env({ extraction_length_threshold: 5, check_twice_swap: true });
      const long = "a longer gold";
      const miss = await verify(p, row("q", long, tm(boxed)), text, NEQ);
      expect([miss.reward, miss.judge_evaluations.length, candidateOf(judgePrompt(miss))]).toEqual([0, 1, text]);
      const hit = await verify(p, row("q", long, tm(boxed)), text, EQ);
      expect([hit.reward, hit.judge_evaluations.length]).toEqual([1, 1]);
      // Length counts characters (code points), as Python's len: five emoji are not longer than 5.
      const short = await verify(p, row("q", "😀😀😀😀😀", tm(boxed)), text, EQ, EQ);
      expect([short.judge_evaluations.length, candidateOf(judgePrompt(short))]).toEqual([2, "25"]);
    });

    it("is ignored when use_per_record_regex is false; a non-string pattern is an error, as in Python", async () => {
      const off = await env({ use_per_record_regex: false });
      const body = await verify(off, row("q", "25", tm(boxed)), text, NEQ);
      expect([body.judge_evaluations.length, candidateOf(judgePrompt(body))]).toEqual([1, text]);
      verdicts.length = 0;
      const bad = await e.request("/verify", { ...row("q", "25", tm(["x"])), response: responseWith([assistantMessage(text)]) });
      expect(bad.status).toBe(500);
    });
  });

  it("judge_endpoint_max_concurrency bounds the judge calls in flight", async () => {
    // Each judge call is answered 150 ms after it arrives; with one slot, a call can only arrive
    // after the previous one was answered, however the three verifications overlap.
    const arrivals: number[] = [];
    const slow = await engineOf({ model: "judge", delayMs: () => (arrivals.push(performance.now()), 150), policy: () => ({ text: EQ }) });
    const slowJudge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: slow.baseUrl, model: "judge" } });
    instances.push(slowJudge);
    const one = await env({ judge_endpoint_max_concurrency: 1 }, slowJudge.url);
    const results = await Promise.all([0, 1, 2].map((i) => one.request("/verify", { ...row(`q${i}`, "a"), response: responseWith([assistantMessage("a")]) })));
    expect(results.map((r) => r.body.reward)).toEqual([1, 1, 1]);
    expect(arrivals).toHaveLength(3);
    for (let i = 1; i < arrivals.length; i++) expect(arrivals[i]! - arrivals[i - 1]!).toBeGreaterThanOrEqual(140);
  });
});

describe("a failing judge is judge_failed, never a zero", () => {
  it("a judge answering 500: the row is judge_failed with the request and response kept", async () => {
    const broken = await engineOf({ respond: () => ({ status: 500, body: { error: { message: "engine down" } } }) });
    const brokenJudge = await startInstance(vllmModel, { name: "judge_model", config: { base_url: broken.baseUrl, model: "judge", max_retries: 0 } });
    instances.push(brokenJudge);
    const e = await env({}, brokenJudge.url);
    const result = await e.request("/verify", { ...row("q", "a"), response: responseWith([assistantMessage("a")]) });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ reward: 0, _ng_failure_class: "judge_failed" });
    expect(result.body._ng_failure_judge_error).toMatch(/^HTTPStatusError: /);
    expect(result.body).not.toHaveProperty("judge_evaluations");
    expect(result.body.response).toBeDefined();
  });
});

describe("/aggregate_metrics on NeMo Gym's recorded rollouts", () => {
  it("NeMo Gym's defaults (this server overrides neither compute_metrics nor get_key_metrics): key metrics are every mean/*", async () => {
    // data/example_metrics*.json are NeMo Gym's dataset statistics (rows, words, turns), not rollout
    // metrics, so there is nothing of the rollouts to compare them with.
    const e = await env();
    for (const [file, mean] of [["example_rollouts.jsonl", 0.8], ["example_rollouts_openqa.jsonl", 0.8]] as const) {
      const rows = readJsonlFile(new URL(`file://${data(file)}`)).map((r, i) => ({ ...r, _ng_task_index: i, _ng_rollout_index: 0 }));
      const result = (await e.request("/aggregate_metrics", { verify_responses: rows })).body;
      expect(result.agent_metrics["mean/reward"]).toBeCloseTo(mean, 12);
      expect(result.key_metrics).toEqual(Object.fromEntries(Object.entries(result.agent_metrics).filter(([k]) => k.startsWith("mean/"))));
    }
  });
});

describe("NeMo Gym's recorded rollouts, their judge answers replayed (requests checked byte for byte)", () => {
  let checkout: NemoGymCheckout;
  let dir: string;
  beforeAll(() => {
    checkout = nemoGymCheckout([ID]);
    dir = mkdtempSync(join(tmpdir(), "gym-equivalence-replay-"));
  });
  afterAll(() => {
    checkout.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("data/example_rollouts.jsonl re-scores to the recorded rewards (5/5) with configs/equivalence_llm_judge.yaml", async () => {
    const rolloutsPath = data("example_rollouts.jsonl");
    const { result, recorded, reverified, rows } = await reverifyRecorded(
      ID,
      ["--config", `resources_servers/${ID}/configs/${ID}.yaml`, ...judgeReplayArgs(dir, ID, ID, { rolloutsPath }), "--force"],
      { cwd: checkout.root },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(reverified).toEqual(recorded);
    const recordedRows = readJsonlFile(new URL(`file://${rolloutsPath}`));
    expect(rows.map((r) => r?.judge_evaluations.map((e: any) => e.verdict_label))).toEqual(recordedRows.map((r) => r.judge_evaluations.map((e: any) => e.verdict_label)));
    expect(rows.map((r) => r?.expected_answer)).toEqual(recordedRows.map((r) => r.expected_answer));
  }, 180_000);

  it("data/example_rollouts_openqa.jsonl re-scores to the recorded rewards (5/5) with the swap check and whole-message retry on", async () => {
    // The recording's settings, read from its judge requests and verdict counts: temperature 0.0 for the
    // judge, check_twice_swap and check_full_generation_on_fail on, the default length threshold. Its
    // lines do not keep the rows' template_metadata (NeMo Gym's verify response drops undeclared
    // fields), so the example_openqa rows are given as --inputs, in the rollouts' order.
    const rolloutsPath = data("example_rollouts_openqa.jsonl");
    const rows = readJsonlFile(new URL(`file://${data("example_openqa.jsonl")}`));
    const inputs = join(dir, "openqa_inputs.jsonl");
    const ordered = readJsonlFile(new URL(`file://${rolloutsPath}`)).map((rollout) => rows.find((r) => r.expected_answer === rollout.expected_answer)!);
    writeFileSync(inputs, ordered.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const set = (key: string, value: string) => `++${ID}.resources_servers.${ID}.${key}=${value}`;
    const { result, recorded, reverified, rows: out } = await reverifyRecorded(
      ID,
      [
        "--config", `resources_servers/${ID}/configs/${ID}.yaml`, ...judgeReplayArgs(dir, ID, ID, { rolloutsPath }), "--force", "--inputs", inputs,
        set("judge_responses_create_params.temperature", "0.0"), set("check_twice_swap", "true"), set("check_full_generation_on_fail", "true"),
        set("extraction_length_threshold", "120"), set("reward_if_full_generation_succeeds", "0.5"),
      ],
      { cwd: checkout.root, rolloutsPath },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(reverified).toEqual(recorded);
    expect(out.map((r) => r?.judge_evaluations.length)).toEqual([2, 2, 2, 2, 2]);
  }, 180_000);
});

describe("NeMo Gym's config files, unchanged", () => {
  let checkout: NemoGymCheckout;
  let dir: string;
  let engine: FakeEngine;
  /** Policy and judge are one model (the configs name policy_model as the judge): judge prompts get a verdict. */
  const policyAndJudge = (turns: Turn[]) => {
    const prompt = turns.at(-1)!.content;
    if (prompt.includes("OFFICIAL ANSWER")) {
      const official = /The OFFICIAL ANSWER: (.*)\n/.exec(prompt)![1]!;
      const candidate = /CANDIDATE ANSWER TO ASSESS: (.*)\n/.exec(prompt)![1]!;
      return { text: candidate.toLowerCase().includes(official.toLowerCase()) ? "CORRECT" : "INCORRECT" };
    }
    if (prompt.includes("CANDIDATE:")) {
      const gold = goldOf(prompt).trim().toLowerCase();
      const candidate = candidateOf(prompt).toLowerCase();
      const same = candidate.includes(gold) || gold.includes(candidate);
      return { text: same ? `Matches.\n\n${EQ} they are equivalent` : `Differs.\n\n${NEQ} they are not equivalent` };
    }
    if (prompt.includes("Bash command")) return { text: prompt.includes("10KB") ? "Answer: ```sh\nfind . -type f -size 10k\n```" : "Answer: ```sh\necho no\n```" };
    // The example questions: right but for the polypeptide one.
    if (prompt.includes("natural selection")) return { text: "\\boxed{Charles Darwin}" };
    if (prompt.includes("polypeptide")) return { text: "\\boxed{nucleic}" };
    if (prompt.includes("frameshift")) return { text: "\\boxed{nucleotides}" };
    if (prompt.includes("wet for all")) return { text: "\\boxed{wetland}" };
    return { text: "\\boxed{the sun}" };
  };

  beforeAll(async () => {
    checkout = nemoGymCheckout([ID]);
    dir = mkdtempSync(join(tmpdir(), "gym-equivalence-configs-"));
    engine = await engineOf({ model: "m", policy: policyAndJudge });
  });
  afterAll(() => {
    checkout.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(config: string, input: string, agent: string) {
    const output = join(dir, `${config.replace(/\.yaml$/, "")}.jsonl`);
    const result = await runGym(
      ["eval", "run", "--config", `resources_servers/${ID}/configs/${config}`, "--input", `resources_servers/${ID}/data/${input}`, "--agent", agent,
        "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "-o", output, "--quiet"],
      { cwd: checkout.root, timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonlFile(new URL(`file://${output}`)).sort((a, b) => a._ng_task_index - b._ng_task_index);
    const metrics = JSON.parse(readFileSync(join(dir, `${config.replace(/\.yaml$/, "")}_aggregate_metrics.json`), "utf8")) as Array<Record<string, any>>;
    return { result, rows, metrics };
  }

  it("equivalence_llm_judge.yaml on example.jsonl: every row judged once, rewards as scripted, mean/* key metrics", async () => {
    const { rows, metrics } = await run(`${ID}.yaml`, "example.jsonl", `${ID}_simple_agent`);
    expect(rows.map((r) => r.reward)).toEqual([1, 0, 1, 1, 1]);
    expect(rows.every((r) => r.judge_evaluations.length === 1)).toBe(true);
    expect(metrics[0]!.agent_metrics["mean/reward"]).toBeCloseTo(0.8, 12);
    expect(Object.keys(metrics[0]!.key_metrics).every((k) => k.startsWith("mean/"))).toBe(true);
  }, 180_000);

  it("lc_judge.yaml: lc_judge_simple_agent, CORRECT/INCORRECT labels, the lc_judge.txt prompt", async () => {
    const { rows } = await run("lc_judge.yaml", "example.jsonl", "lc_judge_simple_agent");
    expect(rows.map((r) => r.reward)).toEqual([1, 0, 1, 1, 1]);
    expect(rows.map((r) => r.judge_evaluations[0].verdict_label)).toEqual(["CORRECT", "INCORRECT", "CORRECT", "CORRECT", "CORRECT"]);
    expect(rows[0]!.judge_evaluations[0].responses_create_params.input[0].content).toMatch(/^Assess whether the following CANDIDATE ANSWER/);
  }, 180_000);

  it("nl2bash-equivalency.yaml on example_nl2bash.jsonl: the answer regex, the swap check; its inline judge_prompt_template is ignored as at 07d6b0d", async () => {
    const { result, rows } = await run("nl2bash-equivalency.yaml", "example_nl2bash.jsonl", `${ID}_simple_agent`);
    expect(result.stderr + result.stdout).toContain("judge_prompt_template");
    expect(rows).toHaveLength(readJsonlFile(new URL(`file://${data("example_nl2bash.jsonl")}`)).length);
    expect(rows[0]!.reward).toBe(1);
    expect(rows[0]!.judge_evaluations).toHaveLength(2);
    const first = rows[0]!.judge_evaluations[0].responses_create_params.input[0].content as string;
    expect(candidateOf(first)).toBe("find . -type f -size 10k");
    // NeMo Gym's config model drops the undeclared judge_prompt_template: the STEM grader file is used.
    expect(first.startsWith("===== System role =====\nYou are a meticulous STEM grader.")).toBe(true);
    for (const r of rows.slice(1)) expect([r.reward, r.judge_evaluations.length]).toEqual([0, 1]);
  }, 180_000);
});
