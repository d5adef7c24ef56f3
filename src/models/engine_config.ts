// Config fields every model server with an engine over HTTP shares (openai_model, vllm_model):
// recording (recorded.ts), per-call timeout and the retry budget for transient engine failures.
import { z } from "zod";
import type { RetryPolicy } from "../http/client.js";
import { RecordingFields } from "./recorded.js";

export const EngineCallFields = {
  ...RecordingFields,
  /** Deadline of one engine attempt, in seconds. */
  request_timeout_s: z.number().positive().default(600),
  /** Retries after the first attempt for connection errors, timeouts, 429 and 5xx. */
  max_retries: z.number().int().nonnegative().default(3),
  /** First backoff delay in seconds; doubles per retry (capped at 30 s), with jitter. */
  retry_backoff_s: z.number().nonnegative().default(0.5),
};

/** Header name → value; header names are case-insensitive, values must be strings. */
export const HeadersField = z.record(z.string().min(1), z.string()).default({});

/**
 * A boolean that may arrive as the text of an environment variable (`${oc.env:VAR,false}` gives the
 * string "false"), accepted as NeMo Gym's pydantic accepts it.
 */
export const BooleanText = z.union([z.boolean(), z.enum(["true", "false", "True", "False", "1", "0"]).transform((text) => text === "true" || text === "True" || text === "1")]);

/**
 * Sampling parameters put on every request to the engine, replacing what the caller sent (NeMo Gym
 * vllm_model's `sampling_overrides`, 07d6b0d): applied last at every place a body for the engine is built.
 */
export function withSamplingOverrides<T extends Record<string, unknown>>(body: T, overrides: Record<string, unknown> | null | undefined): T {
  return overrides ? { ...body, ...overrides } : body;
}

/**
 * A model server's `extra_body` under a body for the engine, as NeMo Gym 07d6b0d merges it in every
 * model server that has one (vllm_model's Chat Completions and Completions bodies, openai_model,
 * `extra_body | body`): it fills in the fields the body does not set; a field set in both keeps the
 * body's value. Shallow: a nested object in the body replaces extra_body's whole. The body itself
 * when there is nothing to add (no copy on the hot path).
 */
export function underExtraBody<T extends Record<string, unknown>>(body: T, extraBody: Record<string, unknown> | null | undefined): T {
  if (!extraBody) return body;
  for (const _key in extraBody) return { ...extraBody, ...body };
  return body;
}

export interface EngineCallConfig {
  record_path?: string | null | undefined;
  request_timeout_s: number;
  max_retries: number;
  retry_backoff_s: number;
}

/** The retry policy of `max_retries` / `retry_backoff_s`, as every engine call and the routing proxy read them. */
export function retryPolicy(config: Pick<EngineCallConfig, "max_retries" | "retry_backoff_s">): RetryPolicy {
  return {
    attempts: config.max_retries + 1,
    initialDelayMs: config.retry_backoff_s * 1000,
    maxDelayMs: Math.max(config.retry_backoff_s * 1000, 30_000),
  };
}
