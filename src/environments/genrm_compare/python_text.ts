// The few Python string semantics genrm_compare's scoring depends on: `str.strip()` and `\s` (Python's
// whitespace set, not JavaScript's), `len()` (code points, not UTF-16 units) and `float(x)` on what
// `json.loads` gives.

/** The characters Python's `str.isspace()` (and `\s` in a str pattern) accepts. */
export const PY_WHITESPACE_CLASS = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const EDGES = new RegExp(`^[${PY_WHITESPACE_CLASS}]+|[${PY_WHITESPACE_CLASS}]+$`, "g");

/** Python's `s.strip()`. */
export function pyStrip(text: string): string {
  return text.replace(EDGES, "");
}

/** Python's `len(s)`: code points. */
export function pyLen(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

const FLOAT_TEXT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.?\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.(?:[eE][+-]?\d(?:_?\d)*)?|inf(?:inity)?|nan)$/i;

/**
 * Python's `float(value)` for a JSON value: numbers as they are, booleans 1.0/0.0, numeric strings
 * (surrounding whitespace, `_` between digits, inf/nan spellings) parsed; anything else (null, lists,
 * objects, other strings) raises, here `undefined`.
 */
export function pyFloat(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value !== "string") return undefined;
  const text = pyStrip(value);
  if (!FLOAT_TEXT.test(text)) return undefined;
  const lower = text.toLowerCase().replace(/_/g, "");
  const sign = lower.startsWith("-") ? -1 : 1;
  const bare = lower.replace(/^[+-]/, "");
  if (bare === "nan") return NaN;
  if (bare === "inf" || bare === "infinity") return sign * Infinity;
  return Number(lower);
}
