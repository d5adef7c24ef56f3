// The chosen option of a BunsenBench chemistry MCQ response, found as NeMo Gym's bunsenbench_chemistry_mcq
// server finds it (resources_servers/bunsenbench_chemistry_mcq/app.py at commit 07d6b0d). Candidates
// come from XML answer tags (<choice>, <answer>, … but not the <choice>s listed inside a <choices> block),
// \boxed{…}, "Answer: …" lines and phrases such as "the correct answer is …"; the latest (by position)
// that names an allowed letter or equals an option's text (after chemistry-aware normalisation) wins;
// failing that, the last then the first non-blank line. Python `re`/`str` semantics throughout.
import { pyFinditer, pyMatch, pySearch } from "../../verifiers/text/pyregex.js";
import { pySplit, pyStrip } from "../../verifiers/text/pystr.js";
import { htmlUnescape } from "../../verifiers/mcq/html_unescape.js";

export type Options = Array<Record<string, string>>;

const SUBSCRIPTS: Record<string, string> = {
  "₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7", "₈": "8", "₉": "9",
  "⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9",
  "⁺": "+", "⁻": "-", "₊": "+", "₋": "-", "＋": "+", "−": "-", "–": "-", "—": "-", "‒": "-", "‑": "-",
  "×": "x", "✕": "x", "·": ".", "∙": ".", "⋅": ".", "•": ".", "µ": "u", "μ": "u", "⁄": "/", "∕": "/",
};

/** HTML entities decoded, NFKC, sub/superscripts and symbol variants to ASCII, format characters dropped, spaces collapsed. */
export function normalizeChemistryText(value: string): string {
  const nfkc = htmlUnescape(value).normalize("NFKC");
  const translated = Array.from(nfkc, (ch) => SUBSCRIPTS[ch] ?? ch).join("");
  return pySplit(translated.replace(/\p{Cf}/gu, "")).join(" ");
}

export const CHOICES_BLOCK = String.raw`<\s*choices\b[^>]*>.*?<\s*/\s*choices\s*>`;
export const CHOICE_TAG = String.raw`<\s*choice\b[^>]*>\s*(.*?)\s*<\s*/\s*choice\s*>`;
const XML_ANSWER = String.raw`<\s*(answer|choice|response|final_answer|final-answer)\b[^>]*>\s*(.*?)\s*<\s*/\s*\1\s*>`;
const ANSWER_LINE = String.raw`(?im)^\s*(?:(?:[-*•]|\d+[.)])\s*)?(?:\*\*)?answer(?:\*\*)?\s*:\s*(.+?)\s*$`;
const INLINE_ANSWER = String.raw`(?is)(?:\*\*)?answer(?:\*\*)?\s*:\s*(.+?)(?=$|[\r\n])`;
// Python's IGNORECASE equates "ı" and "İ" with i: spelled out where a pattern has an "i".
const ANSWER_PHRASE = String.raw`(?is)(?:the\s+(?:correct\s+)?answer\s+[iİı]s|my\s+answer\s+[iİı]s|[iİı]\s+(?:choose|select))\s+(.+?)(?:\n|$)`;

/** [start, end) of each match of `pattern` (case-insensitive, dot-all). */
export function spans(pattern: string, text: string): Array<[number, number]> {
  return pyFinditer(pattern, text, { ignoreCase: true, dotAll: true }).map((m) => [m.index, m.index + m[0].length]);
}
const inside = (at: number, blocks: Array<[number, number]>) => blocks.some(([start, end]) => start <= at && at < end);

/** Every `\boxed{…}` (braces balanced, a backslash escaping the next character) with its start. */
export function boxedCandidates(text: string): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  let searchPos = 0;
  for (;;) {
    const m = pySearch(String.raw`\\boxed\s*\{`, text.slice(searchPos));
    if (!m) return out;
    const braceStart = searchPos + m.index + m[0].length - 1;
    const matchStart = searchPos + m.index;
    let depth = 1;
    let pos = braceStart + 1;
    while (pos < text.length && depth) {
      if (text[pos] === "\\") {
        // Skips the next code point, as Python's index does.
        pos += 1 + ((text.codePointAt(pos + 1) ?? 0) > 0xffff ? 2 : 1);
        continue;
      }
      if (text[pos] === "{") depth++;
      else if (text[pos] === "}") depth--;
      pos++;
    }
    if (depth !== 0) return out;
    out.push([matchStart, text.slice(braceStart + 1, pos - 1)]);
    searchPos = pos;
  }
}

/** Python's order of (position, text) pairs: by position, then by code point. */
function compareCandidates(a: [number, string], b: [number, string]): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  const x = Array.from(a[1], (c) => c.codePointAt(0)!);
  const y = Array.from(b[1], (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

export function answerCandidates(text: string): Array<[number, string]> {
  const candidates: Array<[number, string]> = [];
  const blocks = spans(CHOICES_BLOCK, text);
  for (const m of pyFinditer(XML_ANSWER, text, { ignoreCase: true, dotAll: true })) {
    if (m[1]!.toLowerCase() === "choice" && inside(m.index, blocks)) continue;
    candidates.push([m.index, m[2]!]);
  }
  candidates.push(...boxedCandidates(text));
  for (const pattern of [ANSWER_LINE, INLINE_ANSWER, ANSWER_PHRASE]) {
    for (const m of pyFinditer(pattern, text)) candidates.push([m.index, m[1]!]);
  }
  return candidates;
}

const isAlpha = (s: string) => /^\p{L}$/u.test(s);
const cpLen = (s: string) => Array.from(s).length;

export function parseAnswerLetter(candidate: string, allowed: ReadonlySet<string>): string | undefined {
  if (cpLen(candidate) === 1 && isAlpha(candidate)) {
    const letter = candidate.toUpperCase();
    return allowed.has(letter) ? letter : undefined;
  }
  const option = pyMatch(String.raw`(?i)(?:opt[iİı]on|cho[iİı]ce)\s+([A-ZıİſK])\s*[\)\].:]?\Z`, candidate);
  if (option && allowed.has(option[1]!.toUpperCase())) return option[1]!.toUpperCase();
  const leading = pyMatch(String.raw`(?i)^([A-ZıİſK])[\)\].:](?:\s|$)`, candidate);
  if (leading && allowed.has(leading[1]!.toUpperCase())) return leading[1]!.toUpperCase();
  const lone = pyMatch(String.raw`[^A-Za-z]*([A-Za-z])[^A-Za-z]*\Z`, candidate);
  if (lone && allowed.has(lone[1]!.toUpperCase())) return lone[1]!.toUpperCase();
  return undefined;
}

export function parseOptionText(candidate: string, options: Options, allowed: ReadonlySet<string>): string | undefined {
  const wanted = normalizeChemistryText(candidate);
  for (const entry of options) {
    for (const [letter, text] of Object.entries(entry)) {
      if (allowed.has(letter.toUpperCase()) && normalizeChemistryText(String(text)) === wanted) return letter.toUpperCase();
    }
  }
  return undefined;
}

const EDGE = " \t\r\n`*_\"'";

/** Quotes, emphasis, `\boxed{}`, `\text{}`-style wrappers and enclosing brackets removed. */
export function stripWrappers(candidate: string): string {
  let c = pyStrip(candidate, EDGE);
  const boxed = pyMatch(String.raw`\\boxed\{\s*(.*?)\s*\}\Z`, c, { dotAll: true });
  if (boxed) c = pyStrip(boxed[1]!);
  for (;;) {
    const wrapper = pyMatch(String.raw`\\(?:text|mathrm|operatorname)\{\s*(.*?)\s*\}\Z`, c, { dotAll: true });
    if (!wrapper) break;
    c = pyStrip(wrapper[1]!);
  }
  for (;;) {
    const chars = Array.from(c);
    if (!(chars.length >= 2 && "([{\"'<".includes(chars[0]!) && ")]}\"'>".includes(chars.at(-1)!))) break;
    c = pyStrip(chars.slice(1, -1).join(""), EDGE);
  }
  return pyStrip(c, EDGE + ".;,");
}

export function parseCandidate(raw: string, options: Options, allowed: ReadonlySet<string>): string | undefined {
  let candidate = pyStrip(raw);
  if (!candidate) return undefined;
  const first = parseAnswerLetter(candidate, allowed) ?? parseOptionText(candidate, options, allowed);
  if (first !== undefined) return first;
  candidate = stripWrappers(candidate);
  if (!candidate) return undefined;
  return parseAnswerLetter(candidate, allowed) ?? parseOptionText(candidate, options, allowed);
}

/** Python's `str.splitlines()`, line ends dropped. */
const LINE_BREAK = new RegExp(`\r\n|[${[0x0a, 0x0d, 0x0b, 0x0c, 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029].map((c) => String.fromCharCode(c)).join("")}]`);
function splitlines(text: string): string[] {
  const lines = text.split(LINE_BREAK);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

export function extractBunsenAnswer(text: string, options: Options, allowed: ReadonlySet<string>): string | undefined {
  const candidates = answerCandidates(text).sort(compareCandidates).reverse();
  for (const [, candidate] of candidates) {
    const parsed = parseCandidate(candidate, options, allowed);
    if (parsed !== undefined) return parsed;
  }
  // Last resort: the last, then the first, non-blank line.
  const lines = splitlines(text).map((line) => pyStrip(line)).filter((line) => line !== "");
  if (lines.length > 0) return parseCandidate(lines.at(-1)!, options, allowed) ?? parseCandidate(lines[0]!, options, allowed);
  return undefined;
}

/** A `<choice>` tag outside any `<choices>` block. */
export function choiceTagPresent(text: string): boolean {
  const blocks = spans(CHOICES_BLOCK, text);
  return spans(CHOICE_TAG, text).some(([start]) => !inside(start, blocks));
}

/** Options as NeMo Gym's `_options_from_body` builds them: the row's, else from `choices` (letters A–Z). */
export function optionsFromRow(options: ReadonlyArray<Record<string, string | null>> | null | undefined, choices: ReadonlyArray<string | Record<string, unknown>> | null | undefined): Options {
  if (options && options.length > 0) {
    return options.map((entry) => Object.fromEntries(Object.entries(entry).filter((kv): kv is [string, string] => kv[1] !== null)));
  }
  const out: Options = [];
  (choices ?? []).slice(0, 26).forEach((choice, index) => {
    const fallback = String.fromCharCode(65 + index);
    if (typeof choice === "string") {
      out.push({ [fallback]: choice });
      return;
    }
    const firstTruthy = (keys: string[]) => keys.map((k) => choice[k]).find((v) => v !== undefined && v !== null && v !== false && v !== 0 && v !== "" && !(Array.isArray(v) && v.length === 0) && !(typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0));
    const letter = firstTruthy(["letter", "label", "key", "id"]) ?? fallback;
    const text = firstTruthy(["text", "content", "value", "choice"]);
    if (typeof letter === "string" && typeof text === "string" && cpLen(pyStrip(letter)) === 1) out.push({ [pyStrip(letter).toUpperCase()]: text });
  });
  return out;
}

/** Upper-cased one-letter option keys (NeMo Gym's `_get_allowed_letters_from_options`). */
export function allowedLetters(options: Options): Set<string> {
  const letters = new Set<string>();
  for (const entry of options) for (const key of Object.keys(entry)) if (cpLen(key) === 1 && isAlpha(key)) letters.add(key.toUpperCase());
  return letters;
}

/** The gold letter: the expected answer unwrapped if it is one letter, else the option it names, else as written (upper-cased). */
export function expectedAnswerLetter(expected: string, options: Options): string {
  const unwrapped = stripWrappers(expected).toUpperCase();
  if (cpLen(unwrapped) === 1 && isAlpha(unwrapped)) return unwrapped;
  return parseCandidate(expected, options, allowedLetters(options)) || unwrapped;
}

/**
 * Under `strict` (Gymkit's own, off by default): every answer candidate (answer tag, `\boxed{}`, "Answer:"
 * line, "the answer is …") that names an option names the same one; undefined when they name several.
 * NeMo Gym takes the latest one that parses, so a response listing every option, the gold last, is rewarded.
 */
export function agreedBunsenAnswer(text: string, options: Options, allowed: ReadonlySet<string>): string | undefined {
  const named = new Set<string>();
  for (const [, candidate] of answerCandidates(text)) {
    const parsed = parseCandidate(candidate, options, allowed);
    if (parsed !== undefined) named.add(parsed);
  }
  return named.size <= 1 ? extractBunsenAnswer(text, options, allowed) : undefined;
}
