// Reading inverse_if's judge reply, as NeMo Gym's `_extract_verdict` does (07d6b0d,
// resources_servers/inverse_if/app.py). The judge is asked for `{"result": "PASS"|"FAIL",
// "explanation": ...}`; the verdict is read, in this order, from:
//   1. the first fenced block holding an object (its `result`, upper-cased and stripped);
//   2. the first `{...}` without nested braces whose "result" is "PASS"/"FAIL" (any case);
//   3. the last five lines, from the last: the first holding "PASS" (else "FAIL") in upper case.
// A step whose object does not parse, or whose result is not PASS/FAIL, falls through to the next;
// nothing at all is FAIL. The explanation comes with a JSON verdict only ("" otherwise).
import { pySearch } from "../../verifiers/text/pyregex.js";
import { pyStrip } from "../../verifiers/text/pystr.js";

export type Verdict = "PASS" | "FAIL";

export interface ParsedVerdict {
  verdict: Verdict;
  /** NeMo Gym passes whatever the object held; its RubricEvaluation then requires a string. */
  explanation: unknown;
}

const FENCED = "```(?:json)?\\s*(\\{.*?\\})\\s*```";
const RESULT_OBJECT = '\\{[^{}]*"result"\\s*:\\s*"(PASS|FAIL)"[^{}]*\\}';

/**
 * Python's `json.loads` of an object's text: also reads the bare NaN / Infinity / -Infinity Python
 * accepts (as null here: no verdict can come from them, and a non-string explanation is refused
 * downstream either way). Undefined when it does not parse.
 */
export function pyJsonObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const patched = replaceBareConstants(text);
    if (patched === text) return undefined;
    try {
      value = JSON.parse(patched);
    } catch {
      return undefined;
    }
  }
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** NaN, Infinity and -Infinity outside strings, replaced by null. */
function replaceBareConstants(text: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === "\\") out += text[++i] ?? "";
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      continue;
    }
    const constant = ["-Infinity", "Infinity", "NaN"].find((c) => text.startsWith(c, i));
    if (constant) {
      out += "null";
      i += constant.length - 1;
      continue;
    }
    out += ch;
  }
  return out;
}

function verdictOf(object: Record<string, unknown> | undefined): ParsedVerdict | undefined {
  if (!object) return undefined;
  // `parsed.get("result", "").upper().strip()`: anything but a string is an AttributeError, caught.
  const raw = "result" in object ? object.result : "";
  if (typeof raw !== "string") return undefined;
  const result = pyStrip(raw.toUpperCase());
  if (result !== "PASS" && result !== "FAIL") return undefined;
  return { verdict: result, explanation: "explanation" in object ? object.explanation : "" };
}

/**
 * Gymkit's strict reading: of every fenced object and every `{..."result": ...}` object in the reply,
 * the one that ends last and holds a PASS/FAIL result decides (the judge's verdict comes after any
 * answer it quotes); none → the last-five-lines rule as above.
 */
function lastVerdict(judgeText: string): ParsedVerdict | undefined {
  const found: Array<{ end: number; verdict: ParsedVerdict }> = [];
  for (const m of judgeText.matchAll(new RegExp(FENCED, "gs"))) {
    const verdict = verdictOf(pyJsonObject(m[1]!));
    if (verdict) found.push({ end: m.index + m[0].length, verdict });
  }
  for (const m of judgeText.matchAll(new RegExp(RESULT_OBJECT, "gi"))) {
    const verdict = verdictOf(pyJsonObject(m[0]));
    if (verdict) found.push({ end: m.index + m[0].length, verdict });
  }
  return found.sort((a, b) => a.end - b.end).pop()?.verdict;
}

export function extractVerdict(judgeText: string, strict = false): ParsedVerdict {
  const last = strict ? lastVerdict(judgeText) : undefined;
  if (last) return last;
  const fenced = strict ? null : pySearch(FENCED, judgeText, { dotAll: true });
  const first = fenced ? verdictOf(pyJsonObject(fenced[1]!)) : undefined;
  if (first) return first;
  const inline = strict ? null : pySearch(RESULT_OBJECT, judgeText, { ignoreCase: true });
  const second = inline ? verdictOf(pyJsonObject(inline[0])) : undefined;
  if (second) return second;
  const lines = pyStrip(judgeText).split("\n");
  for (const line of lines.slice(-5).reverse()) {
    const upper = pyStrip(line).toUpperCase();
    if (upper.includes("PASS")) return { verdict: "PASS", explanation: "" };
    if (upper.includes("FAIL")) return { verdict: "FAIL", explanation: "" };
  }
  return { verdict: "FAIL", explanation: "" };
}
