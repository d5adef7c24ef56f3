// ruler2: RULER v2's twelve long-context tasks (multi-key / multi-value needles, QA with
// distractors), as NeMo Gym's ruler2 server at NVIDIA-NeMo/Gym 07d6b0d scores them. Rows with
// `eval_type: multichoice` are graded by the extracted option letter (1 or 0); every other row by
// the soft string match of its `match_type` (`all`, `part`, `2steps`; soft_match.ts), a reward in
// [0, 1]. Metrics: pass@k of the reward overall and per `task`, plus the suite mean when all twelve
// tasks are present. `/verify` is stateless.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import type { AggregateResult } from "../../metrics/aggregate.js";
import { rewardPassAggregate } from "../../metrics/subsets.js";
import { outputText } from "../../protocol/index.js";
import { pyStrip } from "../../verifiers/text/pystr.js";
import { extractMcqLetter } from "./mcq.js";
import { defaultParse, MATCH_TYPES } from "./soft_match.js";

export const RULER2_SUBTASKS = [
  "mk_niah_basic",
  "mk_niah_easy",
  "mk_niah_medium",
  "mk_niah_hard",
  "mv_niah_basic",
  "mv_niah_easy",
  "mv_niah_medium",
  "mv_niah_hard",
  "qa_basic",
  "qa_easy",
  "qa_medium",
  "qa_hard",
] as const;

/** Python's str() of a JSON value (strings as they are; the few other shapes a reference list may hold). */
function pyStr(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return String(value);
  return JSON.stringify(value);
}

/** NeMo Gym's ruler2 metrics: per-task pass@k, and each per-task metric's mean over the 12 tasks when all are present. */
export function ruler2Metrics(rows: Array<Record<string, unknown>>, defaults: AggregateResult): AggregateResult {
  const { result, subsetMetrics } = rewardPassAggregate(rows, defaults, { key: "task" });
  const bySuffix = new Map<string, Map<string, number>>();
  for (const [key, value] of Object.entries(subsetMetrics)) {
    const slash = key.indexOf("/");
    if (slash < 0) continue;
    const rest = key.slice(slash + 1);
    let byTask = bySuffix.get(rest);
    if (!byTask) bySuffix.set(rest, (byTask = new Map()));
    byTask.set(key.slice(0, slash), value);
  }
  for (const [rest, byTask] of bySuffix) {
    if (RULER2_SUBTASKS.every((t) => byTask.has(t))) {
      const value = RULER2_SUBTASKS.reduce((sum, t) => sum + byTask.get(t)!, 0) / RULER2_SUBTASKS.length;
      result.agent_metrics[`ruler2_suite_avg/${rest}`] = value;
    }
  }
  for (const [key, value] of Object.entries(result.agent_metrics)) if (key.startsWith("ruler2_suite_avg/")) result.key_metrics[key] = value;
  return result;
}

export default defineEnvironment({
  id: "ruler2",
  description: "RULER v2 long-context tasks: max(substring, 1 - WER) soft match by match_type, or a multiple-choice letter.",
  rowFields: {
    expected_answer: z.unknown().refine((value) => value !== undefined, "Field required"),
    eval_type: z.string().default("ruler2"),
    match_type: z.string().default("all"),
    task: z.string().nullable().default(null),
    length: z.number().int().nullable().default(null),
  },
  verifyEchoes: ["eval_type", "match_type", "task", "length"],
  reverifyMode: "stateless",
  verify: (request) => {
    const prediction = outputText(request.response);
    const predicted_answer = defaultParse(prediction);
    const expected = request.expected_answer;
    if (request.eval_type === "multichoice") {
      const extracted = extractMcqLetter(prediction);
      const gold = expected === null || expected === undefined ? "" : pyStrip(pyStr(expected)).toUpperCase();
      return { reward: extracted !== null && extracted === gold ? 1.0 : 0.0, predicted_answer, extracted_answer: extracted };
    }
    const match = Object.hasOwn(MATCH_TYPES, request.match_type) ? MATCH_TYPES[request.match_type] : undefined;
    if (!match) throw new Error(`Unsupported match_type=${JSON.stringify(request.match_type)}; expected one of ["2steps", "all", "part"]`);
    const refs = (Array.isArray(expected) ? expected : [expected]).map(pyStr);
    return { reward: match(prediction, refs), predicted_answer, extracted_answer: null };
  },
  aggregateMetrics: (rows, ctx) => ruler2Metrics(rows, ctx.defaults(rows)),
});
