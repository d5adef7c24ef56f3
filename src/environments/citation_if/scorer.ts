// citation_if's reward: a fixed sequence of gates over the answer's citations, reproducing NeMo Gym's
// scorer at commit 07d6b0d (resources_servers/citation_if/scorer.py), verdict and details alike. Only
// the citations are judged, never what the answer says. Proven against that scorer's own outputs on
// its test suites and on our cases (testdata/scorer_cases.jsonl.gz, made by generate_scorer_cases.py).
//
// Cite mode, in order (the first failing gate names the verdict):
//   structural         the text is non-blank and the response called no tool
//   no_answer          a word character remains once citation markup is blanked (a claim-wrap's
//                      claim counts as answer)
//   malformed_attempt  with every well-formed span blanked, no ID-shaped token remains anywhere; tag
//                      grammars also need as many opening and closing tags as spans
//   must_cite          at least `min_valid_citations` cited IDs are in `valid_id_set`
//   no_hallucination   every cited ID is in `valid_id_set`
//   correctness_*      when `expected_ids` is set: each is cited (missed_gold), and no more than
//                      |expected| + `expected_slack` valid IDs are cited (over_cap)
// No-cite mode: reward 1 when no ID-shaped token and no citation markup appear.
import { pySearch } from "../../verifiers/text/pyregex.js";
import { pyStrip } from "../../verifiers/text/pystr.js";
import { ATTEMPT, DEFAULT_ID_REGEX, GRAMMARS, grammarPattern, type Grammar } from "./grammars.js";

export type Verifier = Record<string, unknown>;

export interface MatchDetails {
  gate_failed: string | null;
  mode: unknown;
  grammar: unknown;
  id_kind: unknown;
  id_regex: string;
  structural_ok: boolean;
  function_call_count: number;
  attempt_hits: boolean;
  bare_id_hits: boolean;
  parsed_ids: string[];
  cited_ids: string[];
  valid_cited: string[];
  invalid_cited: string[];
  num_valid_cited: number;
  expected_ids: unknown[] | null;
  missed_ids: string[];
  over_cap: boolean;
}

export interface Verdict {
  reward: number;
  details: MatchDetails | { gate_failed: "unknown_grammar"; grammar: unknown };
}

/** Python's `int(x)` for the values a JSON verifier can carry; anything else fails as Python would. */
export function pyInt(value: unknown, field: string): number {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number" && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === "string" && /^[ \t\n\r\f\v]*[+-]?\d+(_\d+)*[ \t\n\r\f\v]*$/.test(value)) return Number.parseInt(value.replace(/_/g, ""), 10);
  throw new Error(`verifier.${field}: int() cannot take ${JSON.stringify(value)}`);
}

/** Python's `list(x)` / iteration of a JSON value (a string iterates its characters). */
function pyList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return Array.from(value);
  if (value !== null && typeof value === "object") return Object.keys(value);
  throw new Error(`${JSON.stringify(value)} is not iterable`);
}

const get = (v: Verifier, key: string, fallback: unknown) => (key in v ? v[key] : fallback);
const truthy = (value: unknown) => !(value === null || value === undefined || value === false || value === 0 || value === "" || (Array.isArray(value) && value.length === 0) || (typeof value === "object" && value !== null && Object.keys(value).length === 0));
const byCodePoint = (a: string, b: string): number => {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};

function rowIdRegex(v: Verifier): string {
  const explicit = v.id_regex;
  if (truthy(explicit)) return String(explicit);
  const kind = get(v, "id_kind", "full_source");
  return (typeof kind === "string" && Object.hasOwn(DEFAULT_ID_REGEX, kind) ? DEFAULT_ID_REGEX[kind] : DEFAULT_ID_REGEX.full_source)!;
}

/** Well-formed spans; claim-wrap spans with a blank claim are dropped. */
function spansOf(pattern: RegExp, grammar: Grammar, text: string): RegExpExecArray[] {
  const spans: RegExpExecArray[] = [];
  for (const m of text.matchAll(pattern)) {
    if (grammar.claimGroup !== undefined && pyStrip(m[grammar.claimGroup] ?? "") === "") continue;
    spans.push(m);
  }
  return spans;
}

/** The IDs of every span, in order, each once. */
function idsOf(spans: RegExpExecArray[]): string[] {
  return [...new Set(spans.flatMap((m) => m[1]!.split(",")))];
}

/** The text with each span blanked, except (when `keepClaims`) the claim a claim-wrap span carries. */
function blank(spans: RegExpExecArray[], text: string, keepClaim?: number): string {
  if (spans.length === 0) return text;
  const out = text.split("");
  for (const m of spans) {
    const keep = keepClaim !== undefined && m.length > keepClaim && m[keepClaim] !== undefined ? m.indices![keepClaim] : undefined;
    for (let i = m.index; i < m.index + m[0].length; i++) {
      if (keep && keep[0] <= i && i < keep[1]) continue;
      out[i] = " ";
    }
  }
  return out.join("");
}

function count(pattern: RegExp, text: string): number {
  return Array.from(text.matchAll(pattern)).length;
}

/** Scores one answer (`text`: the assistant's output text, stripped) against the row's verifier. */
export function scoreCitationIf(text: string, functionCallCount: number, v: Verifier): Verdict {
  const grammarName = get(v, "grammar", "");
  const idKind = get(v, "id_kind", "full_source");
  const validIdSet = new Set(truthy(v.valid_id_set) ? pyList(v.valid_id_set) : []);
  const expectedIds = get(v, "expected_ids", null);
  const minValid = pyInt(get(v, "min_valid_citations", 1), "min_valid_citations");
  const mode = get(v, "mode", "cite");

  const grammar = typeof grammarName === "string" ? GRAMMARS.get(grammarName) : undefined;
  if (!grammar) return { reward: 0.0, details: { gate_failed: "unknown_grammar", grammar: grammarName } };

  const idRegex = rowIdRegex(v);
  const pattern = grammarPattern(grammarName as string, grammar, idRegex);
  const structuralOk = pyStrip(text) !== "" && functionCallCount === 0;

  const details = (gate: string | null, parsed: string[], valid: string[], invalid: string[], attemptHits: boolean, correctness?: { expected: unknown[] | null; missed: string[]; overCap: boolean }): MatchDetails => ({
    gate_failed: gate,
    mode,
    grammar: grammarName,
    id_kind: idKind,
    id_regex: idRegex,
    structural_ok: structuralOk,
    function_call_count: functionCallCount,
    attempt_hits: attemptHits,
    bare_id_hits: attemptHits,
    parsed_ids: parsed,
    cited_ids: valid,
    valid_cited: valid,
    invalid_cited: invalid,
    num_valid_cited: valid.length,
    expected_ids: correctness?.expected ?? null,
    missed_ids: correctness?.missed ?? [],
    over_cap: correctness?.overCap ?? false,
  });

  if (!structuralOk) return { reward: 0.0, details: details("structural", [], [], [], false) };

  const spans = spansOf(pattern, grammar, text);
  const parsed = idsOf(spans);
  const valid = parsed.filter((id) => validIdSet.has(id));
  const invalid = parsed.filter((id) => !validIdSet.has(id));
  const attemptHits = ATTEMPT.test(text);
  const fail = (gate: string) => ({ reward: 0.0, details: details(gate, parsed, valid, invalid, attemptHits) });

  if (mode === "no_cite") {
    const anyMarkup = spans.length > 0 || (grammar.tag !== undefined && count(grammar.tag.open, text) > 0);
    return !attemptHits && !anyMarkup ? { reward: 1.0, details: details(null, parsed, valid, invalid, attemptHits) } : fail("no_cite");
  }

  if (!pySearch("\\w", blank(spans, text, grammar.claimGroup))) return fail("no_answer");

  const tagsBalanced = !grammar.tag || (count(grammar.tag.open, text) === spans.length && spans.length === count(grammar.tag.close, text));
  if (ATTEMPT.test(blank(spans, text)) || !tagsBalanced) return fail("malformed_attempt");

  if (valid.length < minValid) return fail("must_cite");
  if (invalid.length > 0) return fail("no_hallucination");

  let correctness: { expected: unknown[] | null; missed: string[]; overCap: boolean } = { expected: null, missed: [], overCap: false };
  if (expectedIds !== null && expectedIds !== undefined) {
    const slack = pyInt(get(v, "expected_slack", 1), "expected_slack");
    const expected = pyList(expectedIds);
    const expectedSet = new Set(expected);
    const cited = new Set<unknown>(valid);
    const missed = [...expectedSet].filter((id) => !cited.has(id)).map(String).sort(byCodePoint);
    const overCap = valid.length > expectedSet.size + slack;
    correctness = { expected: [...expected], missed, overCap };
    if (missed.length > 0 || overCap) {
      return { reward: 0.0, details: details(missed.length > 0 ? "correctness_missed_gold" : "correctness_over_cap", parsed, valid, invalid, attemptHits, correctness) };
    }
  }
  return { reward: 1.0, details: details(null, parsed, valid, invalid, attemptHits, correctness) };
}
