// The wire format of the rollout service (`POST /v1/rollouts`), shared by the server and its clients.
// The response is NDJSON: first, if the request asked for it (`plan: true`), a plan line (which
// (task, rollout) pairs the request expanded to, so a client can name what is missing even when the
// stream is cut), then one rollout row per finished
// rollout (exactly the line `gym eval run` writes, or with `format: "tokens"` the line `gym eval
// export --format tokens` writes; either way it has `_ng_task_index`), then one summary line, then —
// only when requested pairs are missing — one error line. Control lines never carry `_ng_task_index`, which is how a
// reader tells them from rows whatever fields a dataset adds. A stream without a summary line is
// a failure: a crashed server's clean end-of-stream must not read as "all done".

export const ROLLOUTS_PATH = "/v1/rollouts";
export const NDJSON = "application/x-ndjson";
/** Response header: how many (task, rollout) pairs the request expanded to. */
export const REQUESTED_HEADER = "x-gymkit-requested";

/** What each streamed rollout line is: the scored rollout, or its token export (TokenRollout). */
export const ROLLOUT_FORMATS = ["raw", "tokens"] as const;
export type RolloutFormat = (typeof ROLLOUT_FORMATS)[number];

/**
 * The first line of a stream whose request set `plan: true`. `pairs[i]` = `[task, first_rollout, count]` for request row `i`: that
 * row's rollouts are `(task, first_rollout)` … `(task, first_rollout + count − 1)`.
 */
export interface PlanLine {
  type: "plan";
  requested: number;
  format: RolloutFormat;
  pairs: Array<[number, number, number]>;
}

/** Failure class of a rollout that finished but whose tokens cannot be exported (format "tokens"). */
export const TOKENS_FAILURE_CLASS = "tokens_unusable";

/** A requested pair with no rollout row in the stream, and why. */
export interface MissingRollout {
  _ng_task_index: number;
  _ng_rollout_index: number;
  agent_ref?: unknown;
  /** The collector's failure class (`agent_error`, `model_error`, `timeout`, …) or `not_run`. */
  failure_class: string;
  error: string;
  /** `tokens_unusable` from a non-contiguous token path: the first token position that differs. */
  first_difference?: number;
}

export interface RolloutSummary {
  type: "summary";
  requested: number;
  succeeded: number;
  /** Pairs whose rollout ended in a classified failure (each also listed in `missing`). */
  failed: number;
  /** Every requested pair without a rollout row, in request order. Empty means complete. */
  missing: MissingRollout[];
  failure_classes: Record<string, number>;
  /** Mean reward of the rows streamed, per agent. */
  mean_reward: Record<string, number>;
  warnings: string[];
  elapsed_s: number;
}

export interface StreamErrorLine {
  type: "error";
  /** `rollouts_missing` after a summary with missing pairs; `internal_error` when the service failed. */
  code: "rollouts_missing" | "internal_error";
  message: string;
}

/** Counters of `GET /v1/rollouts`. */
export interface ServiceStats {
  active_requests: number;
  in_flight: number;
  requests: { completed: number; incomplete: number; cancelled: number; failed: number };
  /** `cancelled`: rollouts stopped because their client hung up (not counted as failed). */
  rollouts: { succeeded: number; failed: number; cancelled: number };
}
