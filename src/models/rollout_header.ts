// The rollout a model call belongs to travels in one request header, set by the agent. Model
// servers that key on rollouts (replay, record) read it; every other server ignores it.
import { HttpError } from "../http/errors.js";

export const ROLLOUT_HEADER = "x-gymkit-rollout";

export interface RolloutRef {
  task_index: number;
  rollout_index: number;
}

/** The header value for one rollout: `<task_index>:<rollout_index>`. */
export function rolloutHeaderValue(rollout: RolloutRef): string {
  return `${rollout.task_index}:${rollout.rollout_index}`;
}

export function describeRollout(rollout: RolloutRef | null): string {
  return rollout ? `task ${rollout.task_index} rollout ${rollout.rollout_index}` : `no rollout (no ${ROLLOUT_HEADER} header)`;
}

/** Parses the header; absent → null, malformed → 400 (a caller bug worth hearing about). */
export function parseRolloutHeader(value: string | string[] | undefined): RolloutRef | null {
  if (value === undefined) return null;
  const text = Array.isArray(value) ? value[0] : value;
  const match = /^\s*(\d+):(\d+)\s*$/.exec(text ?? "");
  if (!match) {
    throw new HttpError(400, `${ROLLOUT_HEADER} must be "<task_index>:<rollout_index>" (two non-negative integers), got ${JSON.stringify(text)}`);
  }
  return { task_index: Number(match[1]), rollout_index: Number(match[2]) };
}
