// The index of one run: a few numbers per line of the rollouts and failures files (where the line is,
// its pair, agent, reward, attempt, failure class) in typed arrays, and rows read back from disk by
// offset only when a page or a rollout is shown. Building it is one streaming pass per file; memory
// is about 40 bytes per line however large the rows are (rows with token ids run to MBs). Sorting the
// table by reward or agent adds one Uint32 permutation per sort key, built on first use (4 bytes per
// line each, 12 at most); the task list adds about 50 bytes per task.
import { closeSync, existsSync, openSync, statSync } from "node:fs";
import { readAt, scanLines } from "../collect/line_scan.js";
import { pairKey, pairOf, pairOfLine } from "../collect/lines.js";
import { siblingPaths } from "../collect/paths.js";
import { DEFAULT_PASS_THRESHOLD } from "../collect/profile.js";
import { Interner, float64Column, uint16Column, uint32Column, uint8Column } from "./columns.js";

/** The agent of rows without `agent_ref` (NeMo Gym rollout files often have none). */
export const NO_AGENT = "(none)";
/** Flag bits of an entry. */
export const FAILURE = 1;
export const TERMINAL = 2;

/** Malformed lines are all counted; this many are named (file and line) in the summary. */
const MALFORMED_NAMED = 100;
/** Missing pairs are all counted; this many are named. */
const MISSING_NAMED = 20;
const MAX_TASK = 2 ** 32;
const MAX_ROLLOUT = 2 ** 21;
/** Task tables kept: the one for all agents and a few per agent filter. */
const TASK_TABLES_KEPT = 4;

export interface MalformedLine {
  file: string;
  line: number;
  reason: string;
}

export interface FileReport {
  path: string;
  present: boolean;
  bytes: number;
  /** Lines indexed (malformed ones excluded). */
  lines: number;
}

export interface AgentStats {
  name: string;
  rollouts: number;
  failures: number;
  rewarded: number;
  rewardSum: number;
  minReward: number;
  maxReward: number;
}

export interface EntryFilter {
  agent?: number;
  minReward?: number;
  maxReward?: number;
  status?: "success" | "failure";
  task?: number;
}

/** Orders of the rollout table; every one breaks ties by display order (task, rollout, attempt, …). */
export const ENTRY_SORTS = ["task", "reward", "-reward", "agent"] as const;
export type EntrySort = (typeof ENTRY_SORTS)[number];

/** Orders of the task list; ties (and tasks without a reward, always last) by task index. */
export const TASK_SORTS = ["task", "mean_reward", "-mean_reward", "pass_rate", "-pass_rate"] as const;
export type TaskSort = (typeof TASK_SORTS)[number];

/** A rollout passes when its reward is ≥ this: `gym eval profile`'s default, so the pass rates agree. */
export const PASS_THRESHOLD = DEFAULT_PASS_THRESHOLD;

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
  /** Positions [from, to) in `RunIndex.order` of the task's entries. */
  from: Uint32Array;
  to: Uint32Array;
}

/** The per-line columns; entry ids [0, successes) are lines of the rollouts file, the rest of the failures file. */
export interface Entries {
  count: number;
  successes: number;
  offset: Float64Array;
  length: Uint32Array;
  line: Uint32Array;
  task: Uint32Array;
  rollout: Uint32Array;
  agent: Uint16Array;
  reward: Float64Array;
  attempt: Uint16Array;
  failureClass: Uint16Array;
  flags: Uint8Array;
}

/** A row could not be read back: the file changed since it was indexed. */
export class RowReadError extends Error {
  constructor(file: string, line: number) {
    super(`${file}:${line} no longer holds the row indexed at startup (the file changed); restart gym view`);
    this.name = "RowReadError";
  }
}

interface IndexedFields {
  task: number;
  rollout: number;
  agent: string;
  reward: number;
  attempt: number;
  failureClass: string;
  terminal: boolean;
}

const isIndex = (value: unknown, max: number): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0 && value < max;

function agentName(row: Record<string, unknown>): string {
  const ref = row.agent_ref as { name?: unknown } | null | undefined;
  return ref && typeof ref === "object" && typeof ref.name === "string" && ref.name ? ref.name : NO_AGENT;
}

/** What the index keeps of a row, or why the row cannot be indexed. */
function fieldsOf(row: Record<string, unknown>, lineNo: number, isFailure: boolean): IndexedFields | string {
  let task: number;
  let rollout: number;
  if (row._ng_task_index === undefined && !isFailure) {
    // NeMo Gym rollout files carry no indices: each line is then its own task (as `eval reverify` reads them).
    task = lineNo - 1;
    rollout = 0;
  } else {
    if (!isIndex(row._ng_task_index, MAX_TASK)) return `_ng_task_index must be a whole number ≥ 0, got ${JSON.stringify(row._ng_task_index) ?? "nothing"}`;
    task = row._ng_task_index;
    rollout = row._ng_rollout_index === undefined ? 0 : (row._ng_rollout_index as number);
    if (!isIndex(rollout, MAX_ROLLOUT)) return `_ng_rollout_index must be a whole number ≥ 0, got ${JSON.stringify(row._ng_rollout_index)}`;
  }
  const attempt = isIndex(row._ng_attempt_index, 65536) ? row._ng_attempt_index : 0;
  return {
    task,
    rollout,
    agent: agentName(row),
    reward: !isFailure && typeof row.reward === "number" ? row.reward : Number.NaN,
    attempt,
    failureClass: isFailure ? String(row._ng_failure_class ?? "unknown") : "",
    terminal: row._ng_failure_terminal === true,
  };
}

function parseObject(text: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return `expected a JSON object, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`;
  return value as Record<string, unknown>;
}

function fileReport(path: string): FileReport {
  const present = existsSync(path);
  return { path, present, bytes: present ? statSync(path).size : 0, lines: 0 };
}

/** The planned pairs (`<stem>_materialized_inputs.jsonl`), sorted by pair key, to find inputs of failed rollouts and missing pairs. */
interface Planned {
  keys: Float64Array;
  offset: Float64Array;
  length: Uint32Array;
}

export class RunIndex {
  readonly paths: ReturnType<typeof siblingPaths>;
  readonly files: { rollouts: FileReport; failures: FileReport; materialized: FileReport };
  readonly entries: Entries;
  /** Entry ids sorted by (task, rollout, attempt, successes first, file order). */
  readonly order: Uint32Array;
  readonly agents = new Interner(65536, "(other agents)");
  readonly failureClasses = new Interner(65536, "(other classes)");
  readonly agentStats: AgentStats[] = [];
  readonly malformed: MalformedLine[] = [];
  malformedCount = 0;
  tasks = 0;
  /** Pairs with failure lines and no success line. */
  failedPairs = 0;
  /** Pairs with more than one success line. */
  duplicatePairs = 0;
  missingPairs = 0;
  readonly missingNamed: Array<[number, number]> = [];
  private readonly planned: Planned | undefined;
  /** Permutations of entry ids per sort key other than "task" (which is `order`), built on first use. */
  private readonly sorted = new Map<EntrySort, Uint32Array>();
  /** Task tables: for all agents (key -1) and per agent filter, the last few used. */
  private readonly taskTables = new Map<number, TaskTable>();
  private readonly taskOrders = new Map<string, Uint32Array>();
  private readonly fds: { rollouts?: number; failures?: number; materialized?: number } = {};

  constructor(rolloutsPath: string) {
    this.paths = siblingPaths(rolloutsPath);
    this.files = { rollouts: fileReport(this.paths.output), failures: fileReport(this.paths.failures), materialized: fileReport(this.paths.materialized) };
    const columns = {
      offset: float64Column(),
      length: uint32Column(),
      line: uint32Column(),
      task: uint32Column(),
      rollout: uint32Column(),
      agent: uint16Column(),
      reward: float64Column(),
      attempt: uint16Column(),
      failureClass: uint16Column(),
      flags: uint8Column(),
    };
    const indexFile = (report: FileReport, isFailure: boolean) => {
      if (!report.present) return;
      for (const scanned of scanLines(report.path)) {
        const row = parseObject(scanned.text);
        const fields = typeof row === "string" ? row : fieldsOf(row, scanned.line, isFailure);
        if (typeof fields === "string") {
          this.reportMalformed(report.path, scanned.line, fields);
          continue;
        }
        const agent = this.agents.id(fields.agent);
        columns.offset.push(scanned.offset);
        columns.length.push(scanned.length);
        columns.line.push(scanned.line);
        columns.task.push(fields.task);
        columns.rollout.push(fields.rollout);
        columns.agent.push(agent);
        columns.reward.push(fields.reward);
        columns.attempt.push(fields.attempt);
        columns.failureClass.push(isFailure ? this.failureClasses.id(fields.failureClass) : 0);
        columns.flags.push((isFailure ? FAILURE : 0) | (fields.terminal ? TERMINAL : 0));
        this.countForAgent(agent, isFailure, fields.reward);
        report.lines++;
      }
    };
    // The failure-class id 0 means "none", so successes need no second column.
    this.failureClasses.id("");
    indexFile(this.files.rollouts, false);
    const successes = columns.offset.length;
    indexFile(this.files.failures, true);
    this.entries = {
      count: columns.offset.length,
      successes,
      offset: columns.offset.seal(),
      length: columns.length.seal(),
      line: columns.line.seal(),
      task: columns.task.seal(),
      rollout: columns.rollout.seal(),
      agent: columns.agent.seal(),
      reward: columns.reward.seal(),
      attempt: columns.attempt.seal(),
      failureClass: columns.failureClass.seal(),
      flags: columns.flags.seal(),
    };
    this.order = this.sortEntries();
    this.planned = this.indexPlanned();
    this.countPairs();
    for (const [name, path] of Object.entries({ rollouts: this.paths.output, failures: this.paths.failures, materialized: this.paths.materialized })) {
      if (existsSync(path)) this.fds[name as keyof RunIndex["fds"]] = openSync(path, "r");
    }
  }

  close(): void {
    for (const fd of Object.values(this.fds)) closeSync(fd);
  }

  private reportMalformed(file: string, line: number, reason: string): void {
    this.malformedCount++;
    if (this.malformed.length < MALFORMED_NAMED) this.malformed.push({ file, line, reason });
  }

  private countForAgent(agent: number, isFailure: boolean, reward: number): void {
    const stats = (this.agentStats[agent] ??= {
      name: this.agents.names[agent]!,
      rollouts: 0,
      failures: 0,
      rewarded: 0,
      rewardSum: 0,
      minReward: Infinity,
      maxReward: -Infinity,
    });
    if (isFailure) {
      stats.failures++;
      return;
    }
    stats.rollouts++;
    if (Number.isFinite(reward)) {
      stats.rewarded++;
      stats.rewardSum += reward;
      stats.minReward = Math.min(stats.minReward, reward);
      stats.maxReward = Math.max(stats.maxReward, reward);
    }
  }

  /** Display order: (task, rollout, attempt, successes first, file order). */
  compare(a: number, b: number): number {
    const e = this.entries;
    return e.task[a]! - e.task[b]! || e.rollout[a]! - e.rollout[b]! || e.attempt[a]! - e.attempt[b]! || (e.flags[a]! & FAILURE) - (e.flags[b]! & FAILURE) || a - b;
  }

  private sortEntries(): Uint32Array {
    const order = new Uint32Array(this.entries.count);
    for (let i = 0; i < order.length; i++) order[i] = i;
    // Collector output is written as rollouts finish, so usually nearly but not quite sorted;
    // merged and NeMo Gym files usually are sorted, and then sorting costs one pass.
    let sorted = true;
    for (let i = 1; i < order.length && sorted; i++) sorted = this.compare(i - 1, i) <= 0;
    if (!sorted) order.sort((a, b) => this.compare(a, b));
    return order;
  }

  private indexPlanned(): Planned | undefined {
    const report = this.files.materialized;
    if (!report.present) return undefined;
    const keys = float64Column();
    const offset = float64Column();
    const length = uint32Column();
    for (const scanned of scanLines(report.path)) {
      let pair = pairOfLine(scanned.text);
      if (!pair) {
        const row = parseObject(scanned.text);
        if (typeof row === "string") {
          this.reportMalformed(report.path, scanned.line, row);
          continue;
        }
        pair = [scanned.line - 1, 0];
      }
      keys.push(pairKey(pair[0], pair[1]));
      offset.push(scanned.offset);
      length.push(scanned.length);
      report.lines++;
    }
    const planned = { keys: keys.seal(), offset: offset.seal(), length: length.seal() };
    let sorted = true;
    for (let i = 1; i < planned.keys.length && sorted; i++) sorted = planned.keys[i - 1]! <= planned.keys[i]!;
    if (sorted) return planned;
    const order = Array.from(planned.keys.keys()).sort((a, b) => planned.keys[a]! - planned.keys[b]!);
    return {
      keys: Float64Array.from(order, (i) => planned.keys[i]!),
      offset: Float64Array.from(order, (i) => planned.offset[i]!),
      length: Uint32Array.from(order, (i) => planned.length[i]!),
    };
  }

  /** Tasks, failed and duplicated pairs in one pass over the sorted entries; missing pairs against the plan. */
  private countPairs(): void {
    const e = this.entries;
    const plannedKeys = this.planned?.keys;
    let next = 0; // next planned key to account for
    let previousTask = -1;
    for (let i = 0; i < this.order.length; ) {
      const first = this.order[i]!;
      const task = e.task[first]!;
      const rollout = e.rollout[first]!;
      let successes = 0;
      for (; i < this.order.length; i++) {
        const id = this.order[i]!;
        if (e.task[id] !== task || e.rollout[id] !== rollout) break;
        if (!(e.flags[id]! & FAILURE)) successes++;
      }
      if (task !== previousTask) this.tasks++;
      previousTask = task;
      if (successes === 0) this.failedPairs++;
      if (successes > 1) this.duplicatePairs++;
      if (plannedKeys) {
        const key = pairKey(task, rollout);
        for (; next < plannedKeys.length && plannedKeys[next]! < key; next++) this.countMissing(plannedKeys[next]!);
        while (next < plannedKeys.length && plannedKeys[next] === key) next++;
      }
    }
    if (plannedKeys) for (; next < plannedKeys.length; next++) this.countMissing(plannedKeys[next]!);
  }

  private countMissing(key: number): void {
    this.missingPairs++;
    if (this.missingNamed.length < MISSING_NAMED) this.missingNamed.push(pairOf(key));
  }

  get plannedCount(): number | undefined {
    return this.planned?.keys.length;
  }

  isFailure(id: number): boolean {
    return (this.entries.flags[id]! & FAILURE) !== 0;
  }

  fileOf(id: number): string {
    return this.isFailure(id) ? this.paths.failures : this.paths.output;
  }

  /** The full row of an entry, read from disk. */
  readRow(id: number): Record<string, unknown> {
    const fd = this.isFailure(id) ? this.fds.failures : this.fds.rollouts;
    const e = this.entries;
    const row = fd === undefined ? "closed" : parseObject(readAt(fd, e.offset[id]!, e.length[id]!).toString("utf8"));
    if (typeof row === "string") throw new RowReadError(this.fileOf(id), e.line[id]!);
    return row;
  }

  /** The planned input row of a pair (from the materialized inputs), if the run kept one. */
  readPlanned(task: number, rollout: number): Record<string, unknown> | undefined {
    const planned = this.planned;
    if (!planned || this.fds.materialized === undefined) return undefined;
    const key = pairKey(task, rollout);
    const at = lowerBound(planned.keys.length, (i) => planned.keys[i]! < key);
    if (planned.keys[at] !== key) return undefined;
    const row = parseObject(readAt(this.fds.materialized, planned.offset[at]!, planned.length[at]!).toString("utf8"));
    return typeof row === "string" ? undefined : row;
  }

  /** Positions [from, to) in `order` of the entries of a pair, or of a whole task when `rollout` is undefined. */
  range(task: number, rollout?: number): [number, number] {
    const e = this.entries;
    const before = (i: number, r: number) => {
      const id = this.order[i]!;
      return e.task[id]! < task || (e.task[id] === task && e.rollout[id]! < r);
    };
    const from = lowerBound(this.order.length, (i) => before(i, rollout ?? 0));
    const to = lowerBound(this.order.length, (i) => before(i, rollout === undefined ? MAX_ROLLOUT : rollout + 1));
    return [from, to];
  }

  matches(id: number, filter: EntryFilter): boolean {
    const e = this.entries;
    if (filter.agent !== undefined && e.agent[id] !== filter.agent) return false;
    if (filter.status !== undefined && this.isFailure(id) !== (filter.status === "failure")) return false;
    // Failures have no reward (NaN), so any reward bound leaves them out.
    if (filter.minReward !== undefined && !(e.reward[id]! >= filter.minReward)) return false;
    if (filter.maxReward !== undefined && !(e.reward[id]! <= filter.maxReward)) return false;
    if (filter.task !== undefined && e.task[id] !== filter.task) return false;
    return true;
  }

  /** A comparison of entry ids for `sort`: the sort key, then display order (so ties are stable by task, rollout). */
  comparator(sort: EntrySort): (a: number, b: number) => number {
    const e = this.entries;
    if (sort === "task") return (a, b) => this.compare(a, b);
    if (sort === "agent") {
      // Agent ids are in order of first appearance; rank them by name.
      const names = this.agents.names;
      const rank = new Uint16Array(names.length);
      Array.from(names.keys())
        .sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0))
        .forEach((agent, i) => (rank[agent] = i));
      return (a, b) => rank[e.agent[a]!]! - rank[e.agent[b]!]! || this.compare(a, b);
    }
    const sign = sort === "reward" ? 1 : -1;
    // Failure lines (no reward) come last in both directions.
    return (a, b) => {
      const ra = e.reward[a]!;
      const rb = e.reward[b]!;
      const na = Number.isNaN(ra);
      const nb = Number.isNaN(rb);
      if (na || nb) return na === nb ? this.compare(a, b) : na ? 1 : -1;
      return sign * (ra - rb) || this.compare(a, b);
    };
  }

  /** All entry ids in the order of `sort`: `order` for "task", else a permutation sorted once and kept (4 bytes per line). */
  sortedOrder(sort: EntrySort): Uint32Array {
    if (sort === "task") return this.order;
    let sorted = this.sorted.get(sort);
    if (!sorted) {
      sorted = this.order.slice().sort(this.comparator(sort));
      this.sorted.set(sort, sorted);
    }
    return sorted;
  }

  /** The entries that pass `filter`, in the order of `sort`: how many, and the ids of [offset, offset + limit). */
  page(filter: EntryFilter, offset: number, limit: number, sort: EntrySort = "task"): { total: number; ids: number[] } {
    const byTask = sort === "task";
    const order = this.sortedOrder(sort);
    const [from, to] = filter.task === undefined || !byTask ? [0, order.length] : this.range(filter.task);
    // Nothing to filter on (or, in task order, only a task): the page is a slice, no walk over millions of entries.
    if (Object.entries(filter).every(([key, value]) => (byTask && key === "task") || value === undefined)) {
      return { total: to - from, ids: Array.from(order.subarray(Math.min(to, from + offset), Math.min(to, from + offset + limit))) };
    }
    const ids: number[] = [];
    let total = 0;
    for (let i = from; i < to; i++) {
      const id = order[i]!;
      if (!this.matches(id, filter)) continue;
      if (total >= offset && ids.length < limit) ids.push(id);
      total++;
    }
    return { total, ids };
  }

  /**
   * Per-task numbers, from one pass over `order` (no row is read), kept for all agents and for the last
   * few agent filters; `agent` restricts them to that agent's lines (tasks it has none of are left out).
   */
  taskTable(agent?: number): TaskTable {
    const key = agent ?? -1;
    const kept = this.taskTables.get(key);
    if (kept) return kept;
    const e = this.entries;
    const n = agent === undefined ? this.tasks : Math.min(this.tasks, this.agentStats[agent] ? this.agentStats[agent].rollouts + this.agentStats[agent].failures : 0);
    const table: TaskTable = {
      count: 0,
      task: new Uint32Array(n),
      rollouts: new Uint32Array(n),
      failures: new Uint32Array(n),
      rewarded: new Uint32Array(n),
      passes: new Uint32Array(n),
      rewardSum: new Float64Array(n),
      minReward: new Float64Array(n).fill(Infinity),
      maxReward: new Float64Array(n).fill(-Infinity),
      from: new Uint32Array(n),
      to: new Uint32Array(n),
    };
    let slot = -1;
    let current = -1;
    for (let i = 0; i < this.order.length; i++) {
      const id = this.order[i]!;
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
    if (this.taskTables.size >= TASK_TABLES_KEPT) {
      const oldest = [...this.taskTables.keys()].find((k) => k !== -1);
      if (oldest !== undefined) {
        this.taskTables.delete(oldest);
        for (const k of [...this.taskOrders.keys()]) if (k.startsWith(`${oldest}:`)) this.taskOrders.delete(k);
      }
    }
    this.taskTables.set(key, table);
    return table;
  }

  /** Slots of `table` in the order of `sort`, sorted once per (agent filter, sort) and kept. */
  taskOrder(table: TaskTable, agent: number | undefined, sort: TaskSort): Uint32Array {
    const key = `${agent ?? -1}:${sort}`;
    let order = this.taskOrders.get(key);
    if (order) return order;
    order = new Uint32Array(table.count);
    for (let i = 0; i < order.length; i++) order[i] = i;
    if (sort !== "task") {
      const value = (slot: number) => {
        const rewarded = table.rewarded[slot]!;
        if (!rewarded) return Number.NaN;
        return sort.endsWith("mean_reward") ? table.rewardSum[slot]! / rewarded : table.passes[slot]! / rewarded;
      };
      const values = Float64Array.from(order, value);
      const sign = sort.startsWith("-") ? -1 : 1;
      // Slots are in task order, so slot order breaks ties by task; tasks without a reward come last.
      order.sort((a, b) => {
        const va = values[a]!;
        const vb = values[b]!;
        const na = Number.isNaN(va);
        const nb = Number.isNaN(vb);
        if (na || nb) return na === nb ? a - b : na ? 1 : -1;
        return sign * (va - vb) || a - b;
      });
    }
    this.taskOrders.set(key, order);
    return order;
  }

  /** The entry id of the line of `file` that starts at byte `offset`, if indexed (used by search). */
  entryAt(isFailure: boolean, offset: number): number | undefined {
    const e = this.entries;
    const base = isFailure ? e.successes : 0;
    const end = isFailure ? e.count : e.successes;
    const at = base + lowerBound(end - base, (i) => e.offset[base + i]! < offset);
    return at < end && e.offset[at] === offset ? at : undefined;
  }
}

/** The first i in [0, n) for which `isBefore(i)` is false (`isBefore` holds on a prefix). */
export function lowerBound(n: number, isBefore: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isBefore(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
