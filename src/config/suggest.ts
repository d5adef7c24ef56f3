// "Did you mean ...?" for config keys, server types and implementation ids. A suggestion is only
// offered when it is close enough to be a plausible typo; a far-fetched one misleads more than none.
import { distance } from "fastest-levenshtein";
import { formatPath, getAt, isMapping, type ConfigPath } from "./tree.js";

/** The candidate nearest to `name`, or undefined when none is a plausible typo of it. */
export function nearest(name: string, candidates: Iterable<string>): string | undefined {
  const wanted = name.toLowerCase();
  // Roughly one edit per three characters, at least two: `max_step` → `max_steps`, `resource_server`
  // → `resources_servers`, but `foo` never becomes `temperature`.
  const budget = Math.max(2, Math.ceil(wanted.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const d = distance(wanted, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= budget ? best : undefined;
}

/** ` Did you mean `x`?` (with a leading space) or an empty string, ready to append to a sentence. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const hit = nearest(name, candidates);
  return hit === undefined ? "" : ` Did you mean \`${hit}\`?`;
}

/** A short human list of names: `a`, `b`, `c` — or "none" — capped so a long list stays one line. */
export function listNames(names: readonly string[], max = 20): string {
  if (names.length === 0) return "none";
  const shown = names.slice(0, max).map((n) => `\`${n}\``);
  const rest = names.length - shown.length;
  return rest > 0 ? `${shown.join(", ")} and ${rest} more` : shown.join(", ");
}

/** "Did you mean" for a missing path: candidates are the keys beside the first missing step. */
export function suggestPath(config: unknown, path: ConfigPath): string {
  for (let depth = 0; depth < path.length; depth++) {
    const parentPath = path.slice(0, depth);
    const parent = getAt(config, parentPath).value;
    const segment = path[depth] ?? "";
    if (!isMapping(parent)) return "";
    if (!Object.hasOwn(parent, segment)) {
      // Compare the one wrong step, not the whole path, so a long prefix does not loosen the match.
      const hit = nearest(segment, Object.keys(parent));
      return hit === undefined ? "" : ` Did you mean \`${formatPath([...parentPath, hit])}\`?`;
    }
  }
  return "";
}
