// bunsenbench_chemistry_mcq: BunsenBench chemistry multiple-choice questions, verified as NeMo Gym's
// bunsenbench_chemistry_mcq server does (resources_servers/bunsenbench_chemistry_mcq/app.py at commit
// 07d6b0d). The row is an mcqa row (options or `choices`, `expected_answer`); the model answers with
// <choice>option text</choice> or a letter in any of several formats (extract.ts). Reward 1 when the
// chosen letter is the gold one. Each rollout also gets one diagnostic `error_mode`. Metrics: mcqa's,
// the same per source / field / subfield, and the share of each error mode.
import { z } from "zod";
import type { AggregateResult } from "../../metrics/aggregate.js";
import { outputText } from "../../protocol/index.js";
import { pyFinditer, pySub } from "../../verifiers/text/pyregex.js";
import { pyStrip } from "../../verifiers/text/pystr.js";
import { highestKMetrics } from "../../metrics/highest_k.js";
import { mcqaKeyMetrics, mcqaPassMetrics } from "../../verifiers/mcq/metrics.js";
import { MCQA_ROW_FIELDS, McqaConfig } from "../../verifiers/mcq/request.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { agreedBunsenAnswer, allowedLetters, choiceTagPresent, expectedAnswerLetter, extractBunsenAnswer, optionsFromRow } from "./extract.js";

export const ERROR_MODES = ["correct", "wrong_answer", "refusal", "early_termination", "malformed_choice", "format_violation"] as const;

const REFUSAL = [
  String.raw`[iİı]\s*(?:'|’)?\s*m\s+sorry[, ]+(?:but\s+)?[iİı]\s+(?:can(?:'|’)?t|cannot|am\s+unable|won(?:'|’)?t)`,
  String.raw`|[iİı]\s+(?:can(?:'|’)?t|cannot)\s+(?:help|ass[iİı]st|comply|prov[iİı]de|answer|do\s+that|cont[iİı]nue)`,
  String.raw`|[iİı]\s+am\s+(?:not\s+able|unable)\s+to\s+(?:help|ass[iİı]st|comply|prov[iİı]de|answer)`,
  String.raw`|[iİı]\s+won(?:'|’)?t\s+be\s+able\s+to\s+(?:help|ass[iİı]st|prov[iİı]de|answer)`,
  String.raw`|as\s+an\s+a[iİı](?:\s+language)?\s+model[, ]+[iİı]`,
  String.raw`|[iİı]\s+(?:must|have\s+to|w[iİı]ll\s+have\s+to)\s+(?:decl[iİı]ne|refuse)`,
  String.raw`|[iİı]\s+do\s+not\s+feel\s+comfortable`,
].join("");
// Python's IGNORECASE equates "ı" and "İ" with i (above, spelled out); the rest folds alike in both engines.
const REFUSAL_PATTERN = `(?i)(?:${REFUSAL})`;
const THINK_OPEN = String.raw`<\s*th[iİı]nk\b[^>]*>`;
const THINK_CLOSE = String.raw`<\s*/\s*th[iİı]nk\s*>`;

type Json = Record<string, unknown>;

function hasRefusalContent(response: Json): boolean {
  for (const item of (response.output as Json[] | undefined) ?? []) {
    if (!Array.isArray(item.content)) continue;
    if ((item.content as Json[]).some((part) => part?.type === "refusal")) return true;
  }
  return false;
}

function isTruncated(response: Json): boolean {
  if (response.status === "incomplete") return true;
  const details = response.incomplete_details as Json | null | undefined;
  if (details && details.reason === "max_output_tokens") return true;
  return ((response.output as Json[] | undefined) ?? []).some((item) => item?.status === "incomplete");
}

/** One mutually exclusive bucket per rollout: why no valid choice was recovered, when none was. */
export function classifyErrorMode(response: Json, text: string, pred: string | undefined, gold: string): string {
  if (pred !== undefined) return pred === gold ? "correct" : "wrong_answer";
  if (hasRefusalContent(response)) return "refusal";
  const unclosedThink = pyFinditer(THINK_OPEN, text, { ignoreCase: true }).length > pyFinditer(THINK_CLOSE, text, { ignoreCase: true }).length;
  if (isTruncated(response) || unclosedThink) return "early_termination";
  if (pyFinditer(REFUSAL_PATTERN, text).length > 0) return "refusal";
  if (choiceTagPresent(text)) return "malformed_choice";
  return "format_violation";
}

const truthy = (v: unknown) => !(v === undefined || v === null || v === false || v === 0 || v === "" || (Array.isArray(v) && v.length === 0));
const pyStr = (v: unknown) => (typeof v === "string" ? v : typeof v === "boolean" ? (v ? "True" : "False") : String(v));

/** A value as one metric-key segment: spaces to `_`, `/` to `__`, anything else odd to `_`. */
export function metricSegment(value: unknown): string {
  let s = pyStrip(pyStr(value));
  s = pySub(String.raw`\s+`, () => "_", s).replaceAll("/", "__");
  s = s.replace(/[^A-Za-z0-9_.:+-]+/g, "_");
  return pyStrip(s, "_") || "unknown";
}

function tasksOf(rows: Json[]): Json[][] {
  const byTask = new Map<unknown, Json[]>();
  for (const row of rows) {
    const task = row._ng_task_index ?? 0;
    byTask.set(task, [...(byTask.get(task) ?? []), row]);
  }
  return [...byTask.entries()].sort((a, b) => Number(a[0]) - Number(b[0])).map(([, r]) => r);
}

const firstValue = (rollouts: Json[], key: string) => rollouts.map((r) => r[key]).find(truthy);

function groupedMetrics(buckets: Map<string, Json[][]>, prefix: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [value, tasks] of buckets) {
    for (const [key, v] of Object.entries(mcqaPassMetrics(tasks.flat()).metrics)) out[`${prefix}/${value}/${key}`] = v;
  }
  return out;
}

export function bunsenMetrics(rows: Json[]): Record<string, number> {
  const tasks = tasksOf(rows);
  const metrics: Record<string, number> = { ...mcqaPassMetrics(rows).metrics };
  for (const key of ["source", "bct_field"]) {
    const buckets = new Map<string, Json[][]>();
    for (const t of tasks) {
      const value = firstValue(t, key);
      if (truthy(value)) buckets.set(metricSegment(value), [...(buckets.get(metricSegment(value)) ?? []), t]);
    }
    Object.assign(metrics, groupedMetrics(buckets, `by_${key}`));
  }
  const sub = new Map<string, Json[][]>();
  for (const t of tasks) {
    const field = firstValue(t, "bct_field");
    const subfield = firstValue(t, "bct_subfield");
    if (truthy(field) && truthy(subfield)) {
      const k = `${metricSegment(field)}/${metricSegment(subfield)}`;
      sub.set(k, [...(sub.get(k) ?? []), t]);
    }
  }
  Object.assign(metrics, groupedMetrics(sub, "by_bct_subfield"));
  const counts = new Map<string, number>(ERROR_MODES.map((m) => [m, 0]));
  for (const row of rows) {
    const mode = truthy(row.error_mode) ? pyStr(row.error_mode) : truthy(row.reward) ? "correct" : row.extracted_answer !== undefined && row.extracted_answer !== null ? "wrong_answer" : "format_violation";
    counts.set(mode, (counts.get(mode) ?? 0) + 1);
  }
  for (const [mode, count] of counts) {
    metrics[`error_modes/${mode}/count`] = count;
    metrics[`error_modes/${mode}`] = rows.length ? (100.0 * count) / rows.length : 0.0;
  }
  return metrics;
}

const Config = McqaConfig.extend({
  /** Gymkit's own (default false = NeMo Gym's reward): a response whose answers name several options scores 0 (extract.ts agreedBunsenAnswer). */
  strict: z.boolean().default(false),
});
type Config = z.infer<typeof Config>;

export default defineEnvironment({
  id: "bunsenbench_chemistry_mcq",
  description: "BunsenBench chemistry multiple-choice questions: reward 1 when the chosen option (letter or exact option text) is the gold one.",
  configSchema: Config,
  rowFields: {
    ...MCQA_ROW_FIELDS,
    bunsen_id: z.string().nullable().default(null),
    choices: z.array(z.union([z.string(), z.record(z.string(), z.unknown())])).nullable().default(null),
    source: z.string().nullable().default(null),
    bct_field: z.string().nullable().default(null),
    bct_subfield: z.string().nullable().default(null),
  },
  // NeMo Gym's BunsenChemVerifyResponse keeps these row fields (and computes the others below).
  verifyEchoes: ["uuid", "choices", "metadata"],
  // NeMo Gym pins this server to ReverifyMode.UNKNOWN (not reviewed for reverify), though /verify needs no session.
  reverifyMode: "unknown",
  verify: (request, ctx) => {
    const options = optionsFromRow(request.options, request.choices);
    const allowed = allowedLetters(options);
    const gold = expectedAnswerLetter(request.expected_answer ?? "", options);
    if (Array.from(gold).length === 1 && /^\p{L}$/u.test(gold)) allowed.add(gold);
    const rawText = outputText(request.response);
    const text = pyStrip(rawText);
    const pred = text ? ((ctx.config as Config).strict ? agreedBunsenAnswer : extractBunsenAnswer)(text, options, allowed) : undefined;
    const metadataValue = (key: "bunsen_id" | "source" | "bct_field" | "bct_subfield") => request[key] ?? (request.metadata ?? {})[key] ?? null;
    return {
      reward: pred !== undefined && pred === gold ? 1.0 : 0.0,
      expected_answer: gold,
      extracted_answer: pred ?? null,
      no_answer: pred === undefined,
      error_mode: classifyErrorMode(request.response as unknown as Json, rawText, pred, gold),
      bunsen_id: metadataValue("bunsen_id"),
      source: metadataValue("source"),
      bct_field: metadataValue("bct_field"),
      bct_subfield: metadataValue("bct_subfield"),
    };
  },
  aggregateMetrics: (rows, ctx): AggregateResult => {
    const base = ctx.defaults(rows);
    const { per_sample_aggregate, metric_weights } = mcqaPassMetrics(rows);
    const agent_metrics: Record<string, number> = { ...base.agent_metrics, ...bunsenMetrics(rows) };
    const key_metrics: Record<string, number> = { ...mcqaKeyMetrics(agent_metrics), ...(highestKMetrics(agent_metrics, "pass@{k}", ["accuracy"]) as Record<string, number>) };
    for (const k of ["pass@1/accuracy", "pass@1/no_answer"]) if (k in agent_metrics) key_metrics[k] = agent_metrics[k]!;
    for (const mode of ERROR_MODES) if (`error_modes/${mode}` in agent_metrics) key_metrics[`error_modes/${mode}`] = agent_metrics[`error_modes/${mode}`]!;
    return { ...base, agent_metrics, key_metrics, per_sample_aggregate, metric_weights };
  },
});
