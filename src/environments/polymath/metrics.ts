// PolyMath's aggregate metrics: NeMo Gym's pass@k / pass@1[avg-of-k] / majority@k over
// symbolic_accuracy and judge_accuracy (and no_answer), the same per `language`, and weighted by the
// row's difficulty `weight` (NeMo-Skills' WeightedMathMetrics), plus the headline selection.
// Ported from NeMo Gym 07d6b0d: nemo_gym/reward_profile.py (compute_pass_majority_metrics,
// compute_subset_metrics, highest_k_metrics) and resources_servers/polymath/app.py (weighted
// aggregation, get_key_metrics), keeping their exact counting rules: a task's avg-of-k and majority@k
// use whatever of its first k rollouts it has, majority votes on (answer, score) pairs, and a missing
// or zero weight counts as 1.
type Row = Record<string, unknown>;
type ScoreDict = Record<string, number>;

/** math_with_judge's score function: library_reward, and the reward where the judge was asked. */
export function mathScores(row: Row): ScoreDict {
  const scores: ScoreDict = {};
  if ("library_reward" in row) scores.symbolic_accuracy = toNumber(row.library_reward);
  if (row.judge_evaluations !== undefined && row.judge_evaluations !== null) scores.judge_accuracy = toNumber(row.reward);
  return scores;
}

function toNumber(v: unknown): number {
  if (typeof v === "boolean") return v ? 1 : 0;
  return typeof v === "number" ? v : NaN;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** C(n, k) as an exact integer. */
function comb(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let r = 1n;
  for (let i = 0; i < k; i++) r = (r * BigInt(n - i)) / BigInt(i + 1);
  return r;
}

/** Python's int / int (true division), correctly rounded while both fit a double exactly. */
function ratio(a: bigint, b: bigint): number {
  const LIMIT = 2n ** 53n;
  if (a <= LIMIT && b <= LIMIT) return Number(a) / Number(b);
  const shift = BigInt(Math.max(0, b.toString(2).length - 60));
  return Number(a >> shift) / Number(b >> shift);
}

/** Counter over keys in first-seen order; returns the entries with the highest count. */
function tiedTop<K>(keys: K[], id: (k: K) => string): K[] {
  const counts = new Map<string, { key: K; count: number }>();
  for (const key of keys) {
    const entry = counts.get(id(key));
    if (entry) entry.count++;
    else counts.set(id(key), { key, count: 1 });
  }
  const top = Math.max(...[...counts.values()].map((e) => e.count));
  return [...counts.values()].filter((e) => e.count === top).map((e) => e.key);
}

const pairId = (p: [unknown, number]) => `${JSON.stringify(p[0])}\u0000${p[1]}`;

export interface PassMajority {
  metrics: Record<string, number>;
  per_sample_aggregate: Record<string, number[]>;
}

export function computePassMajorityMetrics(tasks: Row[][], scoreFn: (row: Row) => ScoreDict, answerKey: string): PassMajority {
  const maxK = Math.max(...tasks.map((t) => t.length));
  const metrics: Record<string, number> = {};
  const scoreDicts = tasks.map((rollouts) =>
    rollouts.map((r) => {
      const scores = { ...scoreFn(r) };
      const answer = r[answerKey];
      scores.no_answer = answer === null || answer === undefined ? 1 : 0;
      return scores;
    }),
  );
  const answers = tasks.map((rollouts) => rollouts.map((r) => (r[answerKey] === undefined ? null : r[answerKey])));
  const names = [...new Set(scoreDicts.flatMap((task) => task.flatMap((s) => Object.keys(s))))].sort();

  for (let k = 1; k <= maxK; k++) {
    for (const name of names) {
      const passValues: number[] = [];
      for (const task of scoreDicts) {
        const vals = task.filter((s) => name in s).map((s) => s[name]!);
        if (vals.length === 0 || k > vals.length) continue;
        if (vals.every((v) => v === 0 || v === 1)) {
          const incorrect = vals.filter((v) => !v).length;
          passValues.push(incorrect < k ? 1.0 : 1.0 - ratio(comb(incorrect, k), comb(vals.length, k)));
        } else passValues.push(Math.max(...vals.slice(0, k)));
      }
      if (passValues.length) metrics[`pass@${k}/${name}`] = (100.0 * sum(passValues)) / passValues.length;

      const avgValues: number[] = [];
      for (const task of scoreDicts) {
        const vals = task.slice(0, k).filter((s) => name in s).map((s) => s[name]!);
        if (vals.length) avgValues.push(sum(vals) / vals.length);
      }
      if (avgValues.length) metrics[`pass@1[avg-of-${k}]/${name}`] = (100.0 * sum(avgValues)) / avgValues.length;

      const majorityValues: number[] = [];
      scoreDicts.forEach((task, t) => {
        const valid: Array<[unknown, number]> = [];
        const taskAnswers = answers[t]!.slice(0, k);
        task.slice(0, k).forEach((s, i) => {
          if (i < taskAnswers.length && taskAnswers[i] !== null && name in s) valid.push([taskAnswers[i], s[name]!]);
        });
        if (valid.length === 0) return void majorityValues.push(0);
        const tied = tiedTop(valid, pairId);
        majorityValues.push(sum(tied.map((p) => p[1])) / tied.length);
      });
      if (majorityValues.length) metrics[`majority@${k}/${name}`] = (100.0 * sum(majorityValues)) / majorityValues.length;
    }
  }

  const perSample: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, [] as number[]]));
  for (let run = 0; run < maxK; run++) {
    for (const name of names) {
      const runScores = scoreDicts.filter((task) => run < task.length && name in task[run]!).map((task) => task[run]![name]!);
      if (runScores.length) perSample[name]!.push((100.0 * sum(runScores)) / runScores.length);
    }
  }
  for (const name of Object.keys(perSample)) if (perSample[name]!.length === 0) delete perSample[name];

  for (let k = 2; k <= maxK; k++) {
    for (const name of names) {
      const runs = (perSample[name] ?? []).slice(0, k);
      if (runs.length < 2) continue;
      const mean = sum(runs) / runs.length;
      const variance = sum(runs.map((x) => (x - mean) ** 2)) / (runs.length - 1);
      const std = Math.sqrt(variance);
      metrics[`pass@1[avg-of-${k}]/${name}/std_dev_across_runs`] = std;
      metrics[`pass@1[avg-of-${k}]/${name}/std_err_across_runs`] = std / Math.sqrt(runs.length);
    }
  }
  return { metrics, per_sample_aggregate: perSample };
}

/** The same metrics per value of `subsetKey` (taken from each task's first rollout), prefixed `<value>/`. */
export function computeSubsetMetrics(tasks: Row[][], subsetKey: string, scoreFn: (row: Row) => ScoreDict, answerKey: string): Record<string, number> {
  const subsets = new Map<string, Row[][]>();
  for (const rollouts of tasks) {
    const value = rollouts[0]?.[subsetKey];
    if (!value) continue;
    const key = typeof value === "string" ? value : JSON.stringify(value);
    let list = subsets.get(key);
    if (!list) subsets.set(key, (list = []));
    list.push(rollouts);
  }
  const out: Record<string, number> = {};
  for (const [subset, subsetTasks] of subsets) {
    for (const [key, value] of Object.entries(computePassMajorityMetrics(subsetTasks, scoreFn, answerKey).metrics)) out[`${subset}/${key}`] = value;
  }
  return out;
}

/** Difficulty-weighted pass@k, pass@1[avg-of-k] and majority@k (k ≥ 2), keys suffixed `_weighted`. */
export function computeWeightedMetrics(tasks: Row[][], scoreFn: (row: Row) => ScoreDict, answerKey: string): Record<string, number> {
  const perTask = tasks
    .filter((rollouts) => rollouts.length > 0)
    .map((rollouts) => {
      const w = rollouts[0]!.weight;
      const weight = typeof w === "number" && w !== 0 ? w : typeof w === "boolean" && w ? 1 : 1.0;
      return { weight, scores: rollouts.map(scoreFn), answers: rollouts.map((r) => (r[answerKey] === undefined ? null : r[answerKey])) };
    });
  if (perTask.length === 0) return {};
  const maxK = Math.max(...perTask.map((t) => t.scores.length));
  const names = [...new Set(perTask.flatMap((t) => t.scores.flatMap((s) => Object.keys(s))))].sort();
  const out: Record<string, number> = {};
  for (let k = 1; k <= maxK; k++) {
    for (const name of names) {
      let passNum = 0.0;
      let avgNum = 0.0;
      let majorityNum = 0.0;
      let contributing = 0.0;
      for (const { weight, scores, answers } of perTask) {
        const vals = scores.filter((s) => name in s).map((s) => Boolean(s[name]) && !Number.isNaN(s[name]));
        if (vals.length === 0 || k > vals.length) continue;
        const incorrect = vals.filter((v) => !v).length;
        passNum += incorrect < k ? weight : weight * (1.0 - ratio(comb(incorrect, k), comb(vals.length, k)));
        avgNum += (weight * vals.slice(0, k).filter(Boolean).length) / k;
        if (k >= 2) {
          const firstAnswers = answers.slice(0, k);
          const valid: Array<[unknown, number]> = [];
          vals.slice(0, k).forEach((v, i) => {
            if (i < firstAnswers.length && firstAnswers[i] !== null) valid.push([firstAnswers[i], v ? 1 : 0]);
          });
          if (valid.length) {
            const tied = tiedTop(valid, pairId);
            majorityNum += (weight * sum(tied.map((p) => p[1]))) / tied.length;
          }
        }
        contributing += weight;
      }
      if (contributing > 0) {
        out[`pass@${k}/${name}_weighted`] = (100.0 * passNum) / contributing;
        out[`pass@1[avg-of-${k}]/${name}_weighted`] = (100.0 * avgNum) / contributing;
        if (k >= 2) out[`majority@${k}/${name}_weighted`] = (100.0 * majorityNum) / contributing;
      }
    }
  }
  return out;
}

/** Tasks as NeMo Gym groups verify responses: by `_ng_task_index` (absent: 0), ascending, rollouts in arrival order. */
export function groupByTask(rows: Row[]): Row[][] {
  const groups = new Map<number, Row[]>();
  for (const row of rows) {
    const task = typeof row._ng_task_index === "number" ? row._ng_task_index : 0;
    let list = groups.get(task);
    if (!list) groups.set(task, (list = []));
    list.push(row);
  }
  return [...groups.keys()].sort((a, b) => a - b).map((k) => groups.get(k)!);
}
