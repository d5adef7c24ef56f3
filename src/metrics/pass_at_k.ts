// pass@k / majority@k over repeated rollouts of the same task, as NeMo Gym's shared "pass/majority
// helper" (after NeMo-Skills) defines them. Environments opt in from `aggregateMetrics` by naming
// their scores (and, for majority voting, the field holding the extracted answer). Every value is a
// percentage (0–100), averaged over tasks.
//
// For each score s and k = 1..K (K = most rollouts any task has; a task counts for k only if it has
// at least k scored rollouts):
//   pass@{k}/s             unbiased 1 − C(n−c, k)/C(n, k) over all n rollouts when the task's s
//                          are all 0/1, else the max of the task's first k
//   pass@1[avg-of-{k}]/s   mean of the first k
//   majority@{k}/s         with an answer key: the most common non-null answer among the first k
//                          (its score); tied answers are averaged; no answer at all scores 0
//   pass@1[avg-of-{k}]/s/std_dev_across_runs, …/std_err_across_runs   (k ≥ 2) sample std over the
//                          k per-run accuracies, and that over √k
// plus the score `no_answer` (1 when the answer field is null) when there is an answer key,
// `per_sample_aggregate`: per score, the accuracy of each rollout index (run) across tasks, and
// `metric_weights`: how many tasks each of those values averages over (for exact merging of chunks).

export type Scores = Record<string, number | null | undefined>;

export interface PassAtKOptions {
  /** Named scores of one verify response; null/undefined means "not scored" (e.g. no judge call). */
  scores(row: Record<string, unknown>): Scores;
  /** Field with the extracted answer, for majority@k and `no_answer`. */
  answerKey?: string;
}

export interface PassAtKResult {
  metrics: Record<string, number>;
  per_sample_aggregate: Record<string, number[]>;
  /** How many tasks each value averages over, so results over chunks of tasks merge exactly. */
  metric_weights: MetricWeights;
}

/**
 * The task counts behind averaged metrics: what lets a collector that calls `/aggregate_metrics`
 * per chunk of tasks merge the chunks exactly (metrics/chunk_merge.ts). A Gymkit extension of the
 * response; NeMo Gym clients ignore it.
 */
export interface MetricWeights {
  /** Agent-metric key → the number of tasks its value is the mean over. */
  metrics: Record<string, number>;
  /** Score → per run index, the number of tasks its per_sample_aggregate value is the mean over. */
  per_sample: Record<string, number[]>;
}

interface Sample {
  score: number;
  answer: string | null;
}

/** Groups rows by `_ng_task_index` (rows without one are one task each), ordered by rollout index. */
function tasksOf(rows: Array<Record<string, unknown>>): Array<Array<Record<string, unknown>>> {
  const byTask = new Map<unknown, Array<Record<string, unknown>>>();
  rows.forEach((row, i) => {
    const task = typeof row._ng_task_index === "number" ? row._ng_task_index : `row${i}`;
    let list = byTask.get(task);
    if (!list) byTask.set(task, (list = []));
    list.push(row);
  });
  const rollout = (r: Record<string, unknown>) => (typeof r._ng_rollout_index === "number" ? r._ng_rollout_index : 0);
  return [...byTask.values()].map((list) => [...list].sort((a, b) => rollout(a) - rollout(b)));
}

function answerOf(row: Record<string, unknown>, key: string): string | null {
  const value = row[key];
  if (value === null || value === undefined) return null;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** 1 − C(n−c, k)/C(n, k), as a product so that large n never overflows. */
export function unbiasedPassAtK(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/** The score of the majority answer among `samples`; ties averaged; no answer → 0. */
export function majorityScore(samples: Sample[]): number {
  const groups = new Map<string, number[]>();
  for (const s of samples) {
    if (s.answer === null) continue;
    let g = groups.get(s.answer);
    if (!g) groups.set(s.answer, (g = []));
    g.push(s.score);
  }
  if (groups.size === 0) return 0;
  const top = Math.max(...[...groups.values()].map((g) => g.length));
  const tied = [...groups.values()].filter((g) => g.length === top);
  return mean(tied.map(mean));
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Sample std (ddof = 1), 0 for fewer than two values. */
export function sampleStd(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

export function passAtKMetrics(rows: Array<Record<string, unknown>>, options: PassAtKOptions): PassAtKResult {
  const answerKey = options.answerKey;
  // Per score name: per task, its scored samples in rollout order.
  const perScore = new Map<string, Sample[][]>();
  const tasks = tasksOf(rows);
  tasks.forEach((taskRows, t) => {
    for (const row of taskRows) {
      const answer = answerKey ? answerOf(row, answerKey) : null;
      const scores: Scores = { ...options.scores(row) };
      if (answerKey) scores.no_answer = answer === null ? 1 : 0;
      for (const [name, value] of Object.entries(scores)) {
        if (typeof value !== "number" || !Number.isFinite(value)) continue;
        let byTask = perScore.get(name);
        if (!byTask) perScore.set(name, (byTask = tasks.map(() => [])));
        byTask[t]!.push({ score: value, answer });
      }
    }
  });

  const metrics: Record<string, number> = {};
  const perSample: Record<string, number[]> = {};
  const weights: MetricWeights = { metrics: {}, per_sample: {} };
  for (const [name, byTask] of perScore) {
    const scored = byTask.filter((samples) => samples.length > 0);
    // Whether pass@k is combinatorial is decided per task, as NeMo Gym does: a task whose scores are
    // all 0/1 counts combinatorially even when other tasks have continuous scores (F1, ratios).
    const binary = (samples: Sample[]) => samples.every((s) => s.score === 0 || s.score === 1);
    const maxK = Math.max(0, ...scored.map((s) => s.length));
    const pct = (xs: number[]) => (xs.length ? 100 * mean(xs) : 0);
    for (let k = 1; k <= maxK; k++) {
      const eligible = scored.filter((samples) => samples.length >= k);
      const before = Object.keys(metrics).length;
      metrics[`pass@${k}/${name}`] = pct(
        eligible.map((samples) =>
          // NeMo-Skills counts pass@k/no_answer only when *all* of the first k have no answer.
          name === "no_answer"
            ? Math.min(...samples.slice(0, k).map((s) => s.score))
            : binary(samples)
              ? unbiasedPassAtK(samples.length, samples.filter((s) => s.score === 1).length, k)
              : Math.max(...samples.slice(0, k).map((s) => s.score)),
        ),
      );
      metrics[`pass@1[avg-of-${k}]/${name}`] = pct(eligible.map((samples) => mean(samples.slice(0, k).map((s) => s.score))));
      if (answerKey && name !== "no_answer") {
        metrics[`majority@${k}/${name}`] = pct(eligible.map((samples) => majorityScore(samples.slice(0, k))));
      }
      if (k >= 2) {
        // Accuracy of each of the first k runs across tasks, then their spread.
        const runs = Array.from({ length: k }, (_, run) => pct(eligible.map((samples) => samples[run]!.score)));
        const std = sampleStd(runs);
        metrics[`pass@1[avg-of-${k}]/${name}/std_dev_across_runs`] = std;
        metrics[`pass@1[avg-of-${k}]/${name}/std_err_across_runs`] = std / Math.sqrt(k);
      }
      // Every key of this k averages over the eligible tasks.
      for (const key of Object.keys(metrics).slice(before)) weights.metrics[key] = eligible.length;
    }
    const runs = Array.from({ length: maxK }, (_, run) => scored.filter((samples) => samples.length > run));
    perSample[name] = runs.map((tasksWithRun, run) => pct(tasksWithRun.map((samples) => samples[run]!.score)));
    weights.per_sample[name] = runs.map((tasksWithRun) => tasksWithRun.length);
  }
  return { metrics, per_sample_aggregate: perSample, metric_weights: weights };
}

/** The largest k for which `metrics` has a `<prefix>{k}…` key (e.g. "pass@", "majority@"). */
export function highestK(metrics: Record<string, number>, kind: "pass" | "avg" | "majority"): number {
  let best = 0;
  for (const key of Object.keys(metrics)) {
    const m = kind === "avg" ? /^pass@1\[avg-of-(\d+)\]\//.exec(key) : new RegExp(`^${kind}@(\\d+)/`).exec(key);
    if (m) best = Math.max(best, Number(m[1]));
  }
  return best;
}
