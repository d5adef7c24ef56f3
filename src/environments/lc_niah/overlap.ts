// How much of the reasoning was copied from the prompt, three ways, as NeMo Gym's lc_niah server
// measures it (NVIDIA-NeMo/Gym 07d6b0d, resources_servers/lc_niah/app.py). Both texts are first
// normalized (stripped, lower-cased, whitespace runs made one space); each measure is in [0, 1] and
// 0 when there is no reasoning.
// - seq_match: difflib SequenceMatcher ratio (autojunk on) of reasoning against prompt;
// - ngram16: the share of the reasoning's distinct 16-word sequences that also occur in the prompt;
// - lcs: the longest common substring (difflib's find_longest_match, autojunk off) over the reasoning's length.
import { pySub } from "../../verifiers/text/pyregex.js";
import { pyLen, pySplit, pyStrip } from "../../verifiers/text/pystr.js";
import { SequenceMatcher, sequenceRatio } from "../../verifiers/text/sequence_matcher.js";

export function normalize(text: string): string {
  return pySub(String.raw`\s+`, () => " ", pyStrip(text).toLowerCase());
}

export function overlapSeqMatch(reasoning: string, input: string): number {
  const r = normalize(reasoning);
  return r === "" ? 0.0 : sequenceRatio(r, normalize(input));
}

export function overlapNgram(reasoning: string, input: string, n: number): number {
  const r = pySplit(normalize(reasoning));
  if (r.length < n) return 0.0;
  const i = pySplit(normalize(input));
  // A separator no token contains (tokens hold no whitespace).
  const grams = (tokens: string[]) => {
    const out = new Set<string>();
    for (let k = 0; k + n <= tokens.length; k++) out.add(tokens.slice(k, k + n).join(" "));
    return out;
  };
  const mine = grams(r);
  const theirs = grams(i);
  let shared = 0;
  for (const g of mine) if (theirs.has(g)) shared++;
  return mine.size === 0 ? 0.0 : shared / mine.size;
}

export function overlapLcs(reasoning: string, input: string): number {
  const r = normalize(reasoning);
  if (r === "") return 0.0;
  const longest = new SequenceMatcher<string>(r, normalize(input), { autojunk: false }).findLongestMatch();
  return longest.size / pyLen(r);
}
