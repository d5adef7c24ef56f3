// code_gen: competitive-programming problems graded like LiveCodeBench (NeMo Gym's code_gen). The
// code is the last fenced block of the answer; it runs in the sandbox against the row's unit tests
// (stdin/stdout, or call-based with `fn_name`), stopping at the first failure; reward 1 only if all
// pass. Unlike NeMo Gym, which runs the tests inside the candidate's own process, the verdict is
// computed here from what the sandboxed program printed, so the program cannot forge it.
import { z } from "zod";
import type { AggregateResult } from "../../metrics/aggregate.js";
import { highestK, passAtKMetrics, sampleStd } from "../../metrics/pass_at_k.js";
import { outputText } from "../../protocol/responses.js";
import { sharedSandbox } from "../../sandbox/shared.js";
import { extractCode } from "../../verifiers/code/extract.js";
import { runUnitTests } from "../../verifiers/code/run_tests.js";
import { defineEnvironment } from "../../environment_kit/define.js";

const Config = z.strictObject({
  /** Most test runs of this environment at once (the sandbox itself never exceeds the core count). */
  num_processes: z.number().int().positive().default(8),
  unit_test_timeout_secs: z.number().positive().default(10),
  debug: z.boolean().default(false),
  /** Reward for an answer that breaks the reasoning format (stray <think> tags). */
  reasoning_format_penalty: z.number().default(0.0),
  /** `batched`: one sandbox per problem, a fresh fork per test; `per_test`: one sandbox per test. */
  test_mode: z.enum(["batched", "per_test"]).default("batched"),
  memory_limit_mb: z.number().int().positive().default(1024),
});
type Config = z.infer<typeof Config>;

const UnitTestsSchema = z.looseObject({
  inputs: z.array(z.string()),
  outputs: z.array(z.string()),
  fn_name: z.string().nullish(),
});

/** A counting semaphore per environment instance, for `num_processes`. */
function limiter(max: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/**
 * NeMo Gym's reasoning-format check: a think tag in the answer text, or either tag more than once
 * in the reasoning summaries.
 */
export function reasoningFormatViolation(text: string, output: ReadonlyArray<Record<string, unknown>>): boolean {
  if (text.includes("<think>") || text.includes("</think>")) return true;
  let reasoning = "";
  for (const item of output) {
    if (item.type !== "reasoning" || !Array.isArray(item.summary)) continue;
    for (const part of item.summary as Array<Record<string, unknown>>) if (typeof part.text === "string") reasoning += part.text;
  }
  const count = (tag: string) => reasoning.split(tag).length - 1;
  return count("<think>") > 1 || count("</think>") > 1;
}

/**
 * `pass@1[avg-of-k]/accuracy/avg_sample_std_dev` (k >= 2): per task, the sample std (ddof 1) of its
 * first k accuracies, as a percentage, averaged over the tasks that have k rollouts.
 */
function avgSampleStdDev(rows: Array<Record<string, unknown>>): { metrics: Record<string, number>; weights: Record<string, number> } {
  const byTask = new Map<unknown, Array<Record<string, unknown>>>();
  rows.forEach((row, i) => {
    const task = typeof row._ng_task_index === "number" ? row._ng_task_index : `row${i}`;
    byTask.set(task, [...(byTask.get(task) ?? []), row]);
  });
  const rollout = (r: Record<string, unknown>) => (typeof r._ng_rollout_index === "number" ? r._ng_rollout_index : 0);
  const tasks = [...byTask.values()].map((list) => list.sort((a, b) => rollout(a) - rollout(b)).map(accuracyOf).filter((x): x is number => x !== null));
  const metrics: Record<string, number> = {};
  const weights: Record<string, number> = {};
  const maxK = Math.max(0, ...tasks.map((t) => t.length));
  for (let k = 2; k <= maxK; k++) {
    const stds = tasks.filter((t) => t.length >= k).map((t) => 100 * sampleStd(t.slice(0, k)));
    const key = `pass@1[avg-of-${k}]/accuracy/avg_sample_std_dev`;
    metrics[key] = stds.reduce((a, b) => a + b, 0) / stds.length;
    weights[key] = stds.length;
  }
  return { metrics, weights };
}

/** NeMo Gym's score for code: accuracy = reward > 0. */
function accuracyOf(row: Record<string, unknown>): number | null {
  return typeof row.reward === "number" ? (row.reward > 0 ? 1 : 0) : null;
}

/**
 * NeMo Gym's code_gen metrics: pass@k, pass@1[avg-of-k] and majority@k of accuracy (answer key
 * `extracted_model_code`), overall and per `difficulty` as `<difficulty>/…`. Key metrics: mean
 * token counts, the highest-k pass@1[avg-of-k], pass@k and majority@k of accuracy, and each
 * difficulty's highest-k pass@1[avg-of-k].
 */
export function codeGenMetrics(rows: Array<Record<string, unknown>>, defaults: AggregateResult): AggregateResult {
  const options = { scores: (row: Record<string, unknown>) => ({ accuracy: accuracyOf(row) }), answerKey: "extracted_model_code" };
  const { metrics, per_sample_aggregate, metric_weights } = passAtKMetrics(rows, options);
  const spread = avgSampleStdDev(rows);
  Object.assign(metrics, spread.metrics);
  Object.assign(metric_weights.metrics, spread.weights);
  const byDifficulty = new Map<string, Array<Record<string, unknown>>>();
  for (const row of rows) if (typeof row.difficulty === "string") byDifficulty.set(row.difficulty, [...(byDifficulty.get(row.difficulty) ?? []), row]);
  const key_metrics: Record<string, number> = {};
  const agent_metrics: Record<string, number> = { ...defaults.agent_metrics, ...metrics };
  for (const usage of ["input_tokens", "output_tokens"]) {
    const value = agent_metrics[`mean/${usage}`];
    if (value !== undefined) key_metrics[`mean/${usage}`] = value;
  }
  const avgK = highestK(metrics, "avg");
  for (const key of [`pass@1[avg-of-${avgK}]/accuracy`, `pass@${highestK(metrics, "pass")}/accuracy`, `majority@${highestK(metrics, "majority")}/accuracy`]) {
    if (key in metrics) key_metrics[key] = metrics[key]!;
  }
  for (const [difficulty, subset] of byDifficulty) {
    const { metrics: sub, metric_weights: subWeights } = passAtKMetrics(subset, options);
    for (const [key, value] of Object.entries(sub)) {
      agent_metrics[`${difficulty}/${key}`] = value;
      metric_weights.metrics[`${difficulty}/${key}`] = subWeights.metrics[key]!;
    }
    const key = `pass@1[avg-of-${highestK(sub, "avg")}]/accuracy`;
    if (key in sub) key_metrics[`${difficulty}/${key}`] = sub[key]!;
  }
  return { agent_metrics, key_metrics, group_level_metrics: defaults.group_level_metrics, per_sample_aggregate, metric_weights };
}

export default defineEnvironment({
  id: "code_gen",
  description: "Competitive programming: the last fenced code block runs against unit tests in the sandbox (LiveCodeBench grading).",
  configSchema: Config as z.ZodType<Config>,
  reverifyMode: "stateless",
  // `num_processes` test runs of this instance at once.
  setup: ({ config }) => limiter(config.num_processes),
  aggregateMetrics: (rows, ctx) => codeGenMetrics(rows, ctx.defaults(rows)),
  verify: async (request, ctx) => {
    const metadataField = (request as Record<string, unknown>).verifier_metadata as Record<string, unknown> | null | undefined;
    const difficulty = typeof metadataField?.difficulty === "string" ? metadataField.difficulty : null;
    const empty = {
      extracted_model_output: null,
      extracted_model_code: null,
      result: null,
      metadata: null,
      unit_tests_time_taken: null,
      reasoning_format_violation_rate: null,
      difficulty,
    };
    const text = outputText(request.response);
    if (text.trim() === "") return { reward: 0.0, ...empty };

    const parsed = UnitTestsSchema.safeParse(metadataField?.unit_tests);
    if (!parsed.success) throw new Error(`verifier_metadata.unit_tests is missing or malformed: ${parsed.error.message}`);
    const code = extractCode(text);
    if (code === null) return { reward: 0.0, ...empty, extracted_model_output: text };

    const started = performance.now();
    const sandbox = await sharedSandbox();
    const tests = await ctx.resources(() =>
      runUnitTests(sandbox, code, parsed.data, {
        timeoutSecs: ctx.config.unit_test_timeout_secs,
        mode: ctx.config.test_mode,
        memoryBytes: ctx.config.memory_limit_mb * 1024 * 1024,
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const violation = reasoningFormatViolation(text, request.response.output as Array<Record<string, unknown>>);
    const allPassed = tests.result.every((r) => r === true);
    return {
      reward: violation ? ctx.config.reasoning_format_penalty : allPassed ? 1.0 : 0.0,
      extracted_model_output: text,
      extracted_model_code: code,
      result: tests.result,
      metadata: tests.metadata,
      unit_tests_time_taken: seconds,
      reasoning_format_violation_rate: violation ? 1.0 : 0.0,
      difficulty,
      ...(ctx.config.debug ? { sandbox_isolation: sandbox.isolation } : {}),
    };
  },
});
