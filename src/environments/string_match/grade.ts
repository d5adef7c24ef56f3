// string_match's case-insensitive grader: an exact comparison after NFKC, lower-casing, outer quotes
// and trailing punctuation, then a ladder of normalisations (float, thousands separators, LaTeX
// wrappers, lists, US state names) each of which may declare a match (1.0), then a soft numeric
// closeness that gives 0.98 when the relative error is under about 1%.
// Behaviour matched to NeMo Gym's resources_servers/string_match/app.py at commit 07d6b0d.
import { pyFloatFromString } from "../../verifiers/text/pyfloat.js";
import { pyLen, pyReplace, pyRstrip, pySplit, pyStrip } from "../../verifiers/text/pystr.js";

function stripOuterQuotes(text: string): string {
  const cps = Array.from(text);
  if (cps.length >= 2 && cps[0] === cps[cps.length - 1] && (cps[0] === '"' || cps[0] === "'")) return cps.slice(1, -1).join("");
  return text;
}

function stripTrailingPunctuation(text: string): string {
  const stripped = pyRstrip(text, ".!?");
  return stripped !== "" ? stripped : text;
}

/** Python's `str(float(x))` compared as a value: equal doubles, every NaN alike, -0.0 apart from 0.0. */
type FloatKey = { value: number } | { text: string };
function floatKey(text: string): FloatKey {
  const cleaned = pyStrip(pyReplace(pyReplace(pyReplace(text, "\\%", ""), "\\$", ""), "$", ""));
  const value = pyFloatFromString(cleaned);
  return value === undefined ? { text } : { value };
}
function sameFloatKey(a: FloatKey, b: FloatKey): boolean {
  if ("value" in a && "value" in b) return Object.is(a.value, b.value);
  if ("text" in a && "text" in b) return a.text === b.text;
  return false; // a float's repr always parses, an unparsable text never equals one
}

const THOUSANDS = /(\p{Nd}+),(\p{Nd}+)/gu;
function normalizeNumbers(text: string): string {
  return pyReplace(text.replace(THOUSANDS, "$1$2"), "\\%", "%");
}

function normalizeLists(text: string): string {
  const original = text;
  const length = pyLen(text);
  let t = pyReplace(pyReplace(text, ",", " "), ";", " ");
  t = pyReplace(pyReplace(t, "and", " "), "or", " ");
  if (pyLen(t) < 0.9 * length) return original;
  return pySplit(t).join(" ");
}

const LATEX_COMMANDS = ["\\boxed", "\\text", "\\textbf", "\\textit", "\\texttt", "\\mathrm", "\\mathbf", "\\mathit", "\\mathsf", "\\mathbb", "\\mathcal", "\\emph", "\\url"];

/** Drops every `cmd{` and its matching `}` (keeping the argument); an unclosed one loses only `cmd{`. */
function removeLatexCommand(cmd: string, text: string): string {
  const open = `${cmd}{`;
  while (text.includes(open)) {
    const at = text.indexOf(open);
    const prefix = text.slice(0, at);
    const suffix = text.slice(at + open.length);
    let depth = 1;
    let closed = false;
    for (let i = 0; i < suffix.length; i++) {
      if (suffix[i] === "{") depth++;
      else if (suffix[i] === "}") depth--;
      if (depth === 0) {
        text = prefix + suffix.slice(0, i) + suffix.slice(i + 1);
        closed = true;
        break;
      }
    }
    if (!closed) text = prefix + suffix;
  }
  return text;
}

export function normalizeLatex(text: string): string {
  for (const cmd of LATEX_COMMANDS) text = removeLatexCommand(cmd, text);
  for (const token of ["\\(", "\\)", "\\[", "\\]", "$"]) text = pyReplace(text, token, "");
  return pySplit(text).join(" ");
}

// Multi-word names first, as the reference lists them; "arkansas" before "kansas".
const STATES: ReadonlyArray<[string, string]> = Object.entries({
  "district of columbia": "DC", "new hampshire": "NH", "new jersey": "NJ", "new mexico": "NM", "new york": "NY",
  "north carolina": "NC", "north dakota": "ND", "rhode island": "RI", "south carolina": "SC", "south dakota": "SD",
  "west virginia": "WV", alabama: "AL", alaska: "AK", arizona: "AZ", arkansas: "AR", california: "CA", colorado: "CO",
  connecticut: "CT", delaware: "DE", florida: "FL", georgia: "GA", hawaii: "HI", idaho: "ID", illinois: "IL",
  indiana: "IN", iowa: "IA", kansas: "KS", kentucky: "KY", louisiana: "LA", maine: "ME", maryland: "MD",
  massachusetts: "MA", michigan: "MI", minnesota: "MN", mississippi: "MS", missouri: "MO", montana: "MT",
  nebraska: "NE", nevada: "NV", ohio: "OH", oklahoma: "OK", oregon: "OR", pennsylvania: "PA", tennessee: "TN",
  texas: "TX", utah: "UT", vermont: "VT", virginia: "VA", washington: "WA", wisconsin: "WI", wyoming: "WY",
});

function normalizeStates(text: string): string {
  for (const [name, abbreviation] of STATES) text = pyReplace(text, name, abbreviation);
  return normalizeLists(text).toLowerCase();
}

const UNICODE_MATH: ReadonlyArray<[string, string]> = [
  ["°", "^\\circ"], ["²", "^2"], ["³", "^3"], ["⁴", "^4"], ["⁵", "^5"], ["⁶", "^6"], ["⁷", "^7"], ["⁸", "^8"], ["⁹", "^9"],
  ["√", "\\sqrt"], ["﹣", "-"], ["﹢", "+"], ["﹦", "="], ["﹤", "<"], ["﹥", ">"], ["：", ":"], ["π", "\\pi"],
];
function normalizeUnicodeMath(text: string): string {
  for (const [from, to] of UNICODE_MATH) text = pyReplace(text, from, to);
  return text;
}

// Note: `m[²³]?` drops every letter m, as the reference does.
const MATH_UNITS = /\^\{?\\circ\}?|\\circ|°|cm[²³]?|mm|km|m[²³]?|kg/gu;

function stripNumeric(text: string): string {
  for (const ch of "$£€%,") text = pyReplace(text, ch, "");
  text = normalizeUnicodeMath(text).replace(MATH_UNITS, "");
  return pyStrip(pyReplace(pyReplace(text, "\\%", ""), "\\$", ""));
}

/** (1 - relative error)², floored at 0, when both sides read as numbers; else 0. */
export function softNumericGrade(gt: string, pred: string): number {
  const p = pyFloatFromString(stripNumeric(pred));
  const g = pyFloatFromString(stripNumeric(gt));
  if (p === undefined || g === undefined) return 0.0;
  const denominator = Number.isNaN(g) ? NaN : Math.max(Math.abs(g), 1e-9);
  const relError = Math.abs(p - g) / denominator;
  // Python's max(0.0, nan) keeps 0.0.
  const base = 1.0 - relError > 0.0 ? 1.0 - relError : 0.0;
  return base ** 2;
}

export function gradeStringMatch(gtAnswer: string, predAnswer: string): number {
  let pred = predAnswer.normalize("NFKC");
  let gt = gtAnswer.normalize("NFKC");
  pred = stripTrailingPunctuation(stripOuterQuotes(pred).toLowerCase());
  gt = stripTrailingPunctuation(stripOuterQuotes(gt).toLowerCase());

  if (pred === gt) return 1.0;
  if (sameFloatKey(floatKey(pred), floatKey(gt))) return 1.0;
  if (normalizeNumbers(pred) === normalizeNumbers(gt)) return 1.0;
  if (normalizeLatex(pred) === normalizeLatex(gt)) return 1.0;
  if (normalizeLists(pred) === normalizeLists(gt)) return 1.0;
  if (normalizeStates(pred) === normalizeStates(gt)) return 1.0;
  if (softNumericGrade(gt, pred) > 0.98) return 0.98;

  const predStripped = pyStrip(normalizeUnicodeMath(normalizeLatex(pred)).replace(MATH_UNITS, ""));
  const gtStripped = pyStrip(normalizeUnicodeMath(normalizeLatex(gt)).replace(MATH_UNITS, ""));
  if (predStripped === gtStripped) return 1.0;
  if (softNumericGrade(gtStripped, predStripped) > 0.98) return 0.98;
  return 0.0;
}

export function answersMatch(extracted: string, expected: string, caseSensitive: boolean): number {
  if (caseSensitive) return pyStrip(extracted) === pyStrip(expected) ? 1.0 : 0.0;
  return gradeStringMatch(expected, extracted);
}
