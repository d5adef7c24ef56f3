// Python `str` semantics the reference verifiers rely on, for JavaScript strings. The reference code
// (IFEval, NLTK, langdetect, NeMo Gym's mcqa) is Python: its whitespace set, `strip`/`split`, case
// predicates and code-point indexing differ from JavaScript's in ways that change verdicts on real
// model output (a BOM, `\x85`, an emoji counted as two UTF-16 units), so they are reproduced here.

/**
 * Python's `str.isspace()` set (Unicode White_Space plus the ASCII separators \x1c–\x1f).
 * JavaScript's `\s` differs: it includes U+FEFF and excludes \x1c–\x1f and U+0085.
 */
export const PY_SPACE_CHARS = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

const SPACE_RUN = new RegExp(`[${PY_SPACE_CHARS}]+`, "u");
const LEADING_SPACE = new RegExp(`^[${PY_SPACE_CHARS}]+`, "u");
const TRAILING_SPACE = new RegExp(`[${PY_SPACE_CHARS}]+$`, "u");
const ONE_SPACE = new RegExp(`^[${PY_SPACE_CHARS}]$`, "u");

export function isPySpace(ch: string): boolean {
  return ONE_SPACE.test(ch);
}

/** `s.strip()` with no argument, or `s.strip(chars)` (each character of `chars` is stripped). */
export function pyStrip(s: string, chars?: string): string {
  return pyRstrip(pyLstrip(s, chars), chars);
}

export function pyLstrip(s: string, chars?: string): string {
  if (chars === undefined) return s.replace(LEADING_SPACE, "");
  const set = new Set(Array.from(chars));
  const cps = Array.from(s);
  let i = 0;
  while (i < cps.length && set.has(cps[i]!)) i++;
  return cps.slice(i).join("");
}

export function pyRstrip(s: string, chars?: string): string {
  if (chars === undefined) return s.replace(TRAILING_SPACE, "");
  const set = new Set(Array.from(chars));
  const cps = Array.from(s);
  let j = cps.length;
  while (j > 0 && set.has(cps[j - 1]!)) j--;
  return cps.slice(0, j).join("");
}

/** `s.split()` with no argument: runs of whitespace separate, no empty pieces. */
export function pySplit(s: string): string[] {
  const trimmed = pyStrip(s);
  return trimmed === "" ? [] : trimmed.split(new RegExp(SPACE_RUN.source, "gu"));
}

/** `len(s)`: code points, not UTF-16 units. */
export function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `s[start:end]` on code points, with Python's negative and out-of-range slice indices. */
export function pySlice(s: string, start?: number, end?: number): string {
  const cps = Array.from(s);
  return pySliceArray(cps, start, end).join("");
}

export function pySliceArray<T>(items: readonly T[], start?: number, end?: number): T[] {
  const n = items.length;
  const norm = (i: number | undefined, fallback: number) => {
    if (i === undefined) return fallback;
    if (i < 0) return Math.max(0, n + i);
    return Math.min(n, i);
  };
  return items.slice(norm(start, 0), norm(end, n));
}

/** `items[i]` with Python's negative indices; an index out of range throws like IndexError. */
export function pyIndex<T>(items: readonly T[], i: number): T {
  const j = i < 0 ? items.length + i : i;
  if (!Number.isInteger(j) || j < 0 || j >= items.length) throw new RangeError(`list index ${i} out of range`);
  return items[j]!;
}

/** The reversed code points of `s` (`s[::-1]`). */
export function pyReverse(s: string): string {
  return Array.from(s).reverse().join("");
}

const LOWER_OR_TITLE = /[\p{Lowercase}\p{Lt}]/u;
const UPPER_OR_TITLE = /[\p{Uppercase}\p{Lt}]/u;
const UPPER = /\p{Uppercase}/u;
const LOWER = /\p{Lowercase}/u;

/** `s.isupper()`: no lower-case or title-case character, and at least one upper-case one. */
export function pyIsUpper(s: string): boolean {
  return !LOWER_OR_TITLE.test(s) && UPPER.test(s);
}

/** `s.islower()`: no upper-case or title-case character, and at least one lower-case one. */
export function pyIsLower(s: string): boolean {
  return !UPPER_OR_TITLE.test(s) && LOWER.test(s);
}

/** `s.replace(old, new)` for every occurrence (JavaScript's `replaceAll` without `$` patterns). */
export function pyReplace(s: string, old: string, replacement: string): string {
  return s.split(old).join(replacement);
}
