// Free-text search over a run's rows. The index holds no text, so a search streams the files (the
// rollouts file, the failures file, or both) and matches each raw JSON line; it stops at a match
// limit or a byte budget so a query on a huge run still answers in seconds, and says whether it
// covered everything. It yields to the event loop as it goes, so other requests are not stalled.
import { scanLines } from "../collect/line_scan.js";
import type { EntryFilter } from "./run_index/entries.js";
import type { RunIndex } from "./run_index/run_index.js";

export interface SearchLimits {
  /** Stop after this many matching rows. */
  maxMatches: number;
  /** Stop after reading this many bytes of rows. */
  maxBytes: number;
}

export const DEFAULT_SEARCH_LIMITS: SearchLimits = { maxMatches: 10_000, maxBytes: 512 * 1024 * 1024 };

export interface SearchResult {
  /** Matching entries in display order. */
  ids: Uint32Array;
  /** False when a limit stopped the search: `ids` are then the first matches in file order. */
  complete: boolean;
  scannedBytes: number;
}

const YIELD_EVERY_MS = 20;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The query as it appears inside a JSON string: escaped as JavaScript writes JSON (quotes,
 * backslashes, newlines) and as Python does by default (non-ASCII as \uXXXX, so NeMo Gym files match).
 */
export function queryPattern(query: string): RegExp {
  const escaped = JSON.stringify(query).slice(1, -1);
  const asciiOnly = escaped.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const forms = [...new Set([escaped, asciiOnly])].map(escapeRegExp);
  return new RegExp(forms.join("|"), "i");
}

export async function searchRun(index: RunIndex, query: string, filter: EntryFilter, limits: SearchLimits = DEFAULT_SEARCH_LIMITS): Promise<SearchResult> {
  const pattern = queryPattern(query);
  const files: Array<{ path: string; isFailure: boolean }> = [];
  if (filter.status !== "failure" && index.files.rollouts.present) files.push({ path: index.paths.output, isFailure: false });
  if (filter.status !== "success" && index.files.failures.present) files.push({ path: index.paths.failures, isFailure: true });
  const found: number[] = [];
  let scannedBytes = 0;
  let complete = true;
  let lastYield = Date.now();
  search: for (const file of files) {
    for (const line of scanLines(file.path)) {
      scannedBytes += line.length;
      if (pattern.test(line.text)) {
        const id = index.entryAt(file.isFailure, line.offset);
        if (id !== undefined && index.matches(id, filter)) found.push(id);
      }
      if (found.length >= limits.maxMatches || scannedBytes >= limits.maxBytes) {
        complete = false;
        break search;
      }
      if (Date.now() - lastYield >= YIELD_EVERY_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        lastYield = Date.now();
      }
    }
  }
  const ids = Uint32Array.from(found).sort((a, b) => index.compare(a, b));
  return { ids, complete, scannedBytes };
}
