// Python `re` patterns, run by JavaScript's engine. The checkers we reproduce are written against
// Python's `re` (and instruction kwargs carry user keywords that Python compiles as raw regexes), so we
// translate each pattern once instead of hand-porting it, keeping the reference's source readable
// beside ours. What differs and is handled:
//   - `\w \d \s \b` are Unicode-aware in Python 3 (`\w` = letters, digits and `_` of any script);
//     JavaScript's are ASCII (even `\b` under the `u` flag). `\s` uses Python's whitespace set.
//   - `.` excludes only `\n` (JavaScript also excludes `\r`, U+2028, U+2029).
//   - `^`/`$` under MULTILINE break only at `\n`; a plain `$` also matches before a final `\n`.
//   - `\A`, `\Z`, `(?P<name>…)`, `(?P=name)`, `(?#…)`, leading inline flags `(?aiLmsux)`.
//   - Identity escapes (`\-`, `\'`, `\<`) and stray `{`, `}`, `]` that the `u` flag rejects.
// Known, deliberately unsupported (the pattern then fails to compile, as an invalid one would in
// Python — the caller treats that as "instruction not followed"): `\N{…}`, conditional groups
// `(?(1)…)`, scoped flags `(?i:…)`, possessive quantifiers and atomic groups. One matching difference remains: after an empty match,
// Python retries a non-empty match at the same position, JavaScript moves on one character (only
// patterns that can match both empty and non-empty at one spot, like `a*|b`, see it).
import { PY_SPACE_CHARS } from "./pystr.js";

const WORD = "\\p{L}\\p{N}_";
const W = `[${WORD}]`;
const NOT_W = `[^${WORD}]`;
const S = `[${PY_SPACE_CHARS}]`;
const NOT_S = `[^${PY_SPACE_CHARS}]`;
const BOUNDARY = `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`;
const NOT_BOUNDARY = `(?:(?<=${W})(?=${W})|(?<!${W})(?!${W}))`;
/** JavaScript `u`-mode syntax characters: the only ones that may be escaped with a backslash. */
const SYNTAX = new Set(Array.from("^$\\.*+?()[]{}|/"));

export interface PyFlags {
  ignoreCase?: boolean;
  multiline?: boolean;
  dotAll?: boolean;
  verbose?: boolean;
}

export class PyRegexError extends Error {
  override name = "PyRegexError";
}

function hexEscape(ch: string): string {
  return `\\u{${ch.codePointAt(0)!.toString(16)}}`;
}

/** A literal character outside a class, escaped only if the `u` flag requires it. */
function literal(ch: string): string {
  return SYNTAX.has(ch) ? `\\${ch}` : ch;
}

/** Translates a Python pattern to a JavaScript `u`-flag source, returning the source and flags. */
export function translatePattern(pattern: string, flags: PyFlags = {}): { source: string; flags: string } {
  const f = { ...flags };
  const cps = Array.from(pattern);
  let i = 0;
  // Leading global inline flags, e.g. `(?i)` or `(?im)`.
  while (cps[i] === "(" && cps[i + 1] === "?" && /[aiLmsux]/.test(cps[i + 2] ?? "")) {
    let j = i + 2;
    const letters: string[] = [];
    while (j < cps.length && /[aiLmsux]/.test(cps[j]!)) letters.push(cps[j++]!);
    if (cps[j] !== ")") break;
    for (const letter of letters) {
      if (letter === "i") f.ignoreCase = true;
      else if (letter === "m") f.multiline = true;
      else if (letter === "s") f.dotAll = true;
      else if (letter === "x") f.verbose = true;
    }
    i = j + 1;
  }
  let out = "";
  while (i < cps.length) {
    const ch = cps[i]!;
    if (f.verbose && /\s/.test(ch)) {
      i++;
      continue;
    }
    if (f.verbose && ch === "#") {
      while (i < cps.length && cps[i] !== "\n") i++;
      continue;
    }
    if (ch === "\\") {
      const [text, next] = translateEscape(cps, i, false);
      out += text;
      i = next;
      continue;
    }
    if (ch === "[") {
      const [text, next] = translateClass(cps, i, f);
      out += text;
      i = next;
      continue;
    }
    if (ch === "(") {
      if (cps[i + 1] === "?") {
        const rest = cps.slice(i + 2, i + 4).join("");
        if (rest.startsWith("P<")) {
          out += "(?<";
          i += 4;
          continue;
        }
        if (rest.startsWith("P=")) {
          let j = i + 4;
          let name = "";
          while (j < cps.length && cps[j] !== ")") name += cps[j++];
          out += `\\k<${name}>`;
          i = j + 1;
          continue;
        }
        if (rest.startsWith("#")) {
          while (i < cps.length && cps[i] !== ")") i++;
          i++;
          continue;
        }
        const kind = cps[i + 2] ?? "";
        if (!(kind === ":" || kind === "=" || kind === "!" || kind === "<")) {
          throw new PyRegexError(`unsupported group syntax at position ${i} in ${JSON.stringify(pattern)}`);
        }
      }
      out += "(";
      i++;
      continue;
    }
    if (ch === ".") {
      out += f.dotAll ? "[\\s\\S]" : "[^\\n]";
      i++;
      continue;
    }
    if (ch === "^") {
      out += f.multiline ? "(?<![^\\n])" : "(?<![\\s\\S])";
      i++;
      continue;
    }
    if (ch === "$") {
      out += f.multiline ? "(?![^\\n])" : "(?=\\n?(?![\\s\\S]))";
      i++;
      continue;
    }
    if (ch === "{") {
      const quantifier = /^\{(\d*)(,?)(\d*)\}/.exec(cps.slice(i, i + 24).join(""));
      if (quantifier && (quantifier[1] !== "" || (quantifier[2] === "," && quantifier[3] !== ""))) {
        const [whole, min, comma, max] = quantifier;
        out += `{${min === "" ? "0" : min}${comma}${max}}`;
        i += Array.from(whole).length;
        continue;
      }
      out += "\\{";
      i++;
      continue;
    }
    if (ch === "}" || ch === "]") {
      out += `\\${ch}`;
      i++;
      continue;
    }
    out += ch;
    i++;
  }
  let jsFlags = "u";
  if (f.ignoreCase) jsFlags += "i";
  return { source: out, flags: jsFlags };
}

/** One escape sequence starting at `cps[i] === "\\"`; returns its translation and the next index. */
function translateEscape(cps: string[], i: number, inClass: boolean): [string, number] {
  const c = cps[i + 1];
  if (c === undefined) throw new PyRegexError("bad escape (end of pattern)");
  switch (c) {
    case "w":
      return [inClass ? WORD : W, i + 2];
    case "W":
      if (inClass) throw new PyRegexError("\\W inside a character class is not supported");
      return [NOT_W, i + 2];
    case "d":
      return ["\\p{Nd}", i + 2];
    case "D":
      return ["\\P{Nd}", i + 2];
    case "s":
      return [inClass ? PY_SPACE_CHARS : S, i + 2];
    case "S":
      if (inClass) throw new PyRegexError("\\S inside a character class is not supported");
      return [NOT_S, i + 2];
    case "b":
      return [inClass ? "\\x08" : BOUNDARY, i + 2];
    case "B":
      if (inClass) throw new PyRegexError("bad escape \\B in a character class");
      return [NOT_BOUNDARY, i + 2];
    case "A":
      return ["(?<![\\s\\S])", i + 2];
    case "Z":
      return ["(?![\\s\\S])", i + 2];
    case "n":
    case "t":
    case "r":
    case "f":
    case "v":
      return [`\\${c}`, i + 2];
    case "a":
      return ["\\x07", i + 2];
    case "x": {
      const hex = cps.slice(i + 2, i + 4).join("");
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new PyRegexError("incomplete escape \\x");
      return [`\\x${hex}`, i + 4];
    }
    case "u": {
      const hex = cps.slice(i + 2, i + 6).join("");
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new PyRegexError("incomplete escape \\u");
      return [`\\u${hex}`, i + 6];
    }
    case "U": {
      const hex = cps.slice(i + 2, i + 10).join("");
      if (!/^[0-9a-fA-F]{8}$/.test(hex)) throw new PyRegexError("incomplete escape \\U");
      return [`\\u{${parseInt(hex, 16).toString(16)}}`, i + 10];
    }
    case "0": {
      // Octal: up to two more octal digits.
      let j = i + 2;
      let digits = "0";
      while (j < i + 4 && /[0-7]/.test(cps[j] ?? "")) digits += cps[j++];
      return [hexEscape(String.fromCodePoint(parseInt(digits, 8))), j];
    }
    default:
      break;
  }
  if (/[1-9]/.test(c)) {
    if (inClass) throw new PyRegexError("backreference inside a character class");
    let j = i + 1;
    let digits = "";
    while (j < cps.length && /[0-9]/.test(cps[j]!) && digits.length < 2) digits += cps[j++];
    return [`\\${digits}`, j];
  }
  if (/[A-Za-z0-9]/.test(c)) throw new PyRegexError(`bad escape \\${c}`);
  // Python accepts any escaped non-alphanumeric character as itself.
  if (inClass) return [c === "]" || c === "\\" || c === "^" || c === "-" || c === "[" ? `\\${c}` : hexEscape(c), i + 2];
  return [literal(c) === c ? hexEscape(c) : literal(c), i + 2];
}

/**
 * A character class starting at `cps[i] === "["`. `\S` and `\W` inside it (as in the common `[\s\S]`)
 * are complements JavaScript cannot put in a class beside other items, so such a class becomes an
 * alternation of the class's other items and those complements (`(?:[…]|[^…])`), or, negated, a
 * lookahead refusing them before any one character.
 */
function translateClass(cps: string[], i: number, _f: PyFlags): [string, number] {
  let j = i + 1;
  let negated = false;
  let out = "";
  const complements: string[] = [];
  if (cps[j] === "^") {
    negated = true;
    j++;
  }
  // A `]` right after `[` or `[^` is a literal in Python.
  if (cps[j] === "]") {
    out += "\\]";
    j++;
  }
  while (j < cps.length && cps[j] !== "]") {
    const ch = cps[j]!;
    if (ch === "\\" && (cps[j + 1] === "S" || cps[j + 1] === "W")) {
      complements.push(cps[j + 1] === "S" ? NOT_S : NOT_W);
      j += 2;
      continue;
    }
    if (ch === "\\") {
      const [text, next] = translateEscape(cps, j, true);
      out += text;
      j = next;
      continue;
    }
    // `[` is a literal inside a Python class; escape it so the `u` flag agrees.
    if (ch === "[") {
      out += "\\[";
      j++;
      continue;
    }
    out += ch;
    j++;
  }
  if (j >= cps.length) throw new PyRegexError("unterminated character set");
  if (complements.length === 0) return [`[${negated ? "^" : ""}${out}]`, j + 1];
  const members = [...(out ? [`[${out}]`] : []), ...complements].join("|");
  return [negated ? `(?:(?!${members})[\\s\\S])` : `(?:${members})`, j + 1];
}

const cache = new Map<string, RegExp>();

/** Compiles a Python pattern (cached). Throws `PyRegexError` or `SyntaxError` when it cannot. */
export function pyCompile(pattern: string, flags: PyFlags = {}): RegExp {
  const key = `${flags.ignoreCase ? "i" : ""}${flags.multiline ? "m" : ""}${flags.dotAll ? "s" : ""}${flags.verbose ? "x" : ""}:${pattern}`;
  let re = cache.get(key);
  if (!re) {
    const t = translatePattern(pattern, flags);
    re = new RegExp(t.source, t.flags + "g");
    if (cache.size > 2000) cache.clear();
    cache.set(key, re);
  }
  return re;
}

/** Every match object, non-overlapping, left to right (`re.finditer`). */
export function pyFinditer(pattern: string, text: string, flags: PyFlags = {}): RegExpExecArray[] {
  const re = pyCompile(pattern, flags);
  return Array.from(text.matchAll(re));
}

/**
 * `re.findall`: the whole match when the pattern has no group, the only group's text (or "") when
 * it has one; with several groups, the tuple of them.
 */
export function pyFindall(pattern: string, text: string, flags: PyFlags = {}): Array<string | string[]> {
  return pyFinditer(pattern, text, flags).map((m) => {
    if (m.length === 1) return m[0];
    if (m.length === 2) return m[1] ?? "";
    return m.slice(1).map((g) => g ?? "");
  });
}

/** `re.search(...) is not None`. */
export function pySearch(pattern: string, text: string, flags: PyFlags = {}): RegExpExecArray | null {
  const re = pyCompile(pattern, flags);
  re.lastIndex = 0;
  const m = re.exec(text);
  re.lastIndex = 0;
  return m;
}

/** `re.match`: a match anchored at the start of `text`. */
export function pyMatch(pattern: string, text: string, flags: PyFlags = {}): RegExpExecArray | null {
  const t = translatePattern(pattern, flags);
  const re = new RegExp(t.source, t.flags + "y");
  return re.exec(text);
}

/** `re.split`: pieces between matches, with captured groups interleaved (None groups as undefined). */
export function pyReSplit(pattern: string, text: string, flags: PyFlags = {}): Array<string | undefined> {
  const out: Array<string | undefined> = [];
  let last = 0;
  for (const m of pyFinditer(pattern, text, flags)) {
    out.push(text.slice(last, m.index));
    out.push(...m.slice(1));
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

/** `re.sub` with a replacement function (no `$`-pattern surprises). */
export function pySub(pattern: string, replace: (m: RegExpExecArray) => string, text: string, flags: PyFlags = {}): string {
  let out = "";
  let last = 0;
  for (const m of pyFinditer(pattern, text, flags)) {
    out += text.slice(last, m.index) + replace(m);
    last = m.index + m[0].length;
  }
  return out + text.slice(last);
}

/** `re.sub` with a Python template: `\1`, `\g<1>`, `\g<0>`, `\g<name>` are expanded. */
export function pySubTemplate(pattern: string, template: string, text: string, flags: PyFlags = {}): string {
  return pySub(
    pattern,
    (m) =>
      template.replace(/\\g<(\w+)>|\\(\d{1,2})|\\n/g, (whole, named: string | undefined, numbered: string | undefined) => {
        if (whole === "\\n") return "\n";
        const key = named ?? numbered!;
        const value = /^\d+$/.test(key) ? m[Number(key)] : m.groups?.[key];
        return value ?? "";
      }),
    text,
    flags,
  );
}
