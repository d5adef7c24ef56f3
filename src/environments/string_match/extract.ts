// Where string_match finds the model's answer in its reply, per the row's `extraction_mode`.
// Behaviour matched to NeMo Gym's resources_servers/string_match/app.py at commit 07d6b0d.
import { pyFindall, pyReSplit, translatePattern } from "../../verifiers/text/pyregex.js";
import { pySplitLines } from "../../verifiers/text/pyfloat.js";
import { pyRstrip, pyStrip } from "../../verifiers/text/pystr.js";

export const EXTRACTION_MODES = ["boxed", "final_answer", "last_line", "full_response"] as const;
export type ExtractionMode = (typeof EXTRACTION_MODES)[number];

/** The assistant messages' text parts, one per line, the whole stripped. */
export function assistantText(response: { output: readonly unknown[] }): string {
  const texts: string[] = [];
  for (const item of response.output as Array<Record<string, unknown>>) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    const content = item.content;
    if (typeof content === "string") texts.push(content);
    else if (Array.isArray(content)) {
      for (const part of content as Array<Record<string, unknown>>) if (typeof part?.text === "string") texts.push(part.text);
    }
  }
  return pyStrip(texts.join("\n"));
}

const TEXT_WRAP = (() => {
  const t = translatePattern("\\\\text\\{\\s*(.*?)\\s*\\}", { dotAll: true });
  return new RegExp(`^(?:${t.source})$`, t.flags.replace("g", ""));
})();

/** Peels `\text{ … }` wrappers that span the whole value, innermost last. */
function unwrapText(value: string): string {
  for (;;) {
    const m = TEXT_WRAP.exec(value);
    if (!m) return value;
    value = m[1]!;
  }
}

/** The last `\boxed{…}` whose braces balance, stripped and unwrapped; undefined if none closes. */
export function extractBoxed(text: string): string | undefined {
  const starts: number[] = [];
  for (let i = text.indexOf("\\boxed{"); i !== -1; i = text.indexOf("\\boxed{", i + 1)) starts.push(i + "\\boxed{".length);
  for (const inner of starts.reverse()) {
    let depth = 1;
    for (let i = inner; i < text.length; i++) {
      const ch = text[i];
      if (ch === "{") depth++;
      else if (ch === "}") depth--;
      if (depth === 0) return pyStrip(unwrapText(pyStrip(text.slice(inner, i))));
    }
  }
  return undefined;
}

const FINAL_ANSWER = "(?i)(?:final\\s+answer|answer)\\s*[:：]\\s*(.+)";

/** What follows the last "Final answer:" / "Answer:" on its line, without a closing period. */
export function extractFinalAnswer(text: string): string | undefined {
  const found = pyFindall(FINAL_ANSWER, text);
  if (found.length === 0) return undefined;
  const raw = pyStrip(found[found.length - 1] as string);
  return pyRstrip(pyStrip(pyReSplit("\\.\\s*$", raw)[0] ?? ""), ".");
}

export function extractLastLine(text: string): string | undefined {
  const lines = pySplitLines(text);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = pyStrip(lines[i]!);
    if (line !== "") return line;
  }
  return undefined;
}

export function extractAnswer(text: string, mode: ExtractionMode): string | undefined {
  switch (mode) {
    case "boxed":
      return extractBoxed(text);
    case "final_answer":
      return extractFinalAnswer(text) ?? extractBoxed(text);
    case "last_line":
      return extractLastLine(text);
    case "full_response":
      return pyStrip(text) !== "" ? pyStrip(text) : undefined;
  }
}
