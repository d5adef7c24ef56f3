// omniscience's aggregate metrics (NeMo Gym resources_servers/omniscience/app.py compute_metrics and
// get_key_metrics, 07d6b0d), after NeMo Skills' OmniMetrics: pass@k / pass@1[avg-of-k] / majority@k
// (voting on extracted_answer) of four channels — judge_correct (1), judge_incorrect (−1, so its
// pass@k is a max, not a combinatorial count), judge_partially_correct, judge_abstained (a missing
// verdict counts as incorrect) — then per aggregation: judge_omni_index = correct − incorrect and
// judge_omni_hallucination = 100·incorrect / (incorrect + partial + abstained), 0 when that is 0.
// Key metrics: mean token counts, the highest-k pass@1[avg-of-k] entries and the highest-k pass@k
// entries but no_answer.
import type { AggregateResult } from "../../metrics/aggregate.js";
import { highestKMetrics } from "../../metrics/highest_k.js";
import { passAtKMetrics } from "../../metrics/pass_at_k.js";

function channels(row: Record<string, unknown>): Record<string, number> {
  const verdict = "verdict" in row ? row.verdict : "incorrect";
  return {
    judge_correct: verdict === "correct" ? 1 : 0,
    judge_incorrect: verdict === "incorrect" ? -1 : 0,
    judge_partially_correct: verdict === "partial" ? 1 : 0,
    judge_abstained: verdict === "not_attempted" ? 1 : 0,
  };
}

/** Adds judge_omni_index and judge_omni_hallucination for every aggregation that has judge_correct. */
export function addOmniIndex(metrics: Record<string, number>): void {
  for (const key of Object.keys(metrics)) {
    if (!key.includes("/judge_correct")) continue;
    const agg = key.slice(0, key.lastIndexOf("/judge_correct"));
    const correct = metrics[`${agg}/judge_correct`] ?? 0;
    const incorrect = -(metrics[`${agg}/judge_incorrect`] ?? 0);
    const nonCorrect = incorrect + (metrics[`${agg}/judge_partially_correct`] ?? 0) + (metrics[`${agg}/judge_abstained`] ?? 0);
    metrics[`${agg}/judge_omni_index`] = correct - incorrect;
    metrics[`${agg}/judge_omni_hallucination`] = nonCorrect > 0 ? (100 * incorrect) / nonCorrect : 0;
  }
}

export function omniscienceMetrics(rows: Array<Record<string, unknown>>, defaults: AggregateResult): AggregateResult {
  if (rows.length === 0) return defaults;
  const { metrics, per_sample_aggregate, metric_weights } = passAtKMetrics(rows, { scores: channels, answerKey: "extracted_answer" });
  addOmniIndex(metrics);
  const agent_metrics = { ...defaults.agent_metrics, ...metrics };
  const key_metrics: Record<string, number> = {};
  for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agent_metrics) key_metrics[name] = agent_metrics[name]!;
  Object.assign(key_metrics, highestKMetrics(agent_metrics, "pass@1[avg-of-{k}]"), highestKMetrics(agent_metrics, "pass@{k}", undefined, ["no_answer"]));
  return { agent_metrics, key_metrics, group_level_metrics: defaults.group_level_metrics, per_sample_aggregate, metric_weights };
}
