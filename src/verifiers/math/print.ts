// `str()` of an answer the way SymPy prints it, for `extracted_answer` (NeMo Gym reports
// str(sympy_expr)): "4" for \frac{8}{2}, "1/2", "sqrt(2)", "x**2", "0.333333000000000", "{1, 2}",
// "Interval.open(0, 1)". Rational sub-expressions are folded as SymPy folds them. Matched against
// math-verify 0.8.0 (Math-Verify 68da5f36, latex2sympy2_extended 1.10.2, SymPy's StrPrinter) on
// test/fixtures/math/families*.jsonl: a set's numbers and a union's intervals print in SymPy's order,
// a written pair a < b is an open interval, an infinite end's openness is not spelled; the terms of a
// sum or product keep the written order where SymPy would reorder them.
import { Decimal } from "./decimal.js";
import type { Expr } from "./ast.js";
import { exactValue } from "./exact.js";
import type { Rational } from "./rational.js";

function rationalText(v: Rational): string {
  return v.d === 1n ? v.n.toString() : `${v.n}/${v.d}`;
}

/** mpmath's 15-significant-digit Float text: fixed between 1e-5 and 1e15, else scientific. */
export function floatText(v: Rational): string {
  const x = new Decimal(v.n.toString()).div(v.d.toString()).toSignificantDigits(15);
  if (x.isZero()) return "0.0";
  const e = x.e;
  if (e >= -5 && e < 15) return x.toFixed(14 - e);
  const [mantissa, exponent] = x.toExponential(14).split("e");
  return `${mantissa}e${exponent!.startsWith("-") ? exponent : `+${exponent!.replace("+", "")}`}`;
}

const PREC = { add: 1, mul: 2, pow: 3, atom: 4 } as const;

function precedence(e: Expr): number {
  if (e.k === "add") return PREC.add;
  if (e.k === "mul") return PREC.mul;
  if (e.k === "pow") return PREC.pow;
  if ((e.k === "num" && (e.v.n < 0n || e.v.d !== 1n)) || (e.k === "float" && e.v.n < 0n)) return PREC.mul;
  return PREC.atom;
}

function wrap(e: Expr, min: number): string {
  const s = print(e);
  return precedence(e) < min ? `(${s})` : s;
}

/**
 * SymPy's name for an interval: an infinite end is always open, and its openness is not spelled
 * (`Interval(-oo, 0)`, `Interval(3, oo)`), but an open finite end beside it is (`Interval.open(2, oo)`).
 */
function intervalName(lo: Expr, hi: Expr, lopen: boolean, hopen: boolean): string {
  const loInfinite = isInfinity(lo);
  const hiInfinite = isInfinity(hi);
  const l = lopen || loInfinite;
  const r = hopen || hiInfinite;
  if ((loInfinite && hiInfinite) || (loInfinite && !r) || (hiInfinite && !l) || (!l && !r)) return "Interval";
  return l && r ? "Interval.open" : l ? "Interval.Lopen" : "Interval.Ropen";
}

/** oo or -oo (as parsed: the constant, or -1 times it). */
function isInfinity(e: Expr): boolean {
  if (e.k === "const" && e.name === "oo") return true;
  if (e.k !== "mul" || e.args.length !== 2) return false;
  const [a, b] = e.args;
  return a?.k === "num" && a.v.n === -1n && a.v.d === 1n && b?.k === "const" && b.name === "oo";
}

/** A real number to order by (±Infinity for ±oo), or undefined when the expression has no fixed value. */
function orderValue(e: Expr): number | undefined {
  if (isInfinity(e)) return e.k === "const" ? Infinity : -Infinity;
  const exact = exactValue(e);
  return exact ? Number(exact.v.n) / Number(exact.v.d) : undefined;
}

/**
 * Whether a written pair `(a, b)` is the open interval SymPy's parse makes of it: both ends have fixed
 * values and a < b (`(3, 4)` is `Interval.open(3, 4)`; `(11, 7)` stays a tuple).
 */
function isOpenIntervalPair(e: Expr & { k: "tuple" }): boolean {
  if (!e.pair || e.elems.length !== 2) return false;
  const [lo, hi] = e.elems.map(orderValue);
  return lo !== undefined && hi !== undefined && lo < hi;
}

/**
 * The order SymPy prints a set's elements and a union's arguments in, where it is known: numbers by
 * value, intervals by their lower end, intervals before tuples. Anything else keeps the written order.
 */
function sortedForPrinting(elems: readonly Expr[]): Expr[] {
  const rank = (e: Expr) => (e.k === "interval" || (e.k === "tuple" && isOpenIntervalPair(e)) ? 1 : e.k === "tuple" ? 2 : orderValue(e) !== undefined ? 0 : undefined);
  const ranks = elems.map(rank);
  if (ranks.some((r) => r === undefined)) return [...elems];
  const start = (e: Expr) => (e.k === "interval" ? orderValue(e.lo) : e.k === "tuple" ? orderValue(e.elems[0]!) : orderValue(e));
  return elems
    .map((e, i) => ({ e, i, r: ranks[i]!, v: start(e) }))
    .sort((a, b) => a.r - b.r || (a.r === 2 ? a.i - b.i : (a.v ?? 0) - (b.v ?? 0) || a.i - b.i))
    .map(({ e }) => e);
}

const DOMAINS = { empty: "EmptySet", reals: "Reals", integers: "Integers", naturals: "Naturals0", rationals: "Rationals", complexes: "Complexes" };

export function print(e: Expr): string {
  if (e.k !== "num" && e.k !== "float") {
    const exact = exactValue(e);
    if (exact) return exact.float ? floatText(exact.v) : rationalText(exact.v);
  }
  switch (e.k) {
    case "num":
      return rationalText(e.v);
    case "float":
      return floatText(e.v);
    case "sym":
      return e.name;
    case "const":
      return { pi: "pi", E: "E", I: "I", oo: "oo" }[e.name];
    case "add":
      return e.args
        .map((a, i) => {
          const s = wrap(a, PREC.add);
          if (i === 0) return s;
          return s.startsWith("-") ? ` - ${s.slice(1)}` : ` + ${s}`;
        })
        .join("");
    case "mul": {
      const numer: string[] = [];
      const denom: string[] = [];
      let sign = "";
      for (const a of e.args) {
        if (a.k === "num" && a.v.n === -1n && a.v.d === 1n) sign = sign ? "" : "-";
        else if (a.k === "pow" && a.exp.k === "num" && a.exp.v.n === -1n && a.exp.v.d === 1n) denom.push(wrap(a.base, PREC.pow));
        else numer.push(wrap(a, PREC.mul));
      }
      const top = numer.length ? numer.join("*") : "1";
      const text = denom.length ? `${top}/${denom.length > 1 ? `(${denom.join("*")})` : denom[0]}` : top;
      return sign + text;
    }
    case "pow":
      if (e.exp.k === "num" && e.exp.v.n === 1n && e.exp.v.d === 2n) return `sqrt(${print(e.base)})`;
      if (e.exp.k === "num" && e.exp.v.n === -1n && e.exp.v.d === 1n) return `1/${wrap(e.base, PREC.pow)}`;
      if (e.base.k === "const" && e.base.name === "E") return `exp(${print(e.exp)})`;
      return `${wrap(e.base, PREC.atom)}**${wrap(e.exp, PREC.atom)}`;
    case "fn":
      if (e.name === "log" && e.args.length === 2) return `log(${print(e.args[0]!)})/log(${print(e.args[1]!)})`;
      if (e.name === "abs") return `Abs(${print(e.args[0]!)})`;
      return `${e.name}(${e.args.map(print).join(", ")})`;
    case "rel":
      if (e.op === "=") return `Eq(${print(e.lhs)}, ${print(e.rhs)})`;
      if (e.op === "!=") return `Ne(${print(e.lhs)}, ${print(e.rhs)})`;
      return `${print(e.lhs)} ${e.op} ${print(e.rhs)}`;
    case "and":
      return e.args.map((a) => `(${print(a)})`).join(" & ");
    case "set":
      return `{${sortedForPrinting(e.elems).map(print).join(", ")}}`;
    case "tuple":
      if (isOpenIntervalPair(e)) return `Interval.open(${print(e.elems[0]!)}, ${print(e.elems[1]!)})`;
      return `(${e.elems.map(print).join(", ")}${e.elems.length === 1 ? "," : ""})`;
    case "interval":
      return `${intervalName(e.lo, e.hi, e.lopen, e.hopen)}(${print(e.lo)}, ${print(e.hi)})`;
    case "setop":
      return `${{ union: "Union", intersect: "Intersection", minus: "Complement" }[e.op]}(${(e.op === "union" ? sortedForPrinting(e.args) : e.args).map(print).join(", ")})`;
    case "domain":
      return DOMAINS[e.name];
    case "matrix":
      return `Matrix([${e.rows.map((r) => `[${r.map(print).join(", ")}]`).join(", ")}])`;
  }
}
