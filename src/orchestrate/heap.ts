// How far V8 lets the heap grow past what is live before a full collection. On a machine with this
// much memory V8 allows up to 4× (its "high memory" growing factor): a collector whose live heap is
// ~30 MB then sits at 100–130 MB of mostly dead old-generation objects, because every rollout in
// flight outlives two scavenges and is promoted. 1.5× keeps a long run's peak RSS under ~200 MB for
// a few percent more CPU (bench/README.md, "Collection"). `GYM_HEAP_GROWING_PERCENT` overrides it;
// 0 keeps V8's own heuristic.
//
// This is one of the few V8 flags read at every full collection, so setting it at start-up (after the
// isolate exists) takes effect; the size flags of the young generation would not.
import { setFlagsFromString } from "node:v8";

export const DEFAULT_HEAP_GROWING_PERCENT = 50;

/** Applies the heap growing factor to this process; returns the percent in force (0 = V8's default). */
export function tuneHeap(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.GYM_HEAP_GROWING_PERCENT;
  const percent = raw === undefined || raw.trim() === "" ? DEFAULT_HEAP_GROWING_PERCENT : Number(raw);
  if (!Number.isInteger(percent) || percent < 0) {
    throw new Error(`GYM_HEAP_GROWING_PERCENT must be a whole number ≥ 0 (0 = V8's default), not ${JSON.stringify(raw)}`);
  }
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}
