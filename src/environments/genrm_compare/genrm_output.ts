// Reading texts the way genrm_compare does at NeMo Gym 07d6b0d (resources_servers/genrm_compare/utils.py):
// a rollout's final answer and reasoning from its Response, and the GenRM's verdict
// `{"score_1": s1, "score_2": s2, "ranking": r}` from the GenRM's reply text.
import { pyFloat, pyStrip, PY_WHITESPACE_CLASS } from "./python_text.js";

/** What stands for an empty answer in the GenRM's request. */
export const EMPTY_OUTPUT_PLACEHOLDER = "None";

/** A pairwise verdict: the two helpfulness scores and the ranking (1 = first much better … 6 = second much better). */
export type Verdict = [score1: number, score2: number, ranking: number];

/**
 * The reasoning (every summary text of `reasoning` items) and the answer (every output_text part of
 * `message` items) of a Response, each concatenated in output order.
 */
export function reasoningAndAnswer(response: unknown): { reasoning: string; answer: string } {
  let reasoning = "";
  let answer = "";
  const output = isObject(response) ? response.output : undefined;
  if (!Array.isArray(output)) return { reasoning, answer };
  for (const item of output) {
    if (!isObject(item)) continue;
    if (item.type === "reasoning" && Array.isArray(item.summary)) {
      for (const part of item.summary) if (isObject(part) && "text" in part) reasoning += textOf(part.text);
    } else if (item.type === "message" && Array.isArray(item.content)) {
      for (const part of item.content) if (isObject(part) && part.type === "output_text") answer += textOf(part.text);
    }
  }
  return { reasoning, answer };
}

/** The answer the GenRM is shown: the output text, or "None" when it is empty or only whitespace. */
export function answerForGenRM(response: unknown): string {
  const { answer } = reasoningAndAnswer(response);
  return pyStrip(answer) === "" ? EMPTY_OUTPUT_PLACEHOLDER : answer;
}

const FENCED_JSON = new RegExp(`\`\`\`json[${PY_WHITESPACE_CLASS}]*([\\s\\S]*?)[${PY_WHITESPACE_CLASS}]*\`\`\``, "gi");

/**
 * The GenRM's verdict in `text`, or undefined when there is none: first the first usable object in
 * a ```json fence (fences in order), else the last usable `{...}` anywhere. An object is usable when
 * it (or its `overall` object) has any of score_1 / score_2 / ranking and all three read as floats
 * (missing ones take the defaults).
 */
export function parseVerdict(text: string, defaultScore: number, defaultRanking: number, strict = false): Verdict | undefined {
  // strict (Gymkit's `strict: true`): the last usable fenced object instead of the first, so a verdict
  // planted in a response the GenRM quotes before its own is not the one read.
  let lastFenced: Verdict | undefined;
  for (const match of text.matchAll(FENCED_JSON)) {
    for (const candidate of topLevelObjects(match[1] ?? "")) {
      const verdict = verdictOf(candidate, defaultScore, defaultRanking);
      if (verdict && !strict) return verdict;
      if (verdict) lastFenced = verdict;
    }
  }
  if (lastFenced) return lastFenced;
  let last: Verdict | undefined;
  for (const candidate of topLevelObjects(text)) {
    const verdict = verdictOf(candidate, defaultScore, defaultRanking);
    if (verdict) last = verdict;
  }
  return last;
}

function verdictOf(json: string, defaultScore: number, defaultRanking: number): Verdict | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!isObject(parsed)) return undefined;
  let fields = parsed;
  if (Object.hasOwn(fields, "overall") && isObject(fields.overall)) fields = fields.overall;
  if (!["score_1", "score_2", "ranking"].some((key) => Object.hasOwn(fields, key))) return undefined;
  const read = (key: string, fallback: number) => (Object.hasOwn(fields, key) ? pyFloat(fields[key]) : fallback);
  const score1 = read("score_1", defaultScore);
  const score2 = read("score_2", defaultScore);
  const ranking = read("ranking", defaultRanking);
  if (score1 === undefined || score2 === undefined || ranking === undefined) return undefined;
  return [score1, score2, ranking];
}

/**
 * The brace-balanced `{...}` spans of `text`, scanning left to right: quotes toggle string mode
 * (backslash escapes inside strings), braces in strings do not count. After a span closes the scan
 * resumes past it; a `{` that never closes is skipped and the scan goes on from the next character.
 */
export function topLevelObjects(text: string): string[] {
  const found: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === "{") {
      let depth = 0;
      let inString = false;
      let escaped = false;
      for (let j = i; j < text.length; j++) {
        const ch = text[j];
        if (escaped) {
          escaped = false;
          continue;
        }
        if (ch === "\\" && inString) {
          escaped = true;
          continue;
        }
        if (ch === '"') {
          inString = !inString;
          continue;
        }
        if (inString) continue;
        if (ch === "{") depth++;
        else if (ch === "}") {
          depth--;
          if (depth === 0) {
            found.push(text.slice(i, j + 1));
            i = j;
            break;
          }
        }
      }
    }
    i++;
  }
  return found;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `+=` of a str in Python: a string; anything else would raise there, and is nothing here. */
function textOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}
