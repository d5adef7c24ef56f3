// spartqa: SpartQA's CO (choose-object) questions as NeMo Gym's spartqa server verifies them
// (resources_servers/spartqa/app.py at commit 07d6b0d). Four candidate answers — the two story objects
// in `options`, "both of them", "none of them" — and one gold label in `target`. Reward 1 when the
// model's answer resolves to exactly the gold label (extract.ts); naming two candidates resolves to
// nothing. When a driver drops list fields, `verifier_metadata` carries `options` (and `target`).
import { z } from "zod";
import type { AggregateResult } from "../../metrics/aggregate.js";
import { outputText } from "../../protocol/index.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { BOTH_LABEL, candidateLabels, extractAnswer, labelKey, matchLabel, normalize, NONE_LABEL } from "./extract.js";

/** Python `str()` of a JSON value that should be a string. */
const pyStr = (v: unknown): string => (typeof v === "string" ? v : v === null || v === undefined ? "None" : typeof v === "boolean" ? (v ? "True" : "False") : String(v));
const truthy = (v: unknown) => !(v === undefined || v === null || v === false || v === 0 || v === "" || (Array.isArray(v) && v.length === 0));

export function spartqaMetrics(rows: Array<Record<string, unknown>>): Record<string, number> {
  if (rows.length === 0) return {};
  const metrics: Record<string, number> = {};
  const rewards = rows.map((r) => r.reward).filter((v): v is number => typeof v === "number" || typeof v === "boolean").map(Number);
  if (rewards.length) {
    metrics.mean_reward = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    metrics.count = rewards.length;
  }
  const rate = (field: string) => rows.filter((r) => truthy(r[field])).length / rows.length;
  metrics.exact_match_rate = rate("exact");
  metrics.parse_rate = rate("parsed");
  metrics.label_resolve_rate = rate("predicted_label");
  for (const label of [BOTH_LABEL, NONE_LABEL]) {
    const slice = rows.filter((r) => labelKey(pyStr(r.target ?? "")) === labelKey(label));
    if (slice.length) metrics[`accuracy_${label.replaceAll(" ", "_")}`] = slice.filter((r) => r.reward === 1).length / slice.length;
  }
  return metrics;
}

export default defineEnvironment({
  id: "spartqa",
  description: 'SpartQA spatial reasoning, CO (choose-object) questions: reward 1 when the answer resolves to the single gold label among the two story objects, "both of them" and "none of them".',
  configSchema: z.strictObject({
    /** Gymkit's own (default false = NeMo Gym's reward): the answer must equal a label or an alias; no containment ("not both of them" is not "both of them"). */
    strict: z.boolean().default(false),
  }),
  rowFields: {
    target: z.string().default(""),
    options: z.array(z.string()).default([]),
    verifier_metadata: z.record(z.string(), z.unknown()).nullable().default(null),
  },
  verifyEchoes: "all",
  reverifyMode: "stateless",
  verify: (request, ctx) => {
    const prediction = extractAnswer(outputText(request.response));
    const meta = request.verifier_metadata ?? {};
    const gold = request.target || pyStr(meta.target ?? "");
    const metaOptions = meta.options;
    const options = request.options.length > 0 ? request.options : truthy(metaOptions) && Array.isArray(metaOptions) ? metaOptions.map(pyStr) : [];
    const labels = candidateLabels(options.length > 0 ? options : [gold]);
    const predicted = matchLabel(prediction, labels, !ctx.config.strict);
    const goldKey = labelKey(gold);
    const correct = goldKey !== "" && predicted !== undefined && labelKey(predicted) === goldKey;
    return {
      reward: correct ? 1.0 : 0.0,
      // Whether the gold label was copied as instructed rather than found inside a longer answer.
      exact: correct && labelKey(prediction) === goldKey,
      parsed: normalize(prediction) !== "",
      extracted: Array.from(prediction).slice(0, 200).join(""),
      predicted_label: predicted ?? "",
    };
  },
  aggregateMetrics: (rows, ctx): AggregateResult => {
    const base = ctx.defaults(rows);
    const agent_metrics = { ...base.agent_metrics, ...spartqaMetrics(rows) };
    const key_metrics = Object.fromEntries(["mean_reward", "exact_match_rate"].filter((k) => k in agent_metrics).map((k) => [k, agent_metrics[k]!]));
    return { ...base, agent_metrics, key_metrics };
  },
});
