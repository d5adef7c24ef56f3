// What is already on disk for a run: which pairs succeeded (and whether any twice), and the attempt
// log of failures. Used to resume, and at the end to account for every requested pair from the files
// themselves rather than from counters that a crash could have lost.
import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, readSync } from "node:fs";
import { scanLines } from "./line_scan.js";
import { KeyList, pairKey, pairOfLine } from "./lines.js";

export interface FailureState {
  /** Highest attempt index seen for the pair. */
  attempt: number;
  terminal: boolean;
  failureClass: string;
}

export interface Ledger {
  successes: KeyList;
  /** Latest failure per pair. Failures are the exception, so a map is compact enough. */
  failures: Map<number, FailureState>;
  /** Lines that could not be read as a result line (reported, never silently dropped). */
  unreadable: number;
}

/**
 * If a file's last line has no newline, the writer died mid-line: cut that partial line off so the
 * file is whole again. Returns the number of bytes removed.
 */
export function repairTornLine(path: string): number {
  if (!existsSync(path)) return 0;
  const fd = openSync(path, "r+");
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return 0;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return 0;
    // Walk back to the previous newline, in blocks.
    const block = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - block.length);
      const n = readSync(fd, block, 0, end - start, start);
      const at = block.subarray(0, n).lastIndexOf(0x0a);
      if (at >= 0) {
        const keep = start + at + 1;
        ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    ftruncateSync(fd, 0);
    return size;
  } finally {
    closeSync(fd);
  }
}

/** Whether the file's last line lacks its newline (the writer died mid-line); read only. */
export function hasTornLine(path: string): boolean {
  if (!existsSync(path)) return false;
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}

function* lines(path: string): Generator<string> {
  if (!existsSync(path)) return;
  for (const line of scanLines(path)) yield line.text;
}

export async function readLedger(outputPath: string, failuresPath: string): Promise<Ledger> {
  const successes = new KeyList();
  const failures = new Map<number, FailureState>();
  let unreadable = 0;
  for (const line of lines(outputPath)) {
    const pair = pairOfLine(line);
    if (pair) successes.push(pairKey(pair[0], pair[1]));
    else unreadable++;
  }
  for (const line of lines(failuresPath)) {
    let row: Record<string, unknown>;
    try {
      row = JSON.parse(line) as Record<string, unknown>;
    } catch {
      unreadable++;
      continue;
    }
    if (typeof row._ng_task_index !== "number" || typeof row._ng_rollout_index !== "number") {
      unreadable++;
      continue;
    }
    const key = pairKey(row._ng_task_index, row._ng_rollout_index);
    const attempt = typeof row._ng_attempt_index === "number" ? row._ng_attempt_index : 0;
    const previous = failures.get(key);
    if (!previous || attempt >= previous.attempt) {
      failures.set(key, { attempt, terminal: row._ng_failure_terminal === true, failureClass: String(row._ng_failure_class ?? "unknown") });
    }
  }
  return { successes, failures, unreadable };
}
