// Result lines and the pair keys that identify them. Every line Gymkit writes starts with
// `{"_ng_task_index":T,"_ng_rollout_index":R,` so a scan can find a line's pair without parsing it.
import { ROLLOUT_FLOATS, writeFields } from "../protocol/python_json.js";

/** Rollout indices stay below 2^21 (two million repeats of one task); tasks below 2^32. */
const ROLLOUT_BITS = 2 ** 21;

export function pairKey(task: number, rollout: number): number {
  return task * ROLLOUT_BITS + rollout;
}

export function pairOf(key: number): [number, number] {
  return [Math.floor(key / ROLLOUT_BITS), key % ROLLOUT_BITS];
}

export function checkPair(task: number, rollout: number): void {
  if (!Number.isInteger(task) || task < 0 || task >= 2 ** 32) throw new Error(`_ng_task_index out of range: ${task}`);
  if (!Number.isInteger(rollout) || rollout < 0 || rollout >= ROLLOUT_BITS) throw new Error(`_ng_rollout_index out of range: ${rollout}`);
}

const PAIR_KEYS: ReadonlySet<string> = new Set(["_ng_task_index", "_ng_rollout_index"]);

/** Serialises a row with its pair first (the scan fast path relies on it). */
export function resultLine(task: number, rollout: number, row: Record<string, unknown>): string {
  const body = writeFields(row, ROLLOUT_FLOATS, PAIR_KEYS);
  return `{"_ng_task_index":${task},"_ng_rollout_index":${rollout}${body === "" ? "" : `,${body}`}}\n`;
}

const PREFIX = /^\{"_ng_task_index":(\d+),"_ng_rollout_index":(\d+)[,}]/;

/** The pair of a result line: fast path on our own prefix, full parse otherwise (e.g. NeMo Gym files). */
export function pairOfLine(text: string): [number, number] | undefined {
  const match = PREFIX.exec(text);
  if (match) return [Number(match[1]), Number(match[2])];
  try {
    const row = JSON.parse(text) as Record<string, unknown>;
    if (typeof row._ng_task_index === "number" && typeof row._ng_rollout_index === "number") return [row._ng_task_index, row._ng_rollout_index];
  } catch {
    return undefined;
  }
  return undefined;
}

/** A growable array of pair keys; sorted once, then searched. 8 bytes per entry, no objects. */
export class KeyList {
  private data = new Float64Array(1024);
  length = 0;
  private sorted = true;

  push(key: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    if (this.length > 0 && key < this.data[this.length - 1]!) this.sorted = false;
    this.data[this.length++] = key;
  }

  private ensureSorted(): Float64Array {
    const view = this.data.subarray(0, this.length);
    if (!this.sorted) {
      view.sort();
      this.sorted = true;
    }
    return view;
  }

  /** How many times `key` occurs. */
  count(key: number): number {
    const view = this.ensureSorted();
    let lo = 0;
    let hi = view.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (view[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    let n = 0;
    while (lo + n < view.length && view[lo + n] === key) n++;
    return n;
  }

  /** Keys present more than once. */
  duplicates(): number[] {
    const view = this.ensureSorted();
    const out: number[] = [];
    for (let i = 1; i < view.length; i++) if (view[i] === view[i - 1] && out[out.length - 1] !== view[i]) out.push(view[i]!);
    return out;
  }
}
