// reasoning-gym's `score_answer` per task family (reasoning-gym 0.1.25, tag v0.1.25 of
// open-thought/reasoning-gym, the newest release NeMo Gym's `reasoning-gym>=0.1.19` installs), as NeMo
// Gym's verify calls it: `get_score_answer_fn(task)` (the family's dataset with its default config) on
// `entry = {question, answer, metadata}` of the row, and 0.0 wherever the library raises (NeMo Gym
// catches every exception). Each family either keeps the library's base scorer (ProceduralDataset's:
// exact 1.0, else the oracle inside the answer scores len(oracle)/len(answer)) or has its own scorer
// ported below. Families whose scorer evaluates text as Python (`eval`), runs numpy or sympy, or needs a
// package the library vendors (magiccube, pycosat, bfi, …) are not here: see UNSUPPORTED.
import { pySplit, pyStrip, PY_WS } from "./python_text.js";
import { decimalEquals, decimalToSignificant, decimalWithin, parseDecimal, pyFloat, pyInt, pyLen, scaledEqual } from "./python_numbers.js";
import { scoreKnightsKnaves } from "./knights_knaves.js";

export interface Entry {
  question: string;
  answer: string | null;
  metadata: Record<string, unknown>;
}
/** score_answer(answer, entry): the answer is NeMo Gym's extracted text (always a string). */
export type Scorer = (answer: string, entry: Entry) => number;

/** ProceduralDataset.score_answer. A missing oracle answer raises in Python (`None in str`): 0.0. */
export const baseScore: Scorer = (answer, entry) => {
  const oracle = entry.answer;
  if (answer.length === 0) return 0.0;
  if (answer === oracle) return 1.0;
  if (typeof oracle !== "string") return 0.0;
  if (answer.includes(oracle)) return pyLen(oracle) / pyLen(answer);
  return 0.0;
};

/** utils.compute_decimal_reward(answer, oracle, strip_commas=True). */
function decimalReward(answer: string, oracle: string | null): number {
  if (answer.length === 0) return 0.0;
  if (typeof oracle !== "string") return 0.0; // oracle.replace raises, then `None in answer` raises
  const a = answer.replaceAll(",", "");
  const o = oracle.replaceAll(",", "");
  const da = parseDecimal(a);
  const dO = parseDecimal(o);
  if (da && dO && decimalEquals(da, dO) === true) return 1.0;
  if (a.includes(o)) return pyLen(o) / pyLen(a);
  return 0.0;
}

/** Families that keep the library's base scorer (their dataset class does not override score_answer). */
export const BASE_SCORER_FAMILIES = [
  "acre", "aiw", "arc_1d", "base_conversion", "basic_arithmetic", "bf", "binary_alternation", "caesar_cipher", "count_bits",
  "count_primes", "course_schedule", "gcd", "isomorphic_strings", "largest_island", "lcm", "leg_counting", "letter_counting",
  "list_functions", "mahjong_puzzle", "maze", "modulo_grid", "number_filtering", "number_sequence", "ransom_note", "rotate_matrix",
  "rotten_oranges", "simple_equations", "simple_geometry", "string_manipulation", "string_splitting", "string_synthesis", "syllogism",
  "word_sequence_reversal",
] as const;

const lower = (s: string) => s.toLowerCase();

// gsm_symbolic: re.search(r"\b-?\d+(?:\.\d+)?\b") with Python's Unicode \d and \b (\w = letters, digits, _).
const WORD = "[\\p{L}\\p{N}_]";
export const GSM_NUMBER = new RegExp(`(?:(?<!${WORD})(?=${WORD})|(?<=${WORD})(?!${WORD}))-?\\p{Nd}+(?:\\.\\p{Nd}+)?(?:(?<!${WORD})(?=${WORD})|(?<=${WORD})(?!${WORD}))`, "u");

// fraction_simplification: re.match(r"\\(?:frac|dfrac)\s*{\s*(\d+)\s*}\s*{\s*(\d+)\s*}", re.IGNORECASE)
const LATEX_FRACTION = new RegExp(`^\\\\(?:frac|dfrac)${PY_WS}*\\{${PY_WS}*(\\p{Nd}+)${PY_WS}*\\}${PY_WS}*\\{${PY_WS}*(\\p{Nd}+)${PY_WS}*\\}`, "iu");
const COMMA_SPACES = new RegExp(`,${PY_WS}*`);

/** Python's str.strip(chars) for one character. */
function stripChar(text: string, ch: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === ch) start++;
  while (end > start && text[end - 1] === ch) end--;
  return text.slice(start, end);
}

/** A JSON number of the row's metadata equal to a Python int (the library compares int == metadata value). */
function intEquals(value: bigint, meta: unknown): boolean {
  return typeof meta === "number" && Number.isInteger(meta) && BigInt(meta) === value;
}

const OVERRIDES: Record<string, Scorer> = {
  knights_knaves: (answer, entry) => scoreKnightsKnaves(answer, entry.answer),
  chain_sum: (answer, entry) => decimalReward(answer, entry.answer),
  products: (answer, entry) => decimalReward(answer, entry.answer),
  decimal_chain_sum: (answer, entry) => {
    if (pyStrip(answer).length === 0 || typeof entry.answer !== "string") return 0.0;
    const a = parseDecimal(pyStrip(answer));
    const o = parseDecimal(entry.answer);
    return a && o && decimalEquals(a, o) === true ? 1.0 : 0.0;
  },
  // Within one unit of the default config's max_num_decimal_places (3).
  decimal_arithmetic: (answer, entry) => {
    if (typeof entry.answer !== "string") return 0.0;
    const a = parseDecimal(answer);
    const o = parseDecimal(entry.answer);
    return a && o && decimalWithin(a, o, 3) === true ? 1.0 : 0.0;
  },
  // Equal to 3 significant figures → 1.0, anything else (unreadable too) 0.01.
  power_function: (answer, entry) => {
    if (typeof entry.answer !== "string") return 0.01;
    const a = parseDecimal(answer);
    const o = parseDecimal(entry.answer);
    if (!a || !o || a.kind !== "finite" || o.kind !== "finite") return 0.01; // NaN ≠ NaN; quantizing an infinity raises
    const aZero = a.coeff === 0n;
    const oZero = o.coeff === 0n;
    if (aZero || oZero) return aZero && oZero ? 1.0 : 0.01; // a zero becomes the str "0.00", equal only to itself
    return scaledEqual(decimalToSignificant(a, 3), decimalToSignificant(o, 3)) ? 1.0 : 0.01;
  },
  number_format: (answer, entry) => {
    const solution = entry.metadata.solution;
    if (answer.length === 0) return 0.0;
    const value = pyFloat(pyStrip(answer).replaceAll(",", ""));
    if (value === undefined || typeof solution !== "number") return 0.0;
    return Math.abs(value - solution) < 1e-2 ? 1.0 : 0.0;
  },
  gsm_symbolic: (answer, entry) => {
    const match = GSM_NUMBER.exec(answer);
    if (!match) return 0.0;
    const value = pyFloat(match[0]);
    const expected = typeof entry.answer === "string" ? pyFloat(entry.answer) : undefined;
    if (value === undefined || expected === undefined) return 0.0;
    return value === expected ? 1.0 : 0.01;
  },
  dice: (answer, entry) => {
    if (typeof entry.answer !== "string") return 0.0;
    return lower(answer).replaceAll("\n", "") === lower(entry.answer).replaceAll("\n", "") ? 1.0 : 0.0;
  },
  family_relationships: (answer, entry) => {
    if (typeof entry.answer !== "string") return 0.0;
    return lower(pyStrip(answer)) === lower(pyStrip(entry.answer)) ? 1.0 : 0.0;
  },
  circuit_logic: (answer, entry) => {
    if (answer.length === 0) return 0.0;
    if (entry.answer === answer) return 1.0;
    if (entry.answer === pyStrip(answer)) return pyLen(entry.answer) / pyLen(answer);
    return 0.0;
  },
  path_star: (answer, entry) => {
    if (pyStrip(answer).length === 0 || typeof entry.answer !== "string") return 0.0;
    return pySplit(answer).join(" ") === pySplit(entry.answer).join(" ") ? 1.0 : 0.0;
  },
  // Per-position credit over code points; a full positional match that is not equal (a longer answer) scores 0.8.
  spell_backward: (answer, entry) => {
    if (typeof entry.answer !== "string") return 0.0;
    const expected = Array.from(lower(entry.answer));
    const given = Array.from(lower(answer));
    if (expected.join("") === given.join("")) return 1.0;
    let reward = 0.0;
    for (let i = 0; i < expected.length; i++) {
      if (i >= given.length) break;
      if (expected[i] === given[i]) reward += 1 / expected.length;
    }
    if (reward === 1.0) reward -= 0.2;
    return reward;
  },
  word_sorting: (answer, entry) => {
    const oracle = entry.metadata.sorted_words;
    if (answer.length === 0) return 0.0;
    if (!Array.isArray(oracle)) return 0.0;
    const parsed = answer.split(COMMA_SPACES).map(pyStrip);
    if (parsed.length === oracle.length && parsed.every((w, i) => w === oracle[i])) return 1.0;
    if (oracle.length === 0) return 0.0; // ZeroDivisionError
    const correct = parsed.filter((w, i) => i < oracle.length && w === oracle[i]).length;
    let partial = correct / oracle.length;
    const sortedA = [...parsed].sort();
    const sortedO = [...oracle].map(String).sort();
    if (oracle.every((w) => typeof w === "string") && sortedA.length === sortedO.length && sortedA.every((w, i) => w === sortedO[i])) partial = Math.max(partial, 0.2);
    return partial;
  },
  prime_factorization: (answer, entry) => {
    if (typeof entry.answer !== "string") return 0.0;
    const normalize = (text: string): bigint[] | undefined => {
      if (text.length === 0 || pyStrip(text) === "") return [];
      const out: bigint[] = [];
      for (const factor of text.split("×")) {
        if (pyStrip(factor) === "") continue;
        const n = pyInt(factor);
        if (n === undefined) return undefined; // int() raises
        out.push(n);
      }
      return out.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    };
    const o = normalize(entry.answer);
    const a = normalize(answer);
    if (!o || !a) return 0.0;
    if (o.length === a.length && o.every((x, i) => x === a[i])) return 1.0;
    const prod = (xs: bigint[]) => xs.reduce((p, x) => p * x, 1n);
    return prod(o) === prod(a) ? 0.5 : 0.01;
  },
  fraction_simplification: (answer, entry) => {
    const m = entry.metadata;
    const cleaned = pyStrip(stripChar(pyStrip(answer), "$"));
    let fraction: [bigint, bigint] | undefined;
    const latex = LATEX_FRACTION.exec(cleaned);
    if (latex) fraction = [pyInt(latex[1]!)!, pyInt(latex[2]!)!];
    else if (cleaned.includes("/")) {
      const cut = cleaned.indexOf("/");
      const n = pyInt(cleaned.slice(0, cut));
      const d = pyInt(cleaned.slice(cut + 1));
      if (n !== undefined && d !== undefined) fraction = [n, d];
    }
    if (!fraction) return 0.01; // _extract_fraction gives None: unpacking it raises, caught as 0.01
    const [numerator, denominator] = fraction;
    if (intEquals(numerator, m.simplified_numerator) && intEquals(denominator, m.simplified_denominator)) return 1.0;
    if (intEquals(numerator, m.numerator) || intEquals(denominator, m.denominator)) return 0.1;
    return pyStrip(answer).length > 0 ? 0.05 : 0.01;
  },
  manipulate_matrix: (answer, entry) => {
    if (typeof entry.answer !== "string") return 0.0;
    const oracle = pyStrip(entry.answer);
    if (answer.length === 0) return 0.0;
    const stripped = pyStrip(answer);
    if (stripped === oracle) return 1.0;
    const rebuilt = pyStrip(stripped.split("\n").map((row) => pySplit(pyStrip(row)).join(" ")).join("\n"));
    if (rebuilt === oracle) return 1.0;
    if (rebuilt.includes(oracle)) return pyLen(oracle) / pyLen(rebuilt);
    return 0.0;
  },
  needle_haystack: (answer, entry) => {
    if (typeof entry.answer !== "string") return 0.0;
    return lower(pyStrip(answer.replaceAll(" ", ""))) === lower(pyStrip(entry.answer)) ? 1.0 : 0.0;
  },
  // answer == str(entry["answer"]): a missing oracle is the text "None".
  self_reference: (answer, entry) => (answer === (entry.answer ?? "None") ? 1.0 : 0.0),
  ab: (answer, entry) => (answer === entry.answer ? 1.0 : 0.0),
  zebra_puzzles: (answer, entry) => {
    if (typeof entry.answer !== "string") return 0.0;
    return lower(answer).replaceAll("\n", "") === lower(entry.answer).replaceAll("\n", "") ? 1.0 : 0.0;
  },
  color_cube_rotation: (answer, entry) => {
    if (typeof entry.answer !== "string") return 0.01;
    return lower(pyStrip(answer)) === lower(pyStrip(entry.answer)) ? 1.0 : 0.01;
  },
  // Word-by-word credit (case-insensitive) when the word counts agree, else 0.05.
  sentence_reordering: (answer, entry) => {
    const expected = entry.answer;
    if (expected === answer) return 1.0;
    if (typeof expected !== "string") return 0.0;
    const goal = pySplit(expected);
    const given = pySplit(answer);
    if (goal.length !== given.length) return 0.05;
    if (goal.length === 0) return 0.0; // ZeroDivisionError, caught
    return goal.filter((word, i) => lower(word) === lower(given[i]!)).length / goal.length;
  },
  // Not a palindrome 0.02; a palindrome of other letters 0.05; the given letters as a palindrome 1.0.
  palindrome_generation: (answer, entry) => {
    if (answer === "") return 0.0;
    const letters = entry.metadata.letters;
    const chars = Array.from(lower(pyStrip(answer)));
    if (chars.join("") !== [...chars].reverse().join("")) return 0.02;
    const expected = typeof letters === "string" ? Array.from(letters) : Array.isArray(letters) ? letters : undefined;
    if (!expected) return 0.0; // sorted() of it raises
    const a = [...chars].sort();
    const b = [...expected].map((x) => (typeof x === "string" ? x : JSON.stringify(x))).sort();
    return a.length === b.length && a.every((x, i) => x === b[i]) ? 1.0 : 0.05;
  },
  // Equal 1.0; same length (code points): the share of equal positions; else 0.01.
  emoji_mystery: (answer, entry) => {
    if (answer === entry.answer) return 1.0;
    if (typeof entry.answer !== "string") return 0.01;
    const a = Array.from(answer);
    const o = Array.from(entry.answer);
    if (a.length !== o.length) return 0.01;
    return a.filter((ch, i) => ch === o[i]).length / a.length;
  },
  // Exact 1.0; off by d < 5: 0.8 × (1 − d/5); unreadable 0.0.
  rectangle_count: (answer, entry) => {
    if (typeof entry.answer !== "string") return 0.0;
    const correct = pyInt(lower(entry.answer).replaceAll("\n", ""));
    const given = pyInt(pyStrip(answer));
    if (correct === undefined || given === undefined) return 0.0;
    const distance = given > correct ? given - correct : correct - given;
    if (distance === 0n) return 1.0;
    if (distance >= 5n) return 0.0;
    return Math.max(0.0, 0.8 * (1.0 - Number(distance) / 5));
  },
};

/** Every supported family → its scorer. */
export const SCORERS: Record<string, Scorer> = {
  ...Object.fromEntries(BASE_SCORER_FAMILIES.map((family) => [family, baseScore])),
  ...OVERRIDES,
};

/** Why a reasoning-gym 0.1.25 family has no scorer here (named in the 400 and the README); any other unknown name is not a reasoning-gym 0.1.25 task. */
export const UNSUPPORTED: Record<string, string> = {
  ...Object.fromEntries(["binary_matrix", "bitwise_arithmetic", "n_queens", "spiral_matrix", "string_insertion"].map((f) => [f, "its scorer evaluates the answer (or the question) as Python with eval()"])),
  ...Object.fromEntries(["pool_matrix", "game_of_life"].map((f) => [f, "its scorer parses the answer with numpy or json into arrays"])),
  ...Object.fromEntries(["advanced_geometry", "complex_arithmetic", "intermediate_integration", "polynomial_equations", "polynomial_multiplication", "simple_integration"].map((f) => [f, "its scorer compares with sympy or Python's float/complex maths"])),
  // NeMo Gym runs Python ≥ 3.13, whose sum() of floats is compensated (3.12+): partial credit summed that way is left out.
  letter_jumble: "its partial credit is Python 3.12+'s compensated sum() of floats",
  ...Object.fromEntries([
    "arc_agi", "boxnet", "calendar_arithmetic", "codeio", "coin_flip", "composite", "countdown", "cryptarithm", "figlet_font", "futoshiki",
    "game_of_life_halting", "graph_color", "group_anagrams", "jugs", "kakurasu", "knight_swap", "mini_sudoku", "number_sorting",
    "palindrome_partitioning", "propositional_logic", "puzzle24", "quantum_lock", "rearc", "rubiks_cube", "rush_hour", "shortest_path",
    "sokoban", "sudoku", "survo", "time_intervals", "tower_of_hanoi", "tsumego", "word_ladder",
  ].map((f) => [f, "its own scorer (a solver, a simulator, a parser of its own) is not ported"])),
};
