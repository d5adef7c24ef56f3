// HotpotQA short-answer scoring as NeMo Gym's hotpotqa_qa computes it (resources_servers/hotpotqa_qa/
// scoring.py at commit 07d6b0d, itself after NeMo-Skills and the official HotpotQA evaluation): SQuAD
// answer normalisation, token F1 and exact match, and the alternative-aware substring matches over
// surface forms of the ground truth. Every string operation follows Python's semantics (code-point
// lengths and slices, Unicode `lower`, `split`, `isdigit`, `isupper`, `re` with Unicode `\b`/`\d`/`\w`).
import { pySub } from "../../verifiers/text/pyregex.js";
import { pyIsUpper, pyLen, pyRstrip, pySplit, pyStrip } from "../../verifiers/text/pystr.js";

const PUNCTUATION = new Set(Array.from("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"));

/** SQuAD / HotpotQA normalisation: lower case, no ASCII punctuation, no articles, single spaces. */
export function normalizeAnswer(s: string): string {
  const noPunct = Array.from(s.toLowerCase())
    .filter((ch) => !PUNCTUATION.has(ch))
    .join("");
  const noArticles = pySub(String.raw`\b(a|an|the)\b`, () => " ", noPunct);
  return pySplit(noArticles).join(" ");
}

const SPECIAL = new Set(["yes", "no", "noanswer"]);

/** Token-overlap [f1, precision, recall]; yes/no/noanswer must match exactly. */
export function answerF1Score(prediction: string, groundTruth: string): [number, number, number] {
  const p = normalizeAnswer(prediction);
  const g = normalizeAnswer(groundTruth);
  const zero: [number, number, number] = [0, 0, 0];
  if (SPECIAL.has(p) && p !== g) return zero;
  if (SPECIAL.has(g) && p !== g) return zero;
  const pTokens = pySplit(p);
  const gTokens = pySplit(g);
  const counts = new Map<string, number>();
  for (const t of gTokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of pTokens) {
    const left = counts.get(t) ?? 0;
    if (left > 0) {
      same++;
      counts.set(t, left - 1);
    }
  }
  if (same === 0) return zero;
  const precision = (1.0 * same) / pTokens.length;
  const recall = (1.0 * same) / gTokens.length;
  return [(2 * precision * recall) / (precision + recall), precision, recall];
}

export function answerExactMatch(prediction: string, groundTruth: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(groundTruth) ? 1.0 : 0.0;
}

// Characters Python's str.isdigit() accepts beyond the decimal digits (\p{Nd}): superscripts,
// subscripts, circled and other Numeric_Type=Digit characters (Unicode 14, CPython 3.11/3.12).
const DIGIT = /^[\p{Nd}\u{b2}-\u{b3}\u{b9}\u{1369}-\u{1371}\u{19da}\u{2070}\u{2074}-\u{2079}\u{2080}-\u{2089}\u{2460}-\u{2468}\u{2474}-\u{247c}\u{2488}-\u{2490}\u{24ea}\u{24f5}-\u{24fd}\u{24ff}\u{2776}-\u{277e}\u{2780}-\u{2788}\u{278a}-\u{2792}\u{10a40}-\u{10a43}\u{10e60}-\u{10e68}\u{11052}-\u{1105a}\u{1f100}-\u{1f10a}]+$/u;
export const pyIsDigit = (s: string) => DIGIT.test(s);

const NUM_WORDS = new Map<string, string>([
  ["one", "1"], ["two", "2"], ["three", "3"], ["four", "4"], ["five", "5"], ["six", "6"], ["seven", "7"],
  ["eight", "8"], ["nine", "9"], ["ten", "10"], ["eleven", "11"], ["twelve", "12"], ["thirteen", "13"],
  ["fourteen", "14"], ["fifteen", "15"], ["sixteen", "16"], ["seventeen", "17"], ["eighteen", "18"],
  ["nineteen", "19"], ["twenty", "20"], ["first", "1st"], ["second", "2nd"], ["third", "3rd"],
  ["fourth", "4th"], ["fifth", "5th"], ["nineteenth", "19th"], ["twentieth", "20th"], ["twenty-first", "21st"],
]);
const NUM_DIGITS = new Map([...NUM_WORDS].map(([word, digits]) => [digits, word]));

const MAX_GT_LENGTH = 40;
const MIN_ALT_LENGTH = 3;
const STOPWORDS = new Set(
  "the a an of in on at for and or to by is was are were be been with from that this it its his her my our their no not but if as into about than then".split(" "),
);

/** Unicode spaces, dashes and quotes to ASCII, double spaces collapsed, trimmed. */
function normalizeUnicode(s: string): string {
  let out = s.replace(/[\u202f\u00a0\u2009\u200a\u2002\u2003]/g, " ").replace(/[\u2010-\u2015]/g, "-");
  out = out.replace(/\u2019|\u2018/g, "'").replace(/\u201c|\u201d/g, '"');
  while (out.includes("  ")) out = out.replaceAll("  ", " ");
  return pyStrip(out);
}

const ARTICLES = ["the ", "a ", "an "];
const cpSlice = (s: string, start: number, end?: number) => Array.from(s).slice(start, end).join("");
const collapse = (s: string) => pySub(String.raw`\s+`, () => " ", s);

/** The surface forms of a ground truth that count as it (always including itself), sorted. */
export function gtAlternatives(gt: string): { alternatives: string[]; rules: string[] } {
  const alts = new Set<string>([gt]);
  const rules: string[] = [];
  const lower = gt.toLowerCase();
  for (const prefix of ARTICLES) {
    if (lower.startsWith(prefix)) {
      alts.add(cpSlice(gt, prefix.length));
      rules.push("strip_article");
      break;
    }
  }
  const stripped = pyStrip(gt.replaceAll('"', "").replaceAll("\u201c", "").replaceAll("\u201d", ""));
  if (stripped && stripped !== gt) {
    alts.add(stripped);
    rules.push("strip_quotes");
  }
  if (gt.includes("(")) {
    const noParens = collapse(pyStrip(pySub(String.raw`\s*\([^)]*\)\s*`, () => " ", gt)));
    if (noParens && noParens !== gt) alts.add(noParens);
    for (const m of gt.matchAll(/\(([^)]+)\)/g)) {
      const inner = pyStrip(m[1]!);
      if (pyLen(inner) > 1) alts.add(inner);
    }
    rules.push("normalize_parens");
  }
  const gtLow = pyStrip(lower);
  if (NUM_WORDS.has(gtLow)) {
    alts.add(NUM_WORDS.get(gtLow)!);
    rules.push("number_word_to_digit");
  }
  if (NUM_DIGITS.has(gtLow)) {
    alts.add(NUM_DIGITS.get(gtLow)!);
    rules.push("number_digit_to_word");
  }
  const dropCommas = (s: string) => pySub(String.raw`(\d),(\d{3})`, (m) => m[1]! + m[2]!, s);
  let noCommas = dropCommas(gt);
  while (noCommas !== gt && pySub(String.raw`(\d),(\d{3})`, () => "", noCommas) !== noCommas) noCommas = dropCommas(noCommas);
  if (noCommas !== gt) {
    alts.add(noCommas);
    rules.push("strip_number_commas");
  }
  const chars = Array.from(gt);
  if (chars.length > 0 && ".,;:!?".includes(chars.at(-1)!)) {
    alts.add(pyRstrip(chars.slice(0, -1).join("")));
    rules.push("strip_trailing_punct");
  }
  if (gt.includes(".")) {
    const noDots = pySub(String.raw`(?<!\d)\.(?!\d)`, () => "", gt);
    if (noDots && pyLen(noDots) > 1 && noDots !== gt) {
      alts.add(noDots);
      rules.push("strip_abbrev_dots");
    }
  }
  if (gt.includes("-") && !gt.startsWith("-")) {
    const noHyphen = pyStrip(collapse(gt.replaceAll("-", " ")));
    if (noHyphen !== gt) {
      alts.add(noHyphen);
      rules.push("hyphen_to_space");
    }
  }
  if (gt.includes(" & ")) {
    alts.add(gt.replaceAll(" & ", " and "));
    rules.push("ampersand_to_and");
  }
  if (lower.includes(" and ")) {
    // The offset is found in the lower-cased text and applied to the original, by code points.
    const idx = pyLen(lower.slice(0, lower.indexOf(" and ")));
    alts.add(cpSlice(gt, 0, idx) + " & " + cpSlice(gt, idx + 5));
    rules.push("and_to_ampersand");
  }
  const extra = new Set<string>();
  for (const alt of alts) {
    for (const prefix of ARTICLES) if (alt.toLowerCase().startsWith(prefix)) extra.add(cpSlice(alt, prefix.length));
  }
  for (const e of extra) alts.add(e);
  const normed = new Set<string>();
  const gtStripped = pyStrip(gt);
  for (const alt of alts) {
    const a = collapse(pyStrip(alt));
    if (a && (pyLen(a) >= MIN_ALT_LENGTH || a === gtStripped || pyIsDigit(a))) normed.add(a);
  }
  return { alternatives: [...normed].sort(compareCodePoints), rules };
}

/** Python's string order (by code point; JavaScript's default sort compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function isMultiWordName(gt: string): boolean {
  const parts = pySplit(pyRstrip(pyStrip(gt), "."));
  const first = (p: string) => Array.from(p)[0]!;
  if (parts.length === 3 || parts.length === 4) {
    return parts.every((p) => pyIsUpper(first(p))) && parts.every((p) => !STOPWORDS.has(p.toLowerCase()));
  }
  if (parts.length === 5 || parts.length === 6) {
    return parts.filter((p) => pyIsUpper(first(p)) && !STOPWORDS.has(p.toLowerCase())).length >= 3;
  }
  return false;
}

export interface GroundTruthInfo {
  alternatives: string[];
  should_remove: boolean;
  /** "" (kept), "gt_too_long" or "multi_word_name". */
  remove_reason: string;
}

/** The ground truth's alternatives, and whether it is unreliable for substring matching. */
export function normalizeGt(gt: string): GroundTruthInfo {
  const { alternatives } = gtAlternatives(gt);
  const reason = pyLen(gt) > MAX_GT_LENGTH ? "gt_too_long" : isMultiWordName(gt) ? "multi_word_name" : "";
  return { alternatives, should_remove: reason !== "", remove_reason: reason };
}

/** Lenient: some alternative occurs in the answer (both lower-cased, Unicode punctuation normalised). */
export function isCorrect(alternatives: readonly string[], modelAnswer: string): boolean {
  const ans = normalizeUnicode(modelAnswer.toLowerCase());
  return alternatives.some((alt) => ans.includes(normalizeUnicode(alt.toLowerCase())));
}

const WORD = /[\p{L}\p{N}_]/u;

/** Whether `needle` occurs in `hay` with no word character right before or after it. */
function occursAsWord(hay: string, needle: string): boolean {
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const before = Array.from(hay.slice(0, at)).at(-1);
    const after = Array.from(hay.slice(at + needle.length))[0];
    if ((before === undefined || !WORD.test(before)) && (after === undefined || !WORD.test(after))) return true;
  }
  return false;
}

/**
 * Strict: as lenient, but an alternative of at most 4 characters must stand as a word, and in an
 * answer longer than 80 characters the first occurrence must start within the first 41.
 */
export function isCorrectStrict(alternatives: readonly string[], modelAnswer: string): boolean {
  const ans = normalizeUnicode(modelAnswer.toLowerCase());
  const ansLen = pyLen(ans);
  for (const alt of alternatives) {
    const altNorm = normalizeUnicode(alt.toLowerCase());
    if (!altNorm || !ans.includes(altNorm)) continue;
    if (pyLen(altNorm) <= 4 && !occursAsWord(ans, altNorm)) continue;
    if (ansLen > 80 && pyLen(ans.slice(0, ans.indexOf(altNorm))) > 40) continue;
    return true;
  }
  return false;
}

/**
 * Gymkit's own (the environment's `strict`): the answer, SQuAD-normalised, equals an accepted form of the
 * ground truth, also normalised; containing one is not enough ("not Chief of Protocol", a list of guesses).
 */
export function isExactAlternative(alternatives: readonly string[], modelAnswer: string): boolean {
  const answer = normalizeAnswer(modelAnswer);
  return answer !== "" && alternatives.some((alt) => normalizeAnswer(alt) === answer);
}
