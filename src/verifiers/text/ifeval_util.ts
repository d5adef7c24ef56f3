// IFEval's `instructions_util` text helpers: the heuristic sentence splitter several checkers use
// (not Punkt), word and sentence counts. Patterns and replacement order are IFEval's.
import { sentTokenize } from "./punkt.js";
import { pyFinditer, pySub, pySubTemplate } from "./pyregex.js";
import { pyReplace, pyStrip } from "./pystr.js";

const ALPHABETS = "([A-Za-z])";
const PREFIXES = "(Mr|St|Mrs|Ms|Dr)[.]";
const SUFFIXES = "(Inc|Ltd|Jr|Sr|Co)";
const STARTERS = String.raw`(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He\s|She\s|It\s|They\s|Their\s|Our\s|We\s|But\s|However\s|That\s|This\s|Wherever)`;
const ACRONYMS = "([A-Z][.][A-Z][.](?:[A-Z][.])?)";
const WEBSITES = "[.](com|net|org|io|gov|edu|me)";
const DIGITS = "([0-9])";
const MULTIPLE_DOTS = String.raw`\.{2,}`;

/** `split_into_sentences(text)`: IFEval's rule-based splitter. */
export function splitIntoSentences(input: string): string[] {
  let text = ` ${input}  `;
  text = pyReplace(text, "\n", " ");
  text = pySubTemplate(PREFIXES, String.raw`\1<prd>`, text);
  text = pySubTemplate(WEBSITES, String.raw`<prd>\1`, text);
  text = pySubTemplate(`${DIGITS}[.]${DIGITS}`, String.raw`\1<prd>\2`, text);
  text = pySub(MULTIPLE_DOTS, (m) => "<prd>".repeat(m[0].length) + "<stop>", text);
  if (text.includes("Ph.D")) text = pyReplace(text, "Ph.D.", "Ph<prd>D<prd>");
  text = pySubTemplate(String.raw`\s${ALPHABETS}[.] `, String.raw` \1<prd> `, text);
  text = pySubTemplate(`${ACRONYMS} ${STARTERS}`, String.raw`\1<stop> \2`, text);
  text = pySubTemplate(`${ALPHABETS}[.]${ALPHABETS}[.]${ALPHABETS}[.]`, String.raw`\1<prd>\2<prd>\3<prd>`, text);
  text = pySubTemplate(`${ALPHABETS}[.]${ALPHABETS}[.]`, String.raw`\1<prd>\2<prd>`, text);
  text = pySubTemplate(` ${SUFFIXES}[.] ${STARTERS}`, String.raw` \1<stop> \2`, text);
  text = pySubTemplate(` ${SUFFIXES}[.]`, String.raw` \1<prd>`, text);
  text = pySubTemplate(` ${ALPHABETS}[.]`, String.raw` \1<prd>`, text);
  if (text.includes("”")) text = pyReplace(text, ".”", "”.");
  if (text.includes('"')) text = pyReplace(text, '."', '".');
  if (text.includes("!")) text = pyReplace(text, '!"', '"!');
  if (text.includes("?")) text = pyReplace(text, '?"', '"?');
  text = pyReplace(text, ".", ".<stop>");
  text = pyReplace(text, "?", "?<stop>");
  text = pyReplace(text, "!", "!<stop>");
  text = pyReplace(text, "<prd>", ".");
  let sentences = text.split("<stop>").map((s) => pyStrip(s));
  if (sentences.length > 0 && !sentences[sentences.length - 1]) sentences = sentences.slice(0, -1);
  return sentences;
}

/** `count_words(text)`: `\w+` tokens (so "don't" is two words). */
export function countWords(text: string): number {
  return pyFinditer(String.raw`\w+`, text).length;
}

/** `count_sentences(text)`: Punkt sentences. */
export function countSentences(text: string): number {
  return sentTokenize(text).length;
}
