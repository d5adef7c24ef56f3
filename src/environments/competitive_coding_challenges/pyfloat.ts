// Python's `float(text)` and `round(x, n)` where a CCC score depends on them (NeMo Gym's ccc_eval.py
// at commit 07d6b0d reads run.sh's output with the one and rounds subtask scores with the other).

const DECIMAL = /^[+-]?((\d(_?\d)*)(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][+-]?\d(_?\d)*)?$/;
const SPECIAL = /^[+-]?(inf|infinity|nan)$/i;

const ND = /\p{Nd}/u;

/** Python reads any Unicode decimal digit as its value: digits come in runs of ten from 0. */
function asciiDigits(text: string): string {
  return text.replace(/\p{Nd}/gu, (c) => {
    const cp = c.codePointAt(0)!;
    let start = cp;
    while (ND.test(String.fromCodePoint(start - 1))) start--;
    return String((cp - start) % 10);
  });
}

/** `float(text)` for an already stripped text, or null where Python raises ValueError. */
export function pyFloat(raw: string): number | null {
  const text = asciiDigits(raw);
  if (SPECIAL.test(text)) {
    const negative = text.startsWith("-");
    if (/nan/i.test(text)) return NaN;
    return negative ? -Infinity : Infinity;
  }
  if (!DECIMAL.test(text)) return null;
  return Number(text.replace(/_/g, ""));
}

/**
 * `round(x, ndigits)` for ndigits ≥ 0: the exact binary value of x rounded to ndigits decimals, half to
 * even (so round(0.35, 1) is 0.3: 0.35 is stored just below it). `toFixed(100)` gives x's exact decimal
 * digits for the magnitudes scores have (≥ 2^-47).
 */
export function pyRound(x: number, ndigits: number): number {
  if (!Number.isFinite(x) || ndigits > 90) return x;
  const negative = x < 0;
  const [whole, frac] = Math.abs(x).toFixed(100).split(".") as [string, string];
  const kept = BigInt(whole + frac.slice(0, ndigits));
  const rest = frac.slice(ndigits);
  const half = "5".padEnd(rest.length, "0");
  let rounded = kept;
  if (rest > half || (rest === half && kept % 2n === 1n)) rounded = kept + 1n;
  const value = Number(rounded) / 10 ** ndigits;
  return negative ? -value : value;
}
