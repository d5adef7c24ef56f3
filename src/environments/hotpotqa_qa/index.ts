// hotpotqa_qa: short-answer question answering (HotpotQA, closed- or open-book), verified as NeMo Gym's
// hotpotqa_qa server does (resources_servers/hotpotqa_qa/app.py at commit 07d6b0d). The model ends with
// a JSON object {"answer": …}; its answer is scored four ways against `expected_answer` (scoring.ts):
// SQuAD exact match, token F1, and lenient and strict alternative-aware substring matches. The reward
// is the strict match; the config's `strict: true` (Gymkit's own, README) asks for more. Metrics: pass@k /
// majority@k for the four scores, and the same over the tasks whose ground truth is reliable for
// substring matching (`filtered_*`), as NeMo-Skills reports them.
import { z } from "zod";
import type { AggregateResult } from "../../metrics/aggregate.js";
import { passAtKMetrics } from "../../metrics/pass_at_k.js";
import { outputText } from "../../protocol/index.js";
import { highestKMetrics } from "../../metrics/highest_k.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { parseFinalAnswer, parseGeneration } from "./parse.js";
import { answerExactMatch, answerF1Score, isCorrect, isCorrectStrict, isExactAlternative, normalizeGt } from "./scoring.js";

const Config = z.strictObject({
  /** Also report `filtered_*` metrics over the tasks whose ground truth is not flagged unreliable. */
  report_filtered_metrics: z.boolean().default(true),
  /**
   * Gymkit's own (default false = NeMo Gym's reward): the reward reads the last JSON answer by position
   * (not a fenced block before it) and requires it to equal an accepted form of the gold, not contain one.
   */
  strict: z.boolean().default(false),
});
type Config = z.infer<typeof Config>;

const SCORES = ["answer_em", "answer_f1", "is_correct", "is_correct_strict"] as const;

function passMetrics(rows: Array<Record<string, unknown>>) {
  return passAtKMetrics(rows, {
    scores: (row) => Object.fromEntries(SCORES.filter((k) => k in row).map((k) => [k, Number(row[k])])),
    answerKey: "extracted_answer",
  });
}

/** The first rollout of each task (by task index, in order of first appearance). */
function firstRolloutPerTask(rows: Array<Record<string, unknown>>): Map<unknown, Record<string, unknown>> {
  const first = new Map<unknown, Record<string, unknown>>();
  for (const row of rows) {
    const task = row._ng_task_index ?? 0;
    if (!first.has(task)) first.set(task, row);
  }
  return first;
}

export default defineEnvironment({
  id: "hotpotqa_qa",
  description: "Short-answer QA (HotpotQA): reward 1 when an accepted form of the gold answer is in the model's JSON answer (strict substring match).",
  configSchema: Config,
  rowFields: { expected_answer: z.string() },
  verifyEchoes: "all",
  reverifyMode: "stateless",
  verify: (request, ctx) => {
    const generation = outputText(request.response);
    const predicted = parseGeneration(generation);
    const gold = request.expected_answer;
    const gt = normalizeGt(gold);
    const strict = isCorrectStrict(gt.alternatives, predicted) ? 1.0 : 0.0;
    const reward = ctx.config.strict ? (isExactAlternative(gt.alternatives, parseFinalAnswer(generation)) ? 1.0 : 0.0) : strict;
    return {
      reward,
      expected_answer: gold,
      extracted_answer: predicted || null,
      answer_em: answerExactMatch(predicted, gold),
      answer_f1: answerF1Score(predicted, gold)[0],
      is_correct: isCorrect(gt.alternatives, predicted) ? 1.0 : 0.0,
      is_correct_strict: strict,
      gt_should_remove: gt.should_remove,
      gt_remove_reason: gt.remove_reason,
    };
  },
  aggregateMetrics: (rows, ctx): AggregateResult => {
    const base = ctx.defaults(rows);
    const { metrics, per_sample_aggregate, metric_weights } = passMetrics(rows);
    const agent_metrics: Record<string, number> = { ...base.agent_metrics, ...metrics };
    if ((ctx.config as Config).report_filtered_metrics) {
      // A task is kept when its first rollout's ground truth is not flagged.
      const tasks = firstRolloutPerTask(rows);
      const kept = new Set([...tasks].filter(([, first]) => !first.gt_should_remove).map(([task]) => task));
      if (kept.size > 0) {
        const filtered = passMetrics(rows.filter((row) => kept.has(row._ng_task_index ?? 0)));
        for (const [key, value] of Object.entries(filtered.metrics)) agent_metrics[`filtered_${key}`] = value;
      }
      agent_metrics.filtered_num_tasks = kept.size;
      agent_metrics.unfiltered_num_tasks = tasks.size;
    }
    const key_metrics: Record<string, number> = {};
    for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agent_metrics) key_metrics[name] = agent_metrics[name]!;
    for (const prefix of ["", "filtered_"]) {
      for (const pattern of [`${prefix}pass@1[avg-of-{k}]`, `${prefix}pass@{k}`, `${prefix}majority@{k}`]) {
        Object.assign(key_metrics, highestKMetrics(agent_metrics, pattern, SCORES));
      }
    }
    return { ...base, agent_metrics, key_metrics, per_sample_aggregate, metric_weights };
  },
});
