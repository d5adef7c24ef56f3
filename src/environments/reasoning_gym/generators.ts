// reasoning-gym's generators for the families whose rows come from Python's `random` alone (reasoning-gym
// 0.1.25: arithmetic/gcd.py, lcm.py, count_bits.py, chain_sum.py, products.py,
// algorithmic/base_conversion.py): row `idx` of a dataset
// with seed `seed` draws from `random.Random(seed + idx)` exactly as the library does, so the question,
// answer and metadata equal the library's, integers of any size included (BigInt). Each family's
// config takes the library's field names, defaults and validation.
import { PythonRandom } from "../../verifiers/random/python_random.js";

export type ConfigValue = bigint | boolean;
export interface Row {
  question: string;
  answer: string;
  metadata: Record<string, unknown>;
}
interface Field {
  kind: "int" | "bool";
  default: ConfigValue;
}
interface Family {
  fields: Record<string, Field>;
  validate: (c: Record<string, any>) => string | undefined;
  item: (rng: PythonRandom, idx: number, c: Record<string, any>) => Row;
}

const int = (n: number | bigint): Field => ({ kind: "int", default: BigInt(n) });
const bool = (b: boolean): Field => ({ kind: "bool", default: b });
const range = (lo: bigint, hi: bigint) => [lo, hi];

const gcd = (a: bigint, b: bigint): bigint => {
  let [x, y] = [a < 0n ? -a : a, b < 0n ? -b : b];
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
};
const lcm = (a: bigint, b: bigint): bigint => (a === 0n || b === 0n ? 0n : ((a * b < 0n ? -(a * b) : a * b) / gcd(a, b)));

/** The first of `checks` that fails, as Python's AssertionError message. */
function firstFailing(checks: [boolean, string][]): string | undefined {
  return checks.find(([ok]) => !ok)?.[1];
}

/** gcd and lcm: up to 3 tries for numbers whose result is interesting, else the last try. */
function numbersFamily(name: "gcd" | "lcm", maxValue: number): Family {
  return {
    fields: { min_numbers: int(2), max_numbers: int(2), min_value: int(1), max_value: int(maxValue) },
    validate: (c) => firstFailing([
      [c.min_numbers >= 2n, "min_numbers must be at least 2"],
      [c.max_numbers >= c.min_numbers, "max_numbers must be >= min_numbers"],
      [c.min_value >= 1n, "min_value must be positive"],
      [c.max_value > c.min_value, "max_value must be > min_value"],
    ]),
    item: (rng, idx, c) => {
      let numbers: bigint[] = [];
      let result = 0n;
      for (let attempt = 0; attempt < 3; attempt++) {
        const count = Number(rng.randintBig(c.min_numbers, c.max_numbers));
        numbers = Array.from({ length: count }, () => rng.randintBig(c.min_value, c.max_value));
        result = numbers.reduce(name === "gcd" ? gcd : lcm);
        if (name === "gcd" ? result > 1n : result < numbers.reduce((p, n) => p * n)) break;
      }
      const listed = numbers.join(", ");
      if (name === "gcd") {
        return {
          question: `Find the Greatest Common Divisor (GCD) of these numbers: ${listed}. Give only the GCD as your final answer.`,
          answer: String(result),
          metadata: { source_dataset: "gcd", source_index: idx, numbers, result, num_terms: numbers.length, difficulty: { num_terms: range(c.min_numbers, c.max_numbers), value: range(c.min_value, c.max_value) } },
        };
      }
      return {
        question: `Find the Least Common Multiple (LCM) of these numbers: ${listed}`,
        answer: String(result),
        metadata: { source_dataset: "lcm", source_index: idx, numbers, result, difficulty: { numbers: range(c.min_numbers, c.max_numbers), value: range(c.min_value, c.max_value) } },
      };
    },
  };
}

const termsFields = (maxTerms: number, maxDigits: number) => ({ min_terms: int(2), max_terms: int(maxTerms), min_digits: int(1), max_digits: int(maxDigits), allow_negation: bool(false) });
const termsChecks = (c: Record<string, any>) => firstFailing([
  [c.size > 0n, "size must be positive"],
  [c.min_terms > 0n, "min_terms must be positive"],
  [c.max_terms >= c.min_terms, "max_terms must be >= min_terms"],
  [c.min_digits > 0n, "min_digits must be positive"],
  [c.max_digits >= c.min_digits, "max_digits must be >= min_digits"],
]);

/** base_conversion's digits: `format(v, "x"/"b")` for 16 and 2; otherwise its own loop, which writes 0 as "" (`reversed(...) or [0]` never falls back). */
function inBase(value: bigint, base: bigint): string {
  if (base === 16n) return value.toString(16);
  if (base === 2n) return value.toString(2);
  let out = "";
  for (let n = value; n > 0n; n /= base) {
    const d = Number(n % base);
    out = (d < 10 ? String(d) : String.fromCharCode(97 + d - 10)) + out;
  }
  return out;
}
const baseName = (base: bigint) => (base === 2n ? "binary" : base === 16n ? "hexadecimal" : `base-${base}`);

export const GENERATORS: Record<string, Family> = {
  base_conversion: {
    fields: { min_base: int(2), max_base: int(16), min_value: int(0), max_value: int(1000) },
    validate: (c) => firstFailing([
      [2n <= c.min_base && c.min_base <= 36n, "min_base must be between 2 and 36"],
      [c.min_base <= c.max_base && c.max_base <= 36n, "max_base must be between min_base and 36"],
      [c.min_value >= 0n, "min_value must be non-negative"],
      [c.max_value > c.min_value, "max_value must be > min_value"],
      // The library accepts this and then draws target bases forever, looking for one unlike the source.
      [c.min_base < c.max_base, "min_base must be < max_base (with one base the library's generator never returns)"],
    ]),
    item: (rng, idx, c) => {
      const value = rng.randintBig(c.min_value, c.max_value);
      const sourceBase = rng.randintBig(c.min_base, c.max_base);
      let targetBase = rng.randintBig(c.min_base, c.max_base);
      while (targetBase === sourceBase) targetBase = rng.randintBig(c.min_base, c.max_base);
      const sourceRepr = inBase(value, sourceBase);
      const targetRepr = inBase(value, targetBase);
      return {
        question: `Your task is to convert a number between two different bases.\n\nIf the target base is > 10, use lowercase letters a-z for digits above 9.\n\nNow, convert the ${baseName(sourceBase)} number ${sourceRepr} to ${baseName(targetBase)}\n`,
        answer: targetRepr,
        metadata: { source_dataset: "base_conversion", source_index: idx, decimal_value: value, source_base: sourceBase, target_base: targetBase, source_repr: sourceRepr, target_repr: targetRepr, difficulty: { base: range(c.min_base, c.max_base), value: range(c.min_value, c.max_value) } },
      };
    },
  },
  gcd: numbersFamily("gcd", 1000),
  lcm: numbersFamily("lcm", 100),
  count_bits: {
    fields: { min_n: int(1), max_n: int(2 ** 31 - 1) },
    validate: (c) => firstFailing([[1n <= c.min_n && c.min_n <= c.max_n, "min_n must be between 1 and max_n"]]),
    item: (rng, idx, c) => {
      const number = rng.randintBig(c.min_n, c.max_n);
      const binary = number.toString(2);
      const ones = [...binary].filter((b) => b === "1").length;
      return {
        question: `How many 1 bits are there in the binary representation of the number ${number}?`,
        answer: String(ones),
        metadata: { source_dataset: "count_bits", source_index: idx, number, solution: ones, binary, n: number, difficulty: { n: range(c.min_n, c.max_n) } },
      };
    },
  },
  chain_sum: {
    fields: termsFields(6, 4),
    validate: termsChecks,
    item: (rng, idx, c) => {
      const numTerms = rng.randintBig(c.min_terms, c.max_terms);
      const numDigits = rng.randintBig(c.min_digits, c.max_digits);
      const minValue = numDigits === 1n ? 0n : 10n ** (numDigits - 1n);
      const maxValue = 10n ** numDigits - 1n;
      const constants = Array.from({ length: Number(numTerms) }, () => (c.allow_negation ? rng.randintBig(-maxValue, maxValue) : rng.randintBig(minValue, maxValue)));
      const operators = Array.from({ length: Number(numTerms) - 1 }, () => rng.choice(["+", "-"]));
      let result = constants[0]!;
      const parts = [String(constants[0])];
      operators.forEach((op, i) => {
        const term = constants[i + 1]!;
        parts.push(op, String(term));
        result = op === "+" ? result + term : result - term;
      });
      const expression = parts.join(" ");
      return {
        question: `State the final answer to the following arithmetic problem: ${expression} =`,
        answer: String(result),
        metadata: { source_dataset: "chain_sum", source_index: idx, num_terms: numTerms, num_digits: numDigits, expression, difficulty: { num_terms: range(c.min_terms, c.max_terms), num_digits: range(c.min_digits, c.max_digits) } },
      };
    },
  },
  products: {
    fields: termsFields(2, 5),
    validate: termsChecks,
    item: (rng, idx, c) => {
      const numTerms = rng.randintBig(c.min_terms, c.max_terms);
      const numDigits = rng.randintBig(c.min_digits, c.max_digits);
      const minValue = c.allow_negation ? -1n * 10n ** numDigits + 1n : numDigits === 1n ? 0n : 10n ** (numDigits - 1n);
      const maxValue = 10n ** numDigits - 1n;
      const constants = Array.from({ length: Number(numTerms) }, () => rng.randintBig(minValue, maxValue));
      const expression = constants.map(String).join(" * ");
      const result = constants.reduce((p, n) => p * n);
      return {
        question: `Solve the following multiplication: ${expression}. Give only the result as your final answer.`,
        answer: String(result),
        metadata: { source_dataset: "products", source_index: idx, expression, num_terms: numTerms, num_digits: numDigits, difficulty: { num_terms: range(c.min_terms, c.max_terms), num_digits: range(c.min_digits, c.max_digits) } },
      };
    },
  },
};

export const GENERATED_FAMILIES = Object.keys(GENERATORS).sort();

export class DatasetConfigError extends Error {}

/**
 * `reasoning_gym.create_dataset(task, size=, seed=, **config)`: the config checked as the library's
 * dataclass and validate() do (an unknown key, a wrong type, a failed assertion is an error naming it),
 * then a function from index to row.
 */
export function createDataset(task: string, size: number, seed: number, config: Record<string, unknown>): (idx: number) => Row {
  const family = GENERATORS[task];
  if (!family) throw new DatasetConfigError(`no Gymkit generator for task "${task}" (generated: ${GENERATED_FAMILIES.join(", ")}); make its rows with NeMo Gym's create_dataset.py`);
  const c: Record<string, ConfigValue> = { size: BigInt(size), seed: BigInt(seed) };
  for (const [key, field] of Object.entries(family.fields)) c[key] = field.default;
  for (const [key, value] of Object.entries(config)) {
    if (key === "size" || key === "seed") continue; // create_dataset.py sets both from its flags
    const field = family.fields[key];
    if (!field) throw new DatasetConfigError(`${task} config has no key "${key}" (keys: ${Object.keys(family.fields).join(", ")})`);
    if (field.kind === "bool") {
      if (typeof value !== "boolean") throw new DatasetConfigError(`${task} config "${key}" must be true or false, not ${JSON.stringify(value)}`);
      c[key] = value;
    } else {
      if (typeof value === "bigint") c[key] = value;
      else if (typeof value === "number" && Number.isSafeInteger(value)) c[key] = BigInt(value);
      else throw new DatasetConfigError(`${task} config "${key}" must be an integer, not ${JSON.stringify(String(value))}`);
    }
  }
  const failed = family.validate(c);
  if (failed) throw new DatasetConfigError(`${task} config: ${failed}`);
  return (idx) => family.item(new PythonRandom(seed + idx), idx, c);
}

/** NeMo Gym's format_entry_to_nemo_gym: the prompt, the entry's fields, the agent that runs it. */
export function nemoGymRow(entry: Row): Record<string, unknown> {
  return {
    responses_create_params: { input: [{ role: "user", content: entry.question }] },
    ...entry,
    agent_ref: { type: "responses_api_agents", name: "reasoning_gym_simple_agent" },
  };
}
