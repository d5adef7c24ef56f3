// Correctly rounded sin, cos, log and pow for doubles. NeMo Gym's calculators call C's libm through
// Python (glibc: results within half an ulp of the true value, i.e. correctly rounded in practice),
// and its ground truths are those exact doubles; V8's Math.sin/cos/log/pow are fdlibm ports that can
// be one ulp off (e.g. Math.cos(6) = 0.9601702866503661 where glibc gives 0.960170286650366), which
// would turn a right tool-based answer into a wrong reward. So each value is computed here in exact
// big-integer fixed point, far beyond double precision, and rounded once to the nearest double.
// Proven against Python's results in testdata/tools.json.

const P = 320n; // fraction bits of the working precision
const ONE = 1n << P;

/** x = m · 2^e exactly, m an integer (53 bits at most), for a finite nonzero double. */
function decompose(x: number): { m: bigint; e: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  return exponent === 0 ? { m: fraction, e: -1074 } : { m: fraction | (1n << 52n), e: exponent - 1075 };
}

/** Round n / 2^scale (n a big integer, scale ≥ 0) to the nearest double. */
function toDouble(n: bigint, scale: bigint): number {
  const negative = n < 0n;
  let a = negative ? -n : n;
  if (a === 0n) return 0;
  let s = scale;
  // Keep at most ~1000 bits so the BigInt → Number step (itself correctly rounded) cannot overflow;
  // the bits dropped lie far below the 53 kept (a transcendental value is never an exact tie).
  const length = BigInt(a.toString(2).length);
  if (length > 1000n) {
    const drop = length - 1000n;
    a = (a >> drop) | 1n; // sticky bit
    s -= drop;
  }
  let value = Number(a);
  // Scale by 2^-s in steps that stay exact (powers of two, within range).
  while (s > 0n) {
    const step = s > 1000n ? 1000n : s;
    value /= 2 ** Number(step);
    s -= step;
  }
  while (s < 0n) {
    const step = -s > 1000n ? 1000n : -s;
    value *= 2 ** Number(step);
    s += step;
  }
  return negative ? -value : value;
}

/** atanh(z) for fixed-point z (|z| ≤ 1/5), at precision `bits`. */
function atanh(z: bigint, bits: bigint): bigint {
  const z2 = (z * z) >> bits;
  const scale = 1n << bits;
  let term = z;
  let sum = 0n;
  for (let k = 1n; term !== 0n; k += 2n) {
    sum += term / k;
    term = (term * z2) / scale; // truncates toward zero, so a negative series ends too
  }
  return sum;
}

/** atan(1/n) at precision `bits`. */
function atanInverse(n: bigint, bits: bigint): bigint {
  const one = 1n << bits;
  let power = one / n;
  const n2 = n * n;
  let sum = 0n;
  for (let k = 1n, sign = 1n; power !== 0n; k += 2n, sign = -sign) {
    sum += (sign * power) / k;
    power /= n2;
  }
  return sum;
}

const LN2 = 2n * atanh(ONE / 3n, P); // ln 2 = 2 atanh(1/3)

/** ln(x) in fixed point (scale 2^P) for a finite x > 0. */
function lnFixed(x: number): bigint {
  const { m, e } = decompose(x);
  // x = m · 2^e; normalise m to [2^52, 2^53) · 2^-52 ∈ [1, 2), then to [√½, √2).
  const shift = m.toString(2).length - 1; // m = 1.f · 2^shift
  let exponent = BigInt(e + shift);
  let mantissa = (m << P) >> BigInt(shift); // in [1, 2) at scale 2^P
  if (mantissa * mantissa > 2n * ONE * ONE) {
    mantissa >>= 1n;
    exponent += 1n;
  }
  const z = ((mantissa - ONE) << P) / (mantissa + ONE);
  return 2n * atanh(z, P) + exponent * LN2;
}

/** Correctly rounded natural logarithm of a finite x > 0. */
export function crLog(x: number): number {
  if (x === 1) return 0;
  return toDouble(lnFixed(x), P);
}

/** e^t for fixed-point t (scale 2^P), returned as mantissa at scale 2^P and a power-of-two exponent. */
function expFixed(t: bigint): { mantissa: bigint; exponent: bigint } {
  // t = k ln2 + r with |r| ≤ ln2 / 2.
  let k = t / LN2;
  let r = t - k * LN2;
  if (r > LN2 / 2n) {
    r -= LN2;
    k += 1n;
  } else if (r < -LN2 / 2n) {
    r += LN2;
    k -= 1n;
  }
  let term = ONE;
  let sum = 0n;
  for (let n = 1n; term !== 0n; n++) {
    sum += term;
    term = (term * r) / (n << P);
  }
  return { mantissa: sum, exponent: k };
}

/** Correctly rounded x^y for finite x > 0 and finite y (the caller handles signs, zeros and the rest). */
export function crPowPositive(x: number, y: number): number {
  if (x === 1 || y === 0) return 1;
  const lnx = lnFixed(x);
  const { m, e } = decompose(y);
  let t = lnx * m;
  t = e >= 0 ? t << BigInt(e) : t >> BigInt(-e);
  if (y < 0) t = -t;
  // Far outside the double range: overflow or underflow without computing the exponential.
  if (t > 800n * ONE) return Infinity;
  if (t < -800n * ONE) return 0;
  const { mantissa, exponent } = expFixed(t);
  return toDouble(mantissa, P - exponent);
}

// π/2 for the argument reduction of sin and cos, with enough bits for any double argument (< 2^1024).
const REDUCTION_BITS = 1500n;
let halfPi: bigint | undefined;
function halfPiFixed(): bigint {
  halfPi ??= (16n * atanInverse(5n, REDUCTION_BITS + 32n) - 4n * atanInverse(239n, REDUCTION_BITS + 32n)) >> 33n; // π/2 = (16 atan(1/5) − 4 atan(1/239)) / 2
  return halfPi;
}

/** sin(r) and cos(r) at scale 2^P for fixed-point r in [0, π/2]. */
function sinCosFixed(r: bigint): { s: bigint; c: bigint } {
  const r2 = (r * r) >> P;
  let s = 0n;
  let term = r;
  for (let n = 1n; term !== 0n; n += 2n) {
    s += term;
    term = -(term * r2) / (((n + 1n) * (n + 2n)) << P);
  }
  let c = 0n;
  term = ONE;
  for (let n = 0n; term !== 0n; n += 2n) {
    c += term;
    term = -(term * r2) / (((n + 1n) * (n + 2n)) << P);
  }
  return { s, c };
}

function sinCos(x: number): { s: bigint; c: bigint } {
  const { m, e } = decompose(x);
  const X = (m << REDUCTION_BITS) << BigInt(Math.max(0, e)) >> BigInt(Math.max(0, -e));
  const H = halfPiFixed();
  const q = X / H;
  const r = (X - q * H) >> (REDUCTION_BITS - P);
  const { s, c } = sinCosFixed(r);
  const quadrant = Number(q % 4n);
  const sin = [s, c, -s, -c][quadrant]!;
  const cos = [c, -s, -c, s][quadrant]!;
  return x < 0 ? { s: -sin, c: cos } : { s: sin, c: cos };
}

/** Correctly rounded sine of a finite double. */
export function crSin(x: number): number {
  if (x === 0 || Math.abs(x) < 2 ** -27) return x;
  return toDouble(sinCos(x).s, P);
}

/** Correctly rounded cosine of a finite double. */
export function crCos(x: number): number {
  if (Math.abs(x) < 2 ** -27) return 1;
  return toDouble(sinCos(x).c, P);
}
