// High-precision numeric evaluation (decimal.js, complex-capable) of an expression at given symbol
// values. It stands in for SymPy's `evalf` (numbers) and, at random points, for `simplify(a - b) == 0`
// (randomised identity testing). Magnitudes are bounded before any big computation, so
// `9^{9^{9^9}}` is refused in microseconds instead of running for minutes.
import { Decimal } from "./decimal.js";
import type { Expr } from "./ast.js";
import type { Rational } from "./rational.js";

export class NotNumeric extends Error {}

/** Results beyond 10^±MAX_EXPONENT are refused: they cannot be answers worth comparing. */
const MAX_EXPONENT = 100_000;
/** decimal.js keeps π and ln 10 to ~1025 digits; its transcendental functions stop there. */
export const MAX_PRECISION = 1_000;

type D = Decimal;
export interface Complex {
  re: D;
  im: D;
}

const engines = new Map<number, typeof Decimal>();
function decimalWith(precision: number): typeof Decimal {
  let engine = engines.get(precision);
  if (!engine) {
    engine = Decimal.clone({ precision, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -30, toExpPos: 40, maxE: 9e15, minE: -9e15 });
    engines.set(precision, engine);
  }
  return engine;
}

export class Evaluator {
  private readonly D: typeof Decimal;
  private readonly zero: D;
  private readonly one: D;
  private piValue: D | undefined;

  constructor(
    readonly precision: number,
    private readonly values: ReadonlyMap<string, D> = new Map(),
  ) {
    this.D = decimalWith(precision);
    this.zero = new this.D(0);
    this.one = new this.D(1);
  }

  private real(re: D): Complex {
    return { re, im: this.zero };
  }

  private pi(): D {
    this.piValue ??= this.D.acos(-1);
    return this.piValue;
  }

  private checked(z: Complex): Complex {
    for (const part of [z.re, z.im]) {
      if (!part.isFinite()) throw new NotNumeric("not finite");
      if (!part.isZero() && Math.abs(part.e) > MAX_EXPONENT) throw new NotNumeric("magnitude out of range");
    }
    return z;
  }

  rational(v: Rational): Complex {
    return this.real(new this.D(v.n.toString()).div(new this.D(v.d.toString())));
  }

  evaluate(e: Expr): Complex {
    try {
      return this.checked(this.eval(e));
    } catch (error) {
      // decimal.js refuses some inputs (precision limits of its π and ln 10): no numeric value.
      if (error instanceof Error && error.message.startsWith("[DecimalError]")) throw new NotNumeric(error.message);
      throw error;
    }
  }

  private eval(e: Expr): Complex {
    switch (e.k) {
      case "num":
      case "float":
        return e.v.d === 1n ? this.real(new this.D(e.v.n.toString())) : this.rational(e.v);
      case "sym": {
        const value = this.values.get(e.name);
        if (!value) throw new NotNumeric(`free symbol ${e.name}`);
        // Re-created in this precision: decimal.js computes in the precision of the receiver's class.
        return this.real(new this.D(value));
      }
      case "const":
        if (e.name === "pi") return this.real(this.pi());
        if (e.name === "E") return this.real(this.one.exp());
        if (e.name === "I") return { re: this.zero, im: this.one };
        throw new NotNumeric("infinity");
      case "add": {
        let re = this.zero;
        let im = this.zero;
        for (const arg of e.args) {
          const z = this.evaluate(arg);
          re = re.plus(z.re);
          im = im.plus(z.im);
        }
        return { re, im };
      }
      case "mul": {
        let acc: Complex = this.real(this.one);
        for (const arg of e.args) acc = this.checked(this.mul(acc, this.evaluate(arg)));
        return acc;
      }
      case "pow":
        return this.pow(e.base, e.exp);
      case "fn":
        return this.fn(e.name, e.args.map((a) => this.evaluate(a)));
      default:
        throw new NotNumeric(`not a number: ${e.k}`);
    }
  }

  private mul(a: Complex, b: Complex): Complex {
    if (a.im.isZero() && b.im.isZero()) return this.real(a.re.times(b.re));
    return { re: a.re.times(b.re).minus(a.im.times(b.im)), im: a.re.times(b.im).plus(a.im.times(b.re)) };
  }

  private div(a: Complex, b: Complex): Complex {
    if (b.re.isZero() && b.im.isZero()) throw new NotNumeric("division by zero");
    if (a.im.isZero() && b.im.isZero()) return this.real(a.re.div(b.re));
    const den = b.re.times(b.re).plus(b.im.times(b.im));
    return {
      re: a.re.times(b.re).plus(a.im.times(b.im)).div(den),
      im: a.im.times(b.re).minus(a.re.times(b.im)).div(den),
    };
  }

  private abs(z: Complex): D {
    return z.im.isZero() ? z.re.abs() : z.re.times(z.re).plus(z.im.times(z.im)).sqrt();
  }

  private log(z: Complex): Complex {
    if (z.re.isZero() && z.im.isZero()) throw new NotNumeric("log(0)");
    if (z.im.isZero() && z.re.isPositive()) return this.real(z.re.ln());
    return { re: this.abs(z).ln(), im: this.D.atan2(z.im, z.re) };
  }

  private exp(z: Complex): Complex {
    if (z.re.gt(MAX_EXPONENT * 2.4)) throw new NotNumeric("exp overflow");
    const m = z.re.exp();
    if (z.im.isZero()) return this.real(m);
    return { re: m.times(z.im.cos()), im: m.times(z.im.sin()) };
  }

  private pow(baseExpr: Expr, expExpr: Expr): Complex {
    const exp = this.evaluate(expExpr);
    const base = this.evaluate(baseExpr);
    if (base.re.isZero() && base.im.isZero()) {
      if (exp.im.isZero() && exp.re.isPositive()) return this.real(this.zero);
      throw new NotNumeric("0 to a non-positive power");
    }
    // Refuse results whose size alone rules them out, before computing anything.
    const absBase = this.abs(base);
    const logMagnitude = Math.abs(absBase.e) < 300 ? Math.log10(absBase.toNumber()) : absBase.e;
    const bound = Math.abs(exp.re.toNumber()) * Math.abs(logMagnitude);
    if (!Number.isFinite(bound) || bound > MAX_EXPONENT) throw new NotNumeric("power too large");
    if (exp.im.isZero() && exp.re.isInteger() && exp.re.abs().lt(1e6)) {
      // Integer powers by squaring: exact up to the working precision, for negative bases too.
      let n = exp.re.abs().toNumber();
      let result: Complex = this.real(this.one);
      let b = base;
      while (n > 0) {
        if (n & 1) result = this.mul(result, b);
        n = Math.floor(n / 2);
        if (n > 0) b = this.mul(b, b);
      }
      return exp.re.isNegative() ? this.div(this.real(this.one), result) : result;
    }
    if (base.im.isZero() && base.re.isPositive() && exp.im.isZero()) {
      // √ is by far the commonest non-integer power, and decimal.js's sqrt is much faster than pow.
      if (exp.re.eq(0.5)) return this.real(base.re.sqrt());
      if (exp.re.eq(-0.5)) return this.real(this.one.div(base.re.sqrt()));
      return this.real(base.re.pow(exp.re));
    }
    if (base.im.isZero() && exp.im.isZero() && exp.re.eq(0.5)) {
      // √(negative) = i·√|x|, SymPy's principal root.
      return { re: this.zero, im: base.re.abs().sqrt() };
    }
    return this.exp(this.mul(exp, this.log(base)));
  }

  private realArg(z: Complex | undefined, name: string): D {
    if (!z) throw new NotNumeric(`${name}: missing argument`);
    if (!z.im.isZero()) throw new NotNumeric(`${name} of a complex number`);
    return z.re;
  }

  private fn(name: string, args: Complex[]): Complex {
    const [a, b] = args;
    const r = (fn: (x: D) => D) => this.real(fn(this.realArg(a, name)));
    const inUnit = (x: D) => {
      if (x.abs().gt(1)) throw new NotNumeric(`${name} outside [-1, 1]`);
      return x;
    };
    switch (name) {
      case "sin":
        return r((x) => x.sin());
      case "cos":
        return r((x) => x.cos());
      case "tan":
        return r((x) => x.tan());
      case "cot":
        return r((x) => this.one.div(x.tan()));
      case "sec":
        return r((x) => this.one.div(x.cos()));
      case "csc":
        return r((x) => this.one.div(x.sin()));
      case "asin":
        return r((x) => inUnit(x).asin());
      case "acos":
        return r((x) => inUnit(x).acos());
      case "atan":
        return r((x) => x.atan());
      case "acot":
        return r((x) => (x.isZero() ? this.pi().div(2) : this.one.div(x).atan()));
      case "sinh":
        return r((x) => x.sinh());
      case "cosh":
        return r((x) => x.cosh());
      case "tanh":
        return r((x) => x.tanh());
      case "asinh":
        return r((x) => x.asinh());
      case "acosh":
        return r((x) => x.acosh());
      case "atanh":
        return r((x) => x.atanh());
      case "abs":
        return this.real(this.abs(a!));
      case "log": {
        const ln = this.log(a!);
        if (!b) return ln;
        return this.div(ln, this.log(b));
      }
      case "floor":
        return r((x) => x.floor());
      case "ceiling":
        return r((x) => x.ceil());
      case "sign":
        return r((x) => new this.D(x.isZero() ? 0 : x.isPositive() ? 1 : -1));
      case "factorial": {
        const x = this.realArg(a, name);
        if (!x.isInteger() || x.isNegative() || x.gt(3000)) throw new NotNumeric("factorial");
        let acc = this.one;
        for (let i = 2; i <= x.toNumber(); i++) acc = acc.times(i);
        return this.real(acc);
      }
      case "max":
      case "min": {
        const xs = args.map((z) => this.realArg(z, name));
        return this.real(name === "max" ? this.D.max(...xs) : this.D.min(...xs));
      }
      case "re":
        return this.real(a!.re);
      case "im":
        return this.real(a!.im);
      case "conjugate":
        return { re: a!.re, im: a!.im.neg() };
      default:
        throw new NotNumeric(`no numeric value for ${name}`);
    }
  }
}

/** `z` to a plain JS number pair, for magnitude estimates. */
export function magnitude(z: Complex): number {
  const big = Decimal.max(z.re.abs(), z.im.abs());
  return big.isZero() ? -Infinity : big.e;
}
