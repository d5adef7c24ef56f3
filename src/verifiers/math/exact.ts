// Exact evaluation of rational-valued expressions (SymPy's `doit()` on numbers): sums, products,
// integer powers, perfect roots, factorials, binomials, floor/ceiling/abs/mod/gcd/lcm/min/max.
// Anything irrational, symbolic or too large is "not exact" (undefined), and the caller moves on to
// high-precision numerics. Exactness is what keeps 1/2^99 apart from 1/2^98.
import type { Expr } from "./ast.js";
import * as Q from "./rational.js";
import type { Rational } from "./rational.js";

export interface ExactValue {
  v: Rational;
  /** A Float took part: SymPy would give a Float, compared after rounding, not exactly. */
  float: boolean;
}

/** Factorials beyond this are left to numerics (SymPy would compute them; we never need to). */
const MAX_FACTORIAL = 2_000n;

function integerOf(x: ExactValue | undefined): bigint | undefined {
  return x && x.v.d === 1n ? x.v.n : undefined;
}

function factorial(n: bigint): bigint {
  let r = 1n;
  for (let i = 2n; i <= n; i++) r *= i;
  return r;
}

function binomial(n: bigint, k: bigint): bigint | undefined {
  if (k < 0n || n < 0n) return k < 0n ? 0n : undefined;
  if (k > n) return 0n;
  if (k > n - k) k = n - k;
  if (k > 5_000n) return undefined;
  let r = 1n;
  for (let i = 1n; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** a^(p/q) when it is rational: an exact q-th root of a^p. */
function rationalPower(base: Rational, exp: Rational): Rational | undefined {
  if (exp.d === 1n) return Q.powInt(base, exp.n);
  if (exp.d > 64n) return undefined;
  if (base.n < 0n) return undefined;
  const rn = Q.exactRoot(base.n, exp.d);
  const rd = Q.exactRoot(base.d, exp.d);
  if (rn === undefined || rd === undefined) return undefined;
  return Q.powInt(Q.rat(rn, rd), exp.n);
}

export function exactValue(e: Expr): ExactValue | undefined {
  try {
    return evaluate(e);
  } catch (error) {
    if (error instanceof Q.TooLarge || error instanceof RangeError) return undefined;
    throw error;
  }
}

function evaluate(e: Expr): ExactValue | undefined {
  switch (e.k) {
    case "num":
      return { v: e.v, float: false };
    case "float":
      return { v: e.v, float: true };
    case "add":
    case "mul": {
      let acc: ExactValue = { v: e.k === "add" ? Q.ZERO : Q.ONE, float: false };
      for (const arg of e.args) {
        const x = evaluate(arg);
        if (!x) return undefined;
        acc = { v: e.k === "add" ? Q.add(acc.v, x.v) : Q.mul(acc.v, x.v), float: acc.float || x.float };
      }
      return acc;
    }
    case "pow": {
      const base = evaluate(e.base);
      const exp = evaluate(e.exp);
      if (!base || !exp) return undefined;
      const v = rationalPower(base.v, exp.v);
      return v ? { v, float: base.float || exp.float } : undefined;
    }
    case "fn":
      return evaluateFunction(e.name, e.args);
    default:
      return undefined;
  }
}

function evaluateFunction(name: string, args: Expr[]): ExactValue | undefined {
  const values = args.map(evaluate);
  if (values.some((v) => !v)) return undefined;
  const xs = values as ExactValue[];
  const float = xs.some((x) => x.float);
  const out = (v: Rational | undefined) => (v ? { v, float } : undefined);
  const [a, b] = xs;
  switch (name) {
    case "abs":
      return out(a && { n: a.v.n < 0n ? -a.v.n : a.v.n, d: a.v.d });
    case "factorial": {
      const n = integerOf(a);
      return n !== undefined && n >= 0n && n <= MAX_FACTORIAL ? out(Q.rat(factorial(n))) : undefined;
    }
    case "binomial": {
      const n = integerOf(a);
      const k = integerOf(b);
      const r = n !== undefined && k !== undefined ? binomial(n, k) : undefined;
      return r === undefined ? undefined : out(Q.rat(r));
    }
    case "floor":
    case "ceiling": {
      if (!a) return undefined;
      let q = a.v.n / a.v.d;
      const exact = q * a.v.d === a.v.n;
      if (!exact && a.v.n < 0n) q -= 1n;
      if (!exact && name === "ceiling") q += 1n;
      return out(Q.rat(q));
    }
    case "mod": {
      const x = integerOf(a);
      const m = integerOf(b);
      if (x === undefined || m === undefined || m === 0n) return undefined;
      return out(Q.rat(((x % m) + m) % m));
    }
    case "gcd":
    case "lcm": {
      const ints = xs.map(integerOf);
      if (ints.some((i) => i === undefined) || ints.length === 0) return undefined;
      let acc = ints[0]!;
      for (const i of ints.slice(1)) acc = name === "gcd" ? Q.gcd(acc, i!) : acc === 0n || i === 0n ? 0n : ((acc < 0n ? -acc : acc) * (i! < 0n ? -i! : i!)) / Q.gcd(acc, i!);
      return out(Q.rat(acc < 0n ? -acc : acc));
    }
    case "max":
    case "min": {
      if (xs.length === 0) return undefined;
      let best = xs[0]!.v;
      for (const x of xs.slice(1)) if ((Q.cmp(x.v, best) > 0) === (name === "max")) best = x.v;
      return out(best);
    }
    case "sign":
      return out(a && Q.rat(a.v.n > 0n ? 1n : a.v.n < 0n ? -1n : 0n));
    default:
      return undefined;
  }
}
