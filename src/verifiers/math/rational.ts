// Exact rational numbers on BigInt. math-verify compares exact numbers exactly (SymPy Rationals):
// 1/2^99 and 1/2^98 are different numbers, whatever a floating-point tolerance would say.

export interface Rational {
  /** Numerator; carries the sign. */
  n: bigint;
  /** Denominator; always > 0, and gcd(n, d) = 1. */
  d: bigint;
}

/** Largest result (in bits) an exact operation may produce; beyond it the caller falls back to numerics. */
export const MAX_EXACT_BITS = 200_000;

export class TooLarge extends Error {
  constructor() {
    super("exact value too large");
  }
}

function abs(a: bigint): bigint {
  return a < 0n ? -a : a;
}

export function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function bitLength(a: bigint): number {
  a = abs(a);
  return a === 0n ? 0 : a.toString(16).length * 4;
}

function check(r: Rational): Rational {
  if (bitLength(r.n) + bitLength(r.d) > MAX_EXACT_BITS) throw new TooLarge();
  return r;
}

export function rat(n: bigint | number, d: bigint | number = 1n): Rational {
  let nn = BigInt(n);
  let dd = BigInt(d);
  if (dd === 0n) throw new RangeError("division by zero");
  if (dd < 0n) {
    nn = -nn;
    dd = -dd;
  }
  const g = gcd(nn, dd);
  return g > 1n ? { n: nn / g, d: dd / g } : { n: nn, d: dd };
}

export const ZERO = rat(0);
export const ONE = rat(1);

export const add = (a: Rational, b: Rational) => check(rat(a.n * b.d + b.n * a.d, a.d * b.d));
export const sub = (a: Rational, b: Rational) => check(rat(a.n * b.d - b.n * a.d, a.d * b.d));
export const mul = (a: Rational, b: Rational) => check(rat(a.n * b.n, a.d * b.d));
export const neg = (a: Rational): Rational => ({ n: -a.n, d: a.d });
export function div(a: Rational, b: Rational): Rational {
  if (b.n === 0n) throw new RangeError("division by zero");
  return check(rat(a.n * b.d, a.d * b.n));
}

export const eq = (a: Rational, b: Rational) => a.n === b.n && a.d === b.d;
export const cmp = (a: Rational, b: Rational) => {
  const x = a.n * b.d - b.n * a.d;
  return x < 0n ? -1 : x > 0n ? 1 : 0;
};

/** a^e for an integer e; refuses results past MAX_EXACT_BITS before computing them. */
export function powInt(a: Rational, e: bigint): Rational {
  if (e === 0n) return ONE;
  if (a.n === 0n) {
    if (e < 0n) throw new RangeError("division by zero");
    return ZERO;
  }
  if (abs(a.n) === 1n && a.d === 1n) return rat(a.n === -1n && e % 2n !== 0n ? -1n : 1n);
  const bits = (bitLength(a.n) + bitLength(a.d)) * Number(abs(e) > 10n ** 9n ? 10n ** 9n : abs(e));
  if (bits > MAX_EXACT_BITS) throw new TooLarge();
  const k = abs(e);
  const r = { n: a.n ** k, d: a.d ** k };
  return e < 0n ? rat(r.d, r.n) : r;
}

/** Exact integer k-th root of a non-negative integer, or undefined if it is not a perfect power. */
export function exactRoot(a: bigint, k: bigint): bigint | undefined {
  if (a < 0n) return undefined;
  if (a < 2n) return a;
  // Newton's method on integers, starting above the root.
  const kn = Number(k);
  let x = 1n << BigInt(Math.ceil(bitLength(a) / kn) + 1);
  for (;;) {
    const y = ((k - 1n) * x + a / x ** (k - 1n)) / k;
    if (y >= x) break;
    x = y;
  }
  return x ** k === a ? x : undefined;
}

/** Parses "12", "-3.25", "1e-5", "1.5E3", ".5"; undefined if it is not a plain decimal. */
export function parseDecimal(text: string): Rational | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return undefined;
  const frac = m[3] ?? "";
  const exp = Number(m[4] ?? "0") - frac.length;
  if (Math.abs(exp) > 10_000) return undefined;
  let n = BigInt((m[2] || "0") + frac);
  if (m[1] === "-") n = -n;
  return exp >= 0 ? rat(n * 10n ** BigInt(exp)) : rat(n, 10n ** BigInt(-exp));
}

/** Rounds to `places` decimals, ties to even (Python's and SymPy's `round`). */
export function roundHalfEven(a: Rational, places: number): Rational {
  const scale = 10n ** BigInt(places);
  const scaled = a.n * scale;
  let q = scaled / a.d;
  let r = scaled % a.d;
  if (r < 0n) {
    q -= 1n;
    r += a.d;
  }
  const twice = 2n * r;
  if (twice > a.d || (twice === a.d && q % 2n !== 0n)) q += 1n;
  return rat(q, scale);
}


