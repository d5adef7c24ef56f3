// ragtruth: case-level hallucination detection (RAGTruth's QA, Summary and Data2txt slices), verified as
// NeMo Gym's ragtruth server does (resources_servers/ragtruth/app.py at commit 07d6b0d). The prompt gives
// a reference context and a candidate response; the model answers {"hallucination list": [...]}. Reward 1
// when its verdict (a non-empty list) equals the row's `is_halu`. Metrics: mean reward, parse failures,
// and RAGTruth's corpus precision / recall / F1 of the "hallucinated" class, overall and per task type.
import { z } from "zod";
import type { AggregateResult } from "../../metrics/aggregate.js";
import { outputText } from "../../protocol/index.js";
import { pyJsonDumps } from "../../verifiers/mcq/python_json.js";
import { pydanticBool } from "../../verifiers/mcq/pydantic.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { parseResponse } from "./parse.js";

const Config = z.strictObject({
  /** Tag of the reasoning blocks to remove before parsing (`think` for <think>…</think>). */
  think_tag: z.string().default("think"),
  /**
   * Gymkit extension (default off, NeMo Gym's reward): an answer without a parseable JSON verdict earns
   * 0. Off, it counts as "no hallucination" and so is rewarded on every faithful row (`gym env audit`).
   */
  strict: z.boolean().default(false),
});
type Config = z.infer<typeof Config>;

/** Precision, recall and F1 of the positive (hallucinated) class; 0 where undefined. */
function f1(tp: number, fp: number, fn: number) {
  const precision = tp + fp ? tp / (tp + fp) : 0.0;
  const recall = tp + fn ? tp / (tp + fn) : 0.0;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0.0 };
}

const isNumber = (v: unknown): v is number => typeof v === "number";
/** Python truthiness of a JSON value. */
const truthy = (v: unknown) => !(v === undefined || v === null || v === false || v === 0 || v === "" || (Array.isArray(v) && v.length === 0) || (typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0));

function confusion(group: Array<Record<string, unknown>>) {
  const tp = group.filter((r) => truthy(r.pred_halu) && truthy(r.is_halu)).length;
  const fp = group.filter((r) => truthy(r.pred_halu) && !truthy(r.is_halu)).length;
  const fn = group.filter((r) => !truthy(r.pred_halu) && truthy(r.is_halu)).length;
  const rewards = group.map((r) => r.reward).filter(isNumber);
  return { ...f1(tp, fp, fn), accuracy: rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : 0.0, count: group.length };
}

/** Python's string order (code points). */
const byCodePoint = (a: string, b: string) => {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};

export function ragtruthMetrics(rows: Array<Record<string, unknown>>): Record<string, number> {
  const metrics: Record<string, number> = {};
  const rewards = rows.map((r) => r.reward).filter(isNumber);
  if (rewards.length) {
    metrics.mean_reward = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    metrics.count = rewards.length;
  }
  if (rows.length) {
    metrics.parse_fail_rate = rows.map((r) => (r.parse_fail ?? 0) as number).reduce((a, b) => a + b, 0) / rows.length;
    const overall = confusion(rows);
    metrics.precision = overall.precision;
    metrics.recall = overall.recall;
    metrics.f1 = overall.f1;
    const byType = new Map<string, Array<Record<string, unknown>>>();
    for (const r of rows) {
      const type = truthy(r.task_type) ? String(r.task_type) : "unknown";
      byType.set(type, [...(byType.get(type) ?? []), r]);
    }
    for (const type of [...byType.keys()].sort(byCodePoint)) {
      for (const [key, value] of Object.entries(confusion(byType.get(type)!))) metrics[`task_type/${type}/${key}`] = value;
    }
  }
  return metrics;
}

export default defineEnvironment({
  id: "ragtruth",
  description: "RAGTruth case-level hallucination detection: reward 1 when the model's binary \"any hallucination?\" verdict matches the gold label.",
  configSchema: Config,
  rowFields: {
    is_halu: pydanticBool.default(false),
    task_type: z.string().default(""),
  },
  verifyEchoes: "all",
  reverifyMode: "stateless",
  verify: (request, ctx) => {
    const parsed = parseResponse(outputText(request.response), (ctx.config as Config).think_tag);
    const list = parsed?.get("hallucination list");
    const predHalu = list?.k === "list" && list.v.length > 0;
    const isHalu = request.is_halu;
    const extracted = list?.k === "list" ? Array.from(pyJsonDumps(list)).slice(0, 500).join("") : "";
    return {
      reward: (ctx.config as Config).strict && parsed === undefined ? 0.0 : predHalu === isHalu ? 1.0 : 0.0,
      task_type: request.task_type,
      // NeMo Gym types these three as int (0/1).
      is_halu: isHalu ? 1 : 0,
      pred_halu: predHalu ? 1 : 0,
      parse_fail: parsed === undefined ? 1 : 0,
      extracted,
    };
  },
  aggregateMetrics: (rows, ctx): AggregateResult => {
    const base = ctx.defaults(rows);
    const agent_metrics = { ...base.agent_metrics, ...ragtruthMetrics(rows) };
    const key_metrics: Record<string, number> = {};
    for (const k of ["mean_reward", "f1", "precision", "recall"]) if (k in agent_metrics) key_metrics[k] = agent_metrics[k]!;
    for (const [k, v] of Object.entries(agent_metrics)) if (k.endsWith("/f1") || k.endsWith("/accuracy")) key_metrics[k] = v;
    return { ...base, agent_metrics, key_metrics };
  },
});
