// From pairwise verdicts to one reward per response, as genrm_compare computes it at NeMo Gym 07d6b0d
// (utils.py: generate_comparison_pairs, aggregate_scores with the "simple_tiebreaker" method,
// apply_length_bonuses, apply_style_penalties): sums in the same order, so the floats are the same.
import { reasoningAndAnswer, type Verdict } from "./genrm_output.js";
import { pyLen, pyStrip, PY_WHITESPACE_CLASS } from "./python_text.js";

export const COMPARISON_STRATEGIES = ["circular", "all_pairs"] as const;
export type ComparisonStrategy = (typeof COMPARISON_STRATEGIES)[number];

/** Rankings run 1–6; below the midpoint the first response is better. */
const RANKING_MIDPOINT = 3.5;

/** The (i, j) index pairs compared among `n` responses: every pair i < j, or each with the next (wrapping). */
export function comparisonPairs(strategy: ComparisonStrategy, n: number): Array<[number, number]> {
  if (n < 2) throw new Error(`Need at least 2 responses for comparison, got ${n}`);
  const pairs: Array<[number, number]> = [];
  if (strategy === "all_pairs") {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) pairs.push([i, j]);
  } else {
    for (let i = 0; i < n; i++) pairs.push([i, (i + 1) % n]);
  }
  return pairs;
}

/** One comparison: which responses, which judge pass, and its verdict. */
export interface Compared {
  i: number;
  j: number;
  judge: number;
  verdict: Verdict;
}

export interface Adjustments {
  defaultScore: number;
  reasoningBonus: number;
  answerBonus: number;
  topPercentile: number;
  reasoningLengthPenaltyCoeff: number;
  answerLengthPenaltyCoeff: number;
  stylePenaltyCoeff: number;
}

/**
 * Per-response rewards: each comparison adds its two scores to its two responses (on equal scores the
 * ranking's distance from 3.5 moves them apart), each response gets the mean of what it received
 * (the default score when it was in no comparison), then the configured length and style adjustments.
 * `comparisons` must be in the order NeMo Gym sums them (judge pass, then i, then j).
 */
export function aggregateRewards(comparisons: readonly Compared[], responses: readonly unknown[], adjust: Adjustments): number[] {
  const n = responses.length;
  const sums = new Array<number>(n).fill(0);
  const counts = new Array<number>(n).fill(0);
  for (const { i, j, verdict } of comparisons) {
    let [score1, score2] = verdict;
    if (score1 === score2) {
      const shift = RANKING_MIDPOINT - verdict[2];
      score1 = score1 + shift;
      score2 = score2 - shift;
    }
    sums[i] = sums[i]! + score1;
    sums[j] = sums[j]! + score2;
    counts[i] = counts[i]! + 1;
    counts[j] = counts[j]! + 1;
  }
  let scores = sums.map((sum, k) => (counts[k]! > 0 ? sum / counts[k]! : adjust.defaultScore));
  if (adjust.reasoningBonus > 0 || adjust.answerBonus > 0 || adjust.reasoningLengthPenaltyCoeff > 0 || adjust.answerLengthPenaltyCoeff > 0) {
    scores = lengthAdjusted(scores, responses, adjust);
  }
  if (adjust.stylePenaltyCoeff > 0) scores = styleAdjusted(scores, responses, adjust.stylePenaltyCoeff);
  return scores;
}

/** Zero-centred weights from 1 (smallest value) to 0 (largest); all zero when the values are equal. */
function shorterIsBetter(values: readonly number[]): number[] {
  const max = Math.max(...values);
  const min = Math.min(...values);
  if (max === min) return values.map(() => 0);
  const span = max - min;
  const raw = values.map((v) => 1.0 - (v - min) / span);
  let total = 0;
  for (const w of raw) total += w;
  const mean = total / raw.length;
  return raw.map((w) => w - mean);
}

function lengthAdjusted(input: readonly number[], responses: readonly unknown[], adjust: Adjustments): number[] {
  const scores = [...input];
  const n = responses.length;
  if (n < 2) return scores;
  const reasoningLengths: number[] = [];
  const answerLengths: number[] = [];
  for (const response of responses) {
    const { reasoning, answer } = reasoningAndAnswer(response);
    reasoningLengths.push(pyLen(pyStrip(reasoning)));
    answerLengths.push(pyLen(pyStrip(answer)));
  }
  const sorted = [...scores].sort((a, b) => b - a);
  const top = sorted[Math.max(0, Math.trunc(scores.length * adjust.topPercentile) - 1)]!;
  const bonusShortest = (lengths: number[], bonus: number) => {
    if (!(bonus > 0)) return;
    let best = -1;
    for (let k = 0; k < lengths.length; k++) if (lengths[k]! > 0 && (best < 0 || lengths[k]! < lengths[best]!)) best = k;
    if (best >= 0 && scores[best]! >= top) scores[best] = scores[best]! + bonus;
  };
  bonusShortest(reasoningLengths, adjust.reasoningBonus);
  bonusShortest(answerLengths, adjust.answerBonus);
  if (adjust.reasoningLengthPenaltyCoeff > 0 || adjust.answerLengthPenaltyCoeff > 0) {
    const reasoningWeights = shorterIsBetter(reasoningLengths);
    const answerWeights = shorterIsBetter(answerLengths);
    for (let k = 0; k < n; k++) {
      const total = reasoningWeights[k]! * adjust.reasoningLengthPenaltyCoeff + answerWeights[k]! * adjust.answerLengthPenaltyCoeff;
      if (total !== 0) scores[k] = scores[k]! + total;
    }
  }
  return scores;
}

const WS = `[${PY_WHITESPACE_CLASS}]`;
const CODE_BLOCK = /```[\s\S]*?```/g;
// Python's multiline `^` (start, or right after "\n" only) as a lookbehind.
const LINE_START = "(?<![^\\n])";
const STYLE_PATTERNS = [
  new RegExp(`${LINE_START}#{1,6}${WS}`, "g"),
  new RegExp(`${LINE_START}${WS}*\\p{Nd}+\\.${WS}`, "gu"),
  new RegExp(`${LINE_START}${WS}*[-*+]${WS}`, "g"),
  /\*\*[^*\n]+\*\*/g,
  /__[^_\n]+__/g,
  // NeMo Gym's emoji ranges, one code point per match (the third range spans U+24C2 to U+1F251).
  /[\u{1f600}-\u{1f64f}\u{1f300}-\u{1f5ff}\u{1f680}-\u{1f6ff}\u{1f1e0}-\u{1f1ff}\u{2702}-\u{27b0}\u{24c2}-\u{1f251}\u{1f900}-\u{1f9ff}\u{1fa00}-\u{1fa6f}\u{1fa70}-\u{1faff}\u{2600}-\u{26ff}\u{2700}-\u{27bf}]/gu,
];

/** Headers, list items, bold spans and emoji outside code blocks (Arena-Hard's style elements plus emoji). */
export function styleElements(text: string): number {
  const visible = text.replace(CODE_BLOCK, "");
  let count = 0;
  for (const pattern of STYLE_PATTERNS) count += [...visible.matchAll(pattern)].length;
  return count;
}

/** Style elements per character of the stripped text outside code blocks; 0 for an empty text. */
export function styleDensity(text: string): number {
  const visible = text.replace(CODE_BLOCK, "");
  const length = pyLen(pyStrip(visible));
  if (length <= 0) return 0.0;
  return styleElements(visible) / length;
}

function styleAdjusted(input: readonly number[], responses: readonly unknown[], coeff: number): number[] {
  const scores = [...input];
  if (responses.length < 2 || coeff <= 0) return scores;
  const weights = shorterIsBetter(responses.map((response) => styleDensity(reasoningAndAnswer(response).answer)));
  for (let k = 0; k < scores.length; k++) {
    const adjustment = weights[k]! * coeff;
    if (adjustment !== 0) scores[k] = scores[k]! + adjustment;
  }
  return scores;
}
