// Spider 2.0-Lite's result comparison, as NeMo Gym's spider2_lite `eval_utils.py` does it at 07d6b0d
// (after the official Spider 2 evaluator): every gold column (or the `condition_cols` ones) must equal
// some predicted column as a vector: same length, values compared after coercing numeric-looking
// strings to numbers and NULL to 0, numbers within 0.01 (Python's `math.isclose`, abs_tol 0.01), other
// values exactly; with `ignore_order`, both vectors sorted first by Python's `str()` of each value.
// Extra predicted columns are allowed. Several gold result sets: any one matching is enough.
//
// Values keep Python's kinds: bigint is a Python int (SQLite INTEGER), number a float (REAL), string a
// str, Uint8Array bytes, boolean a bool (from JSON gold results).
import { pyFloatRepr } from "../../verifiers/code/python_values.js";
import { PY_SPACE_CHARS } from "../../verifiers/text/pystr.js";

export type Value = bigint | number | string | Uint8Array | boolean | null | unknown[] | Record<string, unknown>;
export type Row = readonly Value[];

const TRIM = new RegExp(`^[${PY_SPACE_CHARS}]+|[${PY_SPACE_CHARS}]+$`, "gu");
const INT = /^[+-]?[0-9](?:_?[0-9])*$/;
const DIGITS = "[0-9](?:_?[0-9])*";
const FLOAT = new RegExp(`^[+-]?(?:(?:${DIGITS})?\\.${DIGITS}|${DIGITS}\\.?)(?:[eE][+-]?${DIGITS})?$`);
const SPECIAL = /^[+-]?(?:inf|infinity|nan)$/i;

/** `_coerce`: a str that Python's int() or float() accepts becomes that number. */
export function coerce(v: Value): Value {
  if (typeof v !== "string") return v;
  const s = v.replace(TRIM, "");
  if (INT.test(s)) return BigInt(s.replace(/_/g, ""));
  if (FLOAT.test(s)) return Number(s.replace(/_/g, ""));
  if (SPECIAL.test(s)) {
    const negative = s.startsWith("-");
    if (/nan/i.test(s)) return NaN;
    return negative ? -Infinity : Infinity;
  }
  return v;
}

/** `_normalize`: None and float NaN become 0. */
export function normalize(v: Value): Value {
  if (v === null) return 0n;
  if (typeof v === "number" && Number.isNaN(v)) return 0n;
  return v;
}

const isNumber = (v: Value): v is bigint | number | boolean => typeof v === "bigint" || typeof v === "number" || typeof v === "boolean";
const asFloat = (v: bigint | number | boolean) => (typeof v === "boolean" ? (v ? 1 : 0) : Number(v));

function bytesRepr(b: Uint8Array): string {
  const hasSingle = b.includes(0x27);
  const quote = hasSingle && !b.includes(0x22) ? '"' : "'";
  let out = `b${quote}`;
  for (const c of b) {
    if (c === quote.charCodeAt(0) || c === 0x5c) out += `\\${String.fromCharCode(c)}`;
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c < 0x20 || c >= 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else out += String.fromCharCode(c);
  }
  return out + quote;
}

/** Python's `str(x)` of a value (the sort key of an unordered comparison). */
export function pyStr(v: Value): string {
  if (v === null) return "None";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return pyFloatRepr(v);
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "string") return v;
  if (v instanceof Uint8Array) return bytesRepr(v);
  return JSON.stringify(v);
}

/** `math.isclose(a, b, rel_tol=1e-9, abs_tol=0.01)`. */
export function isClose(a: number, b: number): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const diff = Math.abs(b - a);
  return diff <= Math.abs(1e-9 * b) || diff <= Math.abs(1e-9 * a) || diff <= 0.01;
}

function pyEquals(x: Value, y: Value): boolean {
  if (isNumber(x) && isNumber(y)) return typeof x === "bigint" && typeof y === "bigint" ? x === y : asFloat(x) === asFloat(y);
  if (typeof x === "string" || typeof y === "string") return x === y;
  if (x instanceof Uint8Array && y instanceof Uint8Array) return x.length === y.length && x.every((c, i) => c === y[i]);
  if (x === null || y === null) return x === y;
  return JSON.stringify(x) === JSON.stringify(y);
}

/** Code-point order (Python's str comparison), not UTF-16 unit order. */
function comparePyStr(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done || cb.done) return ca.done && cb.done ? 0 : ca.done ? -1 : 1;
    const d = ca.value.codePointAt(0)! - cb.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

function sortedByKey(values: Value[]): Value[] {
  const keyed = values.map((v) => ({ v, s: pyStr(v), n: isNumber(v) ? 1 : 0 }));
  keyed.sort((a, b) => comparePyStr(a.s, b.s) || a.n - b.n);
  return keyed.map((k) => k.v);
}

export function vectorsMatch(v1: Value[], v2: Value[], ignoreOrder: boolean): boolean {
  if (v1.length !== v2.length) return false;
  const a = ignoreOrder ? sortedByKey(v1) : v1;
  const b = ignoreOrder ? sortedByKey(v2) : v2;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (isNumber(x) && isNumber(y)) {
      if (!isClose(asFloat(x), asFloat(y))) return false;
    } else if (!pyEquals(x, y)) return false;
  }
  return true;
}

/** Python's `row[i]` (negative from the end); out of range throws, as an IndexError would. */
function at(row: Row, i: number): Value {
  const j = i < 0 ? row.length + i : i;
  if (j < 0 || j >= row.length) throw new RangeError(`column ${i} out of range for a row of ${row.length}`);
  return row[j]!;
}

const column = (rows: readonly Row[], i: number) => rows.map((row) => normalize(coerce(at(row, i))));

export function compareResultSets(gold: readonly Row[], pred: readonly Row[], conditionCols: readonly number[], ignoreOrder: boolean): boolean {
  if (gold.length === 0 && pred.length === 0) return true;
  if (gold.length === 0 || pred.length === 0) return false;
  const goldCols = gold[0]!.length;
  const predCols = pred[0]!.length;
  let cols = Array.from({ length: goldCols }, (_, i) => i);
  if (conditionCols.length > 0) {
    const valid = conditionCols.filter((i) => i < goldCols);
    if (valid.length > 0) cols = valid;
  }
  const predVectors = Array.from({ length: predCols }, (_, j) => column(pred, j));
  return cols.every((i) => {
    const goldVector = column(gold, i);
    return predVectors.some((pv) => vectorsMatch(goldVector, pv, ignoreOrder));
  });
}

/** `compare_multi_result_sets`: condition columns per gold set (one list for all, or a list per set). */
export function compareMultiResultSets(goldSets: ReadonlyArray<readonly Row[]>, pred: readonly Row[], conditionCols: unknown[] | null | undefined, ignoreOrder: boolean): boolean {
  if (goldSets.length === 0) return false;
  let perSet: number[][];
  if (!conditionCols || conditionCols.length === 0) perSet = goldSets.map(() => []);
  else if (!conditionCols.every(Array.isArray)) perSet = goldSets.map(() => conditionCols as number[]);
  else perSet = (conditionCols as number[][]).map((c) => c);
  const n = Math.min(goldSets.length, perSet.length);
  for (let i = 0; i < n; i++) if (compareResultSets(goldSets[i]!, pred, perSet[i]!, ignoreOrder)) return true;
  return false;
}
