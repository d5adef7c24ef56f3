// The predicted answer of a HotpotQA generation, as NeMo Gym's hotpotqa_qa `parse_generation` finds it
// (resources_servers/hotpotqa_qa/scoring.py at commit 07d6b0d): the last fenced ```json block, else the
// last balanced `{…}`, that Python's `json.loads` reads as an object with an "answer" key; its answer
// as Python's `str()` writes it. Without one, the whole (stripped) generation is the answer.
import { pyRepr, type PyValue } from "../../verifiers/code/python_values.js";
import { pyJsonLoads } from "../../verifiers/mcq/python_json.js";
import { pyFinditer } from "../../verifiers/text/pyregex.js";
import { pyStrip } from "../../verifiers/text/pystr.js";

/** Python `str(value)` of a JSON-made value. */
function pyStr(value: PyValue): string {
  return value.k === "str" ? value.v : pyRepr(value);
}

/**
 * The answer of one candidate, or undefined when it is not an object with "answer". NeMo Gym also
 * reads `supporting_facts`, converting each fact's index with `int()`: an infinite index raises
 * OverflowError there, which nothing catches (the request fails), and so it does here.
 */
export function tryParseAnswerJson(text: string): string | undefined {
  const parsed = pyJsonLoads(text);
  if (!parsed || parsed.k !== "dict" || !parsed.v.has("answer")) return undefined;
  const facts = parsed.v.get("supporting_facts");
  if (facts?.k === "list") {
    for (const item of facts.v) {
      if (item.k === "list" && item.v.length === 2 && item.v[1]!.k === "float" && !Number.isFinite(item.v[1]!.v) && !Number.isNaN(item.v[1]!.v)) {
        throw new RangeError("cannot convert float infinity to integer");
      }
    }
  }
  return pyStr(parsed.v.get("answer")!);
}

/** Every top-level balanced `{…}` in order; scanning stops at the first that never closes. */
export function jsonCandidates(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== "{") {
      i++;
      continue;
    }
    let depth = 0;
    let closed = -1;
    for (let j = i; j < text.length; j++) {
      if (text[j] === "{") depth++;
      else if (text[j] === "}") depth--;
      if (depth === 0) {
        closed = j;
        break;
      }
    }
    if (closed < 0) break;
    out.push(text.slice(i, closed + 1));
    i = closed + 1;
  }
  return out;
}

/**
 * Gymkit's own (the environment's `strict`): the answer of the last JSON object with an "answer" key by
 * position in the text, fenced or not, so an earlier block (a code fence, an HTML comment) cannot stand
 * in for the final answer; without one, the whole stripped generation.
 */
export function parseFinalAnswer(generation: string): string {
  if (!generation) return "";
  const text = pyStrip(generation);
  for (const candidate of jsonCandidates(text).reverse()) {
    const answer = tryParseAnswerJson(candidate);
    if (answer !== undefined) return answer;
  }
  return text;
}

export function parseGeneration(generation: string): string {
  if (!generation) return "";
  const text = pyStrip(generation);
  const fenced = pyFinditer(String.raw`\`\`\`(?:json)?\s*(\{.*?\})\s*\`\`\``, text, { dotAll: true });
  for (const m of fenced.reverse()) {
    const answer = tryParseAnswerJson(m[1]!);
    if (answer !== undefined) return answer;
  }
  for (const candidate of jsonCandidates(text).reverse()) {
    const answer = tryParseAnswerJson(candidate);
    if (answer !== undefined) return answer;
  }
  return text;
}
