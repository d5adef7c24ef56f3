// Copying instructions: repeat the prompt (whole, a character span, several times) or a phrase
// with one word changed.
import { pyFindall } from "../text/pyregex.js";
import { pySlice, pySplit, pyStrip } from "../text/pystr.js";
import { instruction, intArg, numberArg, stringArg } from "./instruction.js";

const same = (a: string, b: string) => pyStrip(a).toLowerCase() === pyStrip(b).toLowerCase();

const copyPrompt = instruction(["prompt_to_repeat"], (kw) => {
  const prompt = stringArg(kw, "prompt_to_repeat");
  return (text) => same(text, prompt);
});

export const COPY_INSTRUCTIONS = {
  "copy:copy": copyPrompt,
  "copy:copying_simple": copyPrompt,
  "copy:copying_multiple": instruction(["prompt_to_repeat", "N"], (kw) => {
    const prompt = stringArg(kw, "prompt_to_repeat");
    const n = numberArg(kw, "N");
    return (text) => {
      const copies = text.split("******");
      return copies.length === n && copies.every((copy) => same(copy, prompt));
    };
  }),
  "new:copy_span_idx": instruction(["prompt_to_repeat", "n_start", "n_end"], (kw) => {
    const prompt = stringArg(kw, "prompt_to_repeat");
    // Character (code point) indices, end exclusive: `prompt[n_start:n_end]`.
    const span = pySlice(prompt, intArg(kw, "n_start"), intArg(kw, "n_end"));
    return (text) => same(text, span);
  }),
  "copy:repeat_phrase": instruction(["phrase", "small_n"], (kw) => {
    const phrase = pyStrip(stringArg(kw, "phrase"));
    const smallN = numberArg(kw, "small_n");
    const reference = pySplit(phrase);
    return (text) => {
      // The first and last words are used as raw regex text, as in the reference.
      const found = pyFindall(`${reference[0]} .*? ${reference[reference.length - 1]}`, text) as string[];
      if (found.length !== smallN) return false;
      // Python reads `differences` after the loop: with no match it is unbound (NameError).
      if (found.length === 0) throw new Error("name 'differences' is not defined");
      let differences = 0;
      for (const match of found) {
        const words = pySplit(match);
        differences = 0;
        if (words.length !== reference.length) return false;
        for (let i = 0; i < words.length; i++) {
          if (words[i] !== reference[i] && ++differences > 1) return false;
        }
      }
      return differences === 1;
    };
  }),
};
