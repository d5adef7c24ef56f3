// Every instruction id NeMo Gym's instruction_following environment knows (IFEval's registry plus
// the verifiable_instructions / IFEvalG extensions), by family.
import { COPY_INSTRUCTIONS } from "./copy.js";
import { FORMAT_INSTRUCTIONS } from "./format.js";
import type { Instruction } from "./instruction.js";
import { KEYWORD_INSTRUCTIONS } from "./keywords.js";
import { LANGUAGE_INSTRUCTIONS } from "./language.js";
import { LENGTH_INSTRUCTIONS } from "./length.js";
import { WORD_INSTRUCTIONS } from "./words.js";

export const INSTRUCTIONS: Readonly<Record<string, Instruction>> = {
  ...KEYWORD_INSTRUCTIONS,
  ...LANGUAGE_INSTRUCTIONS,
  ...LENGTH_INSTRUCTIONS,
  ...FORMAT_INSTRUCTIONS,
  ...COPY_INSTRUCTIONS,
  ...WORD_INSTRUCTIONS,
};
