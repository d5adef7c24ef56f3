// Keyword instructions. Keywords are used as raw Python regexes (never escaped), case-insensitively
// unless stated, exactly as IFEval does, so "C++" is an invalid pattern and the instruction fails.
import { pyFindall, pySearch } from "../text/pyregex.js";
import { pyIndex, pyLen, pyReverse, pySplit, pyStrip } from "../text/pystr.js";
import { wordTokenize } from "../text/word_tokenize.js";
import { splitIntoSentences } from "../text/ifeval_util.js";
import { compare, InstructionArgumentError, instruction, intArg, numberArg, relationArg, stringArg, stringListArg, type Kwargs } from "./instruction.js";

const CI = { ignoreCase: true };

function countMatches(keyword: string, text: string): number {
  return pyFindall(keyword, text, CI).length;
}

/** keywords:frequency and keywords:word_count_different_numbers share IFEval's KeywordFrequencyChecker. */
const keywordFrequency = instruction(["keyword", "frequency", "relation"], (kw) => {
  const keyword = pyStrip(stringArg(kw, "keyword"));
  const frequency = numberArg(kw, "frequency");
  const relation = relationArg(kw, "relation");
  return (text) => compare(countMatches(keyword, text), relation, frequency);
});

/** keywords:letter_frequency and letters:letter_counting2: one ASCII letter, counted in the lower-cased text. */
export const letterFrequency = instruction(["letter", "let_frequency", "let_relation"], (kw) => {
  const raw = stringArg(kw, "letter");
  const code = raw.toLowerCase().codePointAt(0)!;
  // IFEval replaces anything but a single ASCII letter with a random one; we refuse it.
  if (pyLen(raw) > 1 || code < 97 || code > 122) throw new InstructionArgumentError(`letter must be one ASCII letter, got ${JSON.stringify(raw)}`);
  const letter = pyStrip(raw).toLowerCase();
  const frequency = numberArg(kw, "let_frequency");
  const relation = relationArg(kw, "let_relation");
  return (text) => {
    let count = 0;
    for (const ch of text.toLowerCase()) if (ch === letter) count++;
    return compare(count, relation, frequency);
  };
});

export const KEYWORD_INSTRUCTIONS = {
  "keywords:existence": instruction(["keywords"], (kw) => {
    const keywords = [...stringListArg(kw, "keywords")].sort();
    return (text) => keywords.every((keyword) => pySearch(keyword, text, CI) !== null);
  }),
  "keywords:frequency": keywordFrequency,
  "keywords:word_count_different_numbers": keywordFrequency,
  "keywords:forbidden_words": instruction(["forbidden_words"], (kw) => {
    const words = [...new Set(stringListArg(kw, "forbidden_words"))];
    return (text) => !words.some((word) => pySearch(String.raw`\b` + word + String.raw`\b`, text, CI) !== null);
  }),
  "keywords:letter_frequency": letterFrequency,
  "keywords:word_once": instruction(["keyword"], (kw) => {
    const keyword = pyStrip(stringArg(kw, "keyword"));
    return (text) => countMatches(keyword, text) === 1;
  }),
  "keywords:exclude_word_harder": instruction(["keyword"], (kw) => {
    const keyword = pyStrip(stringArg(kw, "keyword"));
    // Space-delimited and case-sensitive: "word," or "Word" do not count.
    return (text) => !text.includes(` ${keyword} `);
  }),
  "keywords:no_adjacent_consecutive": instruction([], () => (text) => {
    const words = pySplit(text);
    for (let i = 0; i + 1 < words.length; i++) {
      const first = String.fromCodePoint(words[i]!.codePointAt(0)!).toLowerCase();
      const second = String.fromCodePoint(words[i + 1]!.codePointAt(0)!).toLowerCase();
      // `.lower()` can yield two characters (e.g. "İ"); Python then returns False.
      if (pyLen(first) !== 1 || pyLen(second) !== 1) return false;
      // Code points, as `ord`: "1 2" also counts as consecutive.
      if (second.codePointAt(0)! - first.codePointAt(0)! === 1) return false;
    }
    return true;
  }),
  "keywords:palindrome": instruction([], () => (text) => pySplit(text).some((word) => word === pyReverse(word))),
  "keywords:keyword_specific_position": instruction(["keyword", "n", "m"], (kw: Kwargs) => {
    const keyword = stringArg(kw, "keyword");
    const n = intArg(kw, "n");
    const m = intArg(kw, "m");
    return (text) => {
      const sentences = splitIntoSentences(text);
      if (sentences.length < n) return false;
      const words = wordTokenize(pyIndex(sentences, n - 1));
      if (words.length < m) return false;
      return pyIndex(words, m - 1) === keyword;
    };
  }),
  "keywords:start_end": instruction([], () => (text) => {
    const words = wordTokenize(text);
    if (words.length < 2) return false;
    return words[0]!.toLowerCase() === words[words.length - 1]!.toLowerCase();
  }),
};
