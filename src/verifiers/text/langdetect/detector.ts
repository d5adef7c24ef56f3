// langdetect 1.0.9 (`langdetect.detect`), ported: the same 55 language profiles (packed in
// langdetect_data.json.gz by build_data.py), the same text cleaning and n-gram normalisation, and the
// same naive-Bayes sampling with CPython's random generator.
//
// Known difference: Python's langdetect seeds its sampler from the OS unless
// `DetectorFactory.seed` is set, and IFEval never sets it, so NeMo Gym's answer for short or mixed
// text can change from run to run. This port always uses seed 0 and returns exactly what Python
// returns with `DetectorFactory.seed = 0` — one of the answers NeMo Gym can give, and a stable one.
// Profiles load in sorted order; Python loads them in directory order, which only matters for exact
// probability ties. Probabilities are normalised with a plain left-to-right sum, as Python ≤ 3.11's
// `sum()`; Python 3.12 compensates rounding there, which can move a convergence check by one
// iteration in rare borderline texts. Math.log/cos/sin may differ from C's libm in the last bit.
import { existsSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { pyIsUpper } from "../pystr.js";
import { PythonRandom } from "../../random/python_random.js";

const ALPHA_DEFAULT = 0.5;
const ALPHA_WIDTH = 0.05;
const ITERATION_LIMIT = 1000;
const PROB_THRESHOLD = 0.1;
const CONV_THRESHOLD = 0.99999;
const BASE_FREQ = 10000;
const N_TRIAL = 7;
const MAX_TEXT_LENGTH = 10000;
const SEED = 0;

const URL_RE = /https?:\/\/[-_.?&~;+=/#0-9A-Za-z]{1,2076}/g;
const MAIL_RE = /[-_.0-9A-Za-z]{1,64}@[-_0-9A-Za-z]{1,255}[-_.0-9A-Za-z]{1,255}/g;

export class LangDetectError extends Error {
  override name = "LangDetectException";
}

interface RawData {
  profiles: Record<string, { n_words: number[]; freq: Record<string, number> }>;
  latin1_excluded: string;
  cjk_classes: string[];
  vi_to_normalize: string;
  vi_dmark_class: string;
  vi_normalized: string[];
}

/** Per n-gram: the languages where it occurs and its probability there (all others are 0). */
interface NgramProbs {
  langs: Int32Array;
  probs: Float64Array;
}

interface Model {
  langs: string[];
  wordLangProb: Map<string, NgramProbs>;
  latin1Excluded: Set<string>;
  cjkMap: Map<string, string>;
  viPattern: RegExp;
  viToNormalize: string[];
  viDmarks: string[];
  viNormalized: string[][];
}

let model: Model | undefined;

const DATA_FILE = "langdetect_data.json.gz";

/** Beside this module under src/; from a build under dist/, the copy the package ships in src/. */
function dataPath(): URL {
  const beside = new URL(`./${DATA_FILE}`, import.meta.url);
  if (existsSync(beside)) return beside;
  return new URL(`../../../../src/verifiers/text/langdetect/${DATA_FILE}`, import.meta.url);
}

function loadModel(): Model {
  if (model) return model;
  const raw = JSON.parse(gunzipSync(readFileSync(dataPath())).toString("utf8")) as RawData;
  const langs = Object.keys(raw.profiles).sort();
  const entries = new Map<string, Array<[number, number]>>();
  langs.forEach((lang, index) => {
    const profile = raw.profiles[lang]!;
    for (const [word, count] of Object.entries(profile.freq)) {
      let list = entries.get(word);
      if (!list) entries.set(word, (list = []));
      const length = Array.from(word).length;
      if (length >= 1 && length <= 3) list.push([index, (1.0 * count) / profile.n_words[length - 1]!]);
    }
  });
  const wordLangProb = new Map<string, NgramProbs>();
  for (const [word, list] of entries) {
    wordLangProb.set(word, { langs: Int32Array.from(list.map(([i]) => i)), probs: Float64Array.from(list.map(([, p]) => p)) });
  }
  const cjkMap = new Map<string, string>();
  for (const cls of raw.cjk_classes) {
    const chars = Array.from(cls);
    for (const ch of chars) cjkMap.set(ch, chars[0]!);
  }
  const escape = (s: string) => Array.from(s).map((c) => `\\u{${c.codePointAt(0)!.toString(16)}}`).join("");
  model = {
    langs,
    wordLangProb,
    latin1Excluded: new Set(Array.from(raw.latin1_excluded)),
    cjkMap,
    viPattern: new RegExp(`([${escape(raw.vi_to_normalize)}])([${escape(raw.vi_dmark_class)}])`, "gu"),
    viToNormalize: Array.from(raw.vi_to_normalize),
    viDmarks: Array.from(raw.vi_dmark_class),
    viNormalized: raw.vi_normalized.map((s) => Array.from(s)),
  };
  return model;
}

function inRange(cp: number, start: number, end: number): boolean {
  return cp >= start && cp <= end;
}

/** `NGram.normalize(ch)`: the Unicode blocks langdetect folds or blanks. */
function normalizeChar(ch: string, m: Model): string {
  const cp = ch.codePointAt(0)!;
  if (cp <= 0x7f) {
    return ch < "A" || (ch > "Z" && ch < "a") || ch > "z" ? " " : ch;
  }
  if (inRange(cp, 0x80, 0xff)) return m.latin1Excluded.has(ch) ? " " : ch;
  if (inRange(cp, 0x180, 0x24f)) {
    // Romanian: comma below → cedilla.
    if (ch === "\u0219") return "\u015f";
    if (ch === "\u021b") return "\u0163";
    return ch;
  }
  if (inRange(cp, 0x2000, 0x206f)) return " ";
  if (inRange(cp, 0x600, 0x6ff)) return ch === "\u06cc" ? "\u064a" : ch;
  if (inRange(cp, 0x1e00, 0x1eff)) return cp >= 0x1ea0 ? "\u1ec3" : ch;
  if (inRange(cp, 0x3040, 0x309f)) return "\u3042";
  if (inRange(cp, 0x30a0, 0x30ff)) return "\u30a2";
  if (inRange(cp, 0x3100, 0x312f) || inRange(cp, 0x31a0, 0x31bf)) return "\u3105";
  if (inRange(cp, 0x4e00, 0x9fff)) return m.cjkMap.get(ch) ?? ch;
  if (inRange(cp, 0xac00, 0xd7af)) return "\uac00";
  return ch;
}

/** `NGram.normalize_vi`: letter + combining mark → precomposed Vietnamese letter. */
function normalizeVi(text: string, m: Model): string {
  return text.replace(m.viPattern, (_whole, letter: string, mark: string) => {
    const row = m.viNormalized[m.viDmarks.indexOf(mark)];
    return row?.[m.viToNormalize.indexOf(letter)] ?? _whole;
  });
}

/** `Detector.append`: drop URLs and e-mails, normalise Vietnamese, collapse double spaces, cap length. */
function appendText(text: string, m: Model): string[] {
  const cleaned = normalizeVi(text.replace(URL_RE, " ").replace(MAIL_RE, " "), m);
  const out: string[] = [];
  let pre = "";
  const chars = Array.from(cleaned).slice(0, MAX_TEXT_LENGTH);
  for (const ch of chars) {
    if (ch !== " " || pre !== " ") out.push(ch);
    pre = ch;
  }
  return out;
}

/**
 * `Detector.cleaning_text`: if non-Latin letters dominate, drop the Latin ones. (In Python the
 * "Latin Extended Additional" exclusion compares a block number with a string, so it never applies;
 * every character from U+0300 up counts as non-Latin. Reproduced.)
 */
function cleaningText(chars: string[]): string[] {
  let latin = 0;
  let nonLatin = 0;
  for (const ch of chars) {
    if (ch >= "A" && ch <= "z") latin++;
    else if (ch.codePointAt(0)! >= 0x300) nonLatin++;
  }
  if (latin * 2 < nonLatin) return chars.filter((ch) => ch < "A" || ch > "z");
  return chars;
}

/** `Detector._extract_ngrams`: every known 1-, 2- and 3-gram, skipping words in capitals. */
function extractNgrams(chars: string[], m: Model): string[] {
  const result: string[] = [];
  let grams: string[] = [" "];
  let capitalword = false;
  for (const raw of chars) {
    const ch = normalizeChar(raw, m);
    const last = grams[grams.length - 1]!;
    if (last === " ") {
      grams = [" "];
      capitalword = false;
      if (ch === " ") continue;
    } else if (grams.length >= 3) {
      grams = grams.slice(1);
    }
    grams.push(ch);
    if (pyIsUpper(ch)) {
      if (pyIsUpper(last)) capitalword = true;
    } else {
      capitalword = false;
    }
    if (capitalword) continue;
    for (let n = 1; n <= 3; n++) {
      if (grams.length < n) break;
      const w = grams.slice(-n).join("");
      if (w && w !== " " && m.wordLangProb.has(w)) result.push(w);
    }
  }
  return result;
}

function normalizeProb(prob: Float64Array): number {
  let sum = 0;
  for (const p of prob) sum += p;
  let max = 0;
  for (let i = 0; i < prob.length; i++) {
    const p = prob[i]! / sum;
    if (max < p) max = p;
    prob[i] = p;
  }
  return max;
}

export interface LanguageProbability {
  lang: string;
  prob: number;
}

/** `detect_langs(text)`: languages above 0.1, most probable first. Throws `LangDetectError` on no features. */
export function detectLangs(text: string): LanguageProbability[] {
  const m = loadModel();
  const chars = cleaningText(appendText(text, m));
  const ngrams = extractNgrams(chars, m);
  if (ngrams.length === 0) throw new LangDetectError("No features in text.");
  const nLangs = m.langs.length;
  const langprob = new Float64Array(nLangs);
  const random = new PythonRandom(SEED);
  for (let t = 0; t < N_TRIAL; t++) {
    const prob = new Float64Array(nLangs).fill(1.0 / nLangs);
    const alpha = ALPHA_DEFAULT + random.gauss(0.0, 1.0) * ALPHA_WIDTH;
    const weight = alpha / BASE_FREQ;
    for (let i = 0; ; i++) {
      const entry = m.wordLangProb.get(random.choice(ngrams))!;
      // prob[j] *= weight + p[j], with p[j] = 0 outside the n-gram's languages.
      const saved = new Float64Array(entry.langs.length);
      entry.langs.forEach((lang, k) => (saved[k] = prob[lang]!));
      for (let j = 0; j < nLangs; j++) prob[j] = prob[j]! * weight;
      entry.langs.forEach((lang, k) => (prob[lang] = saved[k]! * (weight + entry.probs[k]!)));
      if (i % 5 === 0 && (normalizeProb(prob) > CONV_THRESHOLD || i >= ITERATION_LIMIT)) break;
    }
    for (let j = 0; j < nLangs; j++) langprob[j] = langprob[j]! + prob[j]! / N_TRIAL;
  }
  const result: LanguageProbability[] = [];
  langprob.forEach((p, j) => {
    if (p > PROB_THRESHOLD) result.push({ lang: m.langs[j]!, prob: p });
  });
  // Python's list.sort(reverse=True) is stable in reverse: equal probabilities keep their order.
  return result.sort((a, b) => b.prob - a.prob);
}

/** `langdetect.detect(text)`: the most probable language code, e.g. "en". */
export function detect(text: string): string {
  return detectLangs(text)[0]?.lang ?? "unknown";
}
