// `statistics.mean` and `round(x, ndigits)` as NeMo Gym's structured_outputs and structeval
// environments compute their per-category metrics and rewards (CPython 3.12; NeMo Gym 07d6b0d).

/** Python's `math.fsum`: the correctly rounded sum (Shewchuk's partials). */
function fsum(values: readonly number[]): number {
  const partials: number[] = [];
  for (let x of values) {
    let i = 0;
    for (let y of partials) {
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) partials[i++] = lo;
      x = hi;
    }
    partials.length = i;
    partials.push(x);
  }
  return partials.reduce((a, b) => a + b, 0);
}

/** `statistics.mean(values)` (exact sum, then one division): undefined for an empty list. */
export function pyMean(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  return fsum(values) / values.length;
}

/** `round(x, digits)`: the exact binary value rounded to `digits` decimals, ties to even. */
export function pyRound(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  const exact = Math.abs(x).toFixed(100);
  const dot = exact.indexOf(".");
  const keep = exact.slice(0, dot + 1 + digits);
  const rest = exact.slice(dot + 1 + digits);
  const half = "5".padEnd(rest.length, "0");
  let up = rest > half;
  if (rest === half) up = Number(keep[keep.length - 1]) % 2 === 1;
  let value = Number(keep);
  if (up) value = Number((value + 10 ** -digits).toFixed(digits));
  return x < 0 ? -value : value;
}
