// CPython's str whitespace (str.isspace, which `\s` in a str pattern, str.strip() and str.split() use),
// so extraction and normalization split and trim where Python does (JS's \s and trim() differ on
// U+001C–U+001F, U+0085 and U+FEFF).
export const PY_WS = "[\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const EDGES = new RegExp(`^${PY_WS}+|${PY_WS}+$`, "g");
const RUNS = new RegExp(`${PY_WS}+`);

/** Python's `s.strip()`. */
export function pyStrip(text: string): string {
  return text.replace(EDGES, "");
}

/** Python's `s.split()` (no separator): whitespace runs, no empty parts. */
export function pySplit(text: string): string[] {
  return pyStrip(text).split(RUNS).filter((part) => part !== "");
}
