// Gymkit's own `strict: true` scoring for reasoning_gym (no NeMo Gym counterpart; the default stays
// reasoning-gym 0.1.25's score_answer, as NeMo Gym 07d6b0d calls it). What the reward-hack audit of one
// row per family (audit.yaml, data/audit.jsonl) finds in the library's scorers, closed:
// - every partial credit and consolation score is gone: a right answer scores 1, anything else 0 (the
//   base scorer's len(oracle)/len(answer) for the oracle inside a longer answer — the negated gold, a
//   list of every integer, the prompt echoed back —, per-letter and per-word credit for a wrong answer,
//   0.01–0.05 for an empty or unreadable one, rectangle_count's credit for a near count);
// - the three scorers that give the full reward to a wrong answer read it exactly: gsm_symbolic keeps a
//   minus sign before the first number (the library's `\b` skips it, so "-70" is 70), decimal_arithmetic
//   wants the decimal value asked for (the library accepts one unit off in the last place), number_format
//   wants the listed number (the library accepts anything within 0.01, and the options are drawn on a
//   0.001 grid);
// - knights_knaves answers must consist of the puzzle's names and roles (knights_knaves.ts).
import { decimalEquals, parseDecimal, pyFloat } from "./python_numbers.js";
import { pyStrip } from "./python_text.js";
import { scoreKnightsKnavesStrict } from "./knights_knaves.js";
import { GSM_NUMBER, SCORERS, type Entry, type Scorer } from "./scorers.js";

const STRICT_OVERRIDES: Record<string, Scorer> = {
  // The library's first number, and a minus sign right before it.
  gsm_symbolic: (answer, entry) => {
    const match = GSM_NUMBER.exec(answer);
    if (!match) return 0.0;
    const signed = !match[0].startsWith("-") && answer[match.index - 1] === "-" ? `-${match[0]}` : match[0];
    const value = pyFloat(signed);
    const expected = typeof entry.answer === "string" ? pyFloat(entry.answer) : undefined;
    return value !== undefined && expected !== undefined && value === expected ? 1.0 : 0.0;
  },
  decimal_arithmetic: (answer, entry) => {
    if (typeof entry.answer !== "string") return 0.0;
    const a = parseDecimal(answer);
    const o = parseDecimal(entry.answer);
    return a && o && decimalEquals(a, o) === true ? 1.0 : 0.0;
  },
  // Within half a unit of the generator's third decimal: the listed number, however it is formatted.
  number_format: (answer, entry) => {
    const solution = entry.metadata.solution;
    if (answer.length === 0 || typeof solution !== "number") return 0.0;
    const value = pyFloat(pyStrip(answer).replaceAll(",", ""));
    return value !== undefined && Math.abs(value - solution) < 5e-4 ? 1.0 : 0.0;
  },
};

/** The reward under `strict: true`: 1 for a right answer, else 0. `names`: knights_knaves' `metadata.names`. */
export function strictScore(task: string, answer: string, entry: Entry, names: readonly string[] | undefined): number {
  const score = task === "knights_knaves" ? scoreKnightsKnavesStrict(answer, entry.answer, names) : (STRICT_OVERRIDES[task] ?? SCORERS[task]!)(answer, entry);
  return score >= 1 ? 1.0 : 0.0;
}
