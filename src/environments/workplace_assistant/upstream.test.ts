// The port against NeMo Gym's own Python (07d6b0d, pandas 2.3): testdata/upstream_cases.json was written
// by testdata/generate.py running the upstream tools and reward (see testdata/README.md).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Frame } from "./frame.js";
import { timestampParses } from "./timestamp.js";
import { executeActions, isCorrect, Workbench } from "./workbench.js";
import { toolReply } from "./reply.js";

type Action = { name: string; arguments: string };
const cases = JSON.parse(readFileSync(new URL("./testdata/upstream_cases.json", import.meta.url), "utf8")) as {
  pandas: string;
  sequences: Array<{ actions: Action[]; outputs: Array<{ output?: unknown; error?: string; reply_text: string | null }>; state: Array<{ columns: string[]; index: number[]; rows_sha256: string }> }>;
  pairs: Array<{ ground_truth: Action[]; predicted: Action[]; correct: boolean }>;
  random_pairs: Array<{ ground_truth: Action[]; predicted: Action[]; correct: boolean }>;
  timestamps: Array<{ value: string; parses: boolean }>;
};

/** The fixture's spelling of cells: NaN as {nan: true}. */
const fixtureValue = (value: unknown): unknown => {
  if (typeof value === "number" && Number.isNaN(value)) return { nan: true };
  if (Array.isArray(value)) return value.map(fixtureValue);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fixtureValue(v)]));
  return value;
};
/** A table as the fixture records it: columns, row labels, SHA-256 of the cells as compact JSON. */
const rawState = (bench: Workbench) =>
  [bench.calendar.events, bench.email.emails, bench.analytics.plots, bench.projects.tasks, bench.crm.customers].map((f: Frame) => ({
    columns: f.columns,
    index: f.index,
    rows_sha256: createHash("sha256").update(JSON.stringify(fixtureValue(f.rows))).digest("hex"),
  }));

describe(`workplace_assistant against NeMo Gym's Python tools (pandas ${cases.pandas})`, () => {
  it.each(cases.sequences.map((s, i) => [i, s] as const))("tool sequence %i: every output and the final tables", (_i, sequence) => {
    const bench = new Workbench();
    const texts = sequence.actions.map((action) => toolReply(bench, action.name, safeParse(action.arguments)));
    const outputs = texts.map((text) => (JSON.parse(text) as { output: unknown }).output);
    const expected = sequence.outputs.map((o) => (o.error !== undefined ? o.error : nullNaN(o.output)));
    expect(outputs).toEqual(expected);
    // Byte for byte as NeMo Gym's route writes them, wherever it can write them at all (not with a NaN cell).
    const written = sequence.outputs.map((o, i) => (o.reply_text === null ? null : texts[i]));
    expect(written).toEqual(sequence.outputs.map((o) => o.reply_text));
    expect(rawState(executeActions(sequence.actions))).toEqual(sequence.state);
  });

  it("is_correct agrees on every pair", () => {
    const got = cases.pairs.map((p) => isCorrect(p.predicted, p.ground_truth));
    expect(got).toEqual(cases.pairs.map((p) => p.correct));
    expect(cases.pairs.filter((p) => p.correct).length).toBeGreaterThan(5);
    expect(cases.pairs.filter((p) => !p.correct).length).toBeGreaterThan(5);
  });

  it(`is_correct agrees on ${cases.random_pairs.length} seeded random ground truths, each against a mutation of itself`, () => {
    const got = cases.random_pairs.map((p) => isCorrect(p.predicted, p.ground_truth));
    const disagreements = cases.random_pairs.filter((p, i) => got[i] !== p.correct);
    expect(disagreements).toEqual([]);
    expect(cases.random_pairs.filter((p) => p.correct).length).toBeGreaterThan(50);
    expect(cases.random_pairs.filter((p) => !p.correct).length).toBeGreaterThan(50);
  });

  it("pd.Timestamp accepts and rejects the same strings", () => {
    const got = cases.timestamps.map((t) => ({ value: t.value, parses: timestampParses(t.value) }));
    expect(got).toEqual(cases.timestamps);
  });
});

/** The HTTP route reads a JSON body; an unparseable arguments string reaches it as an empty body. */
function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** The route writes NaN as null (Python's JSON response would refuse it). */
function nullNaN(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(nullNaN);
  if (value !== null && typeof value === "object") {
    if ((value as Record<string, unknown>).nan === true && Object.keys(value).length === 1) return null;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nullNaN(v)]));
  }
  return value;
}
