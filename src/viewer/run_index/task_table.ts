// The task list's numbers: per task, from one pass over the entries in display order (no row is
// read), about 50 bytes per task; kept for all agents and for the last few agent filters, with their
// sort orders.
import { DEFAULT_PASS_THRESHOLD } from "../../collect/profile.js";
import { FAILURE, type AgentStats, type Entries } from "./entries.js";

/** Orders of the task list; ties (and tasks without a reward, always last) by task index. */
export const TASK_SORTS = ["task", "mean_reward", "-mean_reward", "pass_rate", "-pass_rate"] as const;
export type TaskSort = (typeof TASK_SORTS)[number];

/** A rollout passes when its reward is ≥ this: `gym eval profile`'s default, so the pass rates agree. */
export const PASS_THRESHOLD = DEFAULT_PASS_THRESHOLD;

/** Task tables kept: the one for all agents and a few per agent filter. */
const TASK_TABLES_KEPT = 4;

/** Per-task numbers of the task list, one slot per task in task-index order; from the index alone. */
export interface TaskTable {
  count: number;
  task: Uint32Array;
  /** Success lines (rollouts) and failure lines. */
  rollouts: Uint32Array;
  failures: Uint32Array;
  /** Rollouts with a numeric reward, and those with reward ≥ PASS_THRESHOLD. */
  rewarded: Uint32Array;
  passes: Uint32Array;
  rewardSum: Float64Array;
  minReward: Float64Array;
  maxReward: Float64Array;
  /** Positions [from, to) in the index's display order of the task's entries. */
  from: Uint32Array;
  to: Uint32Array;
}

/** The table of the entries of `agent` (all agents when undefined), at most `slots` tasks. */
function buildTaskTable(e: Entries, order: Uint32Array, slots: number, agent: number | undefined): TaskTable {
  const table: TaskTable = {
    count: 0,
    task: new Uint32Array(slots),
    rollouts: new Uint32Array(slots),
    failures: new Uint32Array(slots),
    rewarded: new Uint32Array(slots),
    passes: new Uint32Array(slots),
    rewardSum: new Float64Array(slots),
    minReward: new Float64Array(slots).fill(Infinity),
    maxReward: new Float64Array(slots).fill(-Infinity),
    from: new Uint32Array(slots),
    to: new Uint32Array(slots),
  };
  let slot = -1;
  let current = -1;
  for (let i = 0; i < order.length; i++) {
    const id = order[i]!;
    const task = e.task[id]!;
    if (task !== current) {
      current = task;
      slot = -1;
    }
    if (agent !== undefined && e.agent[id] !== agent) continue;
    if (slot < 0) {
      slot = table.count++;
      table.task[slot] = task;
      table.from[slot] = i;
    }
    table.to[slot] = i + 1;
    if (e.flags[id]! & FAILURE) {
      table.failures[slot]!++;
      continue;
    }
    table.rollouts[slot]!++;
    const reward = e.reward[id]!;
    if (!Number.isFinite(reward)) continue;
    table.rewarded[slot]!++;
    table.rewardSum[slot]! += reward;
    if (reward >= PASS_THRESHOLD) table.passes[slot]!++;
    if (reward < table.minReward[slot]!) table.minReward[slot] = reward;
    if (reward > table.maxReward[slot]!) table.maxReward[slot] = reward;
  }
  return table;
}

/** Slots of `table` in the order of `sort`. */
function sortSlots(table: TaskTable, sort: TaskSort): Uint32Array {
  const order = new Uint32Array(table.count);
  for (let i = 0; i < order.length; i++) order[i] = i;
  if (sort === "task") return order;
  const value = (slot: number) => {
    const rewarded = table.rewarded[slot]!;
    if (!rewarded) return Number.NaN;
    return sort.endsWith("mean_reward") ? table.rewardSum[slot]! / rewarded : table.passes[slot]! / rewarded;
  };
  const values = Float64Array.from(order, value);
  const sign = sort.startsWith("-") ? -1 : 1;
  // Slots are in task order, so slot order breaks ties by task; tasks without a reward come last.
  return order.sort((a, b) => {
    const va = values[a]!;
    const vb = values[b]!;
    const na = Number.isNaN(va);
    const nb = Number.isNaN(vb);
    if (na || nb) return na === nb ? a - b : na ? 1 : -1;
    return sign * (va - vb) || a - b;
  });
}

export class TaskTables {
  /** For all agents (key -1) and per agent filter, the last few used. */
  private readonly tables = new Map<number, TaskTable>();
  private readonly orders = new Map<string, Uint32Array>();

  constructor(
    private readonly entries: Entries,
    /** Entry ids in display order. */
    private readonly entryOrder: Uint32Array,
    private readonly tasks: number,
    private readonly agentStats: readonly AgentStats[],
  ) {}

  /** Per-task numbers; `agent` restricts them to that agent's lines (tasks it has none of are left out). */
  table(agent?: number): TaskTable {
    const key = agent ?? -1;
    const kept = this.tables.get(key);
    if (kept) return kept;
    const stats = agent === undefined ? undefined : this.agentStats[agent];
    const slots = agent === undefined ? this.tasks : Math.min(this.tasks, stats ? stats.rollouts + stats.failures : 0);
    const table = buildTaskTable(this.entries, this.entryOrder, slots, agent);
    if (this.tables.size >= TASK_TABLES_KEPT) {
      const oldest = [...this.tables.keys()].find((k) => k !== -1);
      if (oldest !== undefined) {
        this.tables.delete(oldest);
        for (const k of [...this.orders.keys()]) if (k.startsWith(`${oldest}:`)) this.orders.delete(k);
      }
    }
    this.tables.set(key, table);
    return table;
  }

  /** Slots of `table` in the order of `sort`, sorted once per (agent filter, sort) and kept. */
  order(table: TaskTable, agent: number | undefined, sort: TaskSort): Uint32Array {
    const key = `${agent ?? -1}:${sort}`;
    let order = this.orders.get(key);
    if (!order) this.orders.set(key, (order = sortSlots(table, sort)));
    return order;
  }
}
