// competitive_coding_challenges' /aggregate_metrics, as NeMo Gym 07d6b0d overrides it: pass@k,
// pass@1[avg-of-k] and majority@k of `accuracy` (1 when every subtask a rollout was graded on scored
// above 0; answer key `extracted_code`, which its verify responses never carry) added to the default
// statistics, plus `total_score` (per problem, the best score of each subtask over all its rollouts,
// summed, then summed over problems, as an integer) and `per_problem_subtask_scores` (those scores
// with the most each subtask can award from the test file, 0 when unknown). Key metrics: the highest-k
// pass@1[avg-of-k] and pass@k of accuracy, and total_score.
import type { AggregateResult } from "../../metrics/aggregate.js";
import { passAtKMetrics } from "../../metrics/pass_at_k.js";
import { highestKMetrics } from "../../metrics/highest_k.js";
import type { CccMetadata } from "./metadata.js";

type Row = Record<string, unknown>;
type Results = Record<string, { score?: unknown } | null>;

const resultsOf = (row: Row): Results => {
  const details = (row.details ?? {}) as { test_case_results?: Results };
  return details.test_case_results ?? {};
};
const num = (v: unknown) => Number(v ?? 0) || 0;

export function accuracy(row: Row): { accuracy: number } {
  const results = Object.values(resultsOf(row));
  if (results.length === 0) return { accuracy: 0.0 };
  return { accuracy: results.every((r) => num(r?.score) > 0) ? 1.0 : 0.0 };
}

/** NeMo Gym's `score_names=["accuracy"]`: only the entries of that score. */
export function cccAggregate(rows: Row[], defaults: AggregateResult, metadata: CccMetadata | null): AggregateResult {
  const { metrics, per_sample_aggregate, metric_weights } = passAtKMetrics(rows, { scores: accuracy, answerKey: "extracted_code" });
  const best = new Map<string, Map<string, number>>();
  const caps = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const problemId = (row.problem_id || row.ioi_id) as string | undefined;
    if (!problemId) continue;
    for (const [subtask, sub] of Object.entries(resultsOf(row))) {
      const achieved = num(sub?.score);
      let subs = best.get(problemId);
      if (!subs) best.set(problemId, (subs = new Map()));
      if (achieved > (subs.get(subtask) ?? 0)) subs.set(subtask, achieved);
      let capSubs = caps.get(problemId);
      if (!capSubs) caps.set(problemId, (capSubs = new Map()));
      if (!capSubs.has(subtask)) capSubs.set(subtask, metadata?.subtaskCap(problemId, row.competition_id as string | null, subtask) ?? 0.0);
    }
  }
  let totalScore = 0;
  const perProblem: Record<string, unknown> = {};
  for (const [problemId, subs] of best) {
    const problemTotal = [...subs.values()].reduce((a, b) => a + b, 0);
    const capSubs = caps.get(problemId) ?? new Map<string, number>();
    perProblem[problemId] = {
      total: { score: problemTotal, max_score: [...capSubs.values()].reduce((a, b) => a + b, 0) },
      subtasks: Object.fromEntries([...subs].map(([subtask, score]) => [subtask, { score, max_score: capSubs.get(subtask) ?? 0 }])),
    };
    totalScore += problemTotal;
  }
  const agent_metrics: Record<string, number> = { ...defaults.agent_metrics, ...metrics, total_score: Math.trunc(totalScore) };
  // A nested value, as NeMo Gym's override returns it (JSON carries it as is).
  (agent_metrics as Record<string, unknown>).per_problem_subtask_scores = perProblem;
  const key_metrics: Record<string, number> = {
    ...(highestKMetrics(agent_metrics, "pass@1[avg-of-{k}]", ["accuracy"]) as Record<string, number>),
    ...(highestKMetrics(agent_metrics, "pass@{k}", ["accuracy"]) as Record<string, number>),
    total_score: agent_metrics.total_score!,
  };
  return { agent_metrics, key_metrics, group_level_metrics: defaults.group_level_metrics, per_sample_aggregate, metric_weights };
}
