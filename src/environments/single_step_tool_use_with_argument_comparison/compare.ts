// The action comparator of NVIDIA-NeMo/Gym 07d6b0d resources_servers/
// single_step_tool_use_with_argument_comparison (common/verification_utils.py), reproduced: the reward
// and the category (its enum's text) for an expected action against the model's. Arguments are JSON
// decoded with Python's `json.loads` rules (ints exact and distinct from floats; NaN/Infinity read;
// raw control characters in strings rejected) and compared by type as `isinstance` does (a bool passes
// for an int), floats within a threshold, strings by word-multiset overlap, several calls as an
// unordered set by maximum bipartite matching (Kuhn's algorithm in NeMo Gym's visiting order, which
// decides the category reported for a partial match).
import { parsePyJson, pyEquals, type PyValue } from "../../verifiers/code/python_values.js";
import { pySplit, pyStrip } from "../../verifiers/text/pystr.js";
import { toolCallsOf, type ExpectedAction, type FunctionCallAction } from "./actions.js";

export const Category = {
  NO_ACTION_FOUND: "No tool call or chat message was found in the response",
  NO_EXPECTED_TOOL_CALL: "No tool call was found when one was expected",
  EXPECTED_CHAT_MESSAGE_FOUND: "A chat message was found as expected",
  NO_EXPECTED_CHAT_MESSAGE: "A tool call was executed when a chat message was expected",
  UNEXPECTED_TOOL: "The tool in a tool call is not the expected tool",
  ARGUMENTS_DECODE_ERROR: "An error occurred when decoding the arguments string in a tool call as a JSON object",
  ARGUMENT_VALUE_TYPE_DIFFERENT: "The type of an argument value in a tool call is different than the expected type",
  ARGUMENT_OBJECT_KEYS_DIFFERENT: "The keys in an object in an argument value in a tool call are different than the keys in the expected object",
  ARGUMENT_LIST_LENGTH_DIFFERENT: "A list in an argument value in a tool call has a different length than the expected list",
  ARGUMENT_VALUE_DIFFERENT: "An argument value in a tool call is different than the expected value",
  EXPECTED_TOOL_CALL: "A tool call that matches the expected tool call was found",
  FUNCTION_CALL_BATCH_LENGTH_DIFFERENT: "The number of tool calls in a batch is different than expected",
  EXPECTED_TOOL_CALL_BATCH: "A tool-call batch that matches the expected tool calls was found",
} as const;
export type Category = (typeof Category)[keyof typeof Category];

export const REWARD_MODES = ["binary_strict", "fractional", "f1"] as const;

export interface ComparatorConfig {
  word_count_similarity_threshold: number;
  floating_point_comparison_threshold: number;
  parallel_tool_call_rewarding: boolean;
  allow_subset: boolean;
  allow_superset: boolean;
  parallel_tool_call_reward_mode: (typeof REWARD_MODES)[number];
}

export interface Result {
  reward: number;
  category: Category;
}

/** Python's `json.loads`, which (strict by default) also rejects raw control characters inside strings. */
export function pyJsonLoads(text: string): PyValue {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      else if (c < 0x20) throw new SyntaxError(`Invalid control character at: line 1 column ${i + 1} (char ${i})`);
    } else if (c === 0x22) inString = true;
  }
  return parsePyJson(text);
}

/** `isinstance(actual, type(expected))` for JSON-made values (bool is a subclass of int). */
function sameType(expected: PyValue, actual: PyValue): boolean {
  if (expected.k === "int") return actual.k === "int" || actual.k === "bool";
  return expected.k === actual.k;
}

/** Python's `Counter(words)`. */
function counts(words: string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const word of words) map.set(word, (map.get(word) ?? 0) + 1);
  return map;
}

export class ActionComparator {
  constructor(private readonly config: ComparatorConfig) {}

  compareAction(expected: ExpectedAction, actual: ExpectedAction): Result {
    if (expected.type === "message") {
      // Any chat message earns the reward when one is expected.
      return actual.type === "message" ? { reward: 1.0, category: Category.EXPECTED_CHAT_MESSAGE_FOUND } : { reward: 0.0, category: Category.NO_EXPECTED_CHAT_MESSAGE };
    }
    if (actual.type === "message") return { reward: 0.0, category: Category.NO_EXPECTED_TOOL_CALL };
    return this.compareToolCalls(toolCallsOf(expected), toolCallsOf(actual));
  }

  compareToolCalls(expected: FunctionCallAction[], actual: FunctionCallAction[]): Result {
    const e = expected.length;
    const a = actual.length;
    if (e === 1 && a === 1) return this.compareToolCall(expected[0]!, actual[0]!);
    if (!this.admissible(e, a)) return { reward: 0.0, category: Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT };

    const candidates: number[][] = [];
    const failures: Category[] = [];
    for (const want of expected) {
      const matching: number[] = [];
      let failure: Category = Category.UNEXPECTED_TOOL;
      actual.forEach((got, index) => {
        const result = this.compareToolCall(want, got);
        if (result.reward === 1.0) matching.push(index);
        // The first reason past the tool name: the closest near miss.
        else if (failure === Category.UNEXPECTED_TOOL) failure = result.category;
      });
      candidates.push(matching);
      failures.push(failure);
    }
    const matching = maximumMatching(candidates);
    const reward = this.score(matching.size, e, a);
    if (reward === 1.0) return { reward, category: e === 1 ? Category.EXPECTED_TOOL_CALL : Category.EXPECTED_TOOL_CALL_BATCH };

    const matched = new Set(matching.values());
    const unmatched = [...Array(e).keys()].filter((i) => !matched.has(i));
    // Only surplus or only missing calls left: the count, not an argument, is why the reward fell.
    const category = unmatched.length === 0 || matched.size === a ? Category.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT : failures[unmatched[0]!]!;
    return { reward, category };
  }

  private admissible(expected: number, actual: number): boolean {
    if (actual === expected || !this.config.parallel_tool_call_rewarding) return true;
    return actual < expected ? this.config.allow_subset : this.config.allow_superset;
  }

  private score(matched: number, expected: number, actual: number): number {
    if (!this.config.parallel_tool_call_rewarding) return matched === expected ? 1.0 : 0.0;
    if (this.config.parallel_tool_call_reward_mode === "f1") {
      const total = expected + actual;
      return total ? (2 * matched) / total : 0.0;
    }
    const required = this.config.allow_subset ? Math.min(expected, actual) : expected;
    if (this.config.parallel_tool_call_reward_mode === "fractional") return required ? matched / required : 0.0;
    return matched === required ? 1.0 : 0.0;
  }

  compareToolCall(expected: FunctionCallAction, actual: FunctionCallAction): Result {
    if (expected.name !== actual.name) return { reward: 0.0, category: Category.UNEXPECTED_TOOL };
    // The expected arguments are taken to be JSON; if not, the request fails as NeMo Gym's does.
    const want = pyJsonLoads(expected.arguments);
    let got: PyValue;
    try {
      got = pyJsonLoads(actual.arguments);
    } catch {
      return { reward: 0.0, category: Category.ARGUMENTS_DECODE_ERROR };
    }
    const failure = this.compareArguments(want, got);
    return failure === null ? { reward: 1.0, category: Category.EXPECTED_TOOL_CALL } : { reward: 0.0, category: failure };
  }

  /** null when they match, else why not. */
  compareArguments(expected: PyValue, actual: PyValue): Category | null {
    if (!sameType(expected, actual)) return Category.ARGUMENT_VALUE_TYPE_DIFFERENT;
    if (expected.k === "dict") {
      const got = (actual as Extract<PyValue, { k: "dict" }>).v;
      if (expected.v.size !== got.size || [...expected.v.keys()].some((key) => !got.has(key))) return Category.ARGUMENT_OBJECT_KEYS_DIFFERENT;
      for (const [key, value] of expected.v) {
        const failure = this.compareArguments(value, got.get(key)!);
        if (failure !== null) return failure;
      }
      return null;
    }
    if (expected.k === "list") {
      const got = (actual as Extract<PyValue, { k: "list" }>).v;
      if (expected.v.length !== got.length) return Category.ARGUMENT_LIST_LENGTH_DIFFERENT;
      for (const [i, value] of expected.v.entries()) {
        const failure = this.compareArguments(value, got[i]!);
        if (failure !== null) return failure;
      }
      return null;
    }
    if (expected.k === "float") {
      const got = (actual as Extract<PyValue, { k: "float" }>).v;
      return Math.abs(got - expected.v) < this.config.floating_point_comparison_threshold ? null : Category.ARGUMENT_VALUE_DIFFERENT;
    }
    if (expected.k === "str") {
      const got = (actual as Extract<PyValue, { k: "str" }>).v;
      const want = counts(pySplit(pyStrip(expected.v).toLowerCase()));
      const have = counts(pySplit(pyStrip(got).toLowerCase()));
      const total = (m: Map<string, number>) => [...m.values()].reduce((s, n) => s + n, 0);
      const wantTotal = total(want);
      const haveTotal = total(have);
      if (wantTotal < 2 || haveTotal < 2) return expected.v === got ? null : Category.ARGUMENT_VALUE_DIFFERENT;
      let common = 0;
      for (const [word, n] of want) common += Math.min(n, have.get(word) ?? 0);
      return common / (wantTotal + haveTotal) < this.config.word_count_similarity_threshold ? Category.ARGUMENT_VALUE_DIFFERENT : null;
    }
    return pyEquals(expected, actual) ? null : Category.ARGUMENT_VALUE_DIFFERENT;
  }
}

/**
 * Maximum bipartite matching, actual index → expected index. `candidates[e]` lists the actual calls
 * expected call `e` matches. Expected calls are tried fewest candidates first (a stable sort), each
 * with augmenting paths, as NeMo Gym's matcher does.
 */
export function maximumMatching(candidates: number[][]): Map<number, number> {
  const matching = new Map<number, number>();
  const augment = (e: number, visited: Set<number>): boolean => {
    for (const a of candidates[e]!) {
      if (visited.has(a)) continue;
      visited.add(a);
      const owner = matching.get(a);
      if (owner === undefined || augment(owner, visited)) {
        matching.set(a, e);
        return true;
      }
    }
    return false;
  };
  const order = [...candidates.keys()].sort((x, y) => candidates[x]!.length - candidates[y]!.length);
  for (const e of order) augment(e, new Set());
  return matching;
}
