// The last few searches, kept so paging through (or re-sorting) a search's results does not read
// the files again.
import type { EntryFilter, EntrySort } from "../run_index/entries.js";
import type { RunIndex } from "../run_index/run_index.js";
import { searchRun, type SearchLimits, type SearchResult } from "../search.js";

/** Searches kept for paging through their results (each at most `maxMatches` ids). */
const SEARCHES_KEPT = 4;

export type KeptSearch = (query: string, filter: EntryFilter, sort: EntrySort) => Promise<{ result: SearchResult; ids: Uint32Array }>;

export function keptSearches(run: RunIndex, limits: SearchLimits): KeptSearch {
  const searches = new Map<string, SearchResult>();
  /** Matches of a search (in display order), and re-sorted per other sort key once, kept with the search. */
  const sortedMatches = new WeakMap<SearchResult, Map<EntrySort, Uint32Array>>();
  return async (query, filter, sort) => {
    const key = JSON.stringify([query, filter]);
    let result = searches.get(key);
    if (!result) {
      result = await searchRun(run, query, filter, limits);
      searches.set(key, result);
      if (searches.size > SEARCHES_KEPT) searches.delete(searches.keys().next().value!);
    }
    if (sort === "task") return { result, ids: result.ids };
    let bySort = sortedMatches.get(result);
    if (!bySort) sortedMatches.set(result, (bySort = new Map()));
    let ids = bySort.get(sort);
    if (!ids) bySort.set(sort, (ids = result.ids.slice().sort(run.comparator(sort))));
    return { result, ids };
  };
}
