// Environment metrics computed over chunks of tasks and merged must equal one call over every task:
// the collector sends large runs in small chunks to keep its memory flat, and that must not change a
// single number (pass@k, majority@k, the across-runs spread, per_sample_aggregate).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeRunMetrics } from "../src/collect/run_metrics.js";
import { resultLine } from "../src/collect/lines.js";
import { defineEnvironment } from "../src/environment_kit/define.js";
import mcqa from "../src/environments/mcqa/index.js";
import { startInstance, type RunningInstance } from "../src/environment_kit/testing.js";
import { codeGenMetrics } from "../src/environments/code_gen/index.js";
import { aggregateMetrics } from "../src/metrics/aggregate.js";
import { ChunkedMetricsMerger, kOfMetric } from "../src/metrics/chunk_merge.js";
import { passAtKMetrics } from "../src/metrics/pass_at_k.js";
import { seededRandom } from "./helpers/seeded_random.js";

/** `tasks` tasks × `repeats` rollouts of an mcqa-like score: answers A–D or none, gold per task. */
function rows(tasks: number, repeats: (task: number) => number, seed: number, graded = false): Array<Record<string, unknown>> {
  const next = seededRandom(seed);
  const out: Array<Record<string, unknown>> = [];
  for (let t = 0; t < tasks; t++) {
    const skill = next(); // how often this task is answered right
    for (let r = 0; r < repeats(t); r++) {
      const u = next();
      const answer = u < 0.1 ? null : u < 0.1 + 0.9 * skill ? "A" : "BCD"[Math.floor(next() * 3)]!;
      const reward = graded ? Math.round(next() * 4) / 4 : answer === "A" ? 1 : 0;
      out.push({ _ng_task_index: t, _ng_rollout_index: r, reward, extracted_answer: answer });
    }
  }
  return out;
}

const scores = (row: Record<string, unknown>) => ({ accuracy: row.reward as number });

/** Splits rows into chunks of whole tasks of at most `size` tasks each. */
function chunksOf(all: Array<Record<string, unknown>>, size: number): Array<Array<Record<string, unknown>>> {
  const chunks: Array<Array<Record<string, unknown>>> = [];
  for (const row of all) {
    const chunk = Math.floor((row._ng_task_index as number) / size);
    (chunks[chunk] ??= []).push(row);
  }
  return chunks;
}

function rolloutsPerTask(chunk: Array<Record<string, unknown>>): number[] {
  const counts = new Map<unknown, number>();
  for (const row of chunk) counts.set(row._ng_task_index, (counts.get(row._ng_task_index) ?? 0) + 1);
  return [...counts.values()];
}

function expectSameMetrics(actual: Record<string, number>, expected: Record<string, number>): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [key, value] of Object.entries(expected)) {
    expect(actual[key], key).toBeCloseTo(value, 9);
  }
}

describe("kOfMetric", () => {
  it("reads k from pass@k, pass@1[avg-of-k] and majority@k keys, and nothing from others", () => {
    expect(kOfMetric("pass@4/accuracy")).toBe(4);
    expect(kOfMetric("pass@1[avg-of-16]/no_answer/std_dev_across_runs")).toBe(16);
    expect(kOfMetric("majority@3/accuracy")).toBe(3);
    expect(kOfMetric("mean/reward")).toBeUndefined();
    expect(kOfMetric("passing@2/x")).toBeUndefined();
  });
});

describe("ChunkedMetricsMerger", () => {
  const cases = [
    { name: "binary scores, 5 repeats", all: rows(37, () => 5, 1), answerKey: "extracted_answer", uniform: true },
    { name: "graded (non-binary) scores, 4 repeats", all: rows(23, () => 4, 2, true), answerKey: undefined, uniform: true },
    { name: "uneven repeats (1 to 6 per task)", all: rows(29, (t) => 1 + (t % 6), 3), answerKey: "extracted_answer", uniform: false },
  ];
  const acrossRuns = (key: string) => key.endsWith("_across_runs");

  /** Chunks of `size` tasks through passAtKMetrics, merged; `weighted` sends the metric_weights along. */
  function merged(all: Array<Record<string, unknown>>, size: number, options: Parameters<typeof passAtKMetrics>[1], weighted: boolean) {
    const merger = new ChunkedMetricsMerger();
    for (const chunk of chunksOf(all, size)) {
      const part = passAtKMetrics(chunk, options);
      merger.add({ agent_metrics: part.metrics, per_sample_aggregate: part.per_sample_aggregate, ...(weighted ? { metric_weights: part.metric_weights } : {}) }, rolloutsPerTask(chunk));
    }
    return { merger, ...merger.agentMetrics() };
  }

  for (const c of cases) {
    for (const size of [1, 4, 10]) {
      for (const weighted of [true, false]) {
        it(`${c.name}: chunks of ${size} tasks merge to the one-call result (${weighted ? "with" : "without"} metric_weights)`, () => {
          const options = { scores, answerKey: c.answerKey };
          const whole = passAtKMetrics(c.all, options);
          const result = merged(c.all, size, options, weighted);
          // Every average is exact; an across-runs spread is exact or named as approximate.
          expect(result.approximate.every(acrossRuns)).toBe(true);
          if (c.uniform) expect(result.approximate).toEqual([]);
          const keep = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([k]) => !result.approximate.includes(k)));
          expectSameMetrics(keep(result.metrics), keep(whole.metrics));
          const perSample = result.merger.perSampleAggregate()!;
          for (const [score, runs] of Object.entries(whole.per_sample_aggregate)) {
            expect(perSample[score]).toHaveLength(runs.length);
            runs.forEach((value, r) => expect(perSample[score]![r], `${score}[${r}]`).toBeCloseTo(value, 9));
          }
        });
      }
    }
  }

  it("a score given on only some rollouts (like judge_accuracy) needs metric_weights to merge exactly", () => {
    // `judged` exists only where the answer was not "A" (as the judge only sees what the library
    // missed), and there it says whether the answer was "B".
    const all = rows(30, () => 4, 6);
    const judged = (row: Record<string, unknown>) => (row.extracted_answer === "A" ? null : row.extracted_answer === "B" ? 1 : 0);
    const options = { scores: (row: Record<string, unknown>) => ({ accuracy: row.reward as number, judged: judged(row) }) };
    const whole = passAtKMetrics(all, options);
    const withWeights = merged(all, 4, options, true);
    const keep = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([k]) => !withWeights.approximate.includes(k)));
    expectSameMetrics(keep(withWeights.metrics), keep(whole.metrics));
    expect(withWeights.approximate.every(acrossRuns)).toBe(true);
    // Without them the judged averages are weighted by rollout counts, which they do not cover.
    const without = merged(all, 4, options, false);
    const off = Object.keys(whole.metrics).filter((k) => k.includes("/judged") && !acrossRuns(k) && Math.abs(without.metrics[k]! - whole.metrics[k]!) > 1e-6);
    expect(off.length).toBeGreaterThan(0);
  });

  it("code_gen's per-difficulty metrics merge exactly (each averages over its own tasks)", () => {
    const difficulties = ["easy", "medium", "hard"];
    const all = rows(40, () => 3, 7).map((row) => ({
      ...row,
      difficulty: difficulties[((row._ng_task_index as number) * 7) % 3],
      extracted_model_code: row.extracted_answer,
    }));
    const whole = codeGenMetrics(all, aggregateMetrics(all));
    const merger = new ChunkedMetricsMerger();
    // The default statistics are the collector's own (exact over every rollout); it skips the environment's.
    const defaultStat = (key: string) => /^(mean|max|min|median|std)\//.test(key);
    for (const chunk of chunksOf(all, 6)) merger.add(codeGenMetrics(chunk, aggregateMetrics(chunk)), rolloutsPerTask(chunk), defaultStat);
    const result = merger.agentMetrics();
    // Only the per-difficulty across-runs spreads (per_sample_aggregate covers all tasks, not a difficulty).
    expect(result.approximate.length).toBeGreaterThan(0);
    expect(result.approximate.every((k) => k.endsWith("_across_runs") && /^(easy|medium|hard)\//.test(k))).toBe(true);
    const keep = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([k]) => !result.approximate.includes(k) && !/^(mean|max|min|median|std)\//.test(k)));
    expectSameMetrics(keep(result.metrics), keep(whole.agent_metrics));
    expect(Object.keys(keep(whole.agent_metrics)).filter((k) => k.startsWith("hard/pass@3/")).length).toBeGreaterThan(0);
  });

  it("names every key it cannot merge exactly over several chunks (none over one)", () => {
    const all = rows(12, () => 3, 8);
    const withCustom = (chunk: Array<Record<string, unknown>>, weighted: boolean) => {
      const part = passAtKMetrics(chunk, { scores });
      const custom = { "elo/score": chunk.length, "judge/calls": 2 * chunk.length, "mean/custom": 1, "win_share": 0.5 };
      return {
        agent_metrics: { ...part.metrics, ...custom },
        per_sample_aggregate: part.per_sample_aggregate,
        ...(weighted ? { metric_weights: { metrics: { ...part.metric_weights.metrics, win_share: chunk.length }, per_sample: part.metric_weights.per_sample, sums: ["judge/calls"] } } : {}),
      };
    };
    for (const weighted of [true, false]) {
      const merger = new ChunkedMetricsMerger();
      for (const chunk of chunksOf(all, 4)) merger.add(withCustom(chunk, weighted), rolloutsPerTask(chunk));
      // A value stated as a mean over N (win_share) or as a total (judge/calls) merges; NeMo Gym's
      // pass@k forms merge with or without weights; anything else (a rating, an unstated count or
      // mean) cannot.
      expect(merger.agentMetrics().approximate).toEqual(weighted ? ["elo/score", "mean/custom"] : ["elo/score", "judge/calls", "mean/custom", "win_share"]);
      if (weighted) expect(merger.agentMetrics().metrics["judge/calls"]).toBe(72);
      const one = new ChunkedMetricsMerger();
      one.add(withCustom(all, weighted), rolloutsPerTask(all));
      expect(one.agentMetrics().approximate).toEqual([]);
      expect(one.agentMetrics().metrics["elo/score"]).toBe(36);
    }
  });

  it("the across-runs spread is not an average of the chunks' spreads", () => {
    // Two chunks whose per-run accuracies differ wildly inside each but not overall.
    const all = [
      ...[1, 0].flatMap((reward, r) => [{ _ng_task_index: 0, _ng_rollout_index: r, reward }]),
      ...[0, 1].flatMap((reward, r) => [{ _ng_task_index: 1, _ng_rollout_index: r, reward }]),
    ];
    const merger = new ChunkedMetricsMerger();
    for (const chunk of chunksOf(all, 1)) {
      const part = passAtKMetrics(chunk, { scores });
      expect(part.metrics["pass@1[avg-of-2]/accuracy/std_dev_across_runs"]).toBeCloseTo(Math.SQRT2 * 50, 9);
      merger.add({ agent_metrics: part.metrics, per_sample_aggregate: part.per_sample_aggregate }, rolloutsPerTask(chunk));
    }
    // Overall both runs score 50%: no spread at all.
    expect(merger.agentMetrics().metrics["pass@1[avg-of-2]/accuracy/std_dev_across_runs"]).toBe(0);
  });

  it("without per_sample_aggregate, names the across-runs keys it could only approximate", () => {
    const all = rows(6, () => 3, 4);
    const merger = new ChunkedMetricsMerger();
    for (const chunk of chunksOf(all, 3)) merger.add({ agent_metrics: passAtKMetrics(chunk, { scores }).metrics }, rolloutsPerTask(chunk));
    expect(merger.perSampleAggregate()).toBeUndefined();
    expect(merger.agentMetrics().approximate.sort()).toEqual([
      "pass@1[avg-of-2]/accuracy/std_dev_across_runs",
      "pass@1[avg-of-2]/accuracy/std_err_across_runs",
      "pass@1[avg-of-3]/accuracy/std_dev_across_runs",
      "pass@1[avg-of-3]/accuracy/std_err_across_runs",
    ]);
  });
});

describe("a run's metrics file, one /aggregate_metrics call vs many (real mcqa server)", () => {
  let env: RunningInstance;
  let dir: string;
  let output: string;
  beforeAll(async () => {
    env = await startInstance(mcqa);
    dir = mkdtempSync(join(tmpdir(), "gym-chunks-"));
    output = join(dir, "out.jsonl");
    // Written out of order, as concurrent rollouts finish.
    const all = rows(40, () => 4, 5).map((row): Record<string, unknown> => ({ ...row, agent_ref: { type: "responses_api_agents", name: "mcqa_agent" }, response: { usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } } }));
    all.reverse();
    writeFileSync(output, all.map((row) => resultLine(row._ng_task_index as number, row._ng_rollout_index as number, row)).join(""));
  });
  afterAll(async () => {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function metricsWith(chunkRollouts: number) {
    const computed = await computeRunMetrics(output, { aggregateUrlOf: () => `${env.url}/aggregate_metrics`, chunkRollouts });
    const path = join(dir, `metrics_${chunkRollouts}.json`);
    try {
      computed.write(path);
    } finally {
      computed.dispose();
    }
    return { summary: computed.summaries[0]!, file: JSON.parse(readFileSync(path, "utf8")) };
  }

  it("gives the same agent metrics, per_sample_aggregate and per-task entries", async () => {
    const one = await metricsWith(1_000_000);
    for (const chunkRollouts of [4, 12, 30]) {
      const many = await metricsWith(chunkRollouts);
      expectSameMetrics(many.summary.agent_metrics, one.summary.agent_metrics);
      // The same keys, and the same values but for the last bits of a weighted mean's rounding.
      expectSameMetrics(many.summary.key_metrics, one.summary.key_metrics);
      expect(many.summary.approximated).toBeUndefined();
      const expected = one.file[0].per_sample_aggregate as Record<string, number[]>;
      expect(Object.keys(many.file[0].per_sample_aggregate)).toEqual(Object.keys(expected));
      for (const [score, runs] of Object.entries(expected)) {
        runs.forEach((value, r) => expect(many.file[0].per_sample_aggregate[score][r]).toBeCloseTo(value, 9));
      }
      expect(many.file[0].group_level_metrics).toEqual(one.file[0].group_level_metrics);
    }
    // The numbers are real: four runs over 40 tasks, spread across runs present and non-zero.
    expect(one.summary.agent_metrics["pass@4/accuracy"]).toBeGreaterThan(0);
    expect(one.summary.agent_metrics["pass@1[avg-of-4]/accuracy/std_dev_across_runs"]).toBeGreaterThan(0);
    expect(one.file[0].group_level_metrics).toHaveLength(40);
    // The weights only serve the merge: the metrics file has NeMo Gym's keys (and per_sample_aggregate).
    expect(one.file[0].metric_weights).toBeUndefined();
  });

  it("an environment that returns no per_sample_aggregate gets its across-runs spreads named as approximate, in the file too", async () => {
    // Like a NeMo Gym environment that only returns agent_metrics.
    const bare = await startInstance(
      defineEnvironment({
        id: "bare_env",
        description: "pass@k without per_sample_aggregate",
        verify: () => ({ reward: 0 }),
        aggregateMetrics: (rows, ctx) => ({ ...ctx.defaults(rows), agent_metrics: passAtKMetrics(rows, { scores }).metrics }),
      }),
    );
    try {
      const computed = await computeRunMetrics(output, { aggregateUrlOf: () => `${bare.url}/aggregate_metrics`, chunkRollouts: 20 });
      const path = join(dir, "metrics_bare.json");
      computed.write(path);
      computed.dispose();
      const expected = ["pass@1[avg-of-2]/accuracy/std_dev_across_runs", "pass@1[avg-of-4]/accuracy/std_err_across_runs"];
      for (const key of expected) expect(computed.summaries[0]!.approximated).toContain(key);
      expect(JSON.parse(readFileSync(path, "utf8"))[0].approximate_metrics).toEqual(computed.summaries[0]!.approximated);
    } finally {
      await bare.close();
    }
  });

  it("a task larger than a chunk is sent whole, never split", async () => {
    const many = await metricsWith(1);
    expect(many.file[0].group_level_metrics.map((g: { num_rollouts?: number }) => g.num_rollouts)).toEqual(Array(40).fill(4));
  });
});
