// Deterministic pseudo-random numbers for tests (mulberry32): the same seed gives the same rows,
// fault schedules and samples on every run, so a failure can be replayed.

/** A generator of numbers in [0, 1) fixed by `seed`. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
