// The model's verdict in a RAGTruth rollout, read as NeMo Gym's ragtruth server reads it
// (resources_servers/ragtruth/app.py at commit 07d6b0d): reasoning blocks of the configured tag are
// removed (paired, then a stray closing tag with everything before it, then a stray opening tag), a
// Markdown code fence around the JSON is taken off, and what is left must parse (Python's json.loads)
// as an object; a non-empty list under "hallucination list" is a "hallucinated" verdict.
import type { PyValue } from "../../verifiers/code/python_values.js";
import { pyJsonLoads } from "../../verifiers/mcq/python_json.js";
import { pyMatch, pySearch, pySub } from "../../verifiers/text/pyregex.js";
import { pyStrip } from "../../verifiers/text/pystr.js";

/** Python's `re.escape`. */
function reEscape(s: string): string {
  return Array.from(s, (ch) => ("()[]{}?*+-|^$\\.&~# \t\n\r\v\f".includes(ch) ? `\\${ch}` : ch)).join("");
}

export function stripThink(text: string, tag = "think"): string {
  if (!text) return "";
  const t = reEscape(tag);
  let cleaned = pySub(`<${t}>.*?</${t}>`, () => "", text, { dotAll: true, ignoreCase: true });
  // Python's `re.sub(r".*</tag>\s*", "", text, flags=DOTALL|IGNORECASE)`, without its quadratic scan
  // (a 1 MB answer with no closing tag took minutes, found by `gym env audit`): everything up to the
  // last closing tag and the whitespace after it goes; no tag, no change.
  let end = -1;
  for (const m of cleaned.matchAll(new RegExp(`</${tag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}>`, "giu"))) end = m.index + m[0].length;
  if (end >= 0) cleaned = pySub(`^\\s*`, () => "", cleaned.slice(end));
  cleaned = pySub(`<${t}>\\s*`, () => "", cleaned, { ignoreCase: true });
  return pyStrip(cleaned);
}

export function stripJsonFence(text: string): string {
  if (!text || !text.includes("```")) return text;
  const s = pyStrip(text);
  const whole = pyMatch(String.raw`^\`\`\`(?:json)?\s*\r?\n?(.*)\r?\n?\`\`\`\s*$`, s, { dotAll: true, ignoreCase: true });
  if (whole) return pyStrip(whole[1]!);
  const inner = pySearch(String.raw`\`\`\`(?:json)?\s*\r?\n?(.*?)\`\`\``, s, { dotAll: true, ignoreCase: true });
  if (inner) {
    const candidate = pyStrip(inner[1]!);
    if (candidate) return candidate;
  }
  return s;
}

/** The JSON object of the response, or undefined when there is none (a parse failure). */
export function parseResponse(raw: string, thinkTag = "think"): Map<string, PyValue> | undefined {
  const cleaned = stripJsonFence(stripThink(raw, thinkTag));
  if (!cleaned) return undefined;
  const parsed = pyJsonLoads(cleaned);
  return parsed?.k === "dict" ? parsed.v : undefined;
}
