// ifbench: every ported checker against IFBench's own (c6767a19, run by testdata/generate_reference.py)
// on IFBench's sample outputs and their loose variants, the first-token tagger against NLTK's, the
// scoring rules over HTTP, NeMo Gym's recorded rollouts re-verified, and NeMo Gym's config run unchanged.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ifbench from "./index.js";
import { CHECKERS, NOT_PORTED } from "./checkers.js";
import { checkInstruction, looseVariants } from "./evaluate.js";
import { firstTokenTag } from "./tagger.js";
import { pyCsvRows } from "./pycsv.js";
import { syllapyCount } from "./syllapy.js";
import { wordTokenize } from "../../verifiers/text/word_tokenize.js";
import { assistantMessage, functionCall, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine } from "../../../test/doubles/fake_engine.js";
import { readJsonlFile, runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";

interface Reference {
  first_tags: Array<{ text: string | null; tokens: string[]; tag: string }>;
  cases: Array<{ key: number; instruction_id: string; kwargs: Record<string, unknown>; variants: Array<boolean | string | null> }>;
  responses: Record<string, [string, string | null]>;
}
const REF = JSON.parse(gunzipSync(readFileSync(new URL("./testdata/reference.json.gz", import.meta.url))).toString("utf8")) as Reference;

/** IFBench's 58 instruction ids (instructions_registry.INSTRUCTION_DICT at c6767a19). */
const IFBENCH_IDS = [...new Set(REF.cases.map((c) => c.instruction_id))];

describe("checkers agree with IFBench's own (c6767a19) on its sample outputs, strict text and every loose variant", () => {
  it("all 58 instruction types of IFBench's registry are ported or listed as not ported; the sample outputs exercise 57", () => {
    expect(new Set([...Object.keys(CHECKERS), ...NOT_PORTED]).size).toBe(58);
    expect(IFBENCH_IDS.length).toBe(57);
    expect(IFBENCH_IDS.filter((id) => !(id in CHECKERS) && !NOT_PORTED.includes(id))).toEqual([]);
  });
  for (const id of IFBENCH_IDS.filter((i) => !NOT_PORTED.includes(i)).sort()) {
    it(id, () => {
      const differing: unknown[] = [];
      let compared = 0;
      for (const c of REF.cases.filter((x) => x.instruction_id === id)) {
        const response = REF.responses[String(c.key)]![1]!;
        const variants = looseVariants(response);
        const given = Object.fromEntries(Object.entries(c.kwargs).filter(([, v]) => v !== null));
        for (let i = 0; i < 8; i++) {
          if (c.variants[i] === null) continue;
          let got: boolean;
          try {
            got = CHECKERS[id]!.build(given)(variants[i]!);
          } catch {
            got = false;
          }
          compared++;
          if (got !== (c.variants[i] === true)) differing.push([c.key, i, c.variants[i], got]);
        }
      }
      expect(compared).toBeGreaterThan(0);
      expect(differing).toEqual([]);
    });
  }
});

describe("the first-token tagger agrees with nltk.pos_tag (NLTK 3.10.3, the trained English model)", () => {
  it(`${REF.first_tags.length} token lists: same first tag`, () => {
    const differing = REF.first_tags.filter((t) => firstTokenTag(t.tokens) !== t.tag).map((t) => [t.tokens, t.tag, firstTokenTag(t.tokens)]);
    expect(differing).toEqual([]);
  });
  it("word_tokenize gives NLTK's first three tokens for every sample text but one (a known difference, checked)", () => {
    const differing = REF.first_tags.filter((t) => t.text !== null).filter((t) => JSON.stringify(wordTokenize(t.text!).slice(0, 3)) !== JSON.stringify(t.tokens));
    // Gymkit's word_tokenize follows NLTK 3.8's starting-quote rule; NLTK 3.9+ (which NeMo Gym's
    // unpinned install gets) also splits a single quote opening a word: "'Chemical" → "'", "Chemical".
    expect(differing.map((t) => [t.tokens, wordTokenize(t.text!).slice(0, 3)])).toEqual([
      [["Step", "into", "'"], ["Step", "into", "'Chemical"]],
      [["Step", "into", "'"], ["Step", "into", "'Chemical"]],
    ]);
  });
  it("syllapy: word list, compounds, heuristic, digits", () => {
    expect(["the", "beautiful", "self-care", "zzyzx", "table", "x2", "", "...", "Queue!"].map(syllapyCount)).toEqual([1, 3, 2, 1, 2, 0, 0, 0, 1]);
  });
});

const row = (ids: string[], kwargs: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: "user", content: "Q" }] },
  id: 1,
  instruction_id_list: ids,
  prompt: "Q",
  kwargs,
  ...extra,
});

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(ifbench);
});
afterAll(() => env.close());

async function verify(body: Record<string, unknown>, output: Array<Record<string, unknown>>) {
  const result = await env.request("/verify", { ...body, response: responseWith(output) });
  return result;
}

describe("scoring over /verify", () => {
  it("fraction: followed share of the instructions; loose variants beside it; fields in NeMo Gym's order", async () => {
    const text = "My *Answer:* yes\nMy Conclusion: fine Future Outlook: good";
    const result = await verify(row(["format:output_template", "format:no_whitespace", "nope:unknown"], [{}, {}, {}]), [assistantMessage(text)]);
    expect(result.status, result.text).toBe(200);
    const body = result.body;
    expect(Object.keys(body)).toEqual([
      "responses_create_params", "response", "reward", "follow_all_instructions", "follow_instruction_list", "follow_all_instructions_loose",
      "follow_instruction_list_loose", "reward_loose", "kwargs", "instruction_id_list", "prompt", "grading_mode",
    ]);
    expect(body.follow_instruction_list).toEqual([false, false, false]);
    // "My Answer:" survives only once the asterisks are removed.
    expect(body.follow_instruction_list_loose).toEqual([true, false, false]);
    expect([body.reward, body.reward_loose, body.grading_mode]).toEqual([0, 1 / 3, "fraction"]);
  });

  it("binary: 1 only when every instruction is followed", async () => {
    const ok = await verify(row(["format:output_template", "custom:character_reverse"], [{}, {}], { grading_mode: "binary" }), [assistantMessage("My Answer: elgae dlab My Conclusion: x Future Outlook: y")]);
    expect([ok.body.reward, ok.body.follow_all_instructions]).toEqual([1, true]);
    const half = await verify(row(["format:output_template", "custom:character_reverse"], [{}, {}], { grading_mode: "binary" }), [assistantMessage("My Answer: x My Conclusion: x Future Outlook: y")]);
    expect([half.body.reward, half.body.follow_all_instructions]).toEqual([0, false]);
  });

  it("traps: an empty answer follows nothing; a kwarg the checker does not take, or a missing one it would draw at random, fails", async () => {
    const empty = await verify(row(["format:no_whitespace"], [{}]), [assistantMessage("   ")]);
    expect([empty.body.reward, empty.body.follow_instruction_list]).toEqual([0, [false]]);
    const extra = await verify(row(["format:no_whitespace"], [{ N: 3 }]), [assistantMessage("abc")]);
    expect(extra.body.follow_instruction_list).toEqual([false]);
    const nulls = await verify(row(["format:no_whitespace"], [{ N: null }]), [assistantMessage("abc")]);
    expect(nulls.body.follow_instruction_list).toEqual([true]);
    const missing = await verify(row(["count:person_names"], [{}]), [assistantMessage("Emma and Liam")]);
    expect(missing.body.follow_instruction_list).toEqual([false]);
    const floats = await verify(row(["words:keywords_specific_position"], [{ keyword: "x", n: 1, m: 1 }]), [assistantMessage("x y z.")]);
    expect(floats.body.follow_instruction_list).toEqual([false]);
  });

  it("the text scored is the last output item's first block: a trailing tool call leaves nothing to score", async () => {
    const result = await verify(row(["format:no_whitespace"], [{}]), [assistantMessage("abc"), functionCall("f", {})]);
    expect(result.body.follow_instruction_list).toEqual([false]);
  });

  it("person names and stop words, as the example rows use them", () => {
    expect(checkInstruction("count:person_names", { N: 2 }, "Emma met Liam.")).toEqual([true, true]);
    expect(checkInstruction("count:person_names", { N: 3 }, "Emma met Liam.")).toEqual([false, false]);
    expect(checkInstruction("ratio:stop_words", { percentage: 50 }, "The cat sat on the mat")).toEqual([true, true]);
    expect(checkInstruction("ratio:stop_words", { percentage: 40 }, "The cat sat on the mat")).toEqual([false, false]);
    expect(checkInstruction("words:start_verb", {}, "Examine the data.")).toEqual([true, true]);
    expect(checkInstruction("words:start_verb", {}, "The data.")).toEqual([false, false]);
  });

  it("character reverse and the CSV reader's traps", () => {
    expect(checkInstruction("custom:character_reverse", {}, "The ELGAE DLAB flies")).toEqual([true, true]);
    expect(checkInstruction("custom:character_reverse", {}, "bald eagle")).toEqual([false, false]);
    expect(pyCsvRows('a,"b,c"\n\n"d\ne",f')).toEqual([["a", "b,c"], [], ["d\ne", "f"]]);
    expect(pyCsvRows('x"y,"z""w"q')).toEqual([['x"y', 'z"wq']]);
    expect(() => pyCsvRows("a\rb")).toThrow();
  });
});

describe("NeMo Gym's recorded rollouts", () => {
  it("re-verify to the recorded rewards (5/5)", async () => {
    const { result, recorded, reverified } = await reverifyRecorded("ifbench", ["--resources-server", "ifbench", "--force", "--inputs", new URL("./data/example.jsonl", import.meta.url).pathname]);
    expect(result.code, result.stderr).toBe(0);
    expect(recorded).toEqual([0, 1, 0, 0, 0]);
    expect(reverified).toEqual(recorded);
  });
});

describe("NeMo Gym's config, unchanged, through `gym eval run`", () => {
  let engine: FakeEngine;
  let dir: string;
  const recorded = recordedRollouts("ifbench");
  const rows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url).pathname);
  const answerFor = (prompt: string) => {
    const task = rows.findIndex((r) => r.prompt === prompt || r.responses_create_params.input.some((m: any) => m.content === prompt));
    return recorded.find((r) => r._ng_task_index === task)?.response.output.at(-1).content[0].text as string | undefined;
  };
  beforeAll(async () => {
    engine = await startFakeEngine({ policy: (turns) => ({ text: answerFor(turns.findLast((t) => t.role === "user")?.content ?? "") ?? "I do not know." }) });
    dir = mkdtempSync(join(tmpdir(), "gym-ifbench-"));
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("configs/ifbench.yaml on data/example.jsonl: every row back with its recorded reward, metrics as NeMo Gym's defaults", async () => {
    const checkout = nemoGymCheckout(["ifbench"]);
    try {
      const output = join(dir, "ifbench.jsonl");
      const result = await runGym(
        ["eval", "run", "--config", "resources_servers/ifbench/configs/ifbench.yaml", "--input", "resources_servers/ifbench/data/example.jsonl", "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "-a", "ifbench_simple_agent", "-o", output],
        { cwd: checkout.root, timeoutMs: 180_000 },
      );
      expect(result.code, result.stderr).toBe(0);
      const out = readJsonlFile(output).sort((a, b) => a._ng_task_index - b._ng_task_index);
      const expected = [0, 1, 2, 3, 4].map((task) => recorded.find((r) => r._ng_task_index === task)!.reward);
      expect(out.map((r) => r.reward)).toEqual(expected);
      const metrics = JSON.parse(readFileSync(join(dir, "ifbench_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
      const agent = metrics.find((m) => m.agent_ref?.name === "ifbench_simple_agent")!;
      // No compute_metrics/get_key_metrics override in NeMo Gym's ifbench: the profiler's defaults.
      expect(agent.agent_metrics["mean/reward"]).toBeCloseTo(0.2);
      expect(agent.agent_metrics["mean/reward_loose"]).toBeCloseTo(out.reduce((s, r) => s + r.reward_loose, 0) / 5);
      expect(agent.key_metrics).toEqual(Object.fromEntries(Object.entries(agent.agent_metrics).filter(([k]) => k.startsWith("mean/"))));
    } finally {
      checkout.remove();
    }
  });
});
