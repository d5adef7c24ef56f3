// example_multi_step: the model looks up the values of the synonyms relevant to a query, one tool
// call each, then reports them with `extract_synonym_values`. Verify reads that last report back
// from the trajectory and compares it with the expected list (order and duplicates matter).
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";

/** Sum of the Unicode code points of the string exactly as given ("Blazing" → 711). */
export function synonymValue(synonym: string): number {
  let sum = 0;
  for (const char of synonym) sum += char.codePointAt(0)!;
  return sum;
}

/**
 * `synonym_values` of the last `extract_synonym_values` call, or [] if there is none. A malformed
 * call is an error (HTTP 500), as in NeMo Gym, rather than a silent 0: it means the rollout is broken.
 */
export function lastExtractedValues(output: ReadonlyArray<Record<string, unknown>>): number[] {
  const call = output.findLast((item) => item.type === "function_call" && item.name === "extract_synonym_values");
  if (!call) return [];
  const args: unknown = JSON.parse(String(call.arguments));
  if (typeof args !== "object" || args === null || Array.isArray(args) || !("synonym_values" in args)) {
    throw new Error(`extract_synonym_values arguments have no "synonym_values": ${String(call.arguments)}`);
  }
  const values = (args as { synonym_values: unknown }).synonym_values;
  if (!Array.isArray(values) || !values.every((v) => Number.isInteger(v))) {
    throw new Error(`synonym_values must be a list of integers, got ${JSON.stringify(values)}`);
  }
  return values as number[];
}

export default defineEnvironment({
  id: "example_multi_step",
  description: "Look up synonym values with one tool, report them in order with another.",
  rowFields: {
    id: z.number().int(),
    expected_synonyms: z.array(z.string()),
    expected_synonym_values: z.array(z.number().int()),
    minefield_label: z.string(),
    minefield_label_value: z.number().int(),
  },
  tools: {
    get_synonym_value: {
      description: "Get the value of a synonym.",
      args: z.object({ synonym: z.string() }),
      handler: ({ synonym }) => ({ synonym_value: synonymValue(synonym) }),
    },
    extract_synonym_values: {
      description: "Report the synonym values, in order.",
      args: z.object({ synonym_values: z.array(z.number().int()) }),
      // The answer is read from the trajectory at verify time; the call itself does nothing.
      handler: () => ({ success: true }),
    },
  },
  verify: (request) => {
    const actual = lastExtractedValues(request.response.output);
    const expected = request.expected_synonym_values;
    const accuracy = actual.length === expected.length && actual.every((v, i) => v === expected[i]);
    // NeMo Gym divides by len(expected) and fails on an empty list; keep that loud failure.
    if (expected.length === 0) throw new Error("expected_synonym_values is empty: set_overlap divides by zero");
    const actualSet = new Set(actual);
    const setOverlap = new Set(expected.filter((v) => actualSet.has(v))).size / expected.length;
    return {
      reward: accuracy ? 1.0 : 0.0,
      parsed_synonym_values: actual,
      accuracy,
      set_overlap: setOverlap,
      // The label is a string and values are ints, so in practice only the value can hit.
      original_term_minefield_hit: actual.includes(request.minefield_label_value),
      order_instruction_following_failure: !accuracy && setOverlap === 1.0,
    };
  },
});
