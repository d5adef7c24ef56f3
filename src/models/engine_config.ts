// Config fields every engine-backed model server shares (openai_model, vllm_model): recording,
// per-call timeout and the retry budget for transient engine failures.
import { z } from "zod";
import type { RetryPolicy } from "../http/client.js";

export const EngineCallFields = {
  /** Append every served response to this JSONL file, in the format replay_model reads. */
  record_path: z.string().min(1).nullish(),
  /** Deadline of one engine attempt, in seconds. */
  request_timeout_s: z.number().positive().default(600),
  /** Retries after the first attempt for connection errors, timeouts, 429 and 5xx. */
  max_retries: z.number().int().nonnegative().default(3),
  /** First backoff delay in seconds; doubles per retry (capped at 30 s), with jitter. */
  retry_backoff_s: z.number().nonnegative().default(0.5),
};

export interface EngineCallConfig {
  record_path?: string | null | undefined;
  request_timeout_s: number;
  max_retries: number;
  retry_backoff_s: number;
}

export function retryPolicy(config: EngineCallConfig): RetryPolicy {
  return {
    attempts: config.max_retries + 1,
    initialDelayMs: config.retry_backoff_s * 1000,
    maxDelayMs: Math.max(config.retry_backoff_s * 1000, 30_000),
  };
}
