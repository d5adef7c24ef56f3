// Language and letter-case instructions. Language detection is the langdetect port; a text it
// cannot classify (no letters) counts as followed, as IFEval's `except LangDetectException: True`.
import { detect, LangDetectError } from "../text/langdetect/detector.js";
import { pyIsLower, pyIsUpper } from "../text/pystr.js";
import { wordTokenize } from "../text/word_tokenize.js";
import { compare, instruction, numberArg, relationArg, stringArg } from "./instruction.js";

/** Runs `test`; a detector failure means "followed". */
function detectorFailureIsTrue(test: () => boolean): boolean {
  try {
    return test();
  } catch (error) {
    if (error instanceof LangDetectError) return true;
    throw error;
  }
}

export const LANGUAGE_INSTRUCTIONS = {
  "language:response_language": instruction(["language"], (kw) => {
    const language = stringArg(kw, "language");
    return (text) => detectorFailureIsTrue(() => detect(text) === language);
  }),
  "change_case:english_capital": instruction([], () => (text) => detectorFailureIsTrue(() => pyIsUpper(text) && detect(text) === "en")),
  "change_case:english_lowercase": instruction([], () => (text) => detectorFailureIsTrue(() => pyIsLower(text) && detect(text) === "en")),
  "change_case:capital_word_frequency": instruction(["capital_frequency", "capital_relation"], (kw) => {
    const n = numberArg(kw, "capital_frequency");
    const relation = relationArg(kw, "capital_relation");
    return (text) => compare(wordTokenize(text).filter((word) => pyIsUpper(word)).length, relation, n);
  }),
};
