// `nltk.word_tokenize(text)`: Punkt sentences, then NLTK's improved Treebank tokenizer
// (`NLTKWordTokenizer`, NLTK 3.8/3.9) on each. The substitutions are NLTK's own Python patterns, run
// through pyregex.ts in the same order, so the tokens match NLTK's wherever the sentences do.
import { sentTokenize } from "./punkt.js";
import { pySubTemplate, type PyFlags } from "./pyregex.js";
import { pySplit } from "./pystr.js";

type Rule = [pattern: string, template: string, flags?: PyFlags];

const STARTING_QUOTES: Rule[] = [
  ["([«“‘„]|[`]+)", String.raw` \1 `],
  [String.raw`^\"`, "``"],
  ["(``)", String.raw` \1 `],
  [String.raw`([ \(\[{<])(\"|\'{2})`, "\\1 `` "],
  [String.raw`(?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b`, String.raw`\1 \2`],
];

const ENDING_QUOTES: Rule[] = [
  ["([»”’])", String.raw` \1 `],
  ["''", " '' "],
  ['"', " '' "],
  [String.raw`([^' ])('[sS]|'[mM]|'[dD]|') `, String.raw`\1 \2 `],
  [String.raw`([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) `, String.raw`\1 \2 `],
];

const PUNCTUATION: Rule[] = [
  [String.raw`([^\.])(\.)([\]\)}>"\'` + "»”’ " + String.raw`]*)\s*$`, String.raw`\1 \2 \3 `],
  [String.raw`([:,])([^\d])`, String.raw` \1 \2`],
  [String.raw`([:,])$`, String.raw` \1 `],
  [String.raw`\.{2,}`, String.raw` \g<0> `],
  [String.raw`[;@#$%&]`, String.raw` \g<0> `],
  [String.raw`([^\.])(\.)([\]\)}>"\']*)\s*$`, String.raw`\1 \2\3 `],
  [String.raw`[?!]`, String.raw` \g<0> `],
  [String.raw`([^'])' `, String.raw`\1 ' `],
  [String.raw`[*]`, String.raw` \g<0> `],
];

const PARENS_BRACKETS: Rule = [String.raw`[\]\[\(\)\{\}\<\>]`, String.raw` \g<0> `];
const DOUBLE_DASHES: Rule = ["--", " -- "];

const CONTRACTIONS2 = [
  String.raw`(?i)\b(can)(?#X)(not)\b`,
  String.raw`(?i)\b(d)(?#X)('ye)\b`,
  String.raw`(?i)\b(gim)(?#X)(me)\b`,
  String.raw`(?i)\b(gon)(?#X)(na)\b`,
  String.raw`(?i)\b(got)(?#X)(ta)\b`,
  String.raw`(?i)\b(lem)(?#X)(me)\b`,
  String.raw`(?i)\b(more)(?#X)('n)\b`,
  String.raw`(?i)\b(wan)(?#X)(na)(?=\s)`,
];
const CONTRACTIONS3 = [String.raw`(?i) ('t)(?#X)(is)\b`, String.raw`(?i) ('t)(?#X)(was)\b`];

function apply(text: string, [pattern, template, flags]: Rule): string {
  return pySubTemplate(pattern, template, text, flags);
}

/** `NLTKWordTokenizer().tokenize(text)` on one sentence. */
export function treebankTokenize(sentence: string): string[] {
  let text = sentence;
  for (const rule of STARTING_QUOTES) text = apply(text, rule);
  for (const rule of PUNCTUATION) text = apply(text, rule);
  text = apply(text, PARENS_BRACKETS);
  text = apply(text, DOUBLE_DASHES);
  text = ` ${text} `;
  for (const rule of ENDING_QUOTES) text = apply(text, rule);
  for (const pattern of CONTRACTIONS2) text = apply(text, [pattern, String.raw` \1 \2 `]);
  for (const pattern of CONTRACTIONS3) text = apply(text, [pattern, String.raw` \1 \2 `]);
  return pySplit(text);
}

/** `nltk.word_tokenize(text)` (English, sentence-split first). */
export function wordTokenize(text: string): string[] {
  return sentTokenize(text).flatMap(treebankTokenize);
}
