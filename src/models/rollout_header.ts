// The rollout header as model servers read it: absent is fine (a call outside any rollout), malformed
// is the caller's bug and answered 400. The header itself is wire protocol (protocol/rollout_header.ts).
import { HttpError } from "../http/errors.js";
import { readRolloutHeader, ROLLOUT_HEADER, type RolloutRef } from "../protocol/index.js";

export function describeRollout(rollout: RolloutRef | null): string {
  return rollout ? `task ${rollout.task_index} rollout ${rollout.rollout_index}` : `no rollout (no ${ROLLOUT_HEADER} header)`;
}

/** Parses the header; absent → null, malformed → 400 (a caller bug worth hearing about). */
export function parseRolloutHeader(value: string | string[] | undefined): RolloutRef | null {
  if (value === undefined) return null;
  const text = (Array.isArray(value) ? value[0] : value) ?? "";
  const rollout = readRolloutHeader(text);
  if (!rollout) {
    throw new HttpError(400, `${ROLLOUT_HEADER} must be "<task_index>:<rollout_index>" (two non-negative integers), got ${JSON.stringify(text)}`);
  }
  return rollout;
}
