// pass@k / majority@k over repeated rollouts of the same task, as NeMo Gym's shared helper
// `compute_pass_majority_metrics` (NVIDIA-NeMo/Gym 07d6b0d, nemo_gym/reward_profile.py) computes them.
// Environments opt in from `aggregateMetrics` by naming their scores (and, for majority voting, the
// field holding the extracted answer). Every value is a percentage (0–100), averaged over tasks.
//
// With K the most rollouts any task has, for k = 1..K and each score s (names sorted; with an answer
// key the score `no_answer`, 1 when the answer is null, is one of them):
//   pass@{k}/s             over tasks with ≥ k scored rollouts: 1 − C(n−c, k)/C(n, k) when the task's
//                          scores are all 0/1, else the max of its first k scored
//   pass@1[avg-of-{k}]/s   over tasks with a score among their first k rollouts: the mean of those
//   majority@{k}/s         with an answer key, over every task: among its first k rollouts with an
//                          answer, the most common (answer, score) pair's score, ties averaged; a task
//                          with no answer at all counts 0 (so majority@k/no_answer is always 0)
// then for k = 2..K: pass@1[avg-of-{k}]/s/std_dev_across_runs (sample std of the first k values of
// per_sample_aggregate) and …/std_err_across_runs (that over √k).
// `per_sample_aggregate`: per score, for each rollout position r, the mean score of the tasks scored
// at r; `metric_weights`: how many tasks each value averages over (for exact merging of chunks).

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
  /** Agent-metric key → the number of tasks (or rollouts) its value is the mean over. */
  metrics: Record<string, number>;
  /**
   * Agent-metric keys whose value is a total over the rows sent (a count, a sum): chunks' values add up.
   * Optional; the pass@k helpers state none.
   */
  sums?: string[];
  /**
   * Score → per rollout position, the number of tasks scored there. A position with 0 has no value in
   * per_sample_aggregate (whose values are the positions with a weight, in order).
   */
  per_sample: Record<string, number[]>;
}

/** One rollout's named scores (only finite numbers) and its answer. */
interface Rollout {
  scores: Map<string, number>;
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

/**
 * The majority score among `rollouts` for `name`: the most common (answer, score) pair among those
 * with an answer and that score; tied pairs averaged; none → 0.
 */
export function majorityScore(rollouts: ReadonlyArray<{ answer: string | null; score: number | undefined }>): number {
  const counts = new Map<string, { score: number; n: number }>();
  for (const { answer, score } of rollouts) {
    if (answer === null || score === undefined) continue;
    const key = JSON.stringify([answer, score]);
    const entry = counts.get(key);
    if (entry) entry.n++;
    else counts.set(key, { score, n: 1 });
  }
  if (counts.size === 0) return 0;
  const top = Math.max(...[...counts.values()].map((c) => c.n));
  return mean([...counts.values()].filter((c) => c.n === top).map((c) => c.score));
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
  const tasks: Rollout[][] = tasksOf(rows).map((taskRows) =>
    taskRows.map((row) => {
      const answer = answerKey ? answerOf(row, answerKey) : null;
      const raw: Scores = { ...options.scores(row) };
      if (answerKey) raw.no_answer = answer === null ? 1 : 0;
      const scores = new Map<string, number>();
      for (const [name, value] of Object.entries(raw)) if (typeof value === "number" && Number.isFinite(value)) scores.set(name, value);
      return { scores, answer };
    }),
  );
  const names = [...new Set(tasks.flatMap((task) => task.flatMap((r) => [...r.scores.keys()])))].sort();
  const maxK = Math.max(0, ...tasks.map((task) => task.length));
  const metrics: Record<string, number> = {};
  const weights: MetricWeights = { metrics: {}, per_sample: {} };
  const put = (key: string, values: number[]) => {
    if (values.length === 0) return;
    metrics[key] = 100 * mean(values);
    weights.metrics[key] = values.length;
  };
  // A task is combinatorial for pass@k when its scores are all 0/1, decided task by task as NeMo Gym does.
  const binary = (values: number[]) => values.every((v) => v === 0 || v === 1);
  for (let k = 1; k <= maxK; k++) {
    for (const name of names) {
      const scored = tasks.map((task) => task.flatMap((r) => (r.scores.has(name) ? [r.scores.get(name)!] : [])));
      put(
        `pass@${k}/${name}`,
        scored.filter((values) => values.length >= k).map((values) =>
          binary(values) ? unbiasedPassAtK(values.length, values.filter((v) => v === 1).length, k) : Math.max(...values.slice(0, k)),
        ),
      );
      const firstK = tasks.map((task) => task.slice(0, k).flatMap((r) => (r.scores.has(name) ? [r.scores.get(name)!] : [])));
      put(`pass@1[avg-of-${k}]/${name}`, firstK.filter((values) => values.length > 0).map(mean));
      if (answerKey) put(`majority@${k}/${name}`, tasks.map((task) => majorityScore(task.slice(0, k).map((r) => ({ answer: r.answer, score: r.scores.get(name) })))));
    }
  }
  // Per rollout position, the mean score of the tasks scored there; a position where no task has the
  // score is left out, as NeMo Gym does (its weight, 0, stays in metric_weights, so that chunks merge
  // position by position).
  const perSample: Record<string, number[]> = {};
  for (const name of names) {
    const runs = Array.from({ length: maxK }, (_, run) => tasks.flatMap((task) => (task[run]?.scores.has(name) ? [task[run]!.scores.get(name)!] : [])));
    const present = runs.filter((values) => values.length > 0);
    if (present.length === 0) continue;
    perSample[name] = present.map((values) => 100 * mean(values));
    weights.per_sample[name] = runs.map((values) => values.length);
  }
  for (let k = 2; k <= maxK; k++) {
    for (const name of names) {
      const runs = (perSample[name] ?? []).slice(0, k);
      if (runs.length < 2) continue;
      const std = sampleStd(runs);
      const tasksCovered = weights.metrics[`pass@1[avg-of-${k}]/${name}`] ?? 0;
      metrics[`pass@1[avg-of-${k}]/${name}/std_dev_across_runs`] = std;
      metrics[`pass@1[avg-of-${k}]/${name}/std_err_across_runs`] = std / Math.sqrt(runs.length);
      weights.metrics[`pass@1[avg-of-${k}]/${name}/std_dev_across_runs`] = tasksCovered;
      weights.metrics[`pass@1[avg-of-${k}]/${name}/std_err_across_runs`] = tasksCovered;
    }
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
