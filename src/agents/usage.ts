// Token usage summed over every model call of a rollout, as NeMo Gym sums it (07d6b0d
// nemo_gym/openai_utils.py accumulate_response_usage): the three totals always, the cached and
// reasoning details only when both sides report them (an unknown count stays unknown: null).
import type { Usage } from "../protocol/index.js";

export function accumulateUsage(total: Usage | null | undefined, next: Usage | null | undefined): Usage | null | undefined {
  if (next === null || next === undefined) return total;
  if (total === null || total === undefined) return structuredClone(next);
  const sum = structuredClone(total);
  sum.input_tokens += next.input_tokens;
  sum.output_tokens += next.output_tokens;
  sum.total_tokens += next.total_tokens;
  const add = (a: number | null | undefined, b: number | null | undefined) => (a === null || a === undefined || b === null || b === undefined ? null : a + b);
  if (sum.input_tokens_details && next.input_tokens_details) {
    sum.input_tokens_details.cached_tokens = add(sum.input_tokens_details.cached_tokens, next.input_tokens_details.cached_tokens) as number;
  }
  if (sum.output_tokens_details && next.output_tokens_details) {
    sum.output_tokens_details.reasoning_tokens = add(sum.output_tokens_details.reasoning_tokens, next.output_tokens_details.reasoning_tokens) as number;
  }
  return sum;
}
