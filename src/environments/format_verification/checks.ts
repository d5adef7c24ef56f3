// format_verification's two checks. `regex` (also `inline_prose`): count the reply's lines (split on
// "\n" only) that match any of `verify_regex` (Python `re.search`, each line counted once); pass when
// at least `verify_min_matches` (default 1) do. `string_match`: every `expected_markers` string occurs
// in the reply, and no match of `patterns` (Python `re.finditer` over the whole reply) is a string
// outside the expected markers.
// Behaviour matched to NeMo Gym's resources_servers/format_verification/app.py at commit 07d6b0d.
import { pyCompile, pyFinditer } from "../../verifiers/text/pyregex.js";

export type Verifier = Record<string, unknown>;
export interface CheckResult {
  reward: number;
  details: Record<string, unknown>;
}

function listOf(verifier: Verifier, key: string): unknown[] {
  const value = verifier[key] ?? [];
  if (!Array.isArray(value)) throw new TypeError(`verifier.${key} must be a list`);
  return value;
}

export function verifyRegex(text: string, verifier: Verifier): CheckResult {
  const patterns = listOf(verifier, "verify_regex").map(String);
  const minMatches = "verify_min_matches" in verifier ? verifier.verify_min_matches : 1;
  if (typeof minMatches !== "number") throw new TypeError("verifier.verify_min_matches must be a number");
  // Compiled up front, as the reference does: a pattern Python rejects fails the request.
  const compiled = patterns.map((p) => pyCompile(p));
  let matchingLines = 0;
  for (const line of text.split("\n")) {
    if (compiled.some((rx) => {
      rx.lastIndex = 0;
      const hit = rx.test(line);
      rx.lastIndex = 0;
      return hit;
    })) matchingLines++;
  }
  const passed = matchingLines >= minMatches;
  return { reward: passed ? 1.0 : 0.0, details: { matching_lines: matchingLines, min_matches: minMatches, passed } };
}

export function verifyStringMatch(text: string, verifier: Verifier): CheckResult {
  const expected = listOf(verifier, "expected_markers").map(String);
  const patterns = listOf(verifier, "patterns").map(String);
  const missing = expected.filter((marker) => !text.includes(marker));
  const spurious: string[] = [];
  const expectedSet = new Set(expected);
  for (const pattern of patterns) {
    for (const found of pyFinditer(pattern, text)) if (!expectedSet.has(found[0])) spurious.push(found[0]);
  }
  const passed = missing.length === 0 && spurious.length === 0;
  return { reward: passed ? 1.0 : 0.0, details: { expected, missing, spurious, passed } };
}
