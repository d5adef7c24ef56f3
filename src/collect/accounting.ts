// The end-of-run check, from the files on disk: every requested pair must have exactly one final
// outcome — one success line, or (failing that) a failure in the attempt log. Anything else is
// reported by name: missing pairs and duplicated successes.
import { pairKey, pairOf, pairOfLine } from "./lines.js";
import type { Ledger } from "./ledger.js";
import { scanLines } from "./line_scan.js";

export interface Accounting {
  requested: number;
  succeeded: number;
  /** Pairs whose final outcome is a failure. */
  failed: number;
  failureClasses: Record<string, number>;
  missing: { count: number; first: Array<[number, number]> };
  duplicated: { count: number; first: Array<[number, number]> };
  /** Result lines whose pair is not in the plan (e.g. from another run), reported, not counted. */
  unplanned: number;
}

const SHOWN = 20;

export async function accountFor(planPath: string, ledger: Ledger): Promise<Accounting> {
  const result: Accounting = { requested: 0, succeeded: 0, failed: 0, failureClasses: {}, missing: { count: 0, first: [] }, duplicated: { count: 0, first: [] }, unplanned: 0 };
  let planned = 0;
  // Only the pair of each planned row matters here: read it off the line's prefix, parse nothing.
  for (const { text, line } of scanLines(planPath)) {
    const pair = pairOfLine(text);
    if (!pair) throw new Error(`${planPath}:${line}: a planned row without _ng_task_index/_ng_rollout_index`);
    result.requested++;
    const key = pairKey(pair[0], pair[1]);
    const successes = ledger.successes.count(key);
    planned += successes;
    if (successes === 1) {
      result.succeeded++;
    } else if (successes > 1) {
      result.succeeded++;
      result.duplicated.count++;
      if (result.duplicated.first.length < SHOWN) result.duplicated.first.push(pairOf(key));
    } else {
      const failure = ledger.failures.get(key);
      if (failure) {
        result.failed++;
        result.failureClasses[failure.failureClass] = (result.failureClasses[failure.failureClass] ?? 0) + 1;
      } else {
        result.missing.count++;
        if (result.missing.first.length < SHOWN) result.missing.first.push(pairOf(key));
      }
    }
  }
  result.unplanned = Math.max(0, ledger.successes.length - planned);
  return result;
}

export function formatPairs(list: { count: number; first: Array<[number, number]> }): string {
  const shown = list.first.map(([t, r]) => `(${t}, ${r})`).join(", ");
  return list.count > list.first.length ? `${shown} and ${list.count - list.first.length} more` : shown;
}
