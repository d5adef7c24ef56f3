// knights_knaves's `score_answer` (reasoning-gym 0.1.25, the newest release NeMo Gym's
// `reasoning-gym>=0.1.19` installs; reasoning_gym/logic/knights_knaves.py, unchanged in this since
// 0.1.20): both answers normalized to a set of (name, role) pairs; the same set scores 1.0; as many pairs
// with some in common scores 0.3 + 0.7 × common / pairs; anything else (or an empty answer) 0.0.
import { pySplit, pyStrip } from "./python_text.js";

/** Every role word of the library's KNIGHT_KNAVE_PAIRS ("a knight"/"a knave", "a pioneer"/"a laggard", …). */
const VALID_ROLES = new Set(["knight", "knave", "pioneer", "laggard", "saint", "sinner", "hero", "villain", "angel", "devil", "altruist", "egoist", "sage", "fool"]);
const SKIPPED = new Set(["is", "a", "an"]);

/** `_normalize_answer`: lower-case, punctuation to spaces, "and" dropped, then name → role pairs. */
export function normalizeAnswer(answer: string): Set<string> {
  const text = pyStrip(answer.toLowerCase()).replaceAll(".", " ").replaceAll(",", " ").replaceAll(")", " ").replaceAll("(", " ");
  const parts = pySplit(text.replaceAll(" and ", " ")).map(pyStrip);
  const assignments = new Set<string>();
  let currentName: string | undefined;
  for (const part of parts) {
    if (SKIPPED.has(part)) continue;
    if (VALID_ROLES.has(part)) {
      if (currentName) {
        assignments.add(JSON.stringify([currentName, part]));
        currentName = undefined;
      }
    } else {
      currentName = part;
    }
  }
  return assignments;
}

export function scoreKnightsKnaves(answer: string | null, oracle: string | null): number {
  if (typeof answer !== "string" || answer.length === 0) return 0.0;
  // The library reads entry["answer"] inside its try: a missing oracle answer scores 0.0.
  if (typeof oracle !== "string") return 0.0;
  const expected = normalizeAnswer(oracle);
  const given = normalizeAnswer(answer);
  const matching = [...expected].filter((pair) => given.has(pair)).length;
  if (expected.size === given.size && matching === expected.size) return 1.0;
  if (expected.size === given.size && matching > 0) return 0.3 + (0.7 * matching) / expected.size;
  return 0.0;
}
