// Summary statistics as NeMo-Skills / NeMo Gym define them: sample std (ddof=1), 0 for one value,
// and never NaN (JSON has no NaN; an empty series has no entry at all).

export interface Summary {
  mean: number;
  max: number;
  min: number;
  median: number;
  std: number;
}

export function summarize(values: ArrayLike<number>): Summary | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  if (n === 1) {
    // Most tasks of a run have one rollout: what the loops below give for one value, without the
    // sorted copy (`0 + v`, as the sum starts at 0, so -0 comes out as the general case gives it).
    const v = values[0]!;
    return { mean: 0 + v, max: v, min: v, median: v, std: 0 };
  }
  let sum = 0;
  let max = -Infinity;
  let min = Infinity;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    sum += v;
    if (v > max) max = v;
    if (v < min) min = v;
  }
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (values[i]! - mean) ** 2;
  const std = n > 1 ? Math.sqrt(squares / (n - 1)) : 0;
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  const mid = n >> 1;
  const median = n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { mean, max, min, median, std };
}

/**
 * A growable column of numbers; 8 bytes per value, no per-value object. The typed array is made at
 * the second value: a column per measurement per task, and most tasks have one rollout (a typed
 * array costs far more to make than the one number it would hold).
 */
export class NumberColumn {
  private data: Float64Array | undefined;
  private first = 0;
  length = 0;

  push(value: number): void {
    if (this.length === 0) {
      this.first = value;
      this.length = 1;
      return;
    }
    if (this.data === undefined) {
      this.data = new Float64Array(16);
      this.data[0] = this.first;
    } else if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  values(): ArrayLike<number> {
    if (this.data === undefined) return this.length === 0 ? [] : [this.first];
    return this.data.subarray(0, this.length);
  }
}
