// NeMo Gym's `highest_k_metrics` (nemo_gym/reward_profile.py at commit 07d6b0d): the entries of a
// pattern such as "pass@{k}" or "filtered_pass@1[avg-of-{k}]" at the highest k present, optionally
// only for some score names; the across-run statistics never count. In the agent metrics' key order.
const STAT_SUFFIXES = ["std_dev_across_runs", "std_err_across_runs", "avg_sample_std_dev"];

export function highestKMetrics(agentMetrics: Record<string, unknown>, pattern: string, scoreNames?: readonly string[], excludeNames?: readonly string[]): Record<string, unknown> {
  const escaped = pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace("\\{k\\}", "(\\d+)");
  const regex = new RegExp(`^${escaped}/(.+)$`, "s");
  const matches: Array<[number, string]> = [];
  for (const key of Object.keys(agentMetrics)) {
    const m = regex.exec(key);
    if (!m) continue;
    const score = m[2]!;
    if (STAT_SUFFIXES.some((s) => score.endsWith(s))) continue;
    if (scoreNames && !scoreNames.includes(score)) continue;
    if (excludeNames?.includes(score)) continue;
    matches.push([Number(m[1]), key]);
  }
  if (matches.length === 0) return {};
  const maxK = Math.max(...matches.map(([k]) => k));
  return Object.fromEntries(matches.filter(([k]) => k === maxK).map(([, key]) => [key, agentMetrics[key]]));
}
