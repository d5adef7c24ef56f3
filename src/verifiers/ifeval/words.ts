// First/last-word and counting instructions from IFEvalG (open-instruct's IFEval extension).
import { splitIntoSentences } from "../text/ifeval_util.js";
import { pyFindall, pySub } from "../text/pyregex.js";
import { pySplit, pyStrip } from "../text/pystr.js";
import { wordTokenize } from "../text/word_tokenize.js";
import { compare, InstructionArgumentError, instruction, numberArg, relationArg, stringArg, type Kwargs } from "./instruction.js";
import { letterFrequency } from "./keywords.js";

/** `first_word` may be a string or a list whose first item is used (IFEvalG accepts both). */
function firstWordArg(kw: Kwargs): string {
  const value = kw.first_word;
  const word = Array.isArray(value) ? value[0] : value;
  if (typeof word !== "string" || word === "") throw new InstructionArgumentError("first_word must be a non-empty string");
  return pyStrip(word).toLowerCase();
}

/** Last whitespace token with every character that is neither a word character nor space removed. */
function bareLastWord(text: string): string {
  const words = pySplit(text);
  if (words.length === 0) throw new RangeError("list index out of range");
  return pySub(String.raw`[^\w\s]`, () => "", pyStrip(words[words.length - 1]!)).toLowerCase();
}

export const WORD_INSTRUCTIONS = {
  "first_word:first_word_sent": instruction(["first_word"], (kw) => {
    const first = firstWordArg(kw);
    return (text) =>
      splitIntoSentences(text).every((sentence) => pyStrip(sentence) !== "" && pyStrip(pySplit(sentence)[0]!).toLowerCase() === first);
  }),
  "first_word:first_word_answer": instruction(["first_word"], (kw) => {
    const first = firstWordArg(kw);
    return (text) => {
      const words = pySplit(text);
      return words.length > 0 && pyStrip(words[0]!).toLowerCase() === first;
    };
  }),
  "last_word:last_word_sent": instruction(["last_word"], (kw) => {
    const last = pyStrip(stringArg(kw, "last_word")).toLowerCase();
    return (text) => splitIntoSentences(text).every((sentence) => pyStrip(sentence) !== "" && bareLastWord(sentence) === last);
  }),
  "last_word:last_word_answer": instruction(["last_word"], (kw) => {
    const last = pyStrip(stringArg(kw, "last_word")).toLowerCase();
    // Empty text: `value.split()[-1]` raises in Python, so the instruction fails.
    return (text) => bareLastWord(text) === last;
  }),
  "count:lowercase_counting": instruction(["N"], (kw) => {
    const n = numberArg(kw, "N");
    return (text) => pyFindall(String.raw`\b[a-z]+\b`, text).length <= n;
  }),
  "letters:letter_counting": instruction(["N", "relation"], (kw) => {
    const n = numberArg(kw, "N");
    const relation = relationArg(kw, "relation");
    return (text) => compare(pyFindall("[a-zA-Z]", text).length, relation, n);
  }),
  "letters:letter_counting2": letterFrequency,
  "count:count_unique": instruction([], () => (text) => {
    const words = wordTokenize(text);
    return new Set(words).size === words.length;
  }),
  "count:count_increment_word": instruction(["keyword1", "keyword2"], (kw) => {
    const keyword1 = pyStrip(stringArg(kw, "keyword1"));
    const keyword2 = pyStrip(stringArg(kw, "keyword2"));
    return (text) =>
      pyFindall(keyword1, text, { ignoreCase: true }).length === 1 && pyFindall(keyword2, text, { ignoreCase: true }).length === 2;
  }),
};
