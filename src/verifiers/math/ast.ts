// The expression tree the math verifier works on: a small SymPy-like algebra (numbers, symbols,
// sums, products, powers, functions, relations, sets, tuples, intervals, matrices). LaTeX and
// plain-text answers are both parsed into it; equivalence, exact arithmetic and numerics read it.
// `onlySymbols` follows latex2sympy2_extended 1.10.2 (commit 08735067b667bb8fb5beb9ef1cbc77d06bae3660).
import { type Rational, rat } from "./rational.js";

export type RelOp = "=" | "!=" | "<" | "<=" | ">" | ">=";

export type Expr =
  /** An exact integer or rational (SymPy Integer / Rational). */
  | { k: "num"; v: Rational }
  /** A decimal literal (SymPy Float). The exact decimal value is kept; `Float`-ness drives rounding. */
  | { k: "float"; v: Rational }
  /** A real symbol (or a text answer: `\text{odd}` becomes the symbol `odd`). */
  | { k: "sym"; name: string }
  /** π, Euler's e, the imaginary unit, +∞. */
  | { k: "const"; name: "pi" | "E" | "I" | "oo" }
  | { k: "add"; args: Expr[] }
  | { k: "mul"; args: Expr[] }
  | { k: "pow"; base: Expr; exp: Expr }
  /** A named function: sin, log (args [x, base]), abs, factorial, binomial, floor, … */
  | { k: "fn"; name: string; args: Expr[] }
  | { k: "rel"; op: RelOp; lhs: Expr; rhs: Expr }
  /** A chain of relations (`1 < x < 2`), SymPy's And. */
  | { k: "and"; args: Expr[] }
  /** A FiniteSet; `pm` marks the two values of an `a \pm b`. */
  | { k: "set"; elems: Expr[]; pm?: boolean }
  /** A Tuple; `pair` marks `(a, b)`, which latex2sympy also reads as the open interval (a, b). */
  | { k: "tuple"; elems: Expr[]; pair?: boolean }
  | { k: "interval"; lo: Expr; hi: Expr; lopen: boolean; hopen: boolean }
  | { k: "setop"; op: "union" | "intersect" | "minus"; args: Expr[] }
  /** ∅, ℝ, ℤ, ℕ, ℚ, ℂ. */
  | { k: "domain"; name: "empty" | "reals" | "integers" | "naturals" | "rationals" | "complexes" }
  | { k: "matrix"; rows: Expr[][] };

export const num = (n: bigint | number, d: bigint | number = 1n): Expr => ({ k: "num", v: rat(n, d) });
export const numR = (v: Rational): Expr => ({ k: "num", v });
export const sym = (name: string): Expr => ({ k: "sym", name });
/** Sums and products are n-ary and flat (SymPy's Add/Mul), so long chains never nest deeply. */
export const add = (...args: Expr[]): Expr => (args.length === 1 ? args[0]! : { k: "add", args: args.flatMap((a) => (a.k === "add" ? a.args : [a])) });
export const mul = (...args: Expr[]): Expr => (args.length === 1 ? args[0]! : { k: "mul", args: args.flatMap((a) => (a.k === "mul" ? a.args : [a])) });
export const pow = (base: Expr, exp: Expr): Expr => ({ k: "pow", base, exp });
export const neg = (e: Expr): Expr => (e.k === "num" ? numR({ n: -e.v.n, d: e.v.d }) : e.k === "float" ? { k: "float", v: { n: -e.v.n, d: e.v.d } } : mul(num(-1), e));
export const sub = (a: Expr, b: Expr): Expr => add(a, neg(b));
export const div = (a: Expr, b: Expr): Expr => mul(a, pow(b, num(-1)));
export const fn = (name: string, ...args: Expr[]): Expr => ({ k: "fn", name, args });
export const PI: Expr = { k: "const", name: "pi" };
export const E: Expr = { k: "const", name: "E" };
export const I: Expr = { k: "const", name: "I" };
export const OO: Expr = { k: "const", name: "oo" };


/** Children of a node, for generic walks. */
export function children(e: Expr): Expr[] {
  switch (e.k) {
    case "add":
    case "mul":
    case "and":
    case "setop":
      return e.args;
    case "fn":
      return e.args;
    case "pow":
      return [e.base, e.exp];
    case "rel":
      return [e.lhs, e.rhs];
    case "set":
    case "tuple":
      return e.elems;
    case "interval":
      return [e.lo, e.hi];
    case "matrix":
      return e.rows.flat();
    default:
      return [];
  }
}

/**
 * latex2sympy2_extended's `is_expr_of_only_symbols`: a name built only from symbols: a symbol, or
 * any node whose children all are (products `AB`, applications `f(x)`, `|AB|`, tuples), or a
 * reciprocal of one (`\frac{NO}{BO}`, `A:B`). Numbers and constants are not names.
 */
export function onlySymbols(e: Expr): boolean {
  if (e.k === "sym") return true;
  if (e.k === "pow" && e.exp.k === "num" && e.exp.v.n === -1n && e.exp.v.d === 1n) return onlySymbols(e.base);
  const kids = children(e);
  return kids.length > 0 && kids.every(onlySymbols);
}

/** `e` with every symbol `name` replaced by `value`. */
export function substitute(e: Expr, name: string, value: Expr): Expr {
  const sub = (x: Expr) => substitute(x, name, value);
  switch (e.k) {
    case "sym":
      return e.name === name ? value : e;
    case "add":
    case "mul":
    case "and":
    case "setop":
    case "fn":
      return { ...e, args: e.args.map(sub) } as Expr;
    case "pow":
      return { k: "pow", base: sub(e.base), exp: sub(e.exp) };
    case "rel":
      return { ...e, lhs: sub(e.lhs), rhs: sub(e.rhs) };
    case "set":
    case "tuple":
      return { ...e, elems: e.elems.map(sub) } as Expr;
    case "interval":
      return { ...e, lo: sub(e.lo), hi: sub(e.hi) };
    case "matrix":
      return { k: "matrix", rows: e.rows.map((r) => r.map(sub)) };
    default:
      return e;
  }
}

export function freeSymbols(e: Expr, out = new Set<string>()): Set<string> {
  if (e.k === "sym") out.add(e.name);
  for (const c of children(e)) freeSymbols(c, out);
  return out;
}

/** A canonical text of the tree: two expressions are structurally equal iff their keys are. */
export function key(e: Expr): string {
  switch (e.k) {
    case "num":
      return e.v.d === 1n ? `${e.v.n}` : `${e.v.n}/${e.v.d}`;
    case "float":
      return `F(${e.v.n}/${e.v.d})`;
    case "sym":
      return `S(${e.name})`;
    case "const":
      return e.name;
    case "add":
    case "mul":
    case "and":
      return `${e.k}(${e.args.map(key).join(",")})`;
    case "setop":
      return `${e.op}(${e.args.map(key).join(",")})`;
    case "fn":
      return `${e.name}(${e.args.map(key).join(",")})`;
    case "pow":
      return `pow(${key(e.base)},${key(e.exp)})`;
    case "rel":
      return `rel${e.op}(${key(e.lhs)},${key(e.rhs)})`;
    case "set":
      return `set(${e.elems.map(key).sort().join(",")})`;
    case "tuple":
      return `tuple(${e.elems.map(key).join(",")})`;
    case "interval":
      return `${e.lopen ? "(" : "["}${key(e.lo)},${key(e.hi)}${e.hopen ? ")" : "]"}`;
    case "domain":
      return `D(${e.name})`;
    case "matrix":
      return `M(${e.rows.map((r) => r.map(key).join(",")).join(";")})`;
  }
}

export const same = (a: Expr, b: Expr) => key(a) === key(b);

/** Nesting depth, to refuse trees our recursive algorithms should not walk (throws past `limit`). */
export function checkDepth(e: Expr, limit: number, depth = 0): void {
  if (depth > limit) throw new RangeError(`expression nested deeper than ${limit}`);
  for (const c of children(e)) checkDepth(c, limit, depth + 1);
}
