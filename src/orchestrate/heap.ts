// How far V8 lets the heap grow past what is live before a full collection. On a machine with this
// much memory V8 allows up to 4× (its "high memory" growing factor): a collector whose live heap is
// ~30 MB then sits at 100–130 MB of mostly dead old-generation objects, because every rollout in
// flight outlives two scavenges and is promoted. 1.5× keeps a long run's peak RSS under ~200 MB for
// a few percent more CPU (bench/README.md, "Collection"). `GYM_HEAP_GROWING_PERCENT` overrides it;
// 0 keeps V8's own heuristic.
//
// This is one of the few V8 flags read at every full collection, so setting it at start-up (after the
// isolate exists) takes effect; the size flags of the young generation would not. It is set once the
// first full collection is over: start-up (loading modules, building servers) then runs under V8's
// own rule and pays for one full collection instead of two (issue 23, start-up); from the second full
// collection on, every limit is the live heap + 50%.
import { constants, PerformanceObserver } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";

export const DEFAULT_HEAP_GROWING_PERCENT = 50;

/** Applies the heap growing factor to this process; returns the percent in force (0 = V8's default). */
export function tuneHeap(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.GYM_HEAP_GROWING_PERCENT;
  const percent = raw === undefined || raw.trim() === "" ? DEFAULT_HEAP_GROWING_PERCENT : Number(raw);
  if (!Number.isInteger(percent) || percent < 0) {
    throw new Error(`GYM_HEAP_GROWING_PERCENT must be a whole number ≥ 0 (0 = V8's default), not ${JSON.stringify(raw)}`);
  }
  afterFirstFullCollection(percent > 0 ? `--heap-growing-percent=${percent}` : undefined);
  return percent;
}

let pendingFlag: string | undefined;
let watching: PerformanceObserver | undefined;
let fullCollectionSeen = false;

/** Sets the V8 flag once the process's first full (mark-compact) collection has finished. */
function afterFirstFullCollection(flag: string | undefined): void {
  pendingFlag = flag;
  if (fullCollectionSeen) {
    if (flag) setFlagsFromString(flag);
    return;
  }
  if (!flag || watching) return;
  watching = new PerformanceObserver((list) => {
    if (!list.getEntries().some((entry) => (entry as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) return;
    fullCollectionSeen = true;
    watching?.disconnect();
    watching = undefined;
    if (pendingFlag) setFlagsFromString(pendingFlag);
  });
  watching.observe({ entryTypes: ["gc"] });
}
