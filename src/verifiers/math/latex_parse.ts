// Normalised LaTeX → expression tree. The LaTeX grammar is @cortex-js/compute-engine's standalone
// `latex-syntax` parser (MathJSON out, no engine, no evaluation); the MathJSON is then mapped onto
// our own tree the way latex2sympy2_extended builds SymPy objects: `\pm` → a two-element set,
// `(a,b)` → an open interval / pair, top-level commas → a set, `90^\circ` → 90, `\text{odd}` → a
// symbol, `x \in S` → S, decimals kept as Floats with their exact value, everything else exact.
// Rules matched against latex2sympy2_extended 1.10.2 (commit 08735067b667bb8fb5beb9ef1cbc77d06bae3660), the
// parser math-verify 0.8.0 (commit 68da5f36c72d83e987bda77155c3bb26898913c0) pins.
import { LatexSyntax } from "@cortex-js/compute-engine/latex-syntax";
import * as A from "./ast.js";
import type { Expr, RelOp } from "./ast.js";
import { parseDecimal } from "./rational.js";

export class ParseError extends Error {}

let syntax: LatexSyntax | undefined;
function parser(): LatexSyntax {
  syntax ??= new LatexSyntax({ parseNumbers: "auto" });
  return syntax;
}

/** Longest LaTeX we hand to the parser (parsing 20,000 characters takes ~0.2 s; the pool deadline covers the rest). */
export const MAX_LATEX_LENGTH = 20_000;
/** Deepest nesting we accept: far beyond any real answer, well within the stack of every walk. */
export const MAX_DEPTH = 400;

/** Rewrites the few spellings the compute-engine grammar lacks into ones it has. */
function prepare(latex: string): string {
  let t = latex;
  t = t.replace(/\\mp(?![a-zA-Z])/g, "\\pm");
  // latex2sympy2_extended 1.10.2 has no \varnothing: it stays the symbol varnothing (only \emptyset is ∅).
  t = t.replace(/\\varnothing(?![a-zA-Z])/g, "\\operatorname{varnothing}");
  t = t.replace(/\\ne(?![a-zA-Z])/g, "\\neq ");
  t = t.replace(/\\geqslant/g, "\\geq ").replace(/\\leqslant/g, "\\leq ");
  t = t.replace(/\\(?:dots|cdots|ldots|dotsc|dotsb)(?![a-zA-Z])/g, "");
  t = t.replace(/\\%/g, "\\cdot\\frac{1}{100}");
  t = t.replace(/\\(?:,|;|:)(?![a-zA-Z])/g, " ");
  // Spacing commands are skipped by latex2sympy's lexer even when a letter follows (`\quadx_{2}`).
  t = t.replace(/\\q?quad/g, " ");
  t = t.replace(/\\(?:degree|circ)(?![a-zA-Z])/g, "\\circ ");
  // latex2sympy's grammar reads `\(` and `\)` as parentheses (what `\\left(` leaves behind).
  t = t.replace(/(?<!\\)\\([()])/g, "$1");
  // latex2sympy's `:` is division (a ratio a:b is a/b, left to right, binding tighter than `=`);
  // compute-engine's Colon binds looser than `=`, so it is rewritten (not inside \text{…}).
  t = t.replace(/(\\text\{[^{}]*\})|(?<!\\):/g, (_m, text: string | undefined) => text ?? "/");
  // Thousands separators: a number that is the whole answer reads 12,345 as 12345 (real run: 12,102,
  // -12,102 and 12,102.5 are numbers); anywhere else the comma separates (x+12,102 is {x+12, 102},
  // (12,102) an interval, \frac{12,102}{2} no number).
  t = t.replace(/(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])/g, (m, at: number, all: string) =>
    /^\s*[-+]?\s*$/.test(all.slice(0, at)) && /^(?:\.\d+)?\s*$/.test(all.slice(at + m.length)) ? m.replace(/,/g, "") : m,
  );
  return t;
}

type Json = unknown;

function isFn(x: Json): x is unknown[] {
  return Array.isArray(x);
}

/** Unwraps MathJSON's object forms ({fn}, {num}, {sym}, {str}) to the compact ones. */
function compact(x: Json): Json {
  if (x && typeof x === "object" && !Array.isArray(x)) {
    const o = x as Record<string, unknown>;
    if ("fn" in o) return o.fn;
    if ("num" in o) return { num: o.num };
    if ("sym" in o) return o.sym;
    if ("str" in o) return `'${String(o.str)}'`;
  }
  return x;
}

/** Conversion context threaded through the walk (nothing is needed since `i` is always a symbol). */
type Ctx = Record<string, never>;

const FUNCTIONS: Record<string, string> = {
  Sin: "sin", Cos: "cos", Tan: "tan", Cot: "cot", Sec: "sec", Csc: "csc",
  Arcsin: "asin", Arccos: "acos", Arctan: "atan", Arccot: "acot", Arcsec: "asec", Arccsc: "acsc",
  Sinh: "sinh", Cosh: "cosh", Tanh: "tanh", Coth: "coth", Sech: "sech", Csch: "csch",
  Arsinh: "asinh", Arcosh: "acosh", Artanh: "atanh",
  Abs: "abs", Factorial: "factorial", Factorial2: "factorial2", Binomial: "binomial", Floor: "floor", Ceil: "ceiling",
  Max: "max", Min: "min", GCD: "gcd", LCM: "lcm", Mod: "mod", Sign: "sign", Conjugate: "conjugate",
  Real: "re", Imaginary: "im", Argument: "arg", Gamma: "gamma", Round: "round", Determinant: "det",
};

const RELATIONS: Record<string, RelOp> = {
  Equal: "=", NotEqual: "!=", Less: "<", LessEqual: "<=", Greater: ">", GreaterEqual: ">=",
};

function symbolNamed(name: string): Expr {
  switch (name) {
    case "Pi":
      return A.PI;
    case "ExponentialE":
    case "e":
      return A.E;
    case "ImaginaryUnit":
      return A.I;
    case "i":
      // latex2sympy2_extended 1.10.2 reads a bare i as the symbol i (real run: i^2 ≠ -1, i ≠ \sqrt{-1}).
      return A.sym("i");
    case "PositiveInfinity":
    case "ComplexInfinity":
      return A.OO;
    case "NegativeInfinity":
      return A.neg(A.OO);
    case "EmptySet":
      return { k: "domain", name: "empty" };
    case "RealNumbers":
      return { k: "domain", name: "reals" };
    case "Integers":
      return { k: "domain", name: "integers" };
    case "NonNegativeIntegers":
    case "PositiveIntegers":
      return { k: "domain", name: "naturals" };
    case "RationalNumbers":
      return { k: "domain", name: "rationals" };
    case "ComplexNumbers":
      return { k: "domain", name: "complexes" };
    case "Nothing":
    case "ContinuationPlaceholder":
      throw new ParseError(`empty expression`);
  }
  if (name.startsWith("'")) {
    // \text{...}: a text answer becomes a symbol, without its spaces and parentheses (`\text{(C)}`
    // is C); latex2sympy lowercases every symbol name (its default lowercase_symbols).
    const text = name.slice(1, -1).replace(/[\s()]/g, "");
    if (text === "") throw new ParseError("empty text");
    return A.sym(text.toLowerCase());
  }
  // Styled symbols (`v_bold`, `P_upright`) are the plain letter; names are lowercased (`K` is `k`).
  return A.sym(name.replace(/_(?:bold|upright|italic|blackboard|calligraphic|fraktur|script|sansserif)$/, "").toLowerCase());
}

function number(x: Json): Expr {
  if (typeof x === "number") {
    if (!Number.isFinite(x)) throw new ParseError(`not a number: ${x}`);
    if (Number.isInteger(x)) return A.num(BigInt(x));
    const v = parseDecimal(String(x));
    if (!v) throw new ParseError(`bad number ${x}`);
    return { k: "float", v };
  }
  const text = String((x as { num: unknown }).num);
  if (/[()]/.test(text)) throw new ParseError(`repeating decimal ${text}`);
  const v = parseDecimal(text);
  if (!v) throw new ParseError(`bad number ${text}`);
  // A decimal point means a SymPy Float; `3e-5` comes from `3\times10^{-5}` or `5\%`, which SymPy keeps exact.
  return text.includes(".") ? { k: "float", v } : A.numR(v);
}

function relationChain(op: RelOp, operands: Json[], ctx: Ctx): { terms: Expr[]; ops: RelOp[] } {
  const terms: Expr[] = [];
  const ops: RelOp[] = [];
  operands.forEach((operand, index) => {
    const c = compact(operand);
    if (index > 0) ops.push(op);
    const head = isFn(c) ? String(c[0]) : undefined;
    if (isFn(c) && head && head in RELATIONS && operands.length === 2) {
      const inner = relationChain(RELATIONS[head]!, c.slice(1), ctx);
      terms.push(...inner.terms);
      ops.push(...inner.ops);
    } else {
      terms.push(convert(c, ctx));
    }
  });
  return { terms, ops };
}

function relation(op: RelOp, operands: Json[], ctx: Ctx): Expr {
  const { terms, ops } = relationChain(op, operands, ctx);
  const rels: Expr[] = ops.map((o, i) => ({ k: "rel", op: o, lhs: terms[i]!, rhs: terms[i + 1]! }));
  if (rels.length === 0) throw new ParseError("empty relation");
  // `x = 5+5+1 = 11` collapses to `x = 11` when it starts with an assignment (lhs only symbols).
  const first = terms[0]!;
  const symbolsOnly = A.onlySymbols(first);
  if (rels.length > 1 && ops.every((o) => o === "=") && symbolsOnly) return { k: "rel", op: "=", lhs: first, rhs: terms[terms.length - 1]! };
  return rels.length === 1 ? rels[0]! : { k: "and", args: rels };
}

/** `(a, b)`, `[a, b)`, …: an interval when two-sided and written with brackets. */
function interval(lo: Json, hi: Json, ctx: Ctx): Expr {
  const open = (x: Json): [Expr, boolean] => {
    const c = compact(x);
    if (isFn(c) && c[0] === "Open") return [convert(c[1], ctx), true];
    return [convert(c, ctx), false];
  };
  const [l, lopen] = open(lo);
  const [h, hopen] = open(hi);
  return { k: "interval", lo: l, hi: h, lopen, hopen };
}

function elementsOf(x: Json, ctx: Ctx): Expr[] {
  const c = compact(x);
  if (isFn(c) && c[0] === "Sequence") return c.slice(1).map((e) => convert(e, ctx));
  return [convert(c, ctx)];
}

function delimiter(args: Json[], ctx: Ctx): Expr {
  const body = compact(args[0]);
  const delims = args[1] === undefined ? "(,)" : String(compact(args[1])).replace(/^'|'$/g, "");
  if (body === undefined) throw new ParseError("empty group");
  const elems = elementsOf(body, ctx);
  const opener = delims.length === 3 ? delims[0] : "";
  if (elems.length === 1 && (opener === "(" || opener === "")) return elems[0]!;
  if (opener === "(" && elems.length === 2) {
    // latex2sympy reads (a, b) as an open interval; equivalence also accepts it as the pair (a, b).
    return { k: "tuple", elems, pair: true };
  }
  if (opener === "(" || opener === "[") return { k: "tuple", elems };
  if (opener === "{") return { k: "set", elems };
  return { k: "set", elems };
}

function matrix(args: Json[], ctx: Ctx): Expr {
  const rowsJson = compact(args[0]);
  if (!isFn(rowsJson) || rowsJson[0] !== "List") throw new ParseError("bad matrix");
  const rows = rowsJson.slice(1).map((row) => {
    const r = compact(row);
    if (!isFn(r) || r[0] !== "List") throw new ParseError("bad matrix row");
    return r.slice(1).map((cell) => convert(cell, ctx));
  });
  if (rows.length === 0 || rows.some((r) => r.length !== rows[0]!.length)) throw new ParseError("ragged matrix");
  return { k: "matrix", rows };
}

/** `a \pm b` → {a + b, a − b}; inside a larger expression the set is distributed over it. */
function plusMinus(a: Expr, b: Expr): Expr {
  const zero = a.k === "num" && a.v.n === 0n;
  return { k: "set", pm: true, elems: zero ? [b, A.neg(b)] : [A.add(a, b), A.sub(a, b)] };
}

/** An operation applied to operands some of which are ± sets: one result per choice of sign. */
function distribute(operands: Expr[], build: (ops: Expr[]) => Expr): Expr {
  const index = operands.findIndex((o) => o.k === "set" && o.pm);
  if (index < 0) return build(operands);
  const set = operands[index] as Extract<Expr, { k: "set" }>;
  const results = set.elems.map((choice) => distribute(operands.map((o, i) => (i === index ? choice : o)), build));
  return { k: "set", pm: true, elems: results.flatMap((r) => (r.k === "set" && r.pm ? r.elems : [r])) };
}

/**
 * A sum, product, quotient, power or function of operands: a ± set among them does not parse; `\pm`
 * makes a set only as the whole answer (real run: `\frac{-1\pm\sqrt{5}}{2}`, `2(1\pm x)`,
 * `1+(2\pm 3)` and `-(1\pm 2)` match only themselves as text). A lone operand of a product (a
 * parenthesised `(1\pm\sqrt{2})`) passes through.
 */
function whole(operands: Expr[], build: (ops: Expr[]) => Expr, product = false): Expr {
  if (product && operands.length === 1) return distribute(operands, build);
  if (operands.some((o) => o.k === "set" && o.pm)) throw new ParseError("\\pm inside a product, quotient, power or function");
  return build(operands);
}

/** Most terms a `\sum` / `\prod` with integer bounds is expanded into (SymPy's `doit()` of it). */
const MAX_TERMS = 1000;

/** `\sum_{k=a}^{b} f(k)` with integer bounds: the terms, added (or multiplied); other bounds do not parse. */
function finiteSum(head: "Sum" | "Product", args: Json[], ctx: Ctx): Expr {
  const limits = compact(args[1]);
  if (!isFn(limits) || limits[0] !== "Tuple" || limits.length !== 4 || typeof compact(limits[1]) !== "string") throw new ParseError(`unsupported ${head}`);
  const variable = convert(limits[1], ctx);
  const lo = convert(limits[2], ctx);
  const hi = convert(limits[3], ctx);
  if (variable.k !== "sym" || lo.k !== "num" || hi.k !== "num" || lo.v.d !== 1n || hi.v.d !== 1n) throw new ParseError(`unsupported ${head}`);
  const count = hi.v.n - lo.v.n + 1n;
  if (count > BigInt(MAX_TERMS)) throw new ParseError(`${head} too long`);
  const body = convert(args[0], ctx);
  const terms: Expr[] = [];
  for (let k = lo.v.n; k <= hi.v.n; k++) terms.push(A.substitute(body, variable.name, A.num(k)));
  if (terms.length === 0) return A.num(head === "Sum" ? 0 : 1);
  return head === "Sum" ? A.add(...terms) : A.mul(...terms);
}

const KNOWN_FUNCTIONS = new Set([...Object.values(FUNCTIONS), "log", "prime", "overvector", "overhat", "overrightarrow", "overbar", "mean"]);

/** An application of an undefined function (`f(x)`, `W(n)`), which math-verify unwraps into one symbol. */
export function isAppliedFunction(e: Expr): boolean {
  return e.k === "fn" && !KNOWN_FUNCTIONS.has(e.name);
}

/**
 * Juxtaposed operands, with latex2sympy's function applications: a name followed by `( atom )` is
 * the undefined function applied (`f(x)`, `f(2)`), while `a(b+c)` stays a product.
 */
function applications(args: Json[], ctx: Ctx): Expr[] {
  const out: Expr[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = compact(args[i]);
    const next = compact(args[i + 1]);
    if (typeof name === "string" && isFn(next) && next[0] === "Delimiter" && (next[2] === undefined || String(compact(next[2])) === "'(,)'")) {
      const body = compact(next[1]);
      const head = convert(name, ctx);
      const atom = typeof body === "string" || typeof body === "number" || (body !== null && typeof body === "object" && !Array.isArray(body) && "num" in body);
      if (head.k === "sym" && atom) {
        out.push(A.fn(head.name, convert(body, ctx)));
        i++;
        continue;
      }
    }
    out.push(convert(args[i], ctx));
  }
  if (out.length === 0) throw new ParseError("empty product");
  return out;
}

export function convert(x: Json, ctx: Ctx): Expr {
  const c = compact(x);
  if (typeof c === "number" || (c && typeof c === "object" && !Array.isArray(c) && "num" in c)) return number(c);
  if (typeof c === "string") return symbolNamed(c);
  if (!isFn(c)) throw new ParseError(`unexpected ${JSON.stringify(c)}`);
  const head = compact(c[0]);
  const args = c.slice(1);
  if (typeof head !== "string") throw new ParseError(`unexpected head ${JSON.stringify(head)}`);
  const conv = (a: Json) => convert(a, ctx);
  const all = () => args.map(conv);
  switch (head) {
    case "Error":
      throw new ParseError(`LaTeX parse error: ${JSON.stringify(c).slice(0, 200)}`);
    case "Add":
      return whole(all(), (ops) => A.add(...ops));
    case "Subtract":
      return whole(all(), ([a, b]) => (b ? A.sub(a!, b) : A.neg(a!)));
    case "Negate":
      return whole(all(), ([a]) => A.neg(a!));
    case "InvisibleOperator":
      return whole(applications(args, ctx), (ops) => A.mul(...ops), true);
    case "Multiply":
    case "Sequence":
      if (args.length === 0) throw new ParseError("empty product");
      return whole(all(), (ops) => A.mul(...ops), true);
    case "Divide":
      return whole(all(), ([a, b]) => A.div(a!, b!));
    case "Rational":
      return whole(all(), ([a, b]) => (a!.k === "num" && b!.k === "num" ? A.div(a!, b!) : A.div(a!, b!)));
    case "Power":
      return whole(all(), ([a, b]) => A.pow(a!, b!));
    case "Square":
      return whole(all(), ([a]) => A.pow(a!, A.num(2)));
    case "Sqrt":
      return whole(all(), ([a]) => A.pow(a!, A.num(1, 2)));
    case "Root":
      return whole(all(), ([a, n]) => A.pow(a!, A.pow(n!, A.num(-1))));
    case "Exp":
      return whole(all(), ([a]) => A.pow(A.E, a!));
    case "Ln":
      return whole(all(), ([a]) => A.fn("log", a!));
    case "Log":
      return whole(all(), ([a, b]) => A.fn("log", a!, b ?? A.num(10)));
    case "Lg":
      return whole(all(), ([a]) => A.fn("log", a!, A.num(10)));
    case "Lb":
      return whole(all(), ([a]) => A.fn("log", a!, A.num(2)));
    case "Degrees":
    case "Annotated":
    case "Hold":
      // 90^\circ is 90 (math-verify does not convert degrees); annotations are style only.
      return conv(args[0]);
    case "Approx": {
      // latex2sympy: `name \approx v` is the value; otherwise the exact side before `\approx` wins.
      const lhs = conv(args[0]);
      return A.onlySymbols(lhs) ? conv(args[1]) : lhs;
    }
    case "Element":
      // `x \in S` is the set S.
      return conv(args[1]);
    case "Measurement":
    case "PlusMinus":
      return plusMinus(conv(args[0]), conv(args[1]));
    case "Delimiter":
      return delimiter(args, ctx);
    case "Set":
      if (args.some((a) => isFn(compact(a)) && (compact(a) as unknown[])[0] === "Condition")) throw new ParseError("set-builder");
      return { k: "set", elems: all() };
    case "List":
      // `[a, b]` is a closed interval in latex2sympy.
      if (args.length === 2) return interval(args[0], args[1], ctx);
      return { k: "tuple", elems: all() };
    case "Tuple":
      return { k: "tuple", elems: all() };
    case "Interval":
      return interval(args[0], args[1], ctx);
    case "Union":
      return { k: "setop", op: "union", args: all() };
    case "Intersection":
      return { k: "setop", op: "intersect", args: all() };
    case "SetMinus":
    case "Complement":
      return { k: "setop", op: "minus", args: all() };
    case "Matrix":
      return matrix(args, ctx);
    case "Or":
      return { k: "set", elems: all() };
    case "And":
      if (args.every((a) => isFn(compact(a)) && String((compact(a) as unknown[])[0]) in RELATIONS)) return { k: "and", args: all() };
      return { k: "set", elems: all() };
    case "Subscript":
      return A.sym(`${JSON.stringify(args[0])}_${JSON.stringify(args[1])}`);
    case "__unit__":
      return A.sym(String(compact(args[0])).toLowerCase());
    case "Prime":
    case "OverVector":
    case "OverHat":
    case "OverRightArrow":
    case "OverBar":
    case "Mean":
      return A.fn(head.toLowerCase(), ...all());
  }
  if (head in RELATIONS) return relation(RELATIONS[head]!, args, ctx);
  if (head in FUNCTIONS) return whole(all(), (ops) => A.fn(FUNCTIONS[head]!, ...ops));
  if ((head === "Sum" || head === "Product") && args.length === 2) return finiteSum(head, args, ctx);
  if (head === "Limit" || head === "Integrate" || head === "Sum" || head === "Product" || head === "D") {
    throw new ParseError(`unsupported ${head}`);
  }
  // Any other application (`C(10,3)`, `\angle ABC`): an undefined function of its arguments.
  return A.fn(head, ...all());
}

/** Parses one normalised LaTeX answer. Throws ParseError when it is not one expression. */
/**
 * latex2sympy2_extended reads a whole answer of comma-grouped digits as one number: `1,000` is
 * 1000, and a leading 0 makes the commas decimal points (`0,111` is 0.111, `004,004` is 4.004).
 */
const COMMA_NUMBER = /^\s*-?\d{1,3}(?:,\d{3})+(?:\.\d+)?\s*$/;

function commaNumber(latex: string): Expr {
  let text = latex.trim();
  if (text.startsWith("0")) text = text.replace(/,/g, ".");
  text = text.replace(/[, ]/g, "").replace(/^0+/, "");
  if (text === "" || text === ".") return A.num(0);
  if ((text.match(/\./g) ?? []).length > 1) throw new ParseError(`not a number: ${latex}`);
  const v = parseDecimal(text.startsWith(".") ? `0${text}` : text);
  if (!v) throw new ParseError(`not a number: ${latex}`);
  return text.includes(".") ? { k: "float", v } : A.numR(v);
}

export function parseLatex(latex: string): Expr {
  if (latex.length > MAX_LATEX_LENGTH) throw new ParseError("answer too long");
  if (COMMA_NUMBER.test(latex)) return commaNumber(latex);
  // `\[` / `\]` inside an answer (what `\\left[` leaves) are no tokens of latex2sympy's grammar.
  if (/(?<!\\)\\[[\]]/.test(latex)) throw new ParseError("\\[ inside an answer");
  const text = prepare(latex).trim();
  if (text === "") throw new ParseError("empty");
  const json = parser().parse(text);
  if (json === null || json === undefined) throw new ParseError("empty");
  const ctx: Ctx = {};
  const expr = convert(json, ctx);
  A.checkDepth(expr, MAX_DEPTH);
  return expr;
}
