// The numbers behind the viewer's plots (GET /api/plots and the static report), computed from the
// run's index: reward distributions per agent on one shared axis, pass@k and majority@k curves over k
// with their spread across repeats, the per-task curriculum view (always / never / sometimes solved),
// token usage and latency distributions, and failures by class in the order they were written.
// Rewards, passes and failure classes come from the index alone; answers, usage and latency need the
// rows, which are read once (all of them up to ROWS_READ_ALL, else an even sample; row_sample.ts).
//
// pass@k matches the unbiased estimator NeMo Gym's compute_pass_majority_metrics uses (NVIDIA-NeMo/Gym
// 07d6b0d, nemo_gym/reward_profile.py) with "pass" meaning reward ≥ the viewer's pass threshold (as in
// the task list and `gym eval profile`); majority@k votes over `extracted_answer` the same way.
import { majorityScore, unbiasedPassAtK } from "../../metrics/pass_at_k.js";
import { FAILURE } from "../run_index/entries.js";
import type { RunIndex } from "../run_index/run_index.js";
import { PASS_THRESHOLD } from "../run_index/task_table.js";
import { readRowSample, type RowSample } from "./row_sample.js";

/** Bins of each distribution. */
const REWARD_BINS = 10;
const VALUE_BINS = 20;
/** The failures-over-time plot's buckets (fewer when there are fewer failure lines). */
const FAILURE_BUCKETS = 20;
/** k values plotted: every k up to this, then powers of two and the largest k. */
const ALL_K_UP_TO = 16;

export interface AgentCounts {
  agent: string;
  /** Values that went into the histogram. */
  n: number;
  counts: number[];
  mean: number | null;
}

/** Histograms of several agents over the same bin edges (`edges.length` = bins + 1). */
export interface SharedHistogram {
  edges: number[];
  agents: AgentCounts[];
}

export interface PassCurve {
  agent: string;
  k: number[];
  /** Percentages (0–100) over tasks with at least k rollouts. */
  pass: number[];
  /** Across repeats (disjoint groups of k rollouts by rollout index): lowest and highest value, and how many groups. */
  pass_min: number[];
  pass_max: number[];
  repeats: number[];
  /** null when no row read holds an `extracted_answer` (or the rows were only sampled). */
  majority: number[] | null;
  majority_min: number[] | null;
  majority_max: number[] | null;
}

export interface Curriculum {
  agent: string;
  tasks: number;
  /** Tasks whose every rollout passes, none passes, some pass. */
  always: number;
  never: number;
  between: number;
  /** Per-task mean reward on the reward axis' edges. */
  counts: number[];
}

export interface PlotData {
  pass_threshold: number;
  rewards: SharedHistogram;
  pass_at_k: { answer_key: string; majority_note: string | null; agents: PassCurve[] };
  curriculum: { edges: number[]; agents: Curriculum[] };
  usage: { rows_read: number; rows: number; sampled: boolean; fields: Array<{ name: string; unit: string; histogram: SharedHistogram }>; missing: string[] };
  failures: { axis: string; buckets: Array<{ from: number; to: number }>; classes: Array<{ name: string; counts: number[] }> };
}

const mean = (values: ArrayLike<number>) => {
  if (!values.length) return null;
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return sum / values.length;
};

/** `bins` equal bins over [lo, hi]; a value equal to hi falls in the last bin. */
export function edgesOf(lo: number, hi: number, bins: number): number[] {
  if (!(hi > lo)) hi = lo + 1;
  return Array.from({ length: bins + 1 }, (_, i) => (i === bins ? hi : lo + ((hi - lo) * i) / bins));
}

function binOf(edges: number[], value: number): number {
  const bins = edges.length - 1;
  const lo = edges[0]!;
  const hi = edges[bins]!;
  return Math.max(0, Math.min(bins - 1, Math.floor(((value - lo) / (hi - lo)) * bins)));
}

export function sharedHistogram(byAgent: Map<string, number[]>, bins: number, range?: [number, number]): SharedHistogram {
  let lo = Infinity;
  let hi = -Infinity;
  for (const values of byAgent.values()) {
    for (const v of values) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  if (range) {
    lo = Math.min(lo, range[0]);
    hi = Math.max(hi, range[1]);
  }
  if (!Number.isFinite(lo)) [lo, hi] = [0, 1];
  const edges = edgesOf(lo, hi, bins);
  const agents = [...byAgent].map(([agent, values]) => {
    const counts = new Array<number>(bins).fill(0);
    for (const v of values) counts[binOf(edges, v)]!++;
    return { agent, n: values.length, counts, mean: mean(values) };
  });
  return { edges, agents };
}

/** The k values of a curve whose tasks have at most `maxN` rollouts. */
export function kValues(maxN: number): number[] {
  const ks: number[] = [];
  for (let k = 1; k <= maxN; k = k < ALL_K_UP_TO ? k + 1 : k * 2) ks.push(k);
  if (ks.length && ks[ks.length - 1] !== maxN) ks.push(maxN);
  return ks;
}

interface TaskRollouts {
  /** Per rollout (one success line per pair, by rollout index): pass, and the answer when read. */
  pass: number[];
  answers: Array<string | null>;
}

/** Per agent, per task, its rollouts in rollout-index order (the first success line of each pair). */
function rolloutsByAgent(run: RunIndex, answers: Map<number, string | null> | undefined): Map<number, TaskRollouts[]> {
  const e = run.entries;
  const byAgent = new Map<number, TaskRollouts[]>();
  // Per agent: the task and rollout of its last entry taken (entries come in (task, rollout) order).
  const lastTask = new Map<number, number>();
  const lastRollout = new Map<number, number>();
  for (let i = 0; i < run.order.length; i++) {
    const id = run.order[i]!;
    if (e.flags[id]! & FAILURE) continue;
    const reward = e.reward[id]!;
    if (!Number.isFinite(reward)) continue;
    const agent = e.agent[id]!;
    const task = e.task[id]!;
    const rollout = e.rollout[id]!;
    let list = byAgent.get(agent);
    if (!list) byAgent.set(agent, (list = []));
    if (lastTask.get(agent) !== task) {
      list.push({ pass: [], answers: [] });
      lastTask.set(agent, task);
    } else if (lastRollout.get(agent) === rollout) continue; // a duplicate success line: the first one counts
    lastRollout.set(agent, rollout);
    const rollouts = list[list.length - 1]!;
    rollouts.pass.push(reward >= PASS_THRESHOLD ? 1 : 0);
    rollouts.answers.push(answers?.get(id) ?? null);
  }
  return byAgent;
}

function passCurve(agent: string, tasks: TaskRollouts[], withMajority: boolean): PassCurve {
  const maxN = Math.max(0, ...tasks.map((t) => t.pass.length));
  const curve: PassCurve = {
    agent,
    k: kValues(maxN),
    pass: [],
    pass_min: [],
    pass_max: [],
    repeats: [],
    majority: withMajority ? [] : null,
    majority_min: withMajority ? [] : null,
    majority_max: withMajority ? [] : null,
  };
  const pct = (values: number[]) => (values.length ? (100 * values.reduce((a, b) => a + b, 0)) / values.length : Number.NaN);
  const majorityOf = (t: TaskRollouts, from: number, to: number) =>
    majorityScore(t.answers.slice(from, to).map((answer, i) => ({ answer, score: t.pass[from + i] })));
  for (const k of curve.k) {
    const eligible = tasks.filter((t) => t.pass.length >= k);
    curve.pass.push(pct(eligible.map((t) => unbiasedPassAtK(t.pass.length, t.pass.reduce((a, b) => a + b, 0), k))));
    // Disjoint groups of k rollouts: group j holds positions [jk, (j+1)k) of every task that has them.
    const groups = Math.floor(maxN / k);
    const passByGroup: number[] = [];
    const majorityByGroup: number[] = [];
    for (let j = 0; j < groups; j++) {
      const inGroup = tasks.filter((t) => t.pass.length >= (j + 1) * k);
      if (!inGroup.length) continue;
      passByGroup.push(pct(inGroup.map((t) => (t.pass.slice(j * k, (j + 1) * k).some(Boolean) ? 1 : 0))));
      if (withMajority) majorityByGroup.push(pct(inGroup.map((t) => majorityOf(t, j * k, (j + 1) * k))));
    }
    curve.repeats.push(passByGroup.length);
    curve.pass_min.push(Math.min(...passByGroup));
    curve.pass_max.push(Math.max(...passByGroup));
    if (withMajority) {
      curve.majority!.push(pct(eligible.map((t) => majorityOf(t, 0, k))));
      curve.majority_min!.push(Math.min(...majorityByGroup));
      curve.majority_max!.push(Math.max(...majorityByGroup));
    }
  }
  return curve;
}

function failuresOverTime(run: RunIndex): PlotData["failures"] {
  const e = run.entries;
  const total = e.count - e.successes;
  const buckets = Math.min(FAILURE_BUCKETS, total);
  const size = buckets ? Math.ceil(total / buckets) : 0;
  const ranges = Array.from({ length: buckets ? Math.ceil(total / size) : 0 }, (_, b) => ({ from: b * size + 1, to: Math.min(total, (b + 1) * size) }));
  const byClass = new Map<string, number[]>();
  // Failure entries are in the failures file's order, the order they were written: the run's timeline.
  for (let i = 0; i < total; i++) {
    const name = run.failureClasses.names[e.failureClass[e.successes + i]!]!;
    let counts = byClass.get(name);
    if (!counts) byClass.set(name, (counts = new Array<number>(ranges.length).fill(0)));
    counts[Math.floor(i / size)]!++;
  }
  return {
    axis: "failure lines in the order written",
    buckets: ranges,
    classes: [...byClass].sort((a, b) => a[0].localeCompare(b[0])).map(([name, counts]) => ({ name, counts })),
  };
}

/** Everything the plots show; `sample` is read on first use and kept by the caller. */
export function plotData(run: RunIndex, sample: RowSample = readRowSample(run)): PlotData {
  const e = run.entries;
  const names = run.agents.names;
  // Rewards per agent, then one axis for all of them (at least [0, 1]).
  const rewards = new Map<string, number[]>();
  for (let id = 0; id < e.successes; id++) {
    const reward = e.reward[id]!;
    if (!Number.isFinite(reward)) continue;
    const name = names[e.agent[id]!]!;
    let list = rewards.get(name);
    if (!list) rewards.set(name, (list = []));
    list.push(reward);
  }
  const rewardHistogram = sharedHistogram(rewards, REWARD_BINS, [0, 1]);
  const edges = rewardHistogram.edges;

  const byAgent = rolloutsByAgent(run, sample.complete ? sample.answers : undefined);
  const withMajority = sample.complete && sample.answered > 0;
  // Majority voting per agent that has answers at all (an agent without them would show a flat 0).
  const answered = (tasks: TaskRollouts[]) => tasks.some((t) => t.answers.some((a) => a !== null));
  const curves = [...byAgent].map(([agent, tasks]) => passCurve(names[agent]!, tasks, withMajority && answered(tasks)));
  const majorityNote = withMajority
    ? null
    : !sample.complete
      ? `majority@k needs every row's answer; only ${sample.read} of ${sample.rows} rows were read`
      : `no row has an ${sample.answerKey} field to vote on`;

  const curriculum: Curriculum[] = [];
  for (const agent of byAgent.keys()) {
    const table = run.taskTable(agent);
    const row: Curriculum = { agent: names[agent]!, tasks: 0, always: 0, never: 0, between: 0, counts: new Array<number>(edges.length - 1).fill(0) };
    for (let slot = 0; slot < table.count; slot++) {
      const rewarded = table.rewarded[slot]!;
      if (!rewarded) continue;
      row.tasks++;
      const passes = table.passes[slot]!;
      if (passes === rewarded) row.always++;
      else if (passes === 0) row.never++;
      else row.between++;
      row.counts[binOf(edges, table.rewardSum[slot]! / rewarded)]!++;
    }
    curriculum.push(row);
  }

  const fields = sample.fields
    .filter((field) => [...field.values.values()].some((values) => values.length))
    .map((field) => ({ name: field.name, unit: field.unit, histogram: sharedHistogram(field.values, VALUE_BINS) }));
  return {
    pass_threshold: PASS_THRESHOLD,
    rewards: rewardHistogram,
    pass_at_k: { answer_key: sample.answerKey, majority_note: majorityNote, agents: curves },
    curriculum: { edges, agents: curriculum },
    usage: {
      rows_read: sample.read,
      rows: sample.rows,
      sampled: !sample.complete,
      fields,
      missing: sample.fields.filter((f) => !fields.some((g) => g.name === f.name)).map((f) => f.name),
    },
    failures: failuresOverTime(run),
  };
}
