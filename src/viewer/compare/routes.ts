// The comparison API of a multi-run `gym view` (the first run is the baseline):
// GET /api/runs: the runs, named, with their files and versions;
// GET /api/compare: per run its numbers and key metrics, per other run its differences from the
//   baseline (stats.ts) and per-task win/loss/tie counts;
// GET /api/compare/tasks: the union of the runs' tasks, one row per task with each run's mean reward
//   and the differences, filtered by outcome, sorted, paged;
// GET /api/compare/tasks/:task: that task in every run — stats, rollouts, and one rollout's full row
//   per run (`?rollout=`, else the first with a success) for the conversations side by side.
// Per-task tables are built once per version of the runs (a live run changes them) and kept.
import type { FastifyInstance } from "fastify";
import { HttpError } from "../../http/errors.js";
import { summarizeRow } from "../row_summary.js";
import type { RunSource } from "../live/run_source.js";
import { listing } from "../routes/listing.js";
import { choiceParam, clip, finite, integerParam, pageParams, pairParams, type Query } from "../routes/params.js";
import { FAILURE } from "../run_index/entries.js";
import type { RunIndex } from "../run_index/run_index.js";
import { compareRuns, runNumbers, taskMeans, TIE_EPSILON, type TaskMeans } from "./stats.js";

const TASK_PAGE_DEFAULT = 50;
const TASK_PAGE_MAX = 500;
const PROMPT_CHARS = 160;
const TASK_ROLLOUTS_SHOWN = 50;
export const COMPARE_SORTS = ["task", "delta", "-delta"] as const;
export const OUTCOMES = ["", "win", "loss", "tie", "unmatched"] as const;

interface Snapshot {
  key: string;
  runs: RunIndex[];
  numbers: Array<ReturnType<typeof runNumbers>>;
  means: TaskMeans[];
  /** Every task of any run, ascending, and per run the task's slot in its TaskMeans (-1: none). */
  tasks: Uint32Array;
  slots: Int32Array[];
  orders: Map<string, Uint32Array>;
  /** Each other run against the baseline, computed on first ask. */
  comparisons: Array<ReturnType<typeof compareRuns> | undefined>;
}

function unionOfTasks(means: TaskMeans[]): { tasks: Uint32Array; slots: Int32Array[] } {
  const all = new Set<number>();
  for (const m of means) for (const task of m.task) all.add(task);
  const tasks = Uint32Array.from(all).sort();
  const slots = means.map((m) => {
    const slot = new Int32Array(tasks.length).fill(-1);
    let j = 0;
    for (let i = 0; i < tasks.length && j < m.task.length; i++) if (m.task[j] === tasks[i]) slot[i] = j++;
    return slot;
  });
  return { tasks, slots };
}

/** The first line of the task's first user message, from its first readable row. */
function promptLine(run: RunIndex, from: number, to: number): string | null {
  for (let i = from; i < Math.min(to, from + 5); i++) {
    const id = run.order[i]!;
    if (run.entries.flags[id]! & FAILURE) continue;
    try {
      const first = summarizeRow(run.readRow(id)).snippet.trim().split("\n")[0];
      return first ? clip(first, PROMPT_CHARS) : null;
    } catch {
      continue;
    }
  }
  return null;
}

export function compareRoutes(app: FastifyInstance, sources: readonly RunSource[]): void {
  let snapshot: Snapshot | undefined;
  const current = (): Snapshot => {
    const key = sources.map((s) => s.version).join(",");
    if (snapshot?.key === key) return snapshot;
    const runs = sources.map((s) => s.run);
    const means = runs.map(taskMeans);
    snapshot = { key, runs, numbers: runs.map(runNumbers), means, ...unionOfTasks(means), orders: new Map(), comparisons: [] };
    return snapshot;
  };
  const otherParam = (query: Query) => {
    const other = integerParam(query, "run", 1, sources.length - 1);
    if (other === 0) throw new HttpError(400, "run must name another run than the baseline (1 or more)");
    return other;
  };
  /** The other run's mean − the baseline's for the task at `at` of the union, NaN when either has none. */
  const delta = (s: Snapshot, other: number, at: number) => {
    const sa = s.slots[0]![at]!;
    const sb = s.slots[other]![at]!;
    return sa < 0 || sb < 0 ? Number.NaN : s.means[other]!.mean[sb]! - s.means[0]!.mean[sa]!;
  };
  const outcomeOf = (d: number) => (Number.isNaN(d) ? "unmatched" : d > TIE_EPSILON ? "win" : d < -TIE_EPSILON ? "loss" : "tie");

  app.get("/api/runs", async () => ({
    baseline: sources[0]!.name,
    runs: sources.map((s) => ({ name: s.name, path: s.path, version: s.version, rollouts: s.run.entries.successes, failures: s.run.entries.count - s.run.entries.successes })),
  }));

  app.get("/api/compare", async () => {
    const s = current();
    return {
      baseline: sources[0]!.name,
      runs: sources.map((source, i) => {
        const { variance: _v, passVariance: _p, ...numbers } = s.numbers[i]!;
        return {
          name: source.name,
          path: source.path,
          ...numbers,
          key_metrics: Object.fromEntries(source.metrics.agents.map((agent) => [agent.name, agent.entry.key_metrics ?? null])),
          comparison: i === 0 ? null : (s.comparisons[i] ??= compareRuns({ numbers: s.numbers[0]!, tasks: s.means[0]! }, { numbers: s.numbers[i]!, tasks: s.means[i]! })),
        };
      }),
    };
  });

  app.get("/api/compare/tasks", async (request) => {
    const query = request.query as Query;
    const { offset, limit } = pageParams(query, TASK_PAGE_DEFAULT, TASK_PAGE_MAX);
    const sort = choiceParam(query, "sort", COMPARE_SORTS);
    const outcome = choiceParam(query, "outcome", OUTCOMES);
    const other = sources.length > 1 ? otherParam(query) : 0;
    const s = current();
    const orderKey = `${sort}:${outcome}:${other}`;
    let order = s.orders.get(orderKey);
    if (!order) {
      const positions: number[] = [];
      for (let at = 0; at < s.tasks.length; at++) if (!outcome || (other > 0 && outcomeOf(delta(s, other, at)) === outcome)) positions.push(at);
      if (sort !== "task" && other > 0) {
        const sign = sort === "delta" ? 1 : -1;
        const deltas = Float64Array.from(positions, (at) => delta(s, other, at));
        const index = Uint32Array.from(positions.keys()).sort((x, y) => {
          const dx = deltas[x]!;
          const dy = deltas[y]!;
          if (Number.isNaN(dx) || Number.isNaN(dy)) return Number.isNaN(dx) === Number.isNaN(dy) ? x - y : Number.isNaN(dx) ? 1 : -1;
          return sign * (dx - dy) || x - y;
        });
        order = Uint32Array.from(index, (k) => positions[k]!);
      } else order = Uint32Array.from(positions);
      s.orders.set(orderKey, order);
    }
    const rows = Array.from(order.subarray(Math.min(offset, order.length), Math.min(order.length, offset + limit)), (at) => {
      let prompt: string | null = null;
      const runs = s.runs.map((run, i) => {
        const slot = s.slots[i]![at]!;
        if (slot < 0) return null;
        const m = s.means[i]!;
        prompt ??= promptLine(run, m.from[slot]!, run.range(s.tasks[at]!)[1]);
        return { mean_reward: finite(m.mean[slot]!), pass_rate: finite(m.pass[slot]!), rollouts: m.rollouts[slot]!, failures: m.failures[slot]! };
      });
      const deltas = s.runs.map((_, i) => (i === 0 ? null : finite(delta(s, i, at))));
      return { task: s.tasks[at]!, prompt, runs, deltas, outcomes: deltas.map((d, i) => (i === 0 ? null : outcomeOf(d ?? Number.NaN))) };
    });
    return { total: order.length, offset, limit, sort, outcome, run: other, rows };
  });

  app.get("/api/compare/tasks/:task", async (request) => {
    const [task] = pairParams(request.params as Record<string, string>, ["task"]) as [number];
    const query = request.query as Query;
    const wanted = query.rollout ? integerParam(query, "rollout", 0) : undefined;
    const runs = sources.map((source) => {
      const run = source.run;
      const [from, to] = run.range(task);
      const ids = Array.from(run.order.subarray(from, to));
      const successes = ids.filter((id) => !run.isFailure(id));
      const rewards = successes.map((id) => run.entries.reward[id]!).filter(Number.isFinite);
      const pick = (wanted === undefined ? undefined : successes.find((id) => run.entries.rollout[id] === wanted)) ?? successes[0] ?? ids[ids.length - 1];
      let shown: Record<string, unknown> | null = null;
      if (pick !== undefined) {
        const base = { rollout: run.entries.rollout[pick]!, status: run.isFailure(pick) ? "failure" : "success", reward: finite(run.entries.reward[pick]!), source: { file: run.fileOf(pick), line: run.entries.line[pick]! } };
        try {
          const row = run.readRow(pick);
          shown = { ...base, row, planned_row: run.isFailure(pick) ? (run.readPlanned(task, base.rollout) ?? null) : null };
        } catch (error) {
          shown = { ...base, unreadable: (error as Error).message };
        }
      }
      return {
        name: source.name,
        rollouts: successes.length,
        failures: ids.length - successes.length,
        mean_reward: rewards.length ? rewards.reduce((x, y) => x + y, 0) / rewards.length : null,
        rows: ids.slice(0, TASK_ROLLOUTS_SHOWN).map((id) => listing(run, id)),
        shown,
      };
    });
    if (runs.every((r) => r.rollouts + r.failures === 0)) throw new HttpError(404, `no run has a rollout of task ${task}`);
    return { task, rollout: wanted ?? null, runs };
  });
}
