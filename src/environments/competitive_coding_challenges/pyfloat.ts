// Python's `float(text)` and `round(x, n)` where a CCC score depends on them (NeMo Gym's ccc_eval.py
// at commit 07d6b0d reads run.sh's output with the one and rounds subtask scores with the other).

const DECIMAL = /^[+-]?((\d(_?\d)*)(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][+-]?\d(_?\d)*)?$/;
const SPECIAL = /^[+-]?(inf|infinity|nan)$/i;

/** `float(text)` for an already stripped text, or null where Python raises ValueError. */
export function pyFloat(text: string): number | null {
  if (SPECIAL.test(text)) {
    const negative = text.startsWith("-");
    if (/nan/i.test(text)) return NaN;
    return negative ? -Infinity : Infinity;
  }
  if (!DECIMAL.test(text)) return null;
  return Number(text.replace(/_/g, ""));
}

/** `round(x, ndigits)` for ndigits ≥ 0, half to even (exact where x · 10^ndigits is exact, as for the scores here). */
export function pyRound(x: number, ndigits: number): number {
  if (!Number.isFinite(x)) return x;
  const factor = 10 ** ndigits;
  const y = x * factor;
  const floor = Math.floor(y);
  const diff = y - floor;
  let r: number;
  if (diff > 0.5) r = floor + 1;
  else if (diff < 0.5) r = floor;
  else r = floor % 2 === 0 ? floor : floor + 1;
  return r / factor;
}
