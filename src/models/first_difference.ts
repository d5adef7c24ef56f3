// Where two JSON values first differ, as a path like `input[3].arguments` — so a replay miss can
// say what changed instead of only that something did.

export function firstDifference(a: unknown, b: unknown, path = ""): string | undefined {
  if (a === b) return undefined;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length || i >= b.length) return `${path}[${i}]`;
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      const d = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], path ? `${path}.${key}` : key);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return path || "(the whole request)";
}

/** How many leading items two input lists share: the measure of "closest recorded request". */
export function commonPrefix(a: unknown, b: unknown): number {
  if (!Array.isArray(a) || !Array.isArray(b)) return a === b ? 1 : 0;
  let n = 0;
  while (n < a.length && n < b.length && firstDifference(a[n], b[n]) === undefined) n++;
  return n;
}
