// Combining several judge verdicts: the swap-order double check (ask again with the two answers
// exchanged; both must agree) and a vote of several judges.

/**
 * Asks `first`; only when it passes asks `second` (the same question, order swapped), and passes only
 * if both do — NeMo Gym's `check_twice_swap`. Returns every verdict asked, in order.
 */
export async function swapChecked<V>(first: () => Promise<V>, second: () => Promise<V>, passes: (verdict: V) => boolean): Promise<{ passed: boolean; verdicts: V[] }> {
  const a = await first();
  if (!passes(a)) return { passed: false, verdicts: [a] };
  const b = await second();
  return { passed: passes(b), verdicts: [a, b] };
}

/**
 * The label most verdicts give (undefined ones abstain). Ties go to `tieBreak` when given, else to
 * the tied label that came first.
 */
export function majorityVote<L extends string>(verdicts: ReadonlyArray<L | undefined>, tieBreak?: L): L | undefined {
  const counts = new Map<L, number>();
  for (const verdict of verdicts) if (verdict !== undefined) counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
  let best: L | undefined;
  let bestCount = 0;
  let tied = false;
  for (const [label, count] of counts) {
    if (count > bestCount) {
      best = label;
      bestCount = count;
      tied = false;
    } else if (count === bestCount) {
      tied = true;
    }
  }
  if (tied && tieBreak !== undefined && counts.get(tieBreak) === bestCount) return tieBreak;
  return best;
}

/** Runs every judge of a panel at once and returns their verdicts in panel order. */
export async function askPanel<J, V>(judges: readonly J[], ask: (judge: J, index: number) => Promise<V>): Promise<V[]> {
  return Promise.all(judges.map((judge, index) => ask(judge, index)));
}
