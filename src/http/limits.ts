// How much a request may carry and how long it may take to arrive, per route. A body is held in memory
// whole before it is parsed, so the limit is also the memory one request can pin; the old single
// 1 GiB limit sat above what Node can turn into a string, and one 600 MB POST took every server in the
// process down. Routes that carry whole rollouts (token ids of long multi-turn conversations) get the
// large limit; everything else (tools, seeding, the head's lookups) gets a few MiB.

import { UserError } from "../config/user_error.js";

const MiB = 1024 * 1024;

/** Default of every route that does not say otherwise: tool calls, seeding, lookups. */
export const SMALL_BODY_LIMIT = 4 * MiB;
/** Routes carrying rollouts (`/run`, `/verify`, `/v1/responses`, `/v1/chat/completions`, `/v1/rollouts`, …). */
export const DEFAULT_ROLLOUT_BODY_LIMIT_MIB = 64;
/** Well below V8's longest string (~512 MiB), so a body can always become text without throwing. */
export const MAX_ROLLOUT_BODY_LIMIT_MIB = 256;
/** The one knob: MiB allowed on rollout-carrying routes of every server this process (and its children) starts. */
export const BODY_LIMIT_ENV = "GYM_MAX_BODY_MB";

/** Time to receive a whole request (headers and body); a client that sends slower is cut with a 408. */
export const DEFAULT_REQUEST_TIMEOUT_S = 60;
export const REQUEST_TIMEOUT_ENV = "GYM_REQUEST_TIMEOUT_S";

/** GYM_MAX_BODY_MB or GYM_REQUEST_TIMEOUT_S set to something that is not a usable number. */
export class LimitConfigError extends UserError {}

function positiveNumberFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number, unit: string): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    throw new LimitConfigError(`${name} must be a number of ${unit} above 0 and at most ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** Bytes a rollout-carrying route accepts: `GYM_MAX_BODY_MB` MiB, 64 by default, 256 at most. */
export function rolloutBodyLimit(env: NodeJS.ProcessEnv = process.env): number {
  return Math.floor(positiveNumberFrom(env, BODY_LIMIT_ENV, DEFAULT_ROLLOUT_BODY_LIMIT_MIB, MAX_ROLLOUT_BODY_LIMIT_MIB, "MiB") * MiB);
}

/** Milliseconds a client has to deliver its whole request: `GYM_REQUEST_TIMEOUT_S`, 60 s by default. */
export function requestTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  return Math.round(positiveNumberFrom(env, REQUEST_TIMEOUT_ENV, DEFAULT_REQUEST_TIMEOUT_S, 24 * 3600, "seconds") * 1000);
}

/** "4 MiB", "64 MiB", "512 KiB": limits as people set them. */
export function formatBytes(bytes: number): string {
  if (bytes >= MiB && bytes % (MiB / 4) === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}
