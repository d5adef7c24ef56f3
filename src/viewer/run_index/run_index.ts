// The index of one run: a few numbers per line of the rollouts and failures files (where the line is,
// its pair, agent, reward, attempt, failure class) in typed arrays, and rows read back from disk by
// offset only when a page or a rollout is shown. Building it (build.ts) is one streaming pass per
// file; memory is about 40 bytes per line however large the rows are (rows with token ids run to
// MBs). Sorting the table by reward or agent adds one Uint32 permutation per sort key, built on first
// use (4 bytes per line each, 12 at most; query.ts); the task list adds about 50 bytes per task
// (task_table.ts).
import { closeSync, existsSync, openSync } from "node:fs";
import { readAt } from "../../collect/line_scan.js";
import { siblingPaths } from "../../collect/paths.js";
import type { Interner } from "../columns.js";
import { buildIndex, type BuiltIndex } from "./build.js";
import { RowReadError, parseObject, type AgentStats, type Entries, type EntryFilter, type EntrySort, type FileReport, type MalformedLine } from "./entries.js";
import { findPlanned, type Planned } from "./planned.js";
import { EntryQuery } from "./query.js";
import { TaskTables, type TaskSort, type TaskTable } from "./task_table.js";

export class RunIndex {
  readonly paths: ReturnType<typeof siblingPaths>;
  readonly files: { rollouts: FileReport; failures: FileReport; materialized: FileReport };
  readonly entries: Entries;
  /** Entry ids sorted by (task, rollout, attempt, successes first, file order). */
  readonly order: Uint32Array;
  readonly agents: Interner;
  readonly failureClasses: Interner;
  readonly agentStats: AgentStats[];
  readonly malformed: MalformedLine[];
  readonly malformedCount: number;
  readonly tasks: number;
  /** Pairs with failure lines and no success line. */
  readonly failedPairs: number;
  /** Pairs with more than one success line. */
  readonly duplicatePairs: number;
  readonly missingPairs: number;
  readonly missingNamed: Array<[number, number]>;
  private readonly planned: Planned | undefined;
  private readonly query: EntryQuery;
  private readonly taskTables: TaskTables;
  private readonly fds: { rollouts?: number; failures?: number; materialized?: number } = {};

  /** `built`: an index built elsewhere (a live run's, growing.ts); by default one pass over the files now. */
  constructor(rolloutsPath: string, built?: BuiltIndex) {
    this.paths = siblingPaths(rolloutsPath);
    built ??= buildIndex(this.paths);
    this.files = built.files;
    this.entries = built.entries;
    this.order = built.order;
    this.agents = built.agents;
    this.failureClasses = built.failureClasses;
    this.agentStats = built.agentStats;
    this.malformed = built.malformed;
    this.malformedCount = built.malformedCount;
    this.planned = built.planned;
    ({ tasks: this.tasks, failedPairs: this.failedPairs, duplicatePairs: this.duplicatePairs, missingPairs: this.missingPairs, missingNamed: this.missingNamed } = built.pairs);
    this.query = new EntryQuery(this.entries, this.order, this.agents.names);
    this.taskTables = new TaskTables(this.entries, this.order, this.tasks, this.agentStats);
    for (const [name, path] of Object.entries({ rollouts: this.paths.output, failures: this.paths.failures, materialized: this.paths.materialized })) {
      if (existsSync(path)) this.fds[name as keyof RunIndex["fds"]] = openSync(path, "r");
    }
  }

  close(): void {
    for (const fd of Object.values(this.fds)) closeSync(fd);
  }

  get plannedCount(): number | undefined {
    return this.planned?.keys.length;
  }

  isFailure(id: number): boolean {
    return this.query.isFailure(id);
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
    const at = findPlanned(planned, task, rollout);
    if (at === undefined) return undefined;
    const row = parseObject(readAt(this.fds.materialized, planned.offset[at]!, planned.length[at]!).toString("utf8"));
    return typeof row === "string" ? undefined : row;
  }

  /** Display order: (task, rollout, attempt, successes first, file order). */
  compare(a: number, b: number): number {
    return this.query.compare(a, b);
  }

  /** Positions [from, to) in `order` of the entries of a pair, or of a whole task when `rollout` is undefined. */
  range(task: number, rollout?: number): [number, number] {
    return this.query.range(task, rollout);
  }

  matches(id: number, filter: EntryFilter): boolean {
    return this.query.matches(id, filter);
  }

  /** A comparison of entry ids for `sort`: the sort key, then display order. */
  comparator(sort: EntrySort): (a: number, b: number) => number {
    return this.query.comparator(sort);
  }

  /** All entry ids in the order of `sort`. */
  sortedOrder(sort: EntrySort): Uint32Array {
    return this.query.sortedOrder(sort);
  }

  /** The entries that pass `filter`, in the order of `sort`: how many, and the ids of [offset, offset + limit). */
  page(filter: EntryFilter, offset: number, limit: number, sort: EntrySort = "task"): { total: number; ids: number[] } {
    return this.query.page(filter, offset, limit, sort);
  }

  /** The entry id of the line of `file` that starts at byte `offset`, if indexed (used by search). */
  entryAt(isFailure: boolean, offset: number): number | undefined {
    return this.query.entryAt(isFailure, offset);
  }

  /** Per-task numbers for all agents or one (`agent`), kept for the last few filters. */
  taskTable(agent?: number): TaskTable {
    return this.taskTables.table(agent);
  }

  /** Slots of `table` in the order of `sort`, sorted once per (agent filter, sort) and kept. */
  taskOrder(table: TaskTable, agent: number | undefined, sort: TaskSort): Uint32Array {
    return this.taskTables.order(table, agent, sort);
  }
}
