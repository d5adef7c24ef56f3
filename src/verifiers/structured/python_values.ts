// Python values that have no JSON counterpart, as the structured-output parsers of NeMo Gym's
// environments produce them (PyYAML and tomllib dates and times, mapping keys that are not strings,
// csv.DictReader's `None` rest key). Each is kept so that it behaves as it does for Python's
// jsonschema and for dictionary look-ups: never equal to a JSON string, never an object, a number
// or an array.

/** A `datetime.date`, `datetime.datetime` or `datetime.time` (PyYAML timestamps, TOML dates). */
export interface PyTemporal {
  readonly pyTemporal: string;
}

/**
 * The stand-in for a Python date/time value inside parsed data: a symbol, so that no JSON Schema
 * type (string, number, object, array, boolean, null) accepts it, as Python's jsonschema accepts
 * none for a `date` object.
 */
export function pyTemporal(text: string): symbol {
  return Symbol(`python datetime ${text}`);
}

/**
 * The key a parsed mapping uses for a Python key that is not a string (an int, a bool, None, a
 * date...): no JSON text can spell it (it starts with a NUL), so a look-up by a string never finds
 * it, as `"1" in {1: ...}` is False in Python.
 */
export function nonStringKey(repr: string): string {
  return `\u0000py:${repr}`;
}

/** csv.DictReader's `restkey` (None): where the fields beyond the header go. */
export const CSV_REST_KEY = nonStringKey("None");

/** Python truthiness of a parsed value (`if not result:`). */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}
