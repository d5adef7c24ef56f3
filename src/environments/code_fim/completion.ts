// How NeMo Gym's code_fim (07d6b0d; NeMo-Skills' FIM preprocessing) turns an answer into the infill:
// carriage returns dropped; anything up to the first "</think>" dropped; the last "```python" (else the
// last "```") opens the code and the next "```" closes it, nothing stripped (indentation matters); then
// one leading newline is dropped and any repeat of the prefix's tail at the head, and of the suffix's
// head at the tail, is removed (`remove_overlap`, which ignores overlaps of spaces without a newline).
// Strings are handled as code points, as Python's are.
import { pyStrip } from "../../verifiers/text/pystr.js";

export function extractFimCode(completion: string, language = "python"): string {
  let text = completion.replaceAll("\r", "");
  const think = text.indexOf("</think>");
  if (think >= 0) text = text.slice(think + "</think>".length);
  const specific = "```" + language;
  let start = text.lastIndexOf(specific);
  let fenceLength = specific.length;
  if (start < 0) {
    start = text.lastIndexOf("```");
    fenceLength = 3;
  }
  if (start < 0) return "";
  const rest = text.slice(start + fenceLength);
  const end = rest.indexOf("```");
  return end < 0 ? "" : rest.slice(0, end);
}

const onlySpacesOnOneLine = (overlap: string) => pyStrip(overlap) === "" && !overlap.includes("\n");

/** Skills' `remove_overlap`: the longest repeated boundary span is cut from the side named. */
export function removeOverlap(preceding: string, following: string, truncateFrom: "preceding" | "following"): string {
  const before = Array.from(preceding);
  const after = Array.from(following);
  for (let i = Math.min(before.length, after.length); i > 0; i--) {
    if (truncateFrom === "following") {
      const overlap = before.slice(-i).join("");
      if (onlySpacesOnOneLine(overlap)) continue;
      if (following.startsWith(overlap)) return after.slice(i).join("");
    } else {
      const overlap = after.slice(0, i).join("");
      if (onlySpacesOnOneLine(overlap)) continue;
      if (preceding.endsWith(overlap)) return before.slice(0, before.length - i).join("");
    }
  }
  return truncateFrom === "following" ? following : preceding;
}

export function postprocessCompletion(raw: string, prefix: string, suffix: string): string {
  let completion = raw.startsWith("\n") ? raw.slice(1) : raw;
  completion = removeOverlap(prefix, completion, "following");
  return removeOverlap(completion, suffix, "preceding");
}
