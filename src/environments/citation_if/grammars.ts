// The citation grammars citation_if knows, as NeMo Gym's scorer defines them at commit 07d6b0d
// (resources_servers/citation_if/scorer.py): each is a Python `re` pattern with an `{IDS}` hole that a
// row's own `id_regex` fills, so one pool can mix ID schemes. The patterns are kept in Python syntax
// and run through the Python-regex translation (src/verifiers/text/pyregex.ts).
import { pyCompile, translatePattern } from "../../verifiers/text/pyregex.js";

export interface Grammar {
  /** Python pattern; `{IDS}` is replaced by the row's ID sub-pattern. Group 1 holds the ID (or ID list). */
  template: string;
  /** Several IDs, comma-separated without spaces, may share one span. */
  multi: boolean;
  /** Group holding the wrapped claim; a span whose claim is blank is not a citation. */
  claimGroup?: number;
  /** Python DOTALL. */
  dotAll?: boolean;
  /** Tag grammars: opening and closing markers, counted for the balance check. */
  tag?: { open: RegExp; close: RegExp };
  /** Reserved for held-out evaluation; never assigned to training rows. */
  holdout: boolean;
}

// NeMo Gym compiles its tag markers with re.IGNORECASE. Python's case-insensitive `i` also matches
// U+0130 and U+0131, which JavaScript's `i` flag does not, so the case variants are spelled out.
const CITE = "<[cC][iI\u0130\u0131][tT][eE]";
const TAG = { open: pyCompile(`${CITE}\\b`), close: pyCompile(`</${CITE.slice(1)}\\s*>`) };

/**
 * The broad attempt detector (NeMo Gym's ATTEMPT_REGEX `citation_[A-Za-z0-9_:]+` under re.IGNORECASE):
 * any ID-shaped token, whatever the row's own scheme. Python's case folding adds U+0130, U+0131,
 * U+017F and U+212A to the letters; spelled out here for the same reason as CITE.
 */
export const ATTEMPT = /[cC][iI\u0130\u0131][tT][aA][tT][iI\u0130\u0131][oO][nN]_[A-Za-z0-9_:\u0130\u0131\u017f\u212a]+/u;

/** The ID pattern of rows that carry no `id_regex`, by `id_kind`. */
export const DEFAULT_ID_REGEX: Readonly<Record<string, string>> = {
  full_source: "citation_[0-9]+",
  snippet: "citation_[0-9]+:snippet_[0-9]+",
};

/** The example ID shown in instructions; never valid in a row, so echoing it cannot earn reward. */
export const RESERVED_EXAMPLE_ID = "citation_xmpl";

/** What any tool call returns: rollouts end after one step, and calling a tool scores 0. */
export const TERMINAL_TOOL_RESPONSE = "No further tool results are available. Provide your final answer.";

export const GRAMMARS: ReadonlyMap<string, Grammar> = new Map<string, Grammar>([
  ["cite_xml", { template: "<cite>({IDS})</cite>", multi: true, tag: TAG, holdout: false }],
  // Not followed by "(": a markdown link [citation_1](url) is not a citation.
  ["ascii_brackets", { template: "\\[({IDS})\\](?!\\()", multi: false, holdout: false }],
  // A lazy claim plus a blank-claim filter (not a pattern that demands a non-blank claim): the
  // latter would let an empty wrap swallow the next one's ID.
  ["claim_wrap_xml", { template: '<cite index="({IDS})">(.*?)</cite>', multi: true, claimGroup: 2, dotAll: true, tag: TAG, holdout: false }],
  // U+3010 and U+3011 exactly.
  ["fullwidth_brackets", { template: "\u3010({IDS})\u3011", multi: false, holdout: false }],
  ["ref_colon", { template: "\\[ref:({IDS})\\]", multi: false, holdout: false }],
  ["double_angle", { template: "<<({IDS})>>", multi: false, holdout: false }],
  ["web_brackets", { template: "\\[web:({IDS})\\]", multi: false, holdout: false }],
  ["paren_part", { template: "\\(({IDS})\\)", multi: false, holdout: false }],
  ["markdown_footnote", { template: "\\[\\^({IDS})\\]", multi: false, holdout: false }],
  ["curly_double", { template: "\\{\\{({IDS})\\}\\}", multi: false, holdout: true }],
  ["angle_pipe", { template: "<ref\\|({IDS})>", multi: false, holdout: true }],
]);

const compiled = new Map<string, RegExp>();

/** The grammar's span pattern for one ID scheme (global, with match indices). */
export function grammarPattern(name: string, grammar: Grammar, idRegex: string): RegExp {
  const key = `${name}\u0000${idRegex}`;
  let re = compiled.get(key);
  if (!re) {
    const ids = grammar.multi ? `(?:${idRegex})(?:,(?:${idRegex}))*` : `(?:${idRegex})`;
    const { source, flags } = translatePattern(grammar.template.split("{IDS}").join(ids), { dotAll: grammar.dotAll });
    re = new RegExp(source, `${flags}gd`);
    if (compiled.size > 512) compiled.clear();
    compiled.set(key, re);
  }
  return re;
}
