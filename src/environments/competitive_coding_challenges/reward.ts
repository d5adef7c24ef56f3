// The reward of a graded submission, as NeMo Gym's competitive_coding_challenges app.py at commit
// 07d6b0d computes it. "binary": for a row naming a graded subtask, 1 when its score reaches the most
// it can award (the row's `subtask_score`, else the test file's), or, when that is unknown, when it
// scored at all; for a whole problem, 1 when the subtask scores add up to the problem's total (or, for
// a problem whose total is 0 or unknown, when every subtask scored). "fraction": the share of tests
// scoring 1 among the subtask's (or, for a whole problem, every distinct test's) results.
import type { CccMetadata } from "./metadata.js";
import type { EntryResult } from "./grader.js";

export interface RewardRow {
  problem_id: string;
  competition_id?: string | null;
  subtask?: string | null;
  subtask_score?: number | null;
}

const num = (v: unknown) => Number(v ?? 0) || 0;

export function binaryReward(row: RewardRow, result: Partial<EntryResult>, metadata: CccMetadata | null): number {
  const results = result.test_case_results ?? {};
  if (row.subtask && row.subtask in results) {
    const score = num(results[row.subtask]!.score);
    const max = row.subtask_score !== null && row.subtask_score !== undefined ? Number(row.subtask_score) : metadata && row.subtask ? metadata.subtaskCap(row.problem_id, row.competition_id, row.subtask) : null;
    return (max && score >= max) || (max === null && score > 0) ? 1.0 : 0.0;
  }
  const total = Object.values(results).reduce((a, r) => a + num(r.score), 0);
  let maxTotal = 0;
  try {
    const problem = metadata?.problem(row.problem_id, row.competition_id);
    for (const meta of Object.values(problem?.subtasks ?? {})) maxTotal += meta.aggregation === "sum_tests" ? (meta.test_names ?? []).length : num(meta.score);
  } catch {
    maxTotal = 0;
  }
  if (maxTotal && total >= maxTotal) return 1.0;
  if (maxTotal === 0 && Object.values(results).every((r) => num(r.score) > 0)) return 1.0;
  return 0.0;
}

export function fractionReward(row: RewardRow, result: Partial<EntryResult>): number {
  const results = result.test_case_results ?? {};
  let outputs: Array<Record<string, unknown>> = [];
  if (row.subtask && row.subtask in results) outputs = results[row.subtask]!.outputs ?? [];
  else {
    const seen = new Set<string>();
    for (const [subtask, r] of Object.entries(results)) {
      (r.outputs ?? []).forEach((output, i) => {
        const key = output.test_name !== undefined && output.test_name !== null ? `t:${JSON.stringify(output.test_name)}` : `i:${JSON.stringify([subtask, i])}`;
        if (seen.has(key)) return;
        seen.add(key);
        outputs.push(output);
      });
    }
  }
  if (outputs.length === 0) return 0.0;
  return outputs.filter((o) => num(o.score) >= 1.0).length / outputs.length;
}
