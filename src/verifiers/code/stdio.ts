// LiveCodeBench's stdin/stdout comparison (`grade_stdio`): strip the whole output and the expected
// text, split both on "\n", strip each line; the line counts must match; each pair of lines must be
// equal as strings or, failing that, as lists of `decimal.Decimal` tokens (so "1.0" == "1" and
// "1e2" == "100", but "0.30000001" != "0.3").
import { pySplit, pyStrip, truncateFn } from "./python_values.js";

export type StdioGrade = { pass: true } | { pass: false; message: string };

export function gradeStdio(prediction: string, expected: string): StdioGrade {
  const got = strippedLines(prediction);
  const want = strippedLines(expected);
  if (got.length !== want.length) return { pass: false, message: "Wrong answer: mismatched output length" };
  for (let i = 0; i < got.length; i++) {
    const a = got[i]!;
    const b = want[i]!;
    if (a === b) continue;
    const da = decimalsOf(a);
    const db = decimalsOf(b);
    if (da && db && da.length === db.length && da.every((x, j) => decimalEquals(x, db[j]!))) continue;
    return { pass: false, message: `Wrong answer at output_line_idx=${i}: ${truncateFn(a)} != ${truncateFn(b)}` };
  }
  return { pass: true };
}

function strippedLines(text: string): string[] {
  return pyStrip(text)
    .split("\n")
    .map((line) => pyStrip(line));
}

/** A parsed `Decimal`: finite numbers are normalised so equal values have equal fields. */
export type Decimal = { kind: "finite"; negative: boolean; digits: string; exponent: bigint } | { kind: "inf"; negative: boolean } | { kind: "nan" };

const FINITE = /^([+-]?)(?:(\d(?:_?\d)*)(?:\.(\d(?:_?\d)*)?)?|\.(\d(?:_?\d)*))(?:[eE]([+-]?\d(?:_?\d)*))?$/;
const SPECIAL = /^([+-]?)(inf|infinity|s?nan\d*)$/i;

/** Python's `Decimal(token)`, or null where it raises InvalidOperation. */
export function parseDecimal(token: string): Decimal | null {
  const special = SPECIAL.exec(token);
  if (special) return special[2]!.toLowerCase().startsWith("inf") ? { kind: "inf", negative: special[1] === "-" } : { kind: "nan" };
  const m = FINITE.exec(token);
  if (!m) return null;
  const whole = (m[2] ?? "").replace(/_/g, "");
  const fraction = (m[3] ?? m[4] ?? "").replace(/_/g, "");
  let exponent = BigInt((m[5] ?? "0").replace(/_/g, "")) - BigInt(fraction.length);
  let digits = (whole + fraction).replace(/^0+/, "");
  if (digits === "") return { kind: "finite", negative: false, digits: "0", exponent: 0n }; // -0 == 0
  const trailing = digits.length - digits.replace(/0+$/, "").length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += BigInt(trailing);
  return { kind: "finite", negative: m[1] === "-", digits, exponent };
}

function decimalsOf(line: string): Decimal[] | null {
  const out: Decimal[] = [];
  for (const token of pySplit(line)) {
    const d = parseDecimal(token);
    if (!d) return null;
    out.push(d);
  }
  return out;
}

/** `Decimal ==`: NaN equals nothing (a signalling NaN would raise in Python; here it simply differs). */
export function decimalEquals(a: Decimal, b: Decimal): boolean {
  if (a.kind === "nan" || b.kind === "nan") return false;
  if (a.kind === "inf" || b.kind === "inf") return a.kind === b.kind && a.negative === b.negative;
  return a.negative === (b as typeof a).negative && a.digits === (b as typeof a).digits && a.exponent === (b as typeof a).exponent;
}
