// reasoning_gym's audit rows (data/audit.jsonl: one row per supported family, made by reasoning-gym 0.1.25)
// and its audit.yaml, in-process: each row is the library's (the rows test/fixtures/reasoning_gym/
// scorer_cases.json holds, where it has them), each gold scores 1 by default and under strict, and every
// probe of the battery, written as the audit writes it and read as the server reads it (extractAnswer,
// then the scorer), scores within the floor audit.yaml declares for its family by default and 0 under
// strict. The same rows through the real servers: `gym env audit reasoning_gym` (README), and the CI
// gate's first row (test/audit_gate.test.ts).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadDeclaration } from "../../audit/floors.js";
import { PROBES } from "../../audit/probes.js";
import { contextOf } from "../../audit/run.js";
import { readJsonlFile } from "../../environment_kit/testing.js";
import { extractAnswer, SUPPORTED_TASKS } from "./index.js";
import { SCORERS, type Entry } from "./scorers.js";
import { strictScore } from "./strict.js";

const DECLARATION = new URL("./audit.yaml", import.meta.url).pathname;
const decl = loadDeclaration(DECLARATION);
const rows = readJsonlFile(new URL("./data/audit.jsonl", import.meta.url)) as Array<Record<string, unknown> & Entry>;
const library = JSON.parse(readFileSync(new URL("../../../test/fixtures/reasoning_gym/scorer_cases.json", import.meta.url), "utf8")) as Record<string, Array<{ entry: Entry }>>;
const familyOf = (row: Entry) => row.metadata.source_dataset as string;
const namesOf = (row: Entry) => (Array.isArray(row.metadata.names) ? (row.metadata.names as string[]) : undefined);

describe("reasoning_gym audit rows (data/audit.jsonl)", () => {
  it("hold one row per supported family, knights_knaves first, in NeMo Gym's create_dataset.py shape", () => {
    expect(rows.map(familyOf).sort()).toEqual(SUPPORTED_TASKS);
    expect(familyOf(rows[0]!)).toBe("knights_knaves");
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(["responses_create_params", "question", "answer", "metadata", "agent_ref"]);
      expect(row.responses_create_params).toEqual({ input: [{ role: "user", content: row.question }] });
    }
  });

  it("are the library's rows (seed 42, default config) where the scorer fixtures have them", () => {
    // bf and zebra_puzzles: the fixtures hold a synthetic row (their generators need bfi / pycosat).
    const own = rows.filter((row) => !["bf", "zebra_puzzles"].includes(familyOf(row)));
    expect(own.length).toBe(57);
    for (const row of own) expect({ question: row.question, answer: row.answer, metadata: row.metadata }).toEqual(library[familyOf(row)]![0]!.entry);
  });

  it.each(rows.map((row) => [familyOf(row), row] as const))("%s: the gold scores 1 by default and under strict", (family, row) => {
    const extracted = extractAnswer(decl.answer.replaceAll("{answer}", row.answer!));
    expect(extracted).toBe(row.answer);
    expect(SCORERS[family]!(extracted, row)).toBe(1);
    expect(strictScore(family, extracted, row, namesOf(row))).toBe(1);
  });
});

describe("the audit battery on every family, in-process", () => {
  // What the policy's last message says (no tool runs here: reasoning_gym rows offer no tools).
  const finalText = (row: Record<string, unknown>, probe: (typeof PROBES)[number]) => {
    const built = probe.build(contextOf(row, decl));
    if (!Array.isArray(built)) return undefined;
    const texts = built.filter((t): t is { text: string } => "text" in t);
    return texts.length ? texts[texts.length - 1]!.text : "";
  };
  const cap = (family: string, probe: string) => {
    const groups = decl.row_floors!.groups.filter((g) => g.rows.includes(family) && (!g.probes || g.probes.includes(probe)));
    return Math.max(0, ...groups.map((g) => g.floor));
  };
  const probes = PROBES.filter((p) => p.family !== "control" && p.name !== "null.nonsense_1mb");

  it("every non-zero default score is within the floor audit.yaml gives its family (and each floor is used)", () => {
    const above: string[] = [];
    const used = new Set<string>();
    for (const row of rows) {
      const family = familyOf(row);
      for (const probe of probes) {
        const text = finalText(row, probe);
        if (text === undefined) continue;
        const score = SCORERS[family]!(extractAnswer(text), row);
        if (score > cap(family, probe.name) + 1e-9) above.push(`${probe.name} on ${family}: ${score}`);
        if (score > 0) decl.row_floors!.groups.forEach((g, i) => g.rows.includes(family) && (!g.probes || g.probes.includes(probe.name)) && used.add(`${i}:${family}`));
      }
    }
    expect(above).toEqual([]);
    // No family is named in a group where no probe earns anything (a floor with nothing to explain).
    const unused = decl.row_floors!.groups.flatMap((g, i) => g.rows.filter((family) => !used.has(`${i}:${family}`)).map((family) => `group ${i}: ${family}`));
    expect(unused).toEqual([]);
  });

  it("under strict, no probe earns anything on any family", () => {
    const earned: string[] = [];
    for (const row of rows) {
      const family = familyOf(row);
      for (const probe of probes) {
        const text = finalText(row, probe);
        if (text === undefined) continue;
        const score = strictScore(family, extractAnswer(text, true), row, namesOf(row));
        if (score !== 0) earned.push(`${probe.name} on ${family}: ${score}`);
      }
    }
    expect(earned).toEqual([]);
  });
});
