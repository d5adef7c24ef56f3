// equivalence_rule's grading rules, on the reply and the expected answer each stripped, lower-cased and
// with whitespace runs folded to one space: `exact` (1.0 or 0.0), `seq_match` (difflib's
// SequenceMatcher ratio) and `weighted_seq_match` (85% that ratio, 15% the ratio of the reply's opening
// against the answer's first ten characters).
// Behaviour matched to NeMo Gym's resources_servers/equivalence_rule/app.py at commit 07d6b0d.
import { sequenceRatio } from "../../verifiers/text/sequence_matcher.js";
import { PY_SPACE_CHARS, pySlice, pyLen, pyStrip } from "../../verifiers/text/pystr.js";

export const GRADING_RULES = ["seq_match", "weighted_seq_match", "exact"] as const;
export type GradingRule = (typeof GRADING_RULES)[number];

const SPACE_RUN = new RegExp(`[${PY_SPACE_CHARS}]+`, "gu");

export function normalize(text: string): string {
  return pyStrip(text).toLowerCase().replace(SPACE_RUN, " ");
}

export function grade(response: string, answer: string, rule: GradingRule): number {
  const r = normalize(response);
  const a = normalize(answer);
  switch (rule) {
    case "exact":
      return r === a ? 1.0 : 0.0;
    case "seq_match":
      return sequenceRatio(r, a);
    case "weighted_seq_match": {
      const similarity = sequenceRatio(r, a);
      const prefix = pySlice(a, 0, 10);
      const prefixSimilarity = sequenceRatio(pySlice(r, 0, pyLen(prefix)), prefix);
      return Math.max(0.0, Math.min(1.0, 0.85 * similarity + 0.15 * prefixSimilarity));
    }
  }
}
