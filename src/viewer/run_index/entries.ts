// The vocabulary of a run's index: one entry per indexed line, kept as typed-array columns, and what
// is said about entries (flags, filters, sort orders, per-agent numbers, lines that could not be read).

/** The agent of rows without `agent_ref` (NeMo Gym rollout files often have none). */
export const NO_AGENT = "(none)";
/** Flag bits of an entry. */
export const FAILURE = 1;
export const TERMINAL = 2;

export const MAX_TASK = 2 ** 32;
export const MAX_ROLLOUT = 2 ** 21;

/** The per-line columns; entry ids [0, successes) are lines of the rollouts file, the rest of the failures file. */
export interface Entries {
  count: number;
  successes: number;
  offset: Float64Array;
  length: Uint32Array;
  line: Uint32Array;
  task: Uint32Array;
  rollout: Uint32Array;
  agent: Uint16Array;
  reward: Float64Array;
  attempt: Uint16Array;
  failureClass: Uint16Array;
  flags: Uint8Array;
}

export interface EntryFilter {
  agent?: number;
  minReward?: number;
  maxReward?: number;
  status?: "success" | "failure";
  task?: number;
}

/** Orders of the rollout table; every one breaks ties by display order (task, rollout, attempt, …). */
export const ENTRY_SORTS = ["task", "reward", "-reward", "agent"] as const;
export type EntrySort = (typeof ENTRY_SORTS)[number];

export interface MalformedLine {
  file: string;
  line: number;
  reason: string;
}

export interface FileReport {
  path: string;
  present: boolean;
  bytes: number;
  /** Lines indexed (malformed ones excluded). */
  lines: number;
}

export interface AgentStats {
  name: string;
  rollouts: number;
  failures: number;
  rewarded: number;
  rewardSum: number;
  minReward: number;
  maxReward: number;
}

/** A row could not be read back: the file changed since it was indexed. */
export class RowReadError extends Error {
  constructor(file: string, line: number) {
    super(`${file}:${line} no longer holds the row indexed at startup (the file changed); restart gym view`);
    this.name = "RowReadError";
  }
}

/** A line of a JSONL file as an object, or why it is not one. */
export function parseObject(text: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return `expected a JSON object, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`;
  return value as Record<string, unknown>;
}

/** The first i in [0, n) for which `isBefore(i)` is false (`isBefore` holds on a prefix). */
export function lowerBound(n: number, isBefore: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isBefore(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
