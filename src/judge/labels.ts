// Verdict parsing for judge replies: which label comes first, a regex capture, a numeric score, a
// JSON verdict. Each returns undefined when the text holds no verdict, so the environment decides
// whether that is a wrong answer (NeMo Gym's usual rule) or a failure.

/** The label of `labels` that occurs earliest in `text` (ties: the longer label). */
export function firstLabel<L extends string>(text: string | undefined, labels: readonly L[]): L | undefined {
  if (text === undefined) return undefined;
  let best: { label: L; at: number } | undefined;
  for (const label of labels) {
    const at = text.indexOf(label);
    if (at < 0) continue;
    if (!best || at < best.at || (at === best.at && label.length > best.label.length)) best = { label, at };
  }
  return best?.label;
}

/**
 * Whether the text gives `positive`, the first occurrence winning: `positive` only if it occurs and
 * `negative` does not occur before it (math_with_judge, equivalence_llm_judge). No text → false.
 */
export function firstLabelIs(text: string | undefined, positive: string, negative: string): boolean {
  if (text === undefined) return false;
  const yes = text.indexOf(positive);
  if (yes < 0) return false;
  const no = text.indexOf(negative);
  return no < 0 || yes < no;
}

/** The given capture group (default 1, else the whole match) of the first (or last) match. */
export function regexLabel(text: string | undefined, pattern: RegExp, options: { group?: number; last?: boolean } = {}): string | undefined {
  if (text === undefined) return undefined;
  const flags = pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`;
  const matches = [...text.matchAll(new RegExp(pattern.source, flags))];
  const match = options.last ? matches[matches.length - 1] : matches[0];
  if (!match) return undefined;
  const group = options.group ?? (match.length > 1 ? 1 : 0);
  return match[group];
}

/** A number read by `pattern`'s first group (default: the last number in the text). */
export function numericScore(text: string | undefined, pattern?: RegExp): number | undefined {
  const raw = pattern ? regexLabel(text, pattern) : regexLabel(text, /-?\d+(?:\.\d+)?/, { group: 0, last: true });
  if (raw === undefined) return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * The last JSON object in the text: a ```json fenced block if there is one, else the last balanced
 * `{...}` that parses. Undefined when none parses.
 */
export function jsonVerdict(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  const fenced = [...text.matchAll(/```(?:json)?\s*\n?([\s\S]*?)```/g)].map((m) => m[1]!.trim());
  for (const candidate of fenced.reverse()) {
    const parsed = parseObject(candidate);
    if (parsed) return parsed;
  }
  // Scan closing braces from the end; for each, find the opening brace that balances it.
  for (let end = text.lastIndexOf("}"); end >= 0; end = text.lastIndexOf("}", end - 1)) {
    let depth = 0;
    for (let start = end; start >= 0; start--) {
      const ch = text[start];
      if (ch === "}") depth++;
      else if (ch === "{" && --depth === 0) {
        const parsed = parseObject(text.slice(start, end + 1));
        if (parsed) return parsed;
        break;
      }
    }
  }
  return undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
