// Python value semantics the workplace tools lean on (NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/workplace_assistant/workplace_assistant_tools/*.py run under CPython): truthiness,
// `==`, `in`, `str()`, `int()` and `str.lower()`. A table cell read from CSV as missing is NaN (a truthy
// float in Python); a keyword argument left at its default `None` is null.

/** Raised where the Python tool would raise (TypeError, AttributeError, ValueError outside a handler). */
export class PyError extends Error {}

/** Python `bool(value)`. NaN is truthy, as a float NaN is. */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (typeof value === "number") return value !== 0;
  if (typeof value === "string") return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/** Python `a == b` for JSON-shaped values (NaN never equals anything; True == 1). */
export function pyEq(a: unknown, b: unknown): boolean {
  const num = (v: unknown) => (typeof v === "boolean" ? Number(v) : v);
  const x = num(a);
  const y = num(b);
  if (typeof x === "number" && typeof y === "number") return x === y;
  if (typeof x === "string" && typeof y === "string") return x === y;
  if (x === null || y === null) return x === y;
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((v, i) => pyEq(v, y[i]));
  if (typeof x === "object" && typeof y === "object" && !Array.isArray(x) && !Array.isArray(y)) {
    const kx = Object.keys(x as object);
    const ky = Object.keys(y as object);
    return kx.length === ky.length && kx.every((k) => k in (y as object) && pyEq((x as any)[k], (y as any)[k]));
  }
  return false;
}

/** Python `needle in haystack`. */
export function pyIn(needle: unknown, haystack: unknown): boolean {
  if (typeof haystack === "string") {
    if (typeof needle !== "string") throw new PyError("TypeError: 'in <string>' requires string as left operand");
    return haystack.includes(needle);
  }
  if (Array.isArray(haystack)) return haystack.some((v) => pyEq(v, needle));
  if (haystack !== null && typeof haystack === "object") {
    if (typeof needle === "object" && needle !== null) throw new PyError("TypeError: unhashable type");
    return Object.keys(haystack).some((k) => pyEq(k, needle));
  }
  throw new PyError(`TypeError: argument of type '${pyTypeName(haystack)}' is not iterable`);
}

export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "string") return "str";
  if (Array.isArray(value)) return "list";
  return "dict";
}

const reprString = (s: string): string => {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
};

/** Python `repr(value)` for JSON-shaped values. */
export function pyRepr(value: unknown): string {
  if (typeof value === "string") return reprString(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (value !== null && typeof value === "object") return `{${Object.entries(value).map(([k, v]) => `${reprString(k)}: ${pyRepr(v)}`).join(", ")}}`;
  return pyStr(value);
}

/** Python `str(value)` (an f-string field) for JSON-shaped values. */
export function pyStr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "nan";
    if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
    return String(value);
  }
  if (typeof value === "string") return value;
  return pyRepr(value);
}

/** Python `str.lower()`; a non-string has no `.lower` (AttributeError). */
export function pyLower(value: unknown): string {
  if (typeof value !== "string") throw new PyError(`AttributeError: '${pyTypeName(value)}' object has no attribute 'lower'`);
  // JavaScript lowers a word-final capital sigma to ς; Python always gives σ.
  return value.replace(/Σ/g, "σ").toLowerCase();
}

/** Python `int(value)`: ValueError (a PyError tagged "ValueError") for a string that is not an integer literal. */
export function pyInt(value: unknown): number {
  if (typeof value === "boolean") return Number(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new PyError(Number.isNaN(value) ? "ValueError: cannot convert float NaN to integer" : "OverflowError");
    return Math.trunc(value);
  }
  if (typeof value === "string") {
    const text = value.trim();
    if (!/^[+-]?\d+(_\d+)*$/.test(text)) throw new PyError(`ValueError: invalid literal for int() with base 10: ${reprString(value)}`);
    return Number(text.replace(/_/g, ""));
  }
  throw new PyError(`TypeError: int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(value)}'`);
}

export const isValueError = (error: unknown): boolean => error instanceof PyError && error.message.startsWith("ValueError");

/** Python `str.zfill(width)`. */
export function zfill(s: string, width: number): string {
  if (s.length >= width) return s;
  const sign = s[0] === "+" || s[0] === "-" ? s[0] : "";
  return sign + "0".repeat(width - s.length) + s.slice(sign.length);
}

/** Python `str.split()` with no separator: runs of whitespace split, ends dropped. */
// eslint-disable-next-line no-control-regex -- Python counts the file/group/record/unit separators as whitespace.
export const pySplitWords = (s: string): string[] => s.split(/[\s\u001c-\u001f\u0085]+/u).filter((w) => w !== "");

/** A Python float in a tool's result: written `12.0`, not `12`, in the JSON reply. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** Python's `repr` of a finite float as its JSON encoder writes it. */
export function pyFloatText(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return value.toFixed(1);
  const text = String(value);
  // JavaScript writes 1e21 and above as 1e+21 (Python too) but 1e16..1e21 in full; Python uses exponents from 1e16.
  if (Math.abs(value) >= 1e16 && !text.includes("e")) return value.toExponential().replace(/\.?0*e/, "e");
  return text.replace(/e-(\d)$/, "e-0$1");
}
