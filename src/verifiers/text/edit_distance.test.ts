// editdistance.eval reproduction against outputs of the real package (roy-ht/editdistance v0.8.1
// built from source; testdata/generate_edit_distance.py).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { editDistance } from "./edit_distance.js";
import { pySplit } from "./pystr.js";

interface Case {
  a: string;
  b: string;
  chars: number;
  words: number;
}
const cases = JSON.parse(readFileSync(new URL("./testdata/edit_distance.json", import.meta.url), "utf8")) as Case[];

describe("editDistance equals editdistance.eval", () => {
  it("has long cases", () => {
    expect(cases.filter((c) => pySplit(c.b).length >= 100).length).toBeGreaterThanOrEqual(15);
  });
  cases.forEach((c, i) => {
    it(`case ${i}: ${JSON.stringify(c.a).slice(0, 40)} vs ${JSON.stringify(c.b).slice(0, 40)}`, () => {
      expect(editDistance(c.a, c.b)).toBe(c.chars);
      expect(editDistance(pySplit(c.a), pySplit(c.b))).toBe(c.words);
    });
  });
});
