// The Python-equivalent text tools (NLTK Punkt and word_tokenize, langdetect, IFEval's sentence
// splitter, Python regex and str semantics) against outputs recorded from the Python libraries
// themselves (src/verifiers/text/testdata/generate_reference.py).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { countWords, splitIntoSentences } from "./ifeval_util.js";
import { detectLangs } from "./langdetect/detector.js";
import { PythonRandom } from "../random/python_random.js";
import { sentTokenize } from "./punkt.js";
import { pyCompile, pyFinditer } from "./pyregex.js";
import { pyIndex, pyIsLower, pyIsUpper, pySlice, pySplit, pyStrip } from "./pystr.js";
import { treebankTokenize } from "./word_tokenize.js";

interface Reference {
  punkt: Array<{ text: string; sentences: string[]; words: string[]; ifeval_sentences: string[]; word_count: number }>;
  langdetect: Array<{ text: string; langs: Array<[string, number]> | null }>;
}
const reference = JSON.parse(
  readFileSync(new URL("./testdata/reference.json", import.meta.url), "utf8"),
) as Reference;

describe("Punkt sentence tokenizer (same parameters as the Python reference)", () => {
  for (const c of reference.punkt) {
    it(`splits ${JSON.stringify(c.text).slice(0, 60)}`, () => {
      expect(sentTokenize(c.text)).toEqual(c.sentences);
    });
  }
});

describe("NLTK word_tokenize", () => {
  for (const c of reference.punkt) {
    it(`tokenizes ${JSON.stringify(c.text).slice(0, 60)}`, () => {
      expect(sentTokenize(c.text).flatMap(treebankTokenize)).toEqual(c.words);
    });
  }
});

describe("IFEval split_into_sentences and count_words", () => {
  for (const c of reference.punkt) {
    it(`splits ${JSON.stringify(c.text).slice(0, 60)}`, () => {
      expect(splitIntoSentences(c.text)).toEqual(c.ifeval_sentences);
      expect(countWords(c.text)).toBe(c.word_count);
    });
  }
});

describe("langdetect (seed 0)", () => {
  for (const c of reference.langdetect) {
    it(`detects ${JSON.stringify(c.text).slice(0, 40)}`, () => {
      if (c.langs === null) {
        expect(() => detectLangs(c.text)).toThrow("No features in text.");
        return;
      }
      const got = detectLangs(c.text);
      expect(got.map((l) => l.lang)).toEqual(c.langs.map(([lang]) => lang));
      got.forEach((l, i) => expect(l.prob).toBeCloseTo(c.langs![i]![1], 12));
    });
  }
});

describe("CPython's random", () => {
  it("reproduces random.seed(0) sequences", () => {
    // Python: r = random.Random(0); [r.random() for _ in range(3)], r.gauss(0, 1), r._randbelow(1000)
    const r = new PythonRandom(0);
    expect(r.random()).toBe(0.8444218515250481);
    expect(r.random()).toBe(0.7579544029403025);
    expect(r.random()).toBe(0.420571580830845);
  });
});

describe("Python regex semantics (pyregex)", () => {
  const cases: Array<[pattern: string, flags: Record<string, boolean>, text: string, expected: string[]]> = [
    // \w and \b are Unicode-aware in Python: "café" is one word, "é" is not a boundary.
    [String.raw`\b[a-z]+\b`, {}, "café au lait", ["au", "lait"]],
    [String.raw`\w+`, {}, "naïve 東京 x_1", ["naïve", "東京", "x_1"]],
    // `$` also matches before a final newline; with MULTILINE `^`/`$` break only at \n.
    ["end$", {}, "the end\n", ["end"]],
    ["^a.*$", { multiline: true }, "ab\r\nac", ["ab\r", "ac"]],
    // `.` crosses \r and U+2028 (JavaScript's does not), but never \n.
    ["a.b", {}, "a\rb a\u2028b a\nb", ["a\rb", "a\u2028b"]],
    // `{,2}` is a quantifier in Python; a lone `{` is a literal.
    ["x{,2}y", {}, "xxy y", ["xxy", "y"]],
    ["a{b", {}, "a{b", ["a{b"]],
    // Named groups, comments, leading inline flags and escaped punctuation.
    [String.raw`(?i)(?P<w>ab)(?#note)(?P=w)`, {}, "ABab", ["ABab"]],
    [String.raw`\'\-\"\<`, {}, `'-"<`, [`'-"<`]],
    [String.raw`[^\w\s]`, {}, "a-b c!", ["-", "!"]],
    [String.raw`\s+`, {}, "a\u0085b\ufeffc", ["\u0085"]],
    // \S and \W inside a class beside other items: `[\s\S]` is any character; negated, neither.
    [String.raw`<[\s\S]*?>`, {}, "<a\nb> <c>", ["<a\nb>", "<c>"]],
    [String.raw`[a\W]+`, {}, "ab-c!é", ["a", "-", "!"]],
    [String.raw`[^\S\n]+`, {}, "a \t\nb\u00a0c", [" \t", "\u00a0"]],
  ];
  for (const [pattern, flags, text, expected] of cases) {
    it(`${pattern} on ${JSON.stringify(text)}`, () => {
      expect(pyFinditer(pattern, text, flags).map((m) => m[0])).toEqual(expected);
    });
  }
  it("rejects what Python rejects, so the caller can treat it as an invalid pattern", () => {
    for (const bad of ["c++", "(ps", "[a-", String.raw`\q`]) expect(() => pyCompile(bad)).toThrow();
  });
});

describe("Python str semantics (pystr)", () => {
  it("strips and splits on Python's whitespace", () => {
    expect(pyStrip("\u0085 x \x1c")).toBe("x");
    expect(pyStrip("\ufeffx")).toBe("\ufeffx");
    expect(pySplit(" a\tb\u3000c ")).toEqual(["a", "b", "c"]);
    expect(pySplit("   ")).toEqual([]);
  });
  it("isupper/islower need a cased character", () => {
    expect([pyIsUpper("ABC 1"), pyIsUpper("123"), pyIsUpper("Abc"), pyIsUpper("ǅ")]).toEqual([true, false, false, false]);
    expect([pyIsLower("abc 1"), pyIsLower("123"), pyIsLower("aBc")]).toEqual([true, false, false]);
  });
  it("slices and indexes by code point, with negative indices", () => {
    expect(pySlice("😀ab", 0, 1)).toBe("😀");
    expect(pySlice("hello", -3, -1)).toBe("ll");
    expect(pyIndex(["a", "b"], -1)).toBe("b");
    expect(() => pyIndex(["a"], 3)).toThrow();
  });
});
