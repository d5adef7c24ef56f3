// Plain-text answers (math-verify's Expr extraction): numbers with thousands separators, decimal
// commas, percent and currency, and arithmetic on numbers with + - * × / ÷ ^ ** and parentheses,
// which math-verify hands to SymPy's `parse_expr`. A small recursive-descent parser suffices: the
// extraction regex only ever passes digits, dots, spaces, operators and parentheses.
import * as A from "./ast.js";
import type { Expr } from "./ast.js";
import { parseDecimal } from "./rational.js";
import { MAX_DEPTH, ParseError } from "./latex_parse.js";

export interface NumberParts {
  integer: string;
  decimal?: string | undefined;
  percent?: boolean;
}

/** A matched number: "1,234.5", "1 234", "2,74" (decimal comma), ".5", "007"; percent → ×1/100. */
export function numberExpr(parts: NumberParts): Expr {
  const negative = parts.integer.startsWith("-");
  const integer = parts.integer.replace(/^-/, "").replace(/[ ,]/g, "").replace(/^0+(?=\d)/, "");
  const decimal = parts.decimal ? parts.decimal.replace(",", ".") : "";
  const v = parseDecimal(`${negative ? "-" : ""}${integer || "0"}${decimal}`);
  if (!v) throw new ParseError(`bad number ${parts.integer}${parts.decimal ?? ""}`);
  const value: Expr = decimal ? { k: "float", v } : A.numR(v);
  return parts.percent ? A.mul(value, A.num(1, 100)) : value;
}

type Token = { t: "num"; text: string } | { t: "op"; text: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:(\d+(?:\.\d*)?|\.\d+)|(\*\*|[-+*/^()×÷]))/y;
  let i = 0;
  while (i < text.length) {
    if (/^\s*$/.test(text.slice(i))) break;
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) throw new ParseError(`unexpected "${text.slice(i, i + 10)}"`);
    if (m[1] !== undefined) tokens.push({ t: "num", text: m[1] });
    else tokens.push({ t: "op", text: m[2] === "**" ? "^" : m[2] === "×" ? "*" : m[2] === "÷" ? "/" : m[2]! });
    i = re.lastIndex;
  }
  return tokens;
}

/** Parses an arithmetic expression the way `sympy.parse_expr(evaluate=False)` reads it. */
export function parseArithmetic(text: string): Expr {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = () => tokens[pos];
  const isOp = (op: string) => peek()?.t === "op" && peek()!.text === op;

  // Terms are collected and joined once: building a flat n-ary node per step would be quadratic.
  const expr = (): Expr => {
    const terms = [term()];
    while (isOp("+") || isOp("-")) {
      const op = tokens[pos++]!.text;
      const right = term();
      terms.push(op === "+" ? right : A.neg(right));
    }
    return A.add(...terms);
  };
  const term = (): Expr => {
    const factors = [unary()];
    while (isOp("*") || isOp("/")) {
      const op = tokens[pos++]!.text;
      const right = unary();
      factors.push(op === "*" ? right : A.pow(right, A.num(-1)));
    }
    return A.mul(...factors);
  };
  // Python: unary minus binds looser than **, so -2**2 = -(2**2).
  const unary = (): Expr => {
    if (isOp("-")) {
      pos++;
      return A.neg(unary());
    }
    if (isOp("+")) {
      pos++;
      return unary();
    }
    return power();
  };
  const power = (): Expr => {
    const base = atom();
    if (isOp("^")) {
      pos++;
      return A.pow(base, unary());
    }
    return base;
  };
  const atom = (): Expr => {
    const token = tokens[pos++];
    if (!token) throw new ParseError("unexpected end");
    if (token.t === "num") {
      const v = parseDecimal(token.text);
      if (!v) throw new ParseError(`bad number ${token.text}`);
      return token.text.includes(".") ? { k: "float", v } : A.numR(v);
    }
    if (token.text === "(") {
      const inner = expr();
      if (!isOp(")")) throw new ParseError("missing )");
      pos++;
      return inner;
    }
    throw new ParseError(`unexpected ${token.text}`);
  };

  const result = expr();
  if (pos !== tokens.length) throw new ParseError(`trailing input in "${text}"`);
  A.checkDepth(result, MAX_DEPTH);
  return result;
}
