// RULER v2's soft string match, as NeMo Gym's ruler2 server computes it (NVIDIA-NeMo/Gym 07d6b0d,
// resources_servers/ruler2/app.py, after NeMo-Skills' eval_ruler2): per reference,
// max(reference is a substring of the prediction, 1 − word error rate), both lower-cased; the word
// error rate is the `editdistance` of the whitespace-split word lists over the reference's word count.
import { editDistance } from "../../verifiers/text/edit_distance.js";
import { pySub } from "../../verifiers/text/pyregex.js";
import { pySplit, pyStrip } from "../../verifiers/text/pystr.js";

/** Word error rate of `hypothesis` against `reference`; +∞ when the reference has no words. */
export function wordErrorRate(hypothesis: string, reference: string): number {
  const h = pySplit(hypothesis);
  const r = pySplit(reference);
  if (r.length === 0) return Infinity;
  return editDistance(h, r) / r.length;
}

/** Python's str.lower() and JavaScript's toLowerCase agree (full Unicode mapping, final sigma included). */
export function softMatch(prediction: string, reference: string): number {
  const p = prediction.toLowerCase();
  const r = reference.toLowerCase();
  return Math.max(p.includes(r) ? 1.0 : 0.0, 1.0 - wordErrorRate(p, r));
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** `all`: mean over references. */
export function matchAll(prediction: string, refs: readonly string[]): number {
  return refs.length === 0 ? 0.0 : mean(refs.map((r) => softMatch(prediction, r)));
}

/** `part`: best reference, after removing `Document N:` header blocks from the prediction. */
export function matchPart(prediction: string, refs: readonly string[]): number {
  const stripped = pySub(String.raw`Document \d+:(?:.*\n)+?\n`, () => "", prediction);
  return refs.length === 0 ? 0.0 : Math.max(...refs.map((r) => softMatch(stripped, r)));
}

/** `2steps`: `all` on the last paragraph only. */
export function matchTwoSteps(prediction: string, refs: readonly string[]): number {
  const parts = prediction.split("\n\n");
  return matchAll(parts[parts.length - 1]!, refs);
}

export const MATCH_TYPES: Record<string, (prediction: string, refs: readonly string[]) => number> = {
  all: matchAll,
  part: matchPart,
  "2steps": matchTwoSteps,
};

/** `default_parse`: stripped, ASCII control characters turned into newlines, stripped again. */
export function defaultParse(prediction: string): string {
  // eslint-disable-next-line no-control-regex
  return pyStrip(pyStrip(prediction).replace(/[\x00-\x1f]/g, "\n"));
}
