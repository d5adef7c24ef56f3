// Length and paragraph instructions: sentences (Punkt), words (`\w+`), paragraphs split on `***`
// dividers or blank lines, and IFEvalG's fixed-shape paragraph/composition checks.
import { countSentences, countWords, splitIntoSentences } from "../text/ifeval_util.js";
import { pyReSplit } from "../text/pyregex.js";
import { pyIndex, pySplit, pyStrip } from "../text/pystr.js";
import { wordTokenize } from "../text/word_tokenize.js";
import { compare, instruction, intArg, numberArg, relationArg, stringArg } from "./instruction.js";

const DIVIDER = String.raw`\s?\*\*\*\s?`;

/**
 * Paragraphs between separators: an empty first or last piece is not counted, an empty piece in the
 * middle fails the instruction (returns undefined).
 */
function countParagraphs(text: string, separator: string): number | undefined {
  const pieces = pyReSplit(separator, text);
  let count = pieces.length;
  for (let i = 0; i < pieces.length; i++) {
    if (pyStrip(pieces[i] ?? "") === "") {
      if (i === 0 || i === pieces.length - 1) count--;
      else return undefined;
    }
  }
  return count;
}

function exactParagraphs(separator: string, n: number): (text: string) => boolean {
  return (text) => countParagraphs(text, separator) === n;
}

export const LENGTH_INSTRUCTIONS = {
  "length_constraints:number_sentences": instruction(["num_sentences", "relation"], (kw) => {
    const n = numberArg(kw, "num_sentences");
    const relation = relationArg(kw, "relation");
    return (text) => compare(countSentences(text), relation, n);
  }),
  "length_constraints:number_words": instruction(["num_words", "relation"], (kw) => {
    const n = numberArg(kw, "num_words");
    const relation = relationArg(kw, "relation");
    return (text) => compare(countWords(text), relation, n);
  }),
  "length_constraints:number_paragraphs": instruction(["num_paragraphs"], (kw) => exactParagraphs(DIVIDER, numberArg(kw, "num_paragraphs"))),
  "paragraphs:paragraphs": instruction([], () => exactParagraphs(DIVIDER, 2)),
  "paragraphs:paragraphs2": instruction([], () => exactParagraphs(String.raw`\n\n`, 2)),
  "length_constraints:nth_paragraph_first_word": instruction(["num_paragraphs", "nth_paragraph", "first_word"], (kw) => {
    const numParagraphs = numberArg(kw, "num_paragraphs");
    const nth = intArg(kw, "nth_paragraph");
    const expected = stringArg(kw, "first_word").toLowerCase();
    return (text) => {
      // Exactly "\n\n" (a regex split in IFEval, but a plain string has the same pieces).
      const paragraphs = text.split("\n\n");
      const count = paragraphs.filter((p) => pyStrip(p) !== "").length;
      if (nth > count) return false;
      // `paragraphs[nth - 1]`: raw index, so nth = 0 reads the last piece, as in Python.
      const paragraph = pyStrip(pyIndex(paragraphs, nth - 1));
      if (paragraph === "") return false;
      let word = pyStrip(pySplit(paragraph)[0]!);
      word = word.replace(/^'+/, "").replace(/^"+/, "");
      let firstWord = "";
      for (const ch of word) {
        if (".,?!'\"".includes(ch)) break;
        firstWord += ch.toLowerCase();
      }
      return count === numParagraphs && firstWord === expected;
    };
  }),
  "count:counting_composition": instruction(["n_sent", "n_words"], (kw) => {
    const nSent = numberArg(kw, "n_sent");
    const nWords = numberArg(kw, "n_words");
    return (text) => {
      const pieces = pyReSplit(DIVIDER, text).map((p) => p ?? "");
      let count = pieces.length;
      for (let i = 0; i < pieces.length; i++) {
        const piece = pieces[i]!;
        if (pyStrip(piece) === "") {
          if (i === 0 || i === pieces.length - 1) count--;
          else return false;
        }
        // Every piece is checked, an empty edge piece included (it has no sentences).
        const sentences = splitIntoSentences(piece);
        if (sentences.length !== nSent) return false;
        if (sentences.some((sentence) => wordTokenize(sentence).length !== nWords)) return false;
      }
      return count === 3;
    };
  }),
};
