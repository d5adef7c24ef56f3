// Which of an agent's key metrics the header shows. NeMo Gym's default key metrics are every `mean/*`
// of the agent's metrics, so identifiers (`mean/id`, `mean/_ng_task_index`) and fields that are the
// same in every row (`mean/max_steps`) show up beside the reward. Those are left out, and named with
// the reason so nothing disappears silently. Scores (reward, pass@k, accuracy, …) are always kept,
// even when constant: an agent that solves everything is news, not noise.

export interface HiddenMetric {
  name: string;
  reason: "identifier" | "constant";
}

/** The last part of a metric's name (`mean/foo.bar_id` → `bar_id`). */
const fieldOf = (name: string) => name.slice(name.lastIndexOf("/") + 1).split(".").pop()!;
const IDENTIFIER = /^(_ng_.*|id|ids|uuid|idx|index|seed|.*_(id|ids|uuid|idx|index))$/i;
const SCORE = /reward|pass@|majority@|accuracy|correct|score|success|judge/i;

/** The field behind a `<stat>/<field>` metric name, or undefined for other names. */
const statField = (name: string) => /^(mean|median|max|min|std)\/(.+)$/.exec(name)?.[2];

/**
 * `entries` are the metrics file's per-agent entries (key_metrics and agent_metrics). A metric is
 * constant when, for every agent whose agent_metrics describe its field, min = max (or std = 0), with
 * one value across agents.
 */
export function splitKeyMetrics(entries: Array<Record<string, unknown> | undefined>): { hidden: Set<string>; reasons: Map<string, HiddenMetric> } {
  const reasons = new Map<string, HiddenMetric>();
  const constantValue = new Map<string, number | null>(); // field → its single value, or null when not constant
  for (const entry of entries) {
    const metrics = entry?.agent_metrics as Record<string, unknown> | undefined;
    if (!metrics || typeof metrics !== "object") continue;
    for (const name of Object.keys(metrics)) {
      const field = statField(name);
      if (!field || !name.startsWith("min/")) continue;
      const min = metrics[`min/${field}`];
      const max = metrics[`max/${field}`];
      const std = metrics[`std/${field}`];
      const constant = typeof min === "number" && (max === min || (max === undefined && std === 0));
      const before = constantValue.get(field);
      if (!constant) constantValue.set(field, null);
      else if (before === undefined) constantValue.set(field, min);
      else if (before !== min) constantValue.set(field, null);
    }
  }
  for (const entry of entries) {
    const keys = entry?.key_metrics as Record<string, unknown> | undefined;
    if (!keys || typeof keys !== "object") continue;
    for (const name of Object.keys(keys)) {
      if (reasons.has(name) || SCORE.test(name)) continue;
      if (IDENTIFIER.test(fieldOf(name))) reasons.set(name, { name, reason: "identifier" });
      else {
        const field = statField(name);
        if (field !== undefined && typeof constantValue.get(field) === "number") reasons.set(name, { name, reason: "constant" });
      }
    }
  }
  return { hidden: new Set(reasons.keys()), reasons };
}

/** An agent's key metrics without the hidden ones, and the hidden ones named. */
export function shownKeyMetrics(keyMetrics: Record<string, unknown> | null | undefined, split: ReturnType<typeof splitKeyMetrics>) {
  if (!keyMetrics) return { key_metrics: null, hidden_key_metrics: [] as HiddenMetric[] };
  const shown: Record<string, unknown> = {};
  const hidden: HiddenMetric[] = [];
  for (const [name, value] of Object.entries(keyMetrics)) {
    const reason = split.reasons.get(name);
    if (reason) hidden.push(reason);
    else shown[name] = value;
  }
  return { key_metrics: shown, hidden_key_metrics: hidden };
}
