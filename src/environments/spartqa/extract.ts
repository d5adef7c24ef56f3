// SpartQA CO answers, read and resolved as NeMo Gym's spartqa server does (resources_servers/spartqa/
// app.py at commit 07d6b0d): the answer line is found ("Final answer: …" and kin, reasoning blocks
// removed), normalised (lower case, no ASCII punctuation, no leading article), and resolved to exactly
// one of the four candidate labels — the two story objects, "both of them", "none of them" — by
// equality, an alias of both/none, or unambiguous containment. Python `re`/`str` semantics throughout.
import { pyFinditer, pySub } from "../../verifiers/text/pyregex.js";
import { pySplit, pyStrip } from "../../verifiers/text/pystr.js";

export const BOTH_LABEL = "both of them";
export const NONE_LABEL = "none of them";
const BOTH_ALIASES = new Set(["both", "both of them", "both objects", "both of the objects", "both of these"]);
const NONE_ALIASES = new Set(["none", "none of them", "none of the objects", "neither", "neither of them", "neither object", "no object", "dk", "do not know", "dont know"]);

const PUNCTUATION = new Set(Array.from("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"));

/** Stripped, lower-cased, ASCII punctuation removed, whitespace runs collapsed. */
export function normalize(text: string): string {
  const lowered = pyStrip(text).toLowerCase();
  return pySplit(Array.from(lowered).filter((ch) => !PUNCTUATION.has(ch)).join("")).join(" ");
}

// \r\n, or one of \n \r \v \f \x1c \x1d \x1e \x85 \u2028 \u2029 (built from code points: the lint forbids control escapes in literals).
const LINE_BREAK = new RegExp(`\r\n|[${[0x0a, 0x0d, 0x0b, 0x0c, 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029].map((c) => String.fromCharCode(c)).join("")}]`);

/** Python's `str.splitlines()` (without the line ends). */
export function pySplitlines(text: string): string[] {
  const lines = text.split(LINE_BREAK);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

function stripReasoning(text: string): string {
  let out = pySub(String.raw`<think>.*?</think>`, () => "", text, { ignoreCase: true, dotAll: true });
  out = pySub(String.raw`<\|channel\>thought\s*.*?<channel\|>`, () => "", out, { ignoreCase: true, dotAll: true });
  return pyStrip(out);
}

function cleanCandidate(text: string): string {
  let out = pyStrip(text);
  out = pySub(String.raw`^[-*•\s]+`, () => "", out);
  out = pyStrip(pySub(String.raw`^\*+|\*+$`, () => "", out));
  out = pyStrip(pySub(String.raw`</?think>`, () => "", out, { ignoreCase: true }));
  return pyStrip(pyStrip(out), "\"'` ");
}

const ANSWER_PATTERNS = [
  String.raw`(?:^|\n)\s*(?:[*_` + "`" + String.raw`#>\-\s]*)final\s+answer(?:\s+is)?\s*(?:[*_` + "`" + String.raw`\s])*[:\-]\s*(.+)`,
  String.raw`(?:^|\n)\s*(?:[*_` + "`" + String.raw`#>\-\s]*)selected\s+answer(?:\s+is)?\s*(?:[*_` + "`" + String.raw`\s])*[:\-]\s*(.+)`,
  String.raw`(?:^|\n)\s*(?:[*_` + "`" + String.raw`#>\-\s]*)answer(?:\s+is)?\s*(?:[*_` + "`" + String.raw`\s])*[:\-]\s*(.+)`,
  String.raw`\b(?:the\s+)?(?:final\s+)?answer\s+(?:is|would\s+be|should\s+be)\s*[:\-]?\s*(.+)`,
  String.raw`\bselected\s+(?:option|answer)\s+(?:is|would\s+be)\s*[:\-]?\s*(.+)`,
];
const PREAMBLES = ["thinking process", "analysis", "the user wants", "we need"];

/** The model's answer: the last real "…answer: X" of the first pattern that has one, else the text's first line. */
export function extractAnswer(raw: string): string {
  let text = stripReasoning(raw);
  let extracted: string | undefined;
  for (const pattern of ANSWER_PATTERNS) {
    const candidates = pyFinditer(pattern, text, { ignoreCase: true, multiline: true })
      .map((m) => pyStrip(m[1]!))
      // The prompt's own template line ("Final answer: <candidate answer>") is not an answer.
      .filter((c) => c !== "" && normalize(c) !== "candidate answer");
    if (candidates.length > 0) {
      extracted = candidates.at(-1)!;
      break;
    }
  }
  if (extracted !== undefined) text = extracted;
  const lines = pySplitlines(text)
    .filter((line) => pyStrip(line) !== "")
    .map(cleanCandidate)
    .filter((line) => line !== "" && normalize(line) !== "final answer" && normalize(line) !== "answer");
  if (lines.length === 0) return "";
  if (extracted === undefined && lines.length > 1) {
    const first = normalize(lines[0]!);
    if (PREAMBLES.some((p) => first.startsWith(p))) return lines.at(-1)!;
  }
  return lines[0]!;
}

/** The comparison key of a label or prediction: normalised, without a leading article. */
export function labelKey(text: string): string {
  return pyStrip(pySub(String.raw`^(?:a|an|the)\s+`, () => "", normalize(text)));
}

/** The candidate labels: the options, then "both of them" and "none of them", without key duplicates. */
export function candidateLabels(options: readonly string[]): string[] {
  const labels: string[] = [];
  const seen = new Set<string>();
  for (const label of [...options, BOTH_LABEL, NONE_LABEL]) {
    const key = labelKey(label);
    if (key && !seen.has(key)) {
      seen.add(key);
      labels.push(pyStrip(label));
    }
  }
  return labels;
}

/** The one label the prediction names, or undefined (nothing, or more than one). `containment: false` (the env's `strict`) accepts only equality or an alias. */
export function matchLabel(prediction: string, labels: readonly string[], containment = true): string | undefined {
  const key = labelKey(prediction);
  if (!key) return undefined;
  const byKey = new Map(labels.map((label) => [labelKey(label), label]));
  const values = new Set(byKey.values());
  if (byKey.has(key)) return byKey.get(key);
  if (BOTH_ALIASES.has(key) && values.has(BOTH_LABEL)) return byKey.get(labelKey(BOTH_LABEL));
  if (NONE_ALIASES.has(key) && values.has(NONE_LABEL)) return byKey.get(labelKey(NONE_LABEL));
  if (!containment) return undefined;
  let hits = [...byKey.keys()].filter((k) => k && key.includes(k));
  // A label inside another hit ("a triangle in block B" in "a big blue triangle in block B") yields to it.
  hits = hits.filter((h) => !hits.some((other) => other !== h && other.includes(h)));
  return hits.length === 1 ? byKey.get(hits[0]!) : undefined;
}
