// The tag NLTK's English averaged-perceptron tagger (`nltk.pos_tag`, NLTK 3.9/3.10 PerceptronTagger)
// gives the FIRST token of a token list, which is all IFBench's words:start_verb reads. The tag
// dictionary decides frequent words; otherwise the model scores the first position's features (its
// previous tags and words are the fixed start markers, so only those feature weights are shipped:
// tagger_first_token.json.gz, made by testdata/make_tagger_subset.py from nltk_data's trained model).
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

interface Model {
  classes: string[];
  tagdict: Record<string, string>;
  weights: Record<string, Record<string, number>>;
}

let model: Model | undefined;
function load(): Model {
  // From src/environments/ifbench/ (tests) and dist/environments/ifbench/ (built) alike.
  model ??= JSON.parse(gunzipSync(readFileSync(new URL("../../../src/environments/ifbench/tagger_first_token.json.gz", import.meta.url))).toString("utf8")) as Model;
  return model;
}

const isDigit = (c: string) => /^\p{Nd}$/u.test(c);
const pyIsDigit = (s: string) => s !== "" && Array.from(s).every(isDigit);
const suffix3 = (s: string) => Array.from(s).slice(-3).join("");

/** PerceptronTagger.normalize. */
function normalize(word: string): string {
  const c = Array.from(word);
  if (word.includes("-") && c[0] !== "-") return "!HYPHEN";
  if (pyIsDigit(word) && c.length === 4) return "!YEAR";
  if (c.length > 0 && isDigit(c[0]!)) return "!DIGITS";
  return word.toLowerCase();
}

/** The tag of `tokens[0]` as `nltk.pos_tag(tokens)[0][1]` gives it; undefined for no tokens. */
export function firstTokenTag(tokens: readonly string[]): string | undefined {
  if (tokens.length === 0) return undefined;
  const m = load();
  const word = tokens[0]!;
  const known = Object.hasOwn(m.tagdict, word) ? m.tagdict[word] : undefined;
  if (known) return known;
  const context = ["-START-", "-START2-", ...tokens.slice(0, 3).map(normalize), "-END-", "-END2-"];
  const i = 2;
  const features = [
    "bias",
    `i suffix ${suffix3(word)}`,
    `i pref1 ${Array.from(word)[0] ?? ""}`,
    "i-1 tag -START-",
    "i-2 tag -START2-",
    "i tag+i-2 tag -START- -START2-",
    `i word ${context[i]}`,
    `i-1 tag+i word -START- ${context[i]}`,
    `i-1 word ${context[i - 1]}`,
    `i-1 suffix ${suffix3(context[i - 1]!)}`,
    `i-2 word ${context[i - 2]}`,
    `i+1 word ${context[i + 1]}`,
    `i+1 suffix ${suffix3(context[i + 1]!)}`,
    `i+2 word ${context[i + 2]}`,
  ];
  // Python's defaultdict(int): a key added twice counts 2.
  const counts = new Map<string, number>();
  for (const f of features) counts.set(f, (counts.get(f) ?? 0) + 1);
  const scores = new Map<string, number>();
  for (const [feature, value] of counts) {
    const weights = Object.hasOwn(m.weights, feature) ? m.weights[feature] : undefined;
    if (!weights || value === 0) continue;
    for (const [label, weight] of Object.entries(weights)) scores.set(label, (scores.get(label) ?? 0) + value * weight);
  }
  let best: string | undefined;
  let bestScore = -Infinity;
  for (const label of m.classes) {
    const score = scores.get(label) ?? 0;
    if (score > bestScore || (score === bestScore && label > best!)) {
      best = label;
      bestScore = score;
    }
  }
  return best;
}
