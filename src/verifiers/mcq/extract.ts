// The answer letter of a multiple-choice response, extracted as NeMo Gym's mcqa does (commit 07d6b0d;
// shared by mcqa and gpqa_diamond): first the row's template regexes, then the grading mode's own rule. Every rule errs towards "no answer": a reward
// the policy can earn without committing to one letter is a reward it learns to hack.
import { pyFinditer, pySearch } from "../text/pyregex.js";
import { pySplit, pyStrip } from "../text/pystr.js";

export const ROW_GRADING_MODES = ["strict_single_letter_boxed", "lenient_boxed", "lenient_answer_colon"] as const;
export const GRADING_MODES = [...ROW_GRADING_MODES, "lenient_answer_colon_md"] as const;
export type GradingMode = (typeof GRADING_MODES)[number];

export interface Question {
  /** Upper-case option letters with a non-null text, e.g. {A: "Karyotyping", …}. */
  options: ReadonlyMap<string, string>;
}

/** Letters written in other scripts, mapped to A–D. */
const LOCALISED_LETTERS: Readonly<Record<string, string>> = {
  // Arabic
  "أ": "A", "ب": "B", "ج": "C", "د": "D",
  // Bengali
  "অ": "A", "ব": "B", "ড": "C", "ঢ": "D",
  // Full-width Latin
  "Ａ": "A", "Ｂ": "B", "Ｃ": "C", "Ｄ": "D",
};

export function normaliseLocalisedLetters(text: string): string {
  return Array.from(text, (ch) => LOCALISED_LETTERS[ch] ?? ch).join("");
}

/** Lower-cased, whitespace runs collapsed to one space, trimmed. */
export function normaliseText(text: string): string {
  return pySplit(text).join(" ").toLowerCase();
}

/** The option letter whose text equals `capture` after normalisation, if exactly that. */
function optionByText(capture: string, question: Question): string | undefined {
  const wanted = normaliseText(capture);
  for (const [letter, text] of question.options) if (normaliseText(text) === wanted) return letter;
  return undefined;
}

/**
 * Step 1: the row's `template_metadata.output_regex` (one pattern or a list), tried in order; the
 * last match of a pattern counts. A single letter is accepted even when it is not an option (the
 * template is the authority), otherwise the option whose text equals the capture. Invalid patterns
 * are skipped.
 */
export function extractWithTemplate(text: string, outputRegex: unknown, question: Question): string | undefined {
  const patterns = typeof outputRegex === "string" ? [outputRegex] : Array.isArray(outputRegex) ? outputRegex : [];
  for (const pattern of patterns) {
    if (typeof pattern !== "string") continue;
    let matches: RegExpExecArray[];
    try {
      matches = pyFinditer(pattern, text, { ignoreCase: true });
    } catch {
      continue;
    }
    const last = matches.at(-1);
    if (!last) continue;
    // One capture group expected; with none, the whole match.
    const capture = pyStrip(normaliseLocalisedLetters(last.length > 1 ? (last[1] ?? "") : last[0])).toUpperCase();
    if (/^[A-Z]$/.test(capture)) return capture;
    const byText = optionByText(capture, question);
    if (byText) return byText;
  }
  return undefined;
}

/** Content of the last `\boxed{…}`, braces matched; undefined when there is none or it never closes. */
export function lastBoxedContent(text: string): string | undefined {
  const start = text.lastIndexOf("\\boxed{");
  if (start < 0) return undefined;
  const open = start + "\\boxed{".length;
  let depth = 1;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(open, i);
  }
  return undefined;
}

/** Removes `\text{…}` wrappers that span the whole string, repeatedly. */
export function peelText(content: string): string {
  let current = pyStrip(content);
  while (current.startsWith("\\text{") && current.endsWith("}")) {
    // The wrapper must close at the very end, not earlier ("\text{a} \text{b}" stays as is).
    let depth = 0;
    let closesAtEnd = false;
    for (let i = "\\text".length; i < current.length; i++) {
      if (current[i] === "{") depth++;
      else if (current[i] === "}" && --depth === 0) {
        closesAtEnd = i === current.length - 1;
        break;
      }
    }
    if (!closesAtEnd) break;
    current = pyStrip(current.slice("\\text{".length, -1));
  }
  return current;
}

function strictBoxed(text: string, question: Question): string | undefined {
  const content = lastBoxedContent(text);
  if (content === undefined) return undefined;
  const inner = peelText(content);
  // One upper-case letter among non-letters ("[C]", "(B)", " E "), or "E: text" / "E) text" / "E. text" / "E- text".
  const letter = /^[^A-Za-z]*([A-Z])[^A-Za-z]*$/.exec(inner)?.[1] ?? /^([A-Z])[:).-]/.exec(inner)?.[1];
  return letter !== undefined && question.options.has(letter) ? letter : undefined;
}

function lenientBoxed(text: string, question: Question): string | undefined {
  const strict = strictBoxed(text, question);
  if (strict) return strict;
  const content = lastBoxedContent(text);
  if (content === undefined) return undefined;
  const haystacks = [normaliseText(content), normaliseText(peelText(content))];
  const letters = new Set<string>();
  for (const [letter, optionText] of question.options) {
    const needle = normaliseText(optionText);
    if (haystacks.some((h) => h.includes(needle))) letters.add(letter);
  }
  return letters.size === 1 ? [...letters][0] : undefined;
}

function lenientAnswerColon(text: string, question: Question): string | undefined {
  const m = pySearch(String.raw`(?i)answer\s*:\s*(.+)`, text);
  if (!m) return undefined;
  const payload = peelText(pyStrip(m[1] ?? ""));
  if (/^[A-Za-z]$/.test(payload)) {
    const letter = payload.toUpperCase();
    return question.options.has(letter) ? letter : undefined;
  }
  return optionByText(payload, question);
}

const MD_ANSWER = String.raw`(?im)[*_]{0,2}Answer[*_]{0,2}\s*:[*_\s]{0,2}(.+)`;
/** Two standalone letters joined only by a list separator: "A or B", "A, B", "A/B". */
const TWO_LETTERS = /(?<![A-Za-z0-9])([A-Z])(?:\s*(?:[/|&,;]|\bor\b|\band\b)\s*|\s+)(?=([A-Z])(?![A-Za-z0-9]))/gi;
const MD_STRIP = "*_` .,;:";

function mdPayloadLetter(payload: string, question: Question): string | undefined {
  let p = pyStrip(normaliseLocalisedLetters(payload));
  // Then the markdown/punctuation characters and whitespace, from both ends.
  p = pyStrip(p, MD_STRIP + " \t\n\r\f\v");
  for (const m of p.matchAll(TWO_LETTERS)) {
    const a = m[1]!.toUpperCase();
    const b = m[2]!.toUpperCase();
    if (/[A-Z]/.test(m[1]!) && /[A-Z]/.test(m[2]!) && a !== b && question.options.has(a) && question.options.has(b)) return undefined;
  }
  let letter: string | undefined;
  if (Array.from(p).length === 1) letter = p.toUpperCase();
  else letter = /^([A-Z])(?![A-Za-z0-9])/.exec(p)?.[1] ?? [...p.matchAll(/(?<![A-Za-z0-9])([A-Z])(?![A-Za-z0-9])/g)].at(-1)?.[1];
  return letter !== undefined && question.options.has(letter) ? letter : undefined;
}

function lenientAnswerColonMd(text: string, question: Question): string | undefined {
  const payloads = pyFinditer(MD_ANSWER, text).map((m) => m[1] ?? "");
  for (const payload of payloads.reverse()) {
    const letter = mdPayloadLetter(payload, question);
    if (letter) return letter;
  }
  return undefined;
}

/** Step 2, by grading mode. */
export function extractByMode(text: string, mode: GradingMode, question: Question): string | undefined {
  switch (mode) {
    case "strict_single_letter_boxed":
      return strictBoxed(text, question);
    case "lenient_boxed":
      return lenientBoxed(text, question);
    case "lenient_answer_colon":
      return lenientAnswerColon(text, question);
    case "lenient_answer_colon_md":
      return lenientAnswerColonMd(text, question);
  }
}

export function extractAnswer(text: string, mode: GradingMode, question: Question, outputRegex?: unknown): string | undefined {
  return extractWithTemplate(text, outputRegex, question) ?? extractByMode(text, mode, question);
}
