// xlam_fc's call matching, as NVIDIA-NeMo/Gym 07d6b0d resources_servers/xlam_fc does it: the model's
// function calls are read in order, their argument strings decoded with Python's `json.loads` rules (a
// string that does not decode counts as no arguments), and each expected call takes the first unused
// predicted call with the same name whose arguments hold every expected key at a value Python's `==`
// finds equal (extra predicted keys are allowed). The reward is 1 only when every expected call was
// taken and nothing else was called.
import { parsePyJson, pyEquals, PyJsonError, type PyValue } from "../../verifiers/code/python_values.js";

/** One function call, its arguments already decoded (a dict, or whatever the JSON text held). */
export interface Call {
  name: unknown;
  arguments: PyValue;
}

/** A value the request body carried, as Python would hold it after `json.loads` of the same text. */
export function pyValueOf(value: unknown): PyValue {
  if (value === null || value === undefined) return { k: "none" };
  if (typeof value === "boolean") return { k: "bool", v: value };
  if (typeof value === "number") return Number.isInteger(value) && Number.isSafeInteger(value) ? { k: "int", v: BigInt(value) } : { k: "float", v: value };
  if (typeof value === "string") return { k: "str", v: value };
  if (Array.isArray(value)) return { k: "list", v: value.map(pyValueOf) };
  return { k: "dict", v: new Map(Object.entries(value as Record<string, unknown>).map(([key, v]) => [key, pyValueOf(v)])) };
}

/** A Python value back as JSON-ready JavaScript (for the `predicted_calls` the reply carries). */
export function jsOf(value: PyValue): unknown {
  switch (value.k) {
    case "none":
      return null;
    case "bool":
    case "str":
    case "float":
      return value.v;
    case "int":
      return Number(value.v);
    case "list":
      return value.v.map(jsOf);
    case "dict":
      return Object.fromEntries([...value.v].map(([key, v]) => [key, jsOf(v)]));
  }
}

const EMPTY: PyValue = { k: "dict", v: new Map() };

/** A call's arguments: a JSON string is decoded (undecodable → `{}`), an object kept, anything else `{}`. */
export function normalizeArguments(args: unknown): PyValue {
  if (typeof args === "string") {
    try {
      return parsePyJson(args);
    } catch (error) {
      if (error instanceof PyJsonError) return EMPTY;
      throw error;
    }
  }
  if (args !== null && typeof args === "object" && !Array.isArray(args)) return pyValueOf(args);
  return EMPTY;
}

/** Raised where Python would raise (a non-dict argument value being indexed by key): the request fails. */
export class ArgumentsTypeError extends Error {
  override name = "ArgumentsTypeError";
}

/** Python's `key in container` for a decoded non-dict value; raises where Python raises TypeError. */
function contains(container: PyValue, key: string): boolean {
  switch (container.k) {
    case "dict":
      return container.v.has(key);
    case "list":
      return container.v.some((item) => item.k === "str" && item.v === key);
    case "str":
      return container.v.includes(key);
    default:
      throw new ArgumentsTypeError(`argument of type '${container.k === "none" ? "NoneType" : container.k}' is not iterable`);
  }
}

export function callsMatch(predicted: Call, expected: Call): boolean {
  // Python compares names with `!=` on whatever the rows hold (normally strings).
  if (!pyEquals(pyValueOf(predicted.name), pyValueOf(expected.name))) return false;
  const want = expected.arguments;
  if (want.k !== "dict") throw new ArgumentsTypeError(`expected arguments are a ${want.k}, not an object`);
  const got = predicted.arguments;
  for (const [key, value] of want.v) {
    if (!contains(got, key)) return false;
    // Found in a list or a string: Python then indexes it with a string key and raises.
    if (got.k !== "dict") throw new ArgumentsTypeError(`${got.k} indices must be integers or slices, not str`);
    if (!pyEquals(got.v.get(key)!, value)) return false;
  }
  return true;
}

export interface Score {
  reward: number;
  numCorrect: number;
}

/** Greedy, in expected order: each expected call takes the first still-unused predicted call that matches. */
export function score(predicted: Call[], expected: Call[]): Score {
  if (expected.length === 0) return { reward: predicted.length === 0 ? 1.0 : 0.0, numCorrect: 0 };
  const used = new Set<number>();
  let numCorrect = 0;
  for (const want of expected) {
    const index = predicted.findIndex((call, i) => !used.has(i) && callsMatch(call, want));
    if (index >= 0) {
      used.add(index);
      numCorrect++;
    }
  }
  return { reward: numCorrect === expected.length && expected.length === predicted.length ? 1.0 : 0.0, numCorrect };
}
