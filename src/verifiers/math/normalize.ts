// LaTeX normalisation before parsing, after latex2sympy2_extended's `normalize_latex` as math-verify
// configures it (basic_latex, units, malformed_operators, nits; boxed "last" for a bare \boxed match, else "all"). Each step is a
// plain string rewrite, applied in the same order as there, because later steps rely on earlier ones
// (e.g. `\dfrac` → `\frac` before the `\frac12` repair, `\mathrm{cm}` → `\text{cm}` before units).
// Rules matched against latex2sympy2_extended 1.10.2 (commit 08735067b667bb8fb5beb9ef1cbc77d06bae3660,
// math_normalization.py), the version math-verify 0.8.0 (commit 68da5f36c72d83e987bda77155c3bb26898913c0) pins.

/** Unit and counted-noun words dropped from the end of an answer ("5 cm", "12 students"). */
const UNIT_WORDS = [
  "integer", "point", "feet", "foot", "sue", "digit", "pound", "meter", "metre", "mile", "inch", "yard",
  "centimeter", "centimetre", "millimeter", "millimetre", "kilometer", "kilometre", "cm", "mm", "km", "ft", "yd", "in",
  "kg", "mg", "gram", "kilogram", "milligram", "lb", "lbs", "oz", "ounce", "ton", "tonne",
  "liter", "litre", "milliliter", "millilitre", "ml", "gallon", "quart", "pint", "cup",
  "hour", "hr", "minute", "min", "second", "sec", "day", "week", "month", "year", "yr", "decade", "century",
  "degree", "deg", "radian", "rad", "dollar", "cent", "euro", "yuan", "yen", "rupee", "rupees", "pence", "penny",
  "student", "people", "person", "child", "children", "boy", "girl", "man", "men", "woman", "women", "adult", "teacher",
  "apple", "orange", "banana", "book", "page", "pen", "pencil", "marble", "ball", "candy", "candies", "cookie", "egg",
  "unit", "square", "sq", "cubic", "mph", "kmph", "kph", "acre", "hectare", "calorie", "kcal", "joule", "watt", "volt",
  "ampere", "amp", "ohm", "newton", "pascal", "hertz", "hz", "byte", "bit", "kb", "mb", "gb", "tb",
  "times", "way", "ways", "item", "piece", "box", "bag", "car", "card", "coin", "dog", "cat", "bird", "tree", "flower",
  "animal", "hand", "toy", "game", "ticket", "seat", "room", "floor", "mark", "vote", "sheep", "cow", "chicken", "fish",
  "worker", "member", "player", "team", "friend", "customer", "visitor", "guest", "dozen", "bottle", "can", "glass",
  "slice", "pizza", "cake", "pie", "sandwich", "shirt", "dress", "shoe", "sock", "hat", "stamp", "sticker", "block",
  "brick", "tile", "step", "lap", "round", "stone", "rock", "shell", "bead", "button", "gift", "present",
];
const UNITS_PATTERN = new RegExp(
  `(\\d|\\}|\\s)\\s*(?:\\\\text\\{\\s*)?(?:${UNIT_WORDS.sort((a, b) => b.length - a.length).join("|")})(?:es|s)?(?:\\^\\{?\\d\\}?)?\\s*\\}?\\s*$`,
  "i",
);

/** The content of the `\boxed{…}` (or `\fbox{…}`) starting at `start`, by brace matching. */
export function boxedAt(text: string, start: number): { content: string; end: number } | undefined {
  const open = text.indexOf("{", start);
  if (open < 0) return undefined;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return { content: text.slice(open + 1, i), end: i + 1 };
  }
  return undefined;
}

/** `text.rfind(needle, 0, end)`: the last occurrence lying wholly before `end`, or −1. */
function lastBefore(text: string, needle: string, end: number): number {
  const from = end - needle.length;
  return from < 0 ? -1 : text.lastIndexOf(needle, from);
}

/** The `}` closing the `{` at `open`, looking no further than `limit` (exclusive), plain brace counting. */
function closingBrace(text: string, open: number, limit: number): number {
  let depth = 1;
  for (let i = open + 1; i < limit; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return i;
  }
  return -1;
}

/**
 * latex2sympy2_extended's boxed extraction (1.10.2, commit 08735067b667), as math-verify 0.8.0
 * applies it: boxes are taken from the right. Each box found becomes the right edge of the search
 * for the next, so a box that encloses one already taken (NeMo Gym's `\boxed{…\boxed{5}}`) never
 * closes and stops the search. "last" mode keeps walking left only while the gap to the box taken
 * before is under 10 characters, or under 70 containing "and"/"or"/","/";" with a different
 * content; "all" mode takes every box. Contents are joined with ","; no box: the text unchanged.
 * A box whose `{` never closes contributes everything from that `{` on (when it is the first found).
 */
export function extractBoxed(text: string, mode: "last" | "all"): string {
  const results: string[] = [];
  let limit = text.length;
  let previousStart = -1;
  for (;;) {
    const boxed = lastBefore(text, "\\boxed", limit);
    const fbox = lastBefore(text, "\\fbox", limit);
    if (boxed < 0 && fbox < 0) break;
    const start = Math.max(boxed, fbox);
    let open = start + (boxed > fbox ? 6 : 5);
    while (open < limit && /\s/.test(text[open]!)) open++;
    if (open >= limit) break;
    if (text[open] !== "{") {
      if (results.length === 0) results.push(text.slice(open));
      break;
    }
    const close = closingBrace(text, open, limit);
    if (close < 0) {
      if (results.length === 0) results.push(text.slice(open));
      break;
    }
    const content = text.slice(open + 1, close).trim();
    if (mode === "last" && previousStart >= 0) {
      const gap = text.slice(close + 1, previousStart);
      const joined = gap.length < 10 || (content !== results[results.length - 1] && gap.length < 70 && /and|or|,|;/.test(gap));
      if (!joined) break;
    }
    results.push(content);
    previousStart = start;
    limit = start;
  }
  return results.length === 0 ? text : results.reverse().join(",");
}

/** "last" mode, as math-verify uses it for a bare `\boxed{…}` match. */
export function lastBoxed(text: string): string {
  return extractBoxed(text, "last");
}

function basicLatex(text: string): string {
  let t = text;
  t = t.replace(/\\mathrm\{d\}/g, "d").replace(/\{\\rm\s+d\}/g, "d");
  t = t.replace(/\\(?:left|right)\s*\./g, "");
  t = t.replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)(?![a-zA-Z])/g, "");
  t = t.replace(/\\mathrm\{th\}/g, "").replace(/\^\{?\\text\{th\}\}?/g, "");
  t = t.replace(/\\!\s*/g, "");
  t = t.replace(/\\displaystyle/g, "");
  t = t.replace(/\\\$/g, "").replace(/\$/g, "");
  t = t.replace(/(?<!\\)["“”]/g, "");
  t = t.replace(/\\(?:mathrm|mathit|mathbf|mathsf|textbf|textit|textnormal|textrm|mbox)\s*\{/g, "\\text{");
  t = t.replace(/\\text\{\s*\}/g, "");
  t = t.replace(/\\[dtc]frac/g, "\\frac");
  t = t.replace(/ \./g, " 0.").replace(/\{\./g, "{0.");
  // latex2sympy2_extended's separators: `and`/`or` not inside a word, with an optional comma before.
  t = t.replace(/,?\s*\\text\{\s*(?:and|or)\s*\}/g, ",").replace(/(?<![a-zA-Z]),?\s*(?:and|or)(?![a-zA-Z])/g, ",");
  t = t.replace(/\s*\{\s*,\s*\}/g, ",");
  // A backslash-space is a space, but not the second half of a `\\` row break (`8 \\ 10`).
  t = t.replace(/(?<!\\)\\\s/g, " ");
  t = t.replace(/(?<![\\a-zA-Z])inf(?:inity)?(?![a-zA-Z])/g, "\\infty");
  t = t.replace(/\\ldots/g, "");
  t = t.replace(/\\?(?<![a-zA-Z])(?:percentage|percent|pct)(?![a-zA-Z])/g, "\\%");
  t = t.replace(/[\n\t\r]/g, " ");
  // Doubled backslashes before a command (`\\frac`, JSON-escaped) are one, unless a matrix is written.
  if (!t.includes("matrix")) t = t.replace(/\\\\(?=[a-zA-Z])/g, "\\");
  return t;
}

function units(text: string): string {
  let t = text.trim();
  // A trailing \text{...} after some content is a unit or a comment: "5\text{ cm}", "12\text{ apples}^2".
  const trailing = /^(.*\S)\s*\\text\{[^{}]*\}(?:\^\{?\d\}?)?\s*$/.exec(t);
  if (trailing && /(?:[\d}\s)a-zA-Z]|\\[,;:! ])$/.test(trailing[1]!)) t = trailing[1]!;
  for (let i = 0; i < 2; i++) {
    const m = UNITS_PATTERN.exec(t);
    if (m) t = (t.slice(0, m.index) + m[1]).trim();
  }
  return t;
}

function nits(text: string): string {
  let t = text.trim();
  if (t.startsWith(".")) t = `0${t}`;
  if (t === "0.5") t = "\\frac{1}{2}";
  return t;
}

/** One balanced `{...}` group or a single token starting at `i`; used to repair `\frac12`-style input. */
function argAt(text: string, i: number): { arg: string; end: number } | undefined {
  while (text[i] === " ") i++;
  const c = text[i];
  if (c === undefined) return undefined;
  if (c === "{") {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      if (text[j] === "{") depth++;
      else if (text[j] === "}" && --depth === 0) return { arg: text.slice(i, j + 1), end: j + 1 };
    }
    return undefined;
  }
  if (c === "\\") {
    const m = /^\\[a-zA-Z]+/.exec(text.slice(i));
    if (m) return { arg: `{${m[0]}}`, end: i + m[0].length };
  }
  return { arg: `{${c}}`, end: i + 1 };
}

/** `\frac12` → `\frac{1}{2}`, `\frac1{2}`, `\frac{1}2`, `\sqrt3` → `\sqrt{3}` (single-token arguments). */
function fixCommandArgs(text: string, command: "frac" | "sqrt"): string {
  let out = "";
  let i = 0;
  const re = new RegExp(`\\\\${command}(?![a-zA-Z])`, "g");
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out += text.slice(i, m.index) + m[0];
    let j = m.index + m[0].length;
    if (command === "sqrt" && text[j] === "[") {
      const close = text.indexOf("]", j);
      if (close < 0) break;
      out += text.slice(j, close + 1);
      j = close + 1;
    }
    for (let n = 0; n < (command === "frac" ? 2 : 1); n++) {
      const a = argAt(text, j);
      if (!a) break;
      out += a.arg;
      j = a.end;
    }
    i = j;
    re.lastIndex = j;
  }
  return out + text.slice(i);
}

function malformedOperators(text: string): string {
  let t = text;
  t = t.replace(/\^\s?\(([^()]*)\)/g, "^{$1}");
  t = t.replace(/(?<!\\)sqrt\(([^()]*)\)/g, "\\sqrt{$1}");
  t = fixCommandArgs(t, "frac");
  t = fixCommandArgs(t, "sqrt");
  t = t.replace(/\\log_(\d)\s*(\d+)/g, "\\log_{$1}{$2}");
  // A whole answer "a/b" of integers is the fraction a/b.
  const slash = /^\s*(-?\d+)\s*\/\s*(\d+)\s*$/.exec(t);
  if (slash) t = `\\frac{${slash[1]}}{${slash[2]}}`;
  return t;
}

/** The normalisation math-verify applies to every LaTeX answer it extracts. */
export function normalizeLatex(text: string, boxed: "last" | "all" = "all"): string {
  let t = extractBoxed(text, boxed);
  t = basicLatex(t);
  t = units(t);
  t = malformedOperators(t);
  t = nits(t);
  return t.trim();
}
