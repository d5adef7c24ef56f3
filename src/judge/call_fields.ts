// Config fields an environment may offer for its judge calls (Gymkit extensions; NeMo Gym's judged
// servers use their HTTP client's defaults): the deadline of one attempt and how many times a
// transient failure (connection error, timeout, 408, 409, 425, 429, 5xx: client.ts) is retried before the rollout becomes a
// `judge_failed` failure. Spread `JudgeCallFields` into the environment's config schema and pass
// `judgeCallOptions(config)` to `JudgeClient.for`.
import { z } from "zod";
import { JUDGE_RETRY, type JudgeClientOptions } from "./client.js";

export const JudgeCallFields = {
  /** Deadline of one judge call attempt, in seconds. */
  judge_timeout_seconds: z.number().positive().default(600),
  /** Retries after the first attempt of one judge call (default 2: three attempts in all). */
  judge_max_retries: z.number().int().nonnegative().default(JUDGE_RETRY.attempts - 1),
};

export interface JudgeCallConfig {
  judge_timeout_seconds: number;
  judge_max_retries: number;
}

/** The client options these fields give: deadline per attempt, attempts = retries + 1 with the kit's backoff. */
export function judgeCallOptions(config: JudgeCallConfig): Pick<JudgeClientOptions, "timeoutSeconds" | "retry"> {
  return { timeoutSeconds: config.judge_timeout_seconds, retry: { ...JUDGE_RETRY, attempts: config.judge_max_retries + 1 } };
}
