// Questions asked of the index's entries without reading a row: display order and the other sort
// orders, filters, pages, the entries of a pair or task, and the entry of a byte offset.
import { FAILURE, MAX_ROLLOUT, lowerBound, type Entries, type EntryFilter, type EntrySort } from "./entries.js";

/** Display order: (task, rollout, attempt, successes first, file order). */
export function displayOrder(e: Entries): (a: number, b: number) => number {
  return (a, b) => e.task[a]! - e.task[b]! || e.rollout[a]! - e.rollout[b]! || e.attempt[a]! - e.attempt[b]! || (e.flags[a]! & FAILURE) - (e.flags[b]! & FAILURE) || a - b;
}

/** Entry ids in display order; one pass when they already are (merged and NeMo Gym files usually are). */
export function sortEntries(e: Entries): Uint32Array {
  const compare = displayOrder(e);
  const order = new Uint32Array(e.count);
  for (let i = 0; i < order.length; i++) order[i] = i;
  // Collector output is written as rollouts finish, so usually nearly but not quite sorted.
  let sorted = true;
  for (let i = 1; i < order.length && sorted; i++) sorted = compare(i - 1, i) <= 0;
  if (!sorted) order.sort(compare);
  return order;
}

export class EntryQuery {
  /** Display order of two entry ids. */
  readonly compare: (a: number, b: number) => number;
  /** Permutations of entry ids per sort key other than "task" (which is `order`), built on first use. */
  private readonly sorted = new Map<EntrySort, Uint32Array>();

  constructor(
    private readonly entries: Entries,
    /** Entry ids in display order. */
    private readonly order: Uint32Array,
    private readonly agentNames: readonly string[],
  ) {
    this.compare = displayOrder(entries);
  }

  isFailure(id: number): boolean {
    return (this.entries.flags[id]! & FAILURE) !== 0;
  }

  /** Positions [from, to) in `order` of the entries of a pair, or of a whole task when `rollout` is undefined. */
  range(task: number, rollout?: number): [number, number] {
    const e = this.entries;
    const before = (i: number, r: number) => {
      const id = this.order[i]!;
      return e.task[id]! < task || (e.task[id] === task && e.rollout[id]! < r);
    };
    const from = lowerBound(this.order.length, (i) => before(i, rollout ?? 0));
    const to = lowerBound(this.order.length, (i) => before(i, rollout === undefined ? MAX_ROLLOUT : rollout + 1));
    return [from, to];
  }

  matches(id: number, filter: EntryFilter): boolean {
    const e = this.entries;
    if (filter.agent !== undefined && e.agent[id] !== filter.agent) return false;
    if (filter.status !== undefined && this.isFailure(id) !== (filter.status === "failure")) return false;
    // Failures have no reward (NaN), so any reward bound leaves them out.
    if (filter.minReward !== undefined && !(e.reward[id]! >= filter.minReward)) return false;
    if (filter.maxReward !== undefined && !(e.reward[id]! <= filter.maxReward)) return false;
    if (filter.task !== undefined && e.task[id] !== filter.task) return false;
    return true;
  }

  /** A comparison of entry ids for `sort`: the sort key, then display order (so ties are stable by task, rollout). */
  comparator(sort: EntrySort): (a: number, b: number) => number {
    const e = this.entries;
    const compare = this.compare;
    if (sort === "task") return compare;
    if (sort === "agent") {
      // Agent ids are in order of first appearance; rank them by name.
      const names = this.agentNames;
      const rank = new Uint16Array(names.length);
      Array.from(names.keys())
        .sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0))
        .forEach((agent, i) => (rank[agent] = i));
      return (a, b) => rank[e.agent[a]!]! - rank[e.agent[b]!]! || compare(a, b);
    }
    const sign = sort === "reward" ? 1 : -1;
    // Failure lines (no reward) come last in both directions.
    return (a, b) => {
      const ra = e.reward[a]!;
      const rb = e.reward[b]!;
      const na = Number.isNaN(ra);
      const nb = Number.isNaN(rb);
      if (na || nb) return na === nb ? compare(a, b) : na ? 1 : -1;
      return sign * (ra - rb) || compare(a, b);
    };
  }

  /** All entry ids in the order of `sort`: `order` for "task", else a permutation sorted once and kept (4 bytes per line). */
  sortedOrder(sort: EntrySort): Uint32Array {
    if (sort === "task") return this.order;
    let sorted = this.sorted.get(sort);
    if (!sorted) {
      sorted = this.order.slice().sort(this.comparator(sort));
      this.sorted.set(sort, sorted);
    }
    return sorted;
  }

  /** The entries that pass `filter`, in the order of `sort`: how many, and the ids of [offset, offset + limit). */
  page(filter: EntryFilter, offset: number, limit: number, sort: EntrySort = "task"): { total: number; ids: number[] } {
    const byTask = sort === "task";
    const order = this.sortedOrder(sort);
    const [from, to] = filter.task === undefined || !byTask ? [0, order.length] : this.range(filter.task);
    // Nothing to filter on (or, in task order, only a task): the page is a slice, no walk over millions of entries.
    if (Object.entries(filter).every(([key, value]) => (byTask && key === "task") || value === undefined)) {
      return { total: to - from, ids: Array.from(order.subarray(Math.min(to, from + offset), Math.min(to, from + offset + limit))) };
    }
    const ids: number[] = [];
    let total = 0;
    for (let i = from; i < to; i++) {
      const id = order[i]!;
      if (!this.matches(id, filter)) continue;
      if (total >= offset && ids.length < limit) ids.push(id);
      total++;
    }
    return { total, ids };
  }

  /** The entry id of the line of `file` that starts at byte `offset`, if indexed (used by search). */
  entryAt(isFailure: boolean, offset: number): number | undefined {
    const e = this.entries;
    const base = isFailure ? e.successes : 0;
    const end = isFailure ? e.count : e.successes;
    const at = base + lowerBound(end - base, (i) => e.offset[base + i]! < offset);
    return at < end && e.offset[at] === offset ? at : undefined;
  }
}
