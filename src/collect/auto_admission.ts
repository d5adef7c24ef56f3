// How many rollouts `--concurrency auto` lets in flight. The engines are guarded by their own adaptive
// gates (src/http/adaptive_limit.ts, one per replica, inside the model servers); the collector only
// has to keep those gates fed without flooding the agents, environments and sandboxes behind them.
// A rollout spends part of its time in model calls and part elsewhere (tools, verify), so the
// rollouts needed per engine slot differ by environment: `ratio` starts at 2 and is adjusted while the
// run goes — up when every rollout slot is taken yet the engine gates have room, down when the gates
// hold a long queue. It does not go up while this process's event loop lags: rollouts that wait for
// the CPU rather than for the engine are not helped by more of them (measured: at a knee of 128 on a
// busy machine it admitted all 512 while the engine gates sat half empty, and the lag that followed
// cut the gates). Nothing here is NeMo Gym's (its collector runs a fixed number in parallel).
import { adaptiveLimits, eventLoopLagMs, type AdaptiveLimit, type AutoBounds } from "../http/adaptive_limit.js";

/** The engine gates' name (src/models/engine.ts). */
const MODEL_GATE = "model";
/** How often the ratio may move. */
const ADJUST_EVERY_MS = 100;
const STEP = 1.05;
const MAX_RATIO = 16;
/** Event-loop lag (ms) past which the ratio does not go up. */
const LAG_HOLD_MS = 50;

export interface AutoAdmission {
  /** For the scheduler: rollouts that may be in flight now, given how many are. */
  admit(inFlight: number): number;
  /** The current admission limit (for the live line). */
  readonly limit: number;
}

/**
 * With `localGates` (the model servers run in this process, or report to it) admission follows their
 * limits; without, the gates live in other processes and the collector admits up to `bounds.max`.
 */
export function autoAdmission(bounds: AutoBounds, options: { localGates: boolean; gates?: () => AdaptiveLimit[]; lag?: () => number }): AutoAdmission {
  const gates = options.gates ?? (() => adaptiveLimits().filter((l) => l.name === MODEL_GATE));
  const lag = options.lag ?? eventLoopLagMs;
  let ratio = 2;
  let lastAdjust = 0;
  let limit = Math.min(bounds.max, 2 * bounds.min + 4);
  return {
    get limit() {
      return limit;
    },
    admit(inFlight: number): number {
      if (!options.localGates) return (limit = bounds.max);
      const list = gates();
      if (list.length === 0) return limit;
      let slots = 0;
      let busy = 0;
      for (const gate of list) {
        slots += gate.limit;
        busy += gate.inFlight + gate.queued;
      }
      const now = Date.now();
      if (now - lastAdjust >= ADJUST_EVERY_MS) {
        lastAdjust = now;
        const headroom = Math.max(2, Math.ceil(slots / 4));
        if (inFlight >= limit - 1 && busy < slots && lag() <= LAG_HOLD_MS) ratio = Math.min(MAX_RATIO, ratio * STEP);
        else if (busy > slots + 2 * headroom) ratio = Math.max(1, ratio / STEP);
      }
      limit = Math.max(1, Math.min(bounds.max, Math.ceil(ratio * slots) + 4));
      return limit;
    },
  };
}
