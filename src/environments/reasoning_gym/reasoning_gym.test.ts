// reasoning_gym over HTTP: the answer extraction and knights_knaves's score_answer in-process (full
// credit in any order, partial credit, the wrong count of pairs, empty answers); every ported family's
// score_answer against the real library's scores (test/fixtures/reasoning_gym/scorer_cases.json), the
// ported generators and create_dataset script against the library's rows byte for byte
// (generator_rows.jsonl); the route scoring rows of every ported family, a family not ported and a row
// without a task answered 4xx, never a 500; then NeMo Gym's reasoning_gym.yaml run unchanged by
// simple_agent on NeMo Gym's example rows, the engine double answering each question with the recorded
// reply: every recorded reward comes back.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { closeDispatcher } from "../../http/client.js";
import { recordedRollouts } from "../../../test/helpers/nemo_gym_catalog.js";
import { runRecordedConfig } from "../../../test/helpers/recorded_config_run.js";
import { engineOf } from "../../../test/helpers/scope.js";
import environment, { extractAnswer } from "./index.js";
import { createDataset, GENERATED_FAMILIES, nemoGymRow } from "./generators.js";
import { normalizeAnswer, scoreKnightsKnaves, scoreKnightsKnavesStrict } from "./knights_knaves.js";
import { pyJsonDumps } from "./python_json.js";
import { BASE_SCORER_FAMILIES, SCORERS, UNSUPPORTED, type Entry } from "./scorers.js";
import { main as createDatasetMain, parseConfigJson } from "./scripts/create_dataset.js";
import { pyStrip } from "./python_text.js";

const FIXTURES = new URL("../../../test/fixtures/reasoning_gym/", import.meta.url);
/** Per family: rows the library made, each with [answer, the score NeMo Gym's verify gives it]. */
const SCORER_CASES = JSON.parse(readFileSync(new URL("scorer_cases.json", FIXTURES), "utf8")) as Record<string, { entry: Entry; cases: [string, number][] }[]>;
/** Lines the library's create_dataset.py wrote, each with the dataset it came from. */
const GENERATED = readFileSync(new URL("generator_rows.jsonl", FIXTURES), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { spec: { task: string; size: number; seed: number; config: string }; line: string });

const rows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const ROW = rows[0]!; // Zoey is a fool, and Riley is a sage.

describe("answer extraction and knights_knaves's score_answer", () => {
  it("takes the last <answer> tag, else the first \\boxed{}, else the whole text, stripped", () => {
    expect(extractAnswer("<answer>x</answer> then <answer>\n Zoey is a fool \n</answer>")).toBe("Zoey is a fool");
    expect(extractAnswer("so \\boxed{ A is a knight } and \\boxed{B}")).toBe("A is a knight");
    expect(extractAnswer("\n\n  plain answer \u0085")).toBe("plain answer");
    expect(extractAnswer("")).toBe("");
  });

  it("scores sets of (name, role) pairs: 1.0 in any order, 0.3 + 0.7·k/n partial, else 0", () => {
    expect([...normalizeAnswer("Zoey is a fool, and Riley is a sage.")].sort()).toEqual([JSON.stringify(["riley", "sage"]), JSON.stringify(["zoey", "fool"])]);
    const oracle = "Zoey is a fool, and Riley is a sage.";
    expect(scoreKnightsKnaves("riley is a SAGE and zoey is a fool", oracle)).toBe(1.0);
    expect(scoreKnightsKnaves("Zoey (fool), Riley (sage)", oracle)).toBe(1.0);
    expect(scoreKnightsKnaves("Zoey is a fool, and Riley is a fool.", oracle)).toBe(0.3 + (0.7 * 1) / 2);
    expect(scoreKnightsKnaves("Zoey is a sage, and Riley is a fool.", oracle)).toBe(0.0);
    expect(scoreKnightsKnaves("Zoey is a fool.", oracle)).toBe(0.0);
    expect(scoreKnightsKnaves("", oracle)).toBe(0.0);
    expect(scoreKnightsKnaves("Zoey is a fool", null)).toBe(0.0);
  });
});

describe("strict: true (Gymkit's own; closes the audit's wrong.negation, wrong.zero_width and guess.all_boxes)", () => {
  const oracle = "Zoey is a fool, and Riley is a sage.";
  const names = ["Zoey", "Riley"];
  // [answer, the library's score (NeMo Gym's reward), the score under strict]
  const cases: Array<[string, number, number]> = [
    ["not Zoey is a fool, and Riley is a sage.", 1, 0], // the audit's wrong.negation
    ["Z\u200boey is a fool, and Riley is a sage.", 0.3 + (0.7 * 1) / 2, 0], // the audit's wrong.zero_width
    ["Zoey is a fool, and Riley is a sage, maybe", 1, 0], // any stray word
    ["Zoey Riley is a fool, and Riley is a sage.", 0.3 + (0.7 * 1) / 2, 0], // a name without its role
    ["Zoey is a fool, and Riley is a sage.", 1, 1],
    ["riley is a SAGE and zoey is a fool", 1, 1],
    ["Zoey (fool), Riley (sage)", 1, 1],
    ["Zoey is a fool, and Riley is a fool.", 0.3 + (0.7 * 1) / 2, 0.3 + (0.7 * 1) / 2], // the library's partial credit stays
    ["", 0, 0],
  ];
  for (const [answer, library, strict] of cases) {
    it(`${JSON.stringify(answer)} → ${library} by the library, ${strict} under strict`, () => {
      expect(scoreKnightsKnaves(answer, oracle)).toBe(library);
      expect(scoreKnightsKnavesStrict(answer, oracle, names)).toBe(strict);
      expect(scoreKnightsKnavesStrict(answer, oracle, undefined)).toBe(strict); // names from the oracle when the row has none
    });
  }
  it("the \\boxed{} fallback reads the last box under strict (the first by default)", () => {
    expect(extractAnswer("<think>\\boxed{A}</think> so \\boxed{B}")).toBe("A");
    expect(extractAnswer("<think>\\boxed{A}</think> so \\boxed{B}", true)).toBe("B");
    expect(extractAnswer("<answer>x</answer> \\boxed{B}", true)).toBe("x");
  });
  it("over HTTP: the negated gold is 1 by default, 0 under strict; NeMo Gym's recorded replies keep their rewards", async () => {
    const plain = await startInstance(environment, { name: "reasoning_gym_default" });
    const strictEnv = await startInstance(environment, { name: "reasoning_gym_strict", config: { strict: true } });
    try {
      const negated = responseWith([assistantMessage(`<answer>not ${ROW.answer}</answer>`)]);
      expect((await plain.request("/verify", { ...ROW, response: negated })).body.reward).toBe(1);
      expect((await strictEnv.request("/verify", { ...ROW, response: negated })).body.reward).toBe(0);
      // The recordings keep no row fields: each is matched to its example row by the prompt.
      const recorded = recordedRollouts("reasoning_gym");
      const rewards = [];
      for (const r of recorded) {
        const row = rows.find((x) => x.responses_create_params.input[0].content === r.responses_create_params.input[0].content)!;
        rewards.push((await strictEnv.request("/verify", { ...row, response: r.response })).body.reward as number);
      }
      expect(rewards).toEqual(recorded.map((r) => r.reward));
    } finally {
      await Promise.all([plain.close(), strictEnv.close()]);
    }
  });
});

describe("every ported family's score_answer equals reasoning-gym 0.1.25's", () => {
  it("covers exactly the supported families, and none of the refused ones", () => {
    expect(Object.keys(SCORER_CASES).sort()).toEqual(Object.keys(SCORERS).sort());
    expect(Object.keys(SCORERS)).toHaveLength(59);
    expect(BASE_SCORER_FAMILIES).toHaveLength(33);
    expect(Object.keys(UNSUPPORTED)).toHaveLength(47); // with the 59: every one of the library's 106 tasks
    expect(Object.keys(SCORERS).filter((f) => f in UNSUPPORTED)).toEqual([]);
  });

  it.each(Object.keys(SCORERS).sort())("%s", (family) => {
    const scored = SCORER_CASES[family]!.flatMap(({ entry, cases }) => cases.map(([answer]) => [answer, SCORERS[family]!(answer, entry)]));
    const expected = SCORER_CASES[family]!.flatMap(({ cases }) => cases);
    expect(scored).toEqual(expected);
    // Each family's cases reach more than one score, so a scorer that always answers the same fails.
    expect(new Set(expected.map(([, score]) => score)).size).toBeGreaterThan(1);
  });
});

describe("the generators make the library's rows, byte for byte", () => {
  it.each(GENERATED_FAMILIES)("%s: create_dataset.py's lines for every seed and config in the fixture", (family) => {
    const lines = GENERATED.filter(({ spec }) => spec.task === family);
    expect(lines.length).toBeGreaterThanOrEqual(50);
    const made = new Map<string, (idx: number) => unknown>();
    const next = new Map<string, number>();
    const ours = lines.map(({ spec }) => {
      const key = JSON.stringify(spec);
      if (!made.has(key)) made.set(key, createDataset(spec.task, spec.size, spec.seed, parseConfigJson(spec.config)));
      const idx = next.get(key) ?? 0;
      next.set(key, idx + 1);
      return pyJsonDumps(nemoGymRow(made.get(key)!(idx) as never));
    });
    expect(ours).toEqual(lines.map(({ line }) => line));
  });

  it("scripts/create_dataset writes the library's file for a config with integers beyond 2^53, and refuses what it cannot make", () => {
    const dir = mkdtempSync(join(tmpdir(), "gym-rg-dataset-"));
    try {
      const big = GENERATED.filter(({ spec }) => spec.task === "count_bits" && spec.config.includes("max_n"));
      expect(big[0]!.spec.config).toContain("1208925819614629174706176"); // 2**80, beyond a double
      const out = join(dir, "sub", "rows.jsonl");
      const log: string[] = [];
      const argv = ["--task", "count_bits", "--size", String(big[0]!.spec.size), "--seed", String(big[0]!.spec.seed), "--config", big[0]!.spec.config, "--output", out];
      expect(createDatasetMain(argv, (l) => log.push(l))).toBe(0);
      expect(readFileSync(out, "utf8")).toBe(big.map(({ line }) => line + "\n").join(""));
      const refused = (args: string[]) => {
        const lines: string[] = [];
        return [createDatasetMain([...args, "--output", join(dir, "x.jsonl")], (l) => lines.push(l)), lines.join("\n")] as const;
      };
      expect(refused(["--task", "gcd", "--config", '{"max_valu": 5}'])).toEqual([1, expect.stringContaining('gcd config has no key "max_valu" (keys: min_numbers, max_numbers, min_value, max_value)')]);
      expect(refused(["--task", "gcd", "--config", '{"min_numbers": 1}'])).toEqual([1, expect.stringContaining("gcd config: min_numbers must be at least 2")]);
      expect(refused(["--task", "chain_sum", "--config", '{"allow_negation": 1}'])).toEqual([1, expect.stringContaining('"allow_negation" must be true or false')]);
      expect(refused(["--task", "base_conversion", "--config", '{"min_base": 7, "max_base": 7}'])).toEqual([1, expect.stringContaining("min_base must be < max_base")]);
      expect(refused(["--task", "maze"])).toEqual([1, expect.stringContaining('no Gymkit generator for task "maze"')]);
      expect(refused(["--tasks", "gcd,lcm"])).toEqual([2, expect.stringContaining("composite dataset")]);
      expect(refused(["--task", "gcd", "--config", "{not json"])).toEqual([1, expect.stringContaining("Error parsing config JSON")]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the /verify route", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(environment);
  });
  afterAll(async () => {
    await env.close();
    await closeDispatcher();
  });

  it("answers NeMo Gym's fields: the row, reward, task_name, score, extracted_answer", async () => {
    const reply = await env.request("/verify", { ...ROW, response: responseWith([assistantMessage("Thinking... <answer>Zoey is a fool, and Riley is a sage.</answer>")]) });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ reward: 1, question: ROW.question, answer: ROW.answer, metadata: ROW.metadata, task_name: "knights_knaves", score: 1, extracted_answer: "Zoey is a fool, and Riley is a sage." });
  });

  it("scores rows of every ported family as the library does, and generated rows of the generated families", async () => {
    let checked = 0;
    for (const [family, rows] of Object.entries(SCORER_CASES)) {
      const { entry, cases } = rows[0]!;
      // The right answer, a wrong one and one with partial or no credit, wrapped as a model would answer
      // (answers the extraction would strip are left out: the route scores what it extracts).
      const kept = cases.filter(([answer]) => answer !== "" && pyStrip(answer) === answer);
      for (const [answer, score] of [cases[0]!, cases[6]!, kept.find(([, s]) => s > 0 && s < 1) ?? kept.find(([, s]) => s === 0)!]) {
        const reply = await env.request("/verify", { responses_create_params: { input: [] }, ...entry, response: responseWith([assistantMessage(`Reasoning first.\n<answer>${answer}</answer>`)]) });
        expect(reply.status, family).toBe(200);
        expect([family, reply.body.reward, reply.body.task_name]).toEqual([family, score, family]);
        checked += 1;
      }
    }
    expect(checked).toBe(177);
    for (const family of GENERATED_FAMILIES) {
      const row = JSON.parse(pyJsonDumps(nemoGymRow(createDataset(family, 1, 1234, {})(0)))) as Record<string, any>;
      const right = await env.request("/verify", { ...row, response: responseWith([assistantMessage(`\\boxed{${row.answer}}`)]) });
      expect([family, right.status, right.body.reward]).toEqual([family, 200, 1]);
    }
  });

  it("refuses a family it has no scorer for and a row without a task, and 422s a row without question", async () => {
    const other = await env.request("/verify", { ...ROW, metadata: { source_dataset: "pool_matrix" }, response: responseWith([assistantMessage("<answer>4</answer>")]) });
    expect(other.status).toBe(400);
    expect(JSON.stringify(other.body)).toContain('task family \\"pool_matrix\\" is not ported to Gymkit: its scorer parses the answer with numpy');
    const unknown = await env.request("/verify", { ...ROW, metadata: { source_dataset: "not_a_task" }, response: responseWith([assistantMessage("<answer>4</answer>")]) });
    expect([unknown.status, JSON.stringify(unknown.body)]).toEqual([400, expect.stringContaining("it is not a task of reasoning-gym 0.1.25")]);
    const none = await env.request("/verify", { ...ROW, metadata: {}, response: responseWith([assistantMessage("x")]) });
    expect(none.status).toBe(422);
    const { question: _q, ...noQuestion } = ROW;
    expect((await env.request("/verify", { ...noQuestion, response: responseWith([assistantMessage("x")]) })).status).toBe(422);
  });
});

describe("NeMo Gym's config, unchanged, on NeMo Gym's example rows with the recorded replies", () => {
  const recorded = recordedRollouts("reasoning_gym");
  const promptOf = (row: Record<string, any>) => row.responses_create_params.input[0].content as string;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gym-reasoning-gym-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("simple_agent reaches every recorded reward", async () => {
    const replies = new Map(recorded.map((r) => [promptOf(r), r.response.output.find((item: any) => item.type === "message").content[0].text as string]));
    expect(new Set(rows.map(promptOf))).toEqual(new Set(replies.keys()));
    const engine = await engineOf({ policy: (turns) => ({ text: replies.get(turns.find((t) => t.role === "user")!.content) ?? "no recorded reply" }) });
    const ours = await runRecordedConfig({
      id: "reasoning_gym",
      engineUrl: engine.baseUrl,
      recorded,
      input: "resources_servers/reasoning_gym/data/example.jsonl",
      args: ["--agent", "reasoning_gym_simple_agent"],
      dir,
      theirsOf: (row) => recorded.find((r) => promptOf(r) === promptOf(row)),
      label: promptOf,
      fields: ["reward", "score", "task_name"],
      turns: false,
      input_compared: "none",
      // NeMo Gym's recording kept the answer unstripped (an earlier app.py); 07d6b0d strips it.
      eachRow: (row, theirs) => expect(row.extracted_answer).toBe((theirs.extracted_answer as string).trim()),
    });
    expect(ours.map((r) => r.reward).sort()).toEqual([0, 0, 0, 1, 1]);
  }, 200_000);
});
