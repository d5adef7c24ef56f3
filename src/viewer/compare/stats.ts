// The numbers of a run comparison, from the runs' indexes alone (no row is read):
// - per run: rollouts, failures, tasks, mean reward and pass rate, each with its standard error;
// - per other run against the first (the baseline): the difference of mean reward and of pass rate
//   with the standard error of the difference. When the runs share at least two tasks that have a
//   reward in both, the difference is *paired by task*: the mean over those tasks of (the task's mean
//   reward in the other run − in the baseline), with standard error sd/√n of those per-task
//   differences. Otherwise it is unpaired: the difference of the runs' means over all their rollouts,
//   with √(s²a/na + s²b/nb) (rollouts taken as independent). The answer says which;
// - per shared task, a win (the other run's mean reward is higher), loss or tie.
import { PASS_THRESHOLD } from "../run_index/task_table.js";
import type { RunIndex } from "../run_index/run_index.js";

/** Two means closer than this are a tie. */
export const TIE_EPSILON = 1e-9;
/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

export interface RunNumbers {
  rollouts: number;
  failures: number;
  failed_pairs: number;
  tasks: number;
  rewarded: number;
  mean_reward: number | null;
  mean_reward_se: number | null;
  pass_rate: number | null;
  pass_rate_se: number | null;
}

export interface Difference {
  /** Other run − baseline. */
  value: number;
  se: number | null;
  ci95: [number, number] | null;
}

export interface Comparison {
  /** "paired": over `common_tasks` tasks; "unpaired": over all rollouts of both runs. */
  pairing: "paired" | "unpaired";
  common_tasks: number;
  mean_reward: Difference | null;
  pass_rate: Difference | null;
  wins: number;
  losses: number;
  ties: number;
  /** Tasks with a reward in only one of the two runs. */
  only_baseline: number;
  only_other: number;
}

/** Per task (ascending): its mean reward, pass rate, counts; NaN when it has no rewarded rollout. */
export interface TaskMeans {
  task: Uint32Array;
  mean: Float64Array;
  pass: Float64Array;
  rollouts: Uint32Array;
  failures: Uint32Array;
  rewarded: Uint32Array;
  /** Position [from, to) of the task's entries in the run's display order. */
  from: Uint32Array;
}

export function taskMeans(run: RunIndex): TaskMeans {
  const table = run.taskTable();
  const n = table.count;
  const mean = new Float64Array(n);
  const pass = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const rewarded = table.rewarded[i]!;
    mean[i] = rewarded ? table.rewardSum[i]! / rewarded : Number.NaN;
    pass[i] = rewarded ? table.passes[i]! / rewarded : Number.NaN;
  }
  return { task: table.task.subarray(0, n), mean, pass, rollouts: table.rollouts, failures: table.failures, rewarded: table.rewarded, from: table.from };
}

function meanAndVariance(count: number, at: (i: number) => number): { n: number; mean: number; variance: number } {
  // Welford: one pass, stable.
  let n = 0;
  let mean = 0;
  let m2 = 0;
  for (let i = 0; i < count; i++) {
    const x = at(i);
    if (!Number.isFinite(x)) continue;
    n++;
    const delta = x - mean;
    mean += delta / n;
    m2 += delta * (x - mean);
  }
  return { n, mean, variance: n > 1 ? m2 / (n - 1) : Number.NaN };
}

const difference = (value: number, se: number): Difference => (Number.isFinite(se) ? { value, se, ci95: [value - Z95 * se, value + Z95 * se] } : { value, se: null, ci95: null });

export function runNumbers(run: RunIndex): RunNumbers & { variance: number; passVariance: number } {
  const e = run.entries;
  const rewards = meanAndVariance(e.successes, (i) => e.reward[i]!);
  const passes = meanAndVariance(e.successes, (i) => (Number.isFinite(e.reward[i]!) ? (e.reward[i]! >= PASS_THRESHOLD ? 1 : 0) : Number.NaN));
  const se = (variance: number, n: number) => (n > 1 ? Math.sqrt(variance / n) : null);
  return {
    rollouts: e.successes,
    failures: e.count - e.successes,
    failed_pairs: run.failedPairs,
    tasks: run.tasks,
    rewarded: rewards.n,
    mean_reward: rewards.n ? rewards.mean : null,
    mean_reward_se: se(rewards.variance, rewards.n),
    pass_rate: passes.n ? passes.mean : null,
    pass_rate_se: se(passes.variance, passes.n),
    variance: rewards.variance,
    passVariance: passes.variance,
  };
}

/** The other run against the baseline (see the header for the statistics). */
export function compareRuns(base: { numbers: ReturnType<typeof runNumbers>; tasks: TaskMeans }, other: { numbers: ReturnType<typeof runNumbers>; tasks: TaskMeans }): Comparison {
  const a = base.tasks;
  const b = other.tasks;
  const rewardDiffs: number[] = [];
  const passDiffs: number[] = [];
  let wins = 0;
  let losses = 0;
  let ties = 0;
  let onlyBaseline = 0;
  let onlyOther = 0;
  let i = 0;
  let j = 0;
  // Both tables are in ascending task order: one merge pass.
  while (i < a.task.length || j < b.task.length) {
    const ta = i < a.task.length ? a.task[i]! : Infinity;
    const tb = j < b.task.length ? b.task[j]! : Infinity;
    if (ta < tb) {
      if (!Number.isNaN(a.mean[i]!)) onlyBaseline++;
      i++;
      continue;
    }
    if (tb < ta) {
      if (!Number.isNaN(b.mean[j]!)) onlyOther++;
      j++;
      continue;
    }
    const ma = a.mean[i]!;
    const mb = b.mean[j]!;
    if (Number.isNaN(ma) || Number.isNaN(mb)) {
      if (!Number.isNaN(ma)) onlyBaseline++;
      if (!Number.isNaN(mb)) onlyOther++;
    } else {
      const d = mb - ma;
      rewardDiffs.push(d);
      passDiffs.push(b.pass[j]! - a.pass[i]!);
      if (d > TIE_EPSILON) wins++;
      else if (d < -TIE_EPSILON) losses++;
      else ties++;
    }
    i++;
    j++;
  }
  const counts = { common_tasks: rewardDiffs.length, wins, losses, ties, only_baseline: onlyBaseline, only_other: onlyOther };
  if (rewardDiffs.length >= 2) {
    const paired = (diffs: number[]) => {
      const { n, mean, variance } = meanAndVariance(diffs.length, (k) => diffs[k]!);
      return difference(mean, Math.sqrt(variance / n));
    };
    return { pairing: "paired", ...counts, mean_reward: paired(rewardDiffs), pass_rate: paired(passDiffs) };
  }
  const na = base.numbers;
  const nb = other.numbers;
  const unpaired = (ma: number | null, mb: number | null, va: number, vb: number) =>
    ma === null || mb === null ? null : difference(mb - ma, Math.sqrt(va / na.rewarded + vb / nb.rewarded));
  return {
    pairing: "unpaired",
    ...counts,
    mean_reward: unpaired(na.mean_reward, nb.mean_reward, na.variance, nb.variance),
    pass_rate: unpaired(na.pass_rate, nb.pass_rate, na.passVariance, nb.passVariance),
  };
}
