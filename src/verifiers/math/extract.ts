// Answer extraction, after math-verify's `parse`: each extraction config (LaTeX, Expr) contributes
// regexes with a priority; priority groups are tried lowest first, and within a group every match
// of every pattern is tried rightmost first (by end, ties to the earlier start). The first match
// that parses wins; the string of the first match tried is kept as a string fallback, so the result
// is [expression, string], [string] (nothing parsed) or [] (nothing matched).
// Patterns matched against math-verify 0.8.0 (commit 68da5f36c72d83e987bda77155c3bb26898913c0, parser.py).
import type { Expr } from "./ast.js";
import { numberExpr, parseArithmetic } from "./expr_parse.js";
import { ParseError, parseLatex } from "./latex_parse.js";
import { normalizeLatex } from "./normalize.js";

export type Target = "latex" | "expr";

/** One element of a parse result: a parsed expression, or the string fallback. */
export type Extracted = { expr: Expr; text: string } | { expr?: undefined; text: string };

interface Pattern {
  re: RegExp;
  priority: number;
  /** boxed: a bare `\boxed{…}` run; boxedEnv: math environments, only those containing a box count. */
  kind: Target | "boxed" | "boxedEnv";
  /** Only matches whose `x` group passes are kept (e.g. "an environment containing \boxed"). */
  filter?: (x: string) => boolean;
}

// --- LaTeX ------------------------------------------------------------------------------------

/** One math environment; the content is in whichever of the five groups matched. */
const ENV =
  String.raw`(?:(?<!\\)\$\$([\s\S]+?)(?<!\\)\$\$` +
  String.raw`|(?<!\\)\\\[([\s\S]+?)(?<!\\)\\\]` +
  String.raw`|(?<![\\\d])\$((?:\\\$|[^\n$])+?)(?<!\\)\$` +
  String.raw`|(?<!\\)\\\(([^\n]+?)(?<!\\)\\\)` +
  String.raw`|\s\[([^\n]+?)\]\s)`;
const PERCENT = String.raw`(?:\s*(\\?%|[Pp]ercentage|[Pp]ercent|[Pp]ct))?`;
const ENV_P = ENV + PERCENT;
/** Up to six environments joined by `,` / `and` / `or` are one answer (a set). */
const LATEX_ENVS = String.raw`${ENV_P}(?:\s*(?:,|and|or)\s*${ENV_P}){0,5}`;
const LATEX_FRAC = String.raw`-?\\frac\{-?\d+\}\{-?\d+\}`;
const LATEX_X = String.raw`(?<x>${LATEX_ENVS}|${LATEX_FRAC})`;
const ENV_ONE = new RegExp(ENV_P, "g");

// --- Expr ---------------------------------------------------------------------------------------

const NUMBER = String.raw`(?<!\d)(?:-?\d{1,3}(?:[ ,]\d{3})+(?:\.\d+)?|-?\d+(?:[.,]\d+)?|-?\.\d+)(?:\s*(?:%|percent|pct))?`;
const OPS = String.raw`+\-*×/^()÷`;
const EXPR_CHARS = String.raw`[\d.\s${OPS}]`;
const EXPR = String.raw`-?\(?-?\d${EXPR_CHARS}*[${OPS}]${EXPR_CHARS}+(?=[.,:\s)$]|$)`;
const CURRENCY = String.raw`(?:[$€£¥₹]\s*)?`;
const EXPR_X = String.raw`${CURRENCY}(?<x>${EXPR}|${NUMBER})`;
const NUMBER_FULL = /^(-?\d{1,3}(?:[ ,]\d{3})+|-?\d+|-?)((?:\.|,)\d+)?\s*(%|percent|pct)?$/;

function patterns(target: Target): Pattern[] {
  const x = target === "latex" ? LATEX_X : EXPR_X;
  const kind = target;
  const list: Pattern[] = [
    { re: new RegExp(String.raw`final answer is\s*${x}\.\s*I hope`, target === "latex" ? "gisd" : "gid"), priority: 0, kind },
    { re: new RegExp(String.raw`final answer.{0,100}?\s+is\s*${x}`, target === "latex" ? "gisd" : "gid"), priority: 50, kind },
  ];
  if (target === "latex") {
    list.push(
      { re: new RegExp(String.raw`(?<x>${LATEX_ENVS})`, "gd"), priority: 50, kind: "boxedEnv", filter: (s) => s.includes("\\boxed") },
      // math-verify compiles its LaTeX patterns with DOTALL: `.` crosses newlines.
      { re: /(?<x>\\boxed\{.+\})/dgs, priority: 50, kind: "boxed" },
      { re: new RegExp(String.raw`answer:.{0,50}?${x}`, "gisd"), priority: 100, kind },
      { re: new RegExp(String.raw`answer.{0,50}?${x}`, "gisd"), priority: 200, kind },
      { re: new RegExp(x, "gd"), priority: 300, kind },
    );
  } else {
    list.push(
      // Expr answers follow "answer:" directly, or the last "=" after it; otherwise the bare
      // rightmost number is taken ("Final answer: {7 / 5}" → 5, as NeMo Gym's test has it).
      { re: new RegExp(String.raw`answer\s*:\s*(?:.*=\s*)?${x}`, "gid"), priority: 100, kind },
      { re: new RegExp(String.raw`answer\s*(?:.*=\s*)?${x}`, "gid"), priority: 200, kind },
      { re: new RegExp(String.raw`(?:^|(?<=\s|=))\**${x}`, "gd"), priority: 300, kind },
    );
  }
  return list;
}

const PATTERNS: Record<Target, Pattern[]> = { latex: patterns("latex"), expr: patterns("expr") };

// --- Conversion of one match ----------------------------------------------------------------------

function tryParseLatex(normalized: string): Expr | undefined {
  try {
    return parseLatex(normalized);
  } catch (error) {
    if (!(error instanceof ParseError) && !(error instanceof RangeError)) throw error;
  }
  // The whole string failed: try what follows the last "=" (not for lists).
  const eq = normalized.lastIndexOf("=");
  if (eq >= 0 && !/[,;]/.test(normalized)) {
    try {
      return parseLatex(normalized.slice(eq + 1));
    } catch (error) {
      if (!(error instanceof ParseError) && !(error instanceof RangeError)) throw error;
    }
  }
  return undefined;
}

function latexContents(x: string): string[] {
  if (/^-?\\frac\{/.test(x)) return [x];
  const contents: string[] = [];
  for (const m of x.matchAll(ENV_ONE)) {
    const content = m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? "";
    contents.push(m[6] ? `${content}\\%` : content);
  }
  return contents;
}

function convertLatex(x: string, kind: Pattern["kind"]): Extracted {
  const contents = kind === "boxed" ? [x] : kind === "boxedEnv" ? latexContents(x).filter((c) => c.includes("\\boxed")) : latexContents(x);
  // A bare `\boxed{…}` match keeps the last box (and its close neighbours); every other LaTeX
  // match takes all the boxes it contains.
  const normalized = contents.map((c) => normalizeLatex(c, kind === "boxed" ? "last" : "all"));
  const text = normalized.join(",");
  const parsed: Expr[] = [];
  for (const n of normalized) {
    const e = tryParseLatex(n);
    if (!e) return { text };
    parsed.push(e);
  }
  if (parsed.length === 0) return { text };
  if (parsed.length === 1) return { expr: parsed[0]!, text };
  return { expr: { k: "set", elems: parsed.flatMap((e) => (e.k === "set" ? e.elems : [e])) }, text };
}

function convertExpr(x: string): Extracted {
  const text = x.trim();
  try {
    const number = NUMBER_FULL.exec(text);
    if (number && (number[1] !== "-" || number[2])) {
      return { expr: numberExpr({ integer: number[1] === "-" ? "-0" : number[1]!, decimal: number[2], percent: !!number[3] }), text };
    }
    return { expr: parseArithmetic(text), text };
  } catch (error) {
    if (!(error instanceof ParseError) && !(error instanceof RangeError)) throw error;
    return { text };
  }
}

// --- The extraction loop ---------------------------------------------------------------------------

interface Match {
  start: number;
  end: number;
  x: string;
  kind: Pattern["kind"];
}

/**
 * math-verify's `parse(text, configs)` with fallback_mode "first_match" and extraction_mode
 * "any_match": returns [] when nothing matched, [string] when matches were found but none
 * parsed, else [expression, string of the first match tried].
 */
export function extract(text: string, targets: readonly Target[]): Extracted[] {
  const all = targets.flatMap((t) => PATTERNS[t]);
  const priorities = [...new Set(all.map((p) => p.priority))].sort((a, b) => a - b);
  let fallback: string | undefined;
  for (const priority of priorities) {
    const matches: Match[] = [];
    for (const pattern of all.filter((p) => p.priority === priority)) {
      pattern.re.lastIndex = 0;
      for (const m of text.matchAll(pattern.re)) {
        const x = m.groups?.x;
        if (x === undefined || (pattern.filter && !pattern.filter(x))) continue;
        matches.push({ start: m.index, end: m.index + m[0].length, x, kind: pattern.kind });
      }
    }
    matches.sort((a, b) => b.end - a.end || a.start - b.start);
    for (const match of matches) {
      const result = match.kind === "expr" ? convertExpr(match.x) : convertLatex(match.x, match.kind);
      fallback ??= result.text;
      if (result.expr) return [result, { text: fallback }];
    }
  }
  return fallback === undefined ? [] : [{ text: fallback }];
}

/** The gold answer as NeMo Gym hands it to math-verify: `\boxed{gold}`, LaTeX extraction only. */
export function extractGold(expected: string): Extracted[] {
  return extract(`\\boxed{${expected}}`, ["latex"]);
}

/** The model's answer as NeMo Gym extracts it: Expr and LaTeX extraction together. */
export function extractPrediction(text: string): Extracted[] {
  return extract(text, ["expr", "latex"]);
}
