// The rollout a model call belongs to travels in one request header, set by the agent. Model
// servers that key on rollouts (replay, record, replicas, the routing proxy) read it; every other
// server ignores it.

export const ROLLOUT_HEADER = "x-gymkit-rollout";

export interface RolloutRef {
  task_index: number;
  rollout_index: number;
}

/** The header value for one rollout: `<task_index>:<rollout_index>`. */
export function rolloutHeaderValue(rollout: RolloutRef): string {
  return `${rollout.task_index}:${rollout.rollout_index}`;
}

/**
 * The header value for a materialised row (or a verify request built from one), from its
 * `_ng_task_index` and `_ng_rollout_index`; undefined when the row carries no such indices.
 */
export function rolloutHeaderOfRow(row: Record<string, unknown>): string | undefined {
  const index = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
  return index(row._ng_task_index) && index(row._ng_rollout_index) ? rolloutHeaderValue({ task_index: row._ng_task_index, rollout_index: row._ng_rollout_index }) : undefined;
}

/** Reads a header value; undefined when it is not `<task_index>:<rollout_index>`. */
export function readRolloutHeader(text: string): RolloutRef | undefined {
  const match = /^\s*(\d+):(\d+)\s*$/.exec(text);
  return match ? { task_index: Number(match[1]), rollout_index: Number(match[2]) } : undefined;
}

/**
 * The ordinal of a judge call within one rollout's verification (0, 1, ...), set by the judge kit:
 * with the rollout header it names one recorded judge answer, so replay does not depend on the order
 * in which concurrent calls arrive.
 */
export const JUDGE_CALL_HEADER = "x-gymkit-judge-call";
