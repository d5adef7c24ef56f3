// difflib.SequenceMatcher reproduction against outputs recorded from Python's own difflib
// (testdata/generate_sequence_matcher.py; same bytes from CPython 3.11.7 and 3.14).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SequenceMatcher, sequenceRatio } from "./sequence_matcher.js";

interface Case {
  name: string;
  a: string | string[];
  b: string | string[];
  autojunk: boolean;
  ratio: number;
  blocks: Array<[number, number, number]>;
  longest: [number, number, number];
  popular: number;
}
const cases = JSON.parse(readFileSync(new URL("./testdata/sequence_matcher.json", import.meta.url), "utf8")) as Case[];

describe("SequenceMatcher equals Python difflib", () => {
  it("covers the autojunk rule, long inputs and word lists", () => {
    expect(cases.length).toBeGreaterThan(100);
    expect(cases.filter((c) => c.popular > 0).length).toBeGreaterThan(20);
    expect(cases.filter((c) => c.b.length > 1000).length).toBeGreaterThan(5);
    expect(cases.filter((c) => Array.isArray(c.a)).length).toBeGreaterThan(5);
  });
  for (const c of cases) {
    it(`${c.name} (autojunk=${c.autojunk})`, () => {
      const m = new SequenceMatcher<string>(c.a, c.b, { autojunk: c.autojunk });
      expect(m.ratio()).toBe(c.ratio);
      expect(m.getMatchingBlocks().map((x) => [x.a, x.b, x.size])).toEqual(c.blocks);
      const longest = m.findLongestMatch();
      expect([longest.a, longest.b, longest.size]).toEqual(c.longest);
      expect(m.popular.size).toBe(c.popular);
    });
  }
  it("indexes strings by code point, as Python's str", () => {
    // One astral character is one element: 2·1/(1+1).
    expect(sequenceRatio("\u{1F600}", "\u{1F600}")).toBe(1);
    expect(sequenceRatio("\u{1F600}", "\u{1F601}")).toBe(0);
    expect(sequenceRatio("", "")).toBe(1);
  });
});
