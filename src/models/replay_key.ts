// The replay key: which recorded response answers a request. It is the Responses create params
// minus what varies between otherwise identical runs, plus the rollout, so that the same prompt
// sampled in different rollouts (repeats of one task) keeps its own recorded answer.
import { createHash } from "node:crypto";
import type { ResponsesCreateParams, RolloutRef } from "../protocol/index.js";

/**
 * The request as the key sees it:
 * - `id` of every input item dropped (engines mint fresh ids each run; the agent echoes them back);
 * - `model` dropped (the model server's config decides the model, whatever the request says);
 * - keys whose value is null or undefined dropped (the API treats them as absent);
 * - object keys sorted at every depth; array order kept.
 */
export function canonicalRequest(params: ResponsesCreateParams): unknown {
  const { model: _model, ...rest } = params;
  const input = Array.isArray(rest.input) ? rest.input.map(({ id: _id, ...item }) => item) : rest.input;
  return normalise({ ...rest, input });
}

function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== null && v !== undefined) out[key] = normalise(v);
  }
  return out;
}

export interface ReplayKey {
  rollout: RolloutRef | null;
  request: unknown;
}

export function replayKey(params: ResponsesCreateParams, rollout: RolloutRef | null): ReplayKey {
  return { rollout: rollout ? { task_index: rollout.task_index, rollout_index: rollout.rollout_index } : null, request: canonicalRequest(params) };
}

/** sha256 (hex) of `{"request":<canonical request>,"rollout":{"task_index":t,"rollout_index":r}|null}`. */
export function keyHash(key: ReplayKey): string {
  const rollout = key.rollout ? { task_index: key.rollout.task_index, rollout_index: key.rollout.rollout_index } : null;
  return createHash("sha256").update(JSON.stringify({ request: key.request, rollout })).digest("hex");
}
