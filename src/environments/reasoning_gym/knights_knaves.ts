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

/**
 * Gymkit's own (the environment's `strict`): the library's score, but only for an answer made of nothing
 * except the puzzle's names (`names`, lower-cased), role words and the library's fillers, each name
 * followed by its role. The library skips any other word (a name it overwrites), so "not Zoey is a fool,
 * …" or a name with a zero-width character inside scored as the words around it; here such an answer is 0.
 */
export function scoreKnightsKnavesStrict(answer: string | null, oracle: string | null, names: readonly string[] | undefined): number {
  if (typeof answer !== "string" || answer.length === 0 || typeof oracle !== "string") return 0.0;
  const known = new Set((names ?? [...normalizeAnswer(oracle)].map((pair) => (JSON.parse(pair) as [string, string])[0])).map((n) => n.toLowerCase()));
  const text = pyStrip(answer.toLowerCase()).replaceAll(".", " ").replaceAll(",", " ").replaceAll(")", " ").replaceAll("(", " ");
  let pending: string | undefined;
  for (const part of pySplit(text.replaceAll(" and ", " ")).map(pyStrip)) {
    if (SKIPPED.has(part) || part === "and") continue;
    if (VALID_ROLES.has(part)) {
      if (pending === undefined) return 0.0; // a role with no name before it
      pending = undefined;
    } else if (known.has(part) && pending === undefined) {
      pending = part;
    } else {
      return 0.0; // a word that is not one of the puzzle's names, or a name without its role
    }
  }
  return pending === undefined ? scoreKnightsKnaves(answer, oracle) : 0.0;
}
