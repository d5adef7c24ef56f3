// Answer equivalence, after math-verify's `verify(gold, pred)` / `sympy_expr_eq` (strict mode, no
// set-relation comparison, float_rounding 6). The steps run in math-verify's order, and each one
// decides or passes on: assignments → relation-vs-set → structural equality → relations → sets,
// tuples and intervals → symbols → numbers (floats rounded, exact numbers exact, the rest evalf'd
// with SymPy's chop) → symbolic identity (simplify(a − b) = 0, done here by randomised identity
// testing at high precision). It is deliberately not symmetric: gold and prediction play different
// roles (a model must not score by restating an inequality it was given).
// Rules matched against math-verify 0.8.0 (Math-Verify commit 68da5f36c72d83e987bda77155c3bb26898913c0,
// grader.py) and latex2sympy2_extended 1.10.2 (commit 08735067b667bb8fb5beb9ef1cbc77d06bae3660).
import * as A from "./ast.js";
import type { Expr, RelOp } from "./ast.js";
import { exactValue } from "./exact.js";
import { Evaluator, MAX_PRECISION, NotNumeric, magnitude, type Complex } from "./numeric.js";
import * as Q from "./rational.js";
import { Decimal } from "./decimal.js";
import { isAppliedFunction } from "./latex_parse.js";

export interface EquivalenceOptions {
  /** Decimal places both sides are rounded to when either is a Float (NeMo Gym: 6). */
  floatRounding: number;
}

export const DEFAULT_OPTIONS: EquivalenceOptions = { floatRounding: 6 };

/** SymPy's `evalf(15, chop=True)` drops parts below 2^(4 − 53). */
const CHOP = new Decimal(2).pow(-49);
/** Precision (digits) of the randomised identity test and its tolerance. */
const IDENTITY_PRECISION = 50;
const IDENTITY_TOLERANCE = new Decimal(10).pow(-25);
/** Points that must agree (more are tried when some are outside the domain). */
const SAMPLES = 6;

type Rel = Extract<Expr, { k: "rel" }>;

// --- Assignments ----------------------------------------------------------------------------------

/** A left side math-verify reads as a name (`x`, `AB`, `f(x)`, `|AB|`, `A:B`): the equation is an assignment. */
const isSymbolsOnly = A.onlySymbols;

const isEquation = (e: Expr): e is Rel => e.k === "rel" && e.op === "=";
const isAssignment = (e: Expr): e is Rel => isEquation(e) && isSymbolsOnly(e.lhs);
const isRelational = (e: Expr) => e.k === "rel" || (e.k === "and" && e.args.every((a) => a.k === "rel"));

/** `x = 5+5+1 = 11` → `x = 11`: a chain of equalities starting with an assignment keeps its ends. */
function collapseChain(e: Expr): Expr {
  if (e.k !== "and" || !e.args.every(isEquation)) return e;
  const first = e.args[0] as Rel;
  const last = e.args[e.args.length - 1] as Rel;
  return isSymbolsOnly(first.lhs) ? { k: "rel", op: "=", lhs: first.lhs, rhs: last.rhs } : e;
}

// --- Relations as sets (gold inequality vs predicted interval) -------------------------------------

const FLIP: Record<RelOp, RelOp> = { "=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<=" };

function hasFree(e: Expr): boolean {
  return A.freeSymbols(e).size > 0;
}

/** `x op c` with x the only symbol, as a set; undefined if the relation is not of that shape. */
/** A side SymPy's `as_set` solves for: a symbol, or an undefined function application (unwrapped to one). */
const isSubject = (e: Expr) => e.k === "sym" || (isAppliedFunction(e) && A.children(e).every((c) => c.k === "sym" || c.k === "num"));

function subjectOf(r: Expr): Expr | undefined {
  if (r.k !== "rel") return undefined;
  return isSubject(r.lhs) ? r.lhs : isSubject(r.rhs) ? r.rhs : undefined;
}

function relationAsSet(r: Rel): Expr | undefined {
  let op = r.op;
  let bound: Expr;
  if (isSubject(r.lhs) && !hasFree(r.rhs)) bound = r.rhs;
  else if (isSubject(r.rhs) && !hasFree(r.lhs)) {
    bound = r.lhs;
    op = FLIP[op];
  } else return undefined;
  const minusInf = A.neg(A.OO);
  switch (op) {
    case "=":
      return { k: "set", elems: [bound] };
    case "<":
      return { k: "interval", lo: minusInf, hi: bound, lopen: true, hopen: true };
    case "<=":
      return { k: "interval", lo: minusInf, hi: bound, lopen: true, hopen: false };
    case ">":
      return { k: "interval", lo: bound, hi: A.OO, lopen: true, hopen: true };
    case ">=":
      return { k: "interval", lo: bound, hi: A.OO, lopen: false, hopen: true };
    case "!=":
      return {
        k: "setop",
        op: "union",
        args: [
          { k: "interval", lo: minusInf, hi: bound, lopen: true, hopen: true },
          { k: "interval", lo: bound, hi: A.OO, lopen: true, hopen: true },
        ],
      };
  }
}

function asSet(e: Expr): Expr | undefined {
  if (e.k === "rel") return relationAsSet(e);
  if (e.k !== "and" || e.args.length !== 2) return undefined;
  // One unknown only: both relations must bound the same subject.
  const [s1, s2] = e.args.map(subjectOf);
  if (!s1 || !s2 || !A.same(s1, s2)) return undefined;
  const sets = e.args.map((r) => (r.k === "rel" ? relationAsSet(r) : undefined));
  const [a, b] = sets;
  if (a?.k !== "interval" || b?.k !== "interval") return undefined;
  const lower = isNegInf(a.lo) ? b : a;
  const upper = lower === a ? b : a;
  if (!isNegInf(upper.lo) || !isInf(lower.hi)) return undefined;
  return { k: "interval", lo: lower.lo, hi: upper.hi, lopen: lower.lopen, hopen: upper.hopen };
}

const isInf = (e: Expr) => e.k === "const" && e.name === "oo";
const isNegInf = (e: Expr) => A.same(e, A.neg(A.OO));

// --- The comparison ---------------------------------------------------------------------------------

export class Equivalence {
  constructor(private readonly options: EquivalenceOptions = DEFAULT_OPTIONS) {}

  equal(gold: Expr, pred: Expr): boolean {
    let g = collapseChain(gold);
    let p = collapseChain(pred);
    // Assignments: `x = 11` answers `11`; a gold `x = 11` accepts a bare `11`.
    if (isEquation(p) && !isEquation(g)) p = p.rhs;
    else if (isAssignment(g) && !isEquation(p)) g = g.rhs;
    // A gold relation against a predicted set compares as a set (never the other way round).
    if (isRelational(g) && (p.k === "interval" || p.k === "setop" || p.k === "domain" || p.k === "set" || (p.k === "tuple" && p.pair))) g = asSet(g) ?? g;
    if (A.same(g, p)) return true;
    const gRel = isRelational(g);
    const pRel = isRelational(p);
    if (gRel || pRel) return gRel && pRel && this.relationsEqual(g, p);
    if (isCollection(g) || isCollection(p)) return this.collectionsEqual(g, p);
    // A symbol against a name-like answer is decided by names; against an expression, by value.
    // math-verify decides every pair with a symbol on one side by names (or by str(), which a
    // symbol only shares with itself): never by value, so `x` is not (x² + x)/(x + 1).
    if (g.k === "sym" || p.k === "sym") return symbolsEqual(g, p);
    if (isEuler(g) && isEuler(p)) return true;
    if (g.k === "matrix" || p.k === "matrix") return this.matricesEqual(g, p);
    if (!hasFree(g) && !hasFree(p)) return this.numbersEqual(g, p);
    return this.identical(g, p);
  }

  // --- relations ---

  private relationsEqual(g: Expr, p: Expr): boolean {
    if (g.k === "and" || p.k === "and") {
      if (g.k !== "and" || p.k !== "and" || g.args.length !== p.args.length) return false;
      return matchAll(g.args, p.args, (a, b) => this.relationsEqual(a, b));
    }
    const gr = g as Rel;
    const pr = p as Rel;
    const dg = A.sub(gr.lhs, gr.rhs);
    if (gr.op === pr.op && this.equal(dg, A.sub(pr.lhs, pr.rhs))) return true;
    if (gr.op === FLIP[pr.op] && this.equal(dg, A.sub(pr.rhs, pr.lhs))) return true;
    // SymPy's last resort solves both sides; equations that are constant multiples of each other
    // have the same solutions (2x+4y−3=0 and y = −x/2+3/4). Inequalities are not rescaled (real
    // run: 2x−4<0 is not x<2, 2x<4 is not x<2); only the flip above relates them (−x>−2 is x<2).
    if (gr.op !== "=" && gr.op !== "!=") return false;
    return this.proportional(gr, pr);
  }

  private proportional(g: Rel, p: Rel): boolean {
    const f = A.sub(g.lhs, g.rhs);
    const h = A.sub(p.lhs, p.rhs);
    const symbols = [...new Set([...A.freeSymbols(f), ...A.freeSymbols(h)])];
    // Real run: a one-unknown equation is not rescaled (2x=4 is not 4x=8 nor x-2=0), a two-unknown one is.
    if (symbols.length < 2) return false;
    let ratio: Decimal | undefined;
    let checked = 0;
    for (const point of samplePoints(symbols, `${A.key(f)}|${A.key(h)}`)) {
      const ev = new Evaluator(IDENTITY_PRECISION, point);
      let a: Complex;
      let b: Complex;
      try {
        a = ev.evaluate(f);
        b = ev.evaluate(h);
      } catch (error) {
        if (error instanceof NotNumeric) continue;
        throw error;
      }
      if (!a.im.isZero() || !b.im.isZero() || b.re.isZero()) continue;
      const r = a.re.div(b.re);
      if (r.isZero()) return false;
      if (ratio === undefined) ratio = r;
      else if (r.minus(ratio).abs().gt(IDENTITY_TOLERANCE.times(Decimal.max(1, ratio.abs())))) return false;
      if (++checked >= SAMPLES) break;
    }
    if (ratio === undefined || checked < 2) return false;
    return g.op === p.op;
  }

  // --- sets, tuples, intervals ---

  private collectionsEqual(g: Expr, p: Expr): boolean {
    // (a, b) is also the open interval (a, b): so it compares with intervals and domains.
    const setLike = (e: Expr) => e.k === "interval" || e.k === "domain" || e.k === "setop";
    if (setLike(g) && p.k === "tuple" && p.pair) p = { k: "interval", lo: p.elems[0]!, hi: p.elems[1]!, lopen: true, hopen: true };
    if (setLike(p) && g.k === "tuple" && g.pair) g = { k: "interval", lo: g.elems[0]!, hi: g.elems[1]!, lopen: true, hopen: true };
    if (g.k === "interval" || p.k === "interval") {
      if (g.k === "interval" && p.k === "interval") {
        return g.lopen === p.lopen && g.hopen === p.hopen && this.equal(g.lo, p.lo) && this.equal(g.hi, p.hi);
      }
      const other = g.k === "interval" ? p : g;
      const interval = (g.k === "interval" ? g : p) as Extract<Expr, { k: "interval" }>;
      if (other.k === "domain" && other.name === "reals") return isNegInf(interval.lo) && isInf(interval.hi);
      // An open interval against a two-element set is compared as the pair: in the order the set
      // was written when the interval is the gold (a tuple gold against a set), else sorted.
      if (other.k === "set" && other.elems.length === 2 && interval.lopen && interval.hopen) {
        if (g === interval) return this.inWrittenOrder([interval.lo, interval.hi], other);
        return matchAll([interval.lo, interval.hi], other.elems, (a, b) => this.equal(a, b));
      }
      return false;
    }
    if (g.k === "setop" || p.k === "setop") {
      if (g.k !== "setop" || p.k !== "setop" || g.op !== p.op || g.args.length !== p.args.length) return false;
      if (g.op === "minus") return this.equal(g.args[0]!, p.args[0]!) && this.equal(g.args[1]!, p.args[1]!);
      return matchAll(g.args, p.args, (a, b) => this.equal(a, b));
    }
    if (g.k === "domain" || p.k === "domain") return g.k === "domain" && p.k === "domain" && g.name === p.name;
    const gs = elementsOf(g);
    const ps = elementsOf(p);
    if (gs.length !== ps.length) return false;
    if (g.k === "tuple" && p.k === "tuple") return gs.every((x, i) => this.equal(x, ps[i]!));
    // Strict mode: a tuple gold is compared with a set prediction element by element in the order
    // the set was written ((3, 1) never matches {1, 3}); a set gold sorts both sides, which a
    // perfect matching reproduces.
    if (g.k === "tuple" && p.k === "set") return this.inWrittenOrder(gs, p);
    return matchAll(gs, ps, (a, b) => this.equal(a, b));
  }

  /** SymPy zips the gold with the set's written arguments (duplicates kept: lengths must agree). */
  private inWrittenOrder(gs: Expr[], p: Extract<Expr, { k: "set" }>): boolean {
    if (p.elems.length !== gs.length || elementsOf(p).length !== gs.length) return false;
    return gs.every((x, i) => this.equal(x, p.elems[i]!));
  }

  // --- matrices ---

  private matricesEqual(g: Expr, p: Expr): boolean {
    if (g.k !== "matrix" || p.k !== "matrix") return false;
    if (g.rows.length !== p.rows.length || g.rows[0]!.length !== p.rows[0]!.length) return false;
    return g.rows.every((row, i) => row.every((cell, j) => this.equal(cell, p.rows[i]![j]!)));
  }

  // --- numbers ---

  private numbersEqual(g: Expr, p: Expr): boolean {
    if (isFloatLike(g) || isFloatLike(p)) {
      // SymPy rounds both sides to float_rounding places: 1/3 = 0.333333 but 1/3 ≠ 0.3333.
      const a = realValue(g);
      const b = realValue(p);
      if (!a || !b) return false;
      // An Integer on either side is compared exactly (real run: 1.0000001 ≠ 1, 2 ≠ 2.0000001, 2.0 = 2);
      // only a Float against a Float or a non-integer Rational is rounded (0.3333333 = 1/3).
      if (isInteger(g) || isInteger(p)) return Q.eq(a, b);
      const places = this.options.floatRounding;
      return Q.eq(Q.roundHalfEven(a, places), Q.roundHalfEven(b, places));
    }
    const a = exactValue(g);
    const b = exactValue(p);
    if (a && b && !a.float && !b.float) return Q.eq(a.v, b.v);
    return numericallyZero(g, p);
  }

  // --- symbolic ---

  /** simplify(g − p) == 0, by evaluating both sides at random real points to 50 digits. */
  private identical(g: Expr, p: Expr): boolean {
    const symbols = [...new Set([...A.freeSymbols(g), ...A.freeSymbols(p)])];
    let checked = 0;
    for (const point of samplePoints(symbols, `${A.key(g)}|${A.key(p)}`)) {
      const ev = new Evaluator(IDENTITY_PRECISION, point);
      let a: Complex;
      let b: Complex;
      try {
        a = ev.evaluate(g);
        b = ev.evaluate(p);
      } catch (error) {
        if (error instanceof NotNumeric) continue;
        throw error;
      }
      const scale = Decimal.max(1, a.re.abs(), a.im.abs(), b.re.abs(), b.im.abs());
      const tolerance = IDENTITY_TOLERANCE.times(scale);
      if (a.re.minus(b.re).abs().gt(tolerance) || a.im.minus(b.im).abs().gt(tolerance)) return false;
      if (++checked >= SAMPLES) break;
    }
    return checked >= 2;
  }
}

function isCollection(e: Expr): boolean {
  return e.k === "set" || e.k === "tuple" || e.k === "interval" || e.k === "setop" || e.k === "domain";
}

/** Elements of a finite set (duplicates dropped, as FiniteSet does) or tuple; a scalar is a singleton. */
function elementsOf(e: Expr): Expr[] {
  if (e.k === "tuple") return e.elems;
  if (e.k !== "set") return [e];
  const seen = new Set<string>();
  return e.elems.filter((x) => {
    const k = A.key(x);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** A perfect matching between the two lists under `eq` (small lists: backtracking is fine). */
function matchAll(gs: Expr[], ps: Expr[], eq: (a: Expr, b: Expr) => boolean): boolean {
  if (gs.length !== ps.length) return false;
  const used = new Array<boolean>(ps.length).fill(false);
  const cache = new Map<string, boolean>();
  const test = (i: number, j: number) => {
    const k = `${i},${j}`;
    let r = cache.get(k);
    if (r === undefined) cache.set(k, (r = eq(gs[i]!, ps[j]!)));
    return r;
  };
  const go = (i: number): boolean => {
    if (i === gs.length) return true;
    for (let j = 0; j < ps.length; j++) {
      if (used[j] || !test(i, j)) continue;
      used[j] = true;
      if (go(i + 1)) return true;
      used[j] = false;
    }
    return false;
  };
  return go(0);
}

// --- symbols ---

/** A symbol's name, or a product of letters read as a word; Euler's e in it reads "e" (`yes`, `Even`). */
function letters(e: Expr): string | undefined {
  if (e.k === "sym") return e.name;
  if (e.k !== "mul" || !e.args.every((a) => (a.k === "sym" && a.name.length === 1) || isEuler(a))) return undefined;
  return e.args.map((a) => (a.k === "sym" ? a.name : "e")).join("");
}
const isEuler = (e: Expr) => (e.k === "sym" && (e.name === "e" || e.name === "E")) || (e.k === "const" && e.name === "E");

function symbolsEqual(g: Expr, p: Expr): boolean {
  if (isEuler(g) && isEuler(p)) return true;
  const a = letters(g);
  const b = letters(p);
  if (a === undefined || b === undefined) return false;
  if (g.k === "sym" && p.k === "sym" && a.length === 1 && b.length === 1) return a === b;
  return a.toLowerCase() === b.toLowerCase();
}

// --- numeric helpers ---

/** An exact integer (SymPy's Integer). */
function isInteger(e: Expr): boolean {
  return e.k === "num" && e.v.d === 1n;
}

/** A Float, or a Float percentage (Float × 1/100): the shapes SymPy compares after rounding. */
function isFloatLike(e: Expr): boolean {
  if (e.k === "float") return true;
  return e.k === "mul" && e.args.some((a) => a.k === "float") && e.args.every((a) => a.k === "float" || a.k === "num");
}

/** The exact value if there is one, else a 60-digit approximation as a rational. */
function realValue(e: Expr): Q.Rational | undefined {
  const exact = exactValue(e);
  if (exact) return exact.v;
  try {
    const z = new Evaluator(60).evaluate(e);
    if (!z.im.isZero()) return undefined;
    return Q.parseDecimal(z.re.toFixed(40));
  } catch (error) {
    if (error instanceof NotNumeric) return undefined;
    throw error;
  }
}

/** `(a − b).evalf(15, chop=True) == 0`, with enough working digits for the magnitudes involved. */
function numericallyZero(g: Expr, p: Expr): boolean {
  try {
    let precision = 40;
    let ev = new Evaluator(precision);
    let a = ev.evaluate(g);
    let b = ev.evaluate(p);
    const size = Math.max(magnitude(a), magnitude(b), 0);
    if (size > 0) {
      precision = Math.min(MAX_PRECISION, 40 + size);
      ev = new Evaluator(precision);
      a = ev.evaluate(g);
      b = ev.evaluate(p);
    }
    // Beyond the working precision only relative agreement can be seen.
    const noise = new Decimal(10).pow(size - precision + 10);
    const tolerance = Decimal.max(CHOP, noise);
    return a.re.minus(b.re).abs().lte(tolerance) && a.im.minus(b.im).abs().lte(tolerance);
  } catch (error) {
    if (error instanceof NotNumeric) return false;
    throw error;
  }
}

// --- sample points ---

/** A small deterministic PRNG (mulberry32), seeded from the pair, so verdicts are reproducible. */
function prng(seedText: string): () => number {
  let seed = 2166136261;
  for (let i = 0; i < seedText.length; i++) seed = Math.imul(seed ^ seedText.charCodeAt(i), 16777619);
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Points at which to compare: every symbol positive, every symbol negative, alternating signs both
 * ways, then random signs. Identities true only for some signs (√(x²) = x, ln(xy) = ln x + ln y) are
 * rejected, as SymPy rejects them for real symbols.
 */
function* samplePoints(symbols: string[], seedText: string): Generator<Map<string, Decimal>> {
  const random = prng(seedText);
  for (let trial = 0; trial < 12; trial++) {
    const point = new Map<string, Decimal>();
    symbols.forEach((s, index) => {
      const magnitude = 0.35 + random() * 2.3;
      const negative = trial === 0 ? false : trial === 1 ? true : trial === 2 ? index % 2 === 1 : trial === 3 ? index % 2 === 0 : random() < 0.5;
      point.set(s, new Decimal((negative ? -magnitude : magnitude).toFixed(12)));
    });
    yield point;
    if (symbols.length === 0) return;
  }
}
