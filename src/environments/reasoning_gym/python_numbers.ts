// How CPython 3.11 reads numbers out of text, for the reasoning-gym scorers that compare answers as
// numbers: `decimal.Decimal(str)` (the C `_decimal` module: surrounding whitespace stripped, every `_`
// dropped, any Unicode decimal digit read as its ASCII digit), `float(str)` and `int(str)` (underscores
// only between digits), Decimal equality and subtraction rounded to the default 28 digits.
import { pyStrip } from "./python_text.js";

const ND = /\p{Nd}/u;

/** The ASCII digit of a Unicode decimal digit (Unicode keeps each script's 0–9 contiguous and in order). */
function digitValue(ch: string): string | undefined {
  if (ch >= "0" && ch <= "9") return ch;
  if (!ND.test(ch)) return undefined;
  const cp = ch.codePointAt(0)!;
  let start = cp;
  while (start > 0 && ND.test(String.fromCodePoint(start - 1))) start -= 1;
  return String((cp - start) % 10);
}

/** Unicode digits → ASCII; any other non-ASCII character makes the text unreadable (undefined). */
function toAsciiDigits(text: string): string | undefined {
  let out = "";
  for (const ch of text) {
    if (ch.charCodeAt(0) < 128) out += ch;
    else {
      const d = digitValue(ch);
      if (d === undefined) return undefined;
      out += d;
    }
  }
  return out;
}

export type PyDecimal =
  | { kind: "finite"; negative: boolean; coeff: bigint; exp: number }
  | { kind: "inf"; negative: boolean }
  | { kind: "nan"; signaling: boolean };

const DECIMAL_SYNTAX = /^([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?$/;
const SPECIAL = /^([+-]?)(?:(inf|infinity)|(s?nan)\d*)$/i;

/** `Decimal(text)`; undefined where Python raises InvalidOperation. */
export function parseDecimal(text: string): PyDecimal | undefined {
  const ascii = toAsciiDigits(pyStrip(text));
  if (ascii === undefined) return undefined;
  const s = ascii.replaceAll("_", "");
  const special = SPECIAL.exec(s);
  if (special) {
    if (special[2]) return { kind: "inf", negative: special[1] === "-" };
    return { kind: "nan", signaling: special[3]!.toLowerCase() === "snan" };
  }
  const m = DECIMAL_SYNTAX.exec(s);
  if (!m) return undefined;
  const intPart = m[2] ?? "";
  const fracPart = m[3] ?? m[4] ?? "";
  const exp = Number(m[5] ?? "0") - fracPart.length;
  return { kind: "finite", negative: m[1] === "-", coeff: BigInt(intPart + fracPart || "0"), exp };
}

/** A finite decimal as a signed coefficient and exponent. */
function signed(d: { negative: boolean; coeff: bigint; exp: number }): { c: bigint; e: number } {
  return { c: d.negative ? -d.coeff : d.coeff, e: d.exp };
}

/** a − b exactly, as coefficient × 10^exponent. */
function subtractExact(a: { c: bigint; e: number }, b: { c: bigint; e: number }): { c: bigint; e: number } {
  const e = Math.min(a.e, b.e);
  return { c: a.c * 10n ** BigInt(a.e - e) - b.c * 10n ** BigInt(b.e - e), e };
}

/** Compare x·10^xe with y·10^ye (both non-negative coefficients allowed any sign). */
function compareScaled(x: bigint, xe: number, y: bigint, ye: number): number {
  const e = Math.min(xe, ye);
  const l = x * 10n ** BigInt(xe - e);
  const r = y * 10n ** BigInt(ye - e);
  return l < r ? -1 : l > r ? 1 : 0;
}

/** `a == b` for two Decimals; undefined where Python raises (a signaling NaN). */
export function decimalEquals(a: PyDecimal, b: PyDecimal): boolean | undefined {
  if ((a.kind === "nan" && a.signaling) || (b.kind === "nan" && b.signaling)) return undefined;
  if (a.kind === "nan" || b.kind === "nan") return false;
  if (a.kind === "inf" || b.kind === "inf") return a.kind === b.kind && a.negative === b.negative;
  const x = signed(a);
  const y = signed(b);
  return compareScaled(x.c, x.e, y.c, y.e) === 0;
}

/** Round |c|·10^e to `digits` significant digits, half to even (the default context's rounding). */
function roundSignificant(c: bigint, e: number, digits: number): { c: bigint; e: number } {
  const len = c.toString().length;
  if (c === 0n || len <= digits) return { c, e };
  const drop = len - digits;
  const unit = 10n ** BigInt(drop);
  let q = c / unit;
  const rest = c % unit;
  const half = unit / 2n;
  if (rest > half || (rest === half && q % 2n === 1n)) q += 1n;
  return { c: q, e: e + drop };
}

/**
 * `abs(a - b) <= 10**-places` with Decimals as Python computes it (the difference rounded to 28
 * significant digits); undefined where Python raises (a NaN in an ordering comparison).
 */
export function decimalWithin(a: PyDecimal, b: PyDecimal, places: number): boolean | undefined {
  if (a.kind === "nan" || b.kind === "nan") return undefined;
  if (a.kind === "inf" || b.kind === "inf") {
    if (a.kind === "inf" && b.kind === "inf" && a.negative === b.negative) return undefined; // inf − inf is InvalidOperation
    return false;
  }
  const d = subtractExact(signed(a), signed(b));
  const rounded = roundSignificant(d.c < 0n ? -d.c : d.c, d.e, 28);
  return compareScaled(rounded.c, rounded.e, 1n, -places) <= 0;
}

/** `x.quantize(Decimal(f"1e{-shift}"))` after `adjusted()`: x to `sig` significant digits, half to even. */
export function decimalToSignificant(d: { coeff: bigint; exp: number; negative: boolean }, sig: number): { c: bigint; e: number } {
  const adjusted = d.exp + d.coeff.toString().length - 1;
  const target = adjusted - sig + 1; // the quantum's exponent
  let c = d.coeff;
  if (d.exp < target) {
    const unit = 10n ** BigInt(target - d.exp);
    let q = c / unit;
    const rest = c % unit;
    const half = unit / 2n;
    if (rest > half || (rest === half && q % 2n === 1n)) q += 1n;
    c = q;
  } else {
    c = c * 10n ** BigInt(d.exp - target);
  }
  return { c: d.negative ? -c : c, e: target };
}

export function scaledEqual(a: { c: bigint; e: number }, b: { c: bigint; e: number }): boolean {
  return compareScaled(a.c, a.e, b.c, b.e) === 0;
}

// Underscores only between digits (PEP 515), as float() and int() read them.
const UNDERSCORED_DIGITS = "\\d(?:_?\\d)*";
const FLOAT_SYNTAX = new RegExp(`^[+-]?(?:(?:${UNDERSCORED_DIGITS})(?:\\.(?:${UNDERSCORED_DIGITS})?)?|\\.(?:${UNDERSCORED_DIGITS}))(?:[eE][+-]?${UNDERSCORED_DIGITS})?$`);
const FLOAT_SPECIAL = /^([+-]?)(?:(inf|infinity)|nan)$/i;
const INT_SYNTAX = new RegExp(`^[+-]?${UNDERSCORED_DIGITS}$`);

/** `float(text)`; undefined where Python raises ValueError. */
export function pyFloat(text: string): number | undefined {
  const ascii = toAsciiDigits(pyStrip(text));
  if (ascii === undefined) return undefined;
  const special = FLOAT_SPECIAL.exec(ascii);
  if (special) return special[2] ? (special[1] === "-" ? -Infinity : Infinity) : NaN;
  if (!FLOAT_SYNTAX.test(ascii)) return undefined;
  return Number(ascii.replaceAll("_", ""));
}

/** `int(text)` (base 10); undefined where Python raises ValueError. */
export function pyInt(text: string): bigint | undefined {
  const ascii = toAsciiDigits(pyStrip(text));
  if (ascii === undefined || !INT_SYNTAX.test(ascii)) return undefined;
  return BigInt(ascii.replaceAll("_", ""));
}

/** Python's `len(s)`: code points. */
export function pyLen(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

