// Building a run's index: one streaming pass per file (rollouts, failures, the plan) that keeps a
// few numbers per line in typed-array columns (about 40 bytes per line however large the rows are),
// then the display order and the pair counts (tasks, failed, duplicated and missing pairs).
import { existsSync, statSync } from "node:fs";
import { scanLines } from "../../collect/line_scan.js";
import { pairKey, pairOf } from "../../collect/lines.js";
import type { siblingPaths } from "../../collect/paths.js";
import { Interner, float64Column, uint16Column, uint32Column, uint8Column } from "../columns.js";
import { FAILURE, MAX_ROLLOUT, MAX_TASK, NO_AGENT, TERMINAL, parseObject, type AgentStats, type Entries, type FileReport, type MalformedLine } from "./entries.js";
import { indexPlanned, type Planned } from "./planned.js";
import { sortEntries } from "./query.js";

/** Malformed lines are all counted; this many are named (file and line) in the summary. */
export const MALFORMED_NAMED = 100;
/** Missing pairs are all counted; this many are named. */
const MISSING_NAMED = 20;

export interface BuiltIndex {
  files: { rollouts: FileReport; failures: FileReport; materialized: FileReport };
  entries: Entries;
  /** Entry ids sorted by (task, rollout, attempt, successes first, file order). */
  order: Uint32Array;
  agents: Interner;
  failureClasses: Interner;
  agentStats: AgentStats[];
  malformed: MalformedLine[];
  malformedCount: number;
  planned: Planned | undefined;
  pairs: PairCounts;
}

export interface PairCounts {
  tasks: number;
  /** Pairs with failure lines and no success line. */
  failedPairs: number;
  /** Pairs with more than one success line. */
  duplicatePairs: number;
  /** Planned pairs with no line in either file: all counted, the first few named. */
  missingPairs: number;
  missingNamed: Array<[number, number]>;
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
export function fieldsOf(row: Record<string, unknown>, lineNo: number, isFailure: boolean): IndexedFields | string {
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

export function fileReport(path: string): FileReport {
  const present = existsSync(path);
  return { path, present, bytes: present ? statSync(path).size : 0, lines: 0 };
}

export function countForAgent(agentStats: AgentStats[], agent: number, name: string, isFailure: boolean, reward: number): void {
  const stats = (agentStats[agent] ??= { name, rollouts: 0, failures: 0, rewarded: 0, rewardSum: 0, minReward: Infinity, maxReward: -Infinity });
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

/** Tasks, failed and duplicated pairs in one pass over the sorted entries; missing pairs against the plan. */
export function countPairs(e: Entries, order: Uint32Array, planned: Planned | undefined): PairCounts {
  const counts: PairCounts = { tasks: 0, failedPairs: 0, duplicatePairs: 0, missingPairs: 0, missingNamed: [] };
  const countMissing = (key: number) => {
    counts.missingPairs++;
    if (counts.missingNamed.length < MISSING_NAMED) counts.missingNamed.push(pairOf(key));
  };
  const plannedKeys = planned?.keys;
  let next = 0; // next planned key to account for
  let previousTask = -1;
  for (let i = 0; i < order.length; ) {
    const first = order[i]!;
    const task = e.task[first]!;
    const rollout = e.rollout[first]!;
    let successes = 0;
    for (; i < order.length; i++) {
      const id = order[i]!;
      if (e.task[id] !== task || e.rollout[id] !== rollout) break;
      if (!(e.flags[id]! & FAILURE)) successes++;
    }
    if (task !== previousTask) counts.tasks++;
    previousTask = task;
    if (successes === 0) counts.failedPairs++;
    if (successes > 1) counts.duplicatePairs++;
    if (plannedKeys) {
      const key = pairKey(task, rollout);
      for (; next < plannedKeys.length && plannedKeys[next]! < key; next++) countMissing(plannedKeys[next]!);
      while (next < plannedKeys.length && plannedKeys[next] === key) next++;
    }
  }
  if (plannedKeys) for (; next < plannedKeys.length; next++) countMissing(plannedKeys[next]!);
  return counts;
}

/** The growable per-line columns an index is built in (sealed into `Entries`). */
export function newColumns() {
  return {
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
}

export function buildIndex(paths: ReturnType<typeof siblingPaths>): BuiltIndex {
  const files = { rollouts: fileReport(paths.output), failures: fileReport(paths.failures), materialized: fileReport(paths.materialized) };
  const agents = new Interner(65536, "(other agents)");
  const failureClasses = new Interner(65536, "(other classes)");
  const agentStats: AgentStats[] = [];
  const malformed: MalformedLine[] = [];
  let malformedCount = 0;
  const reportMalformed = (file: string, line: number, reason: string) => {
    malformedCount++;
    if (malformed.length < MALFORMED_NAMED) malformed.push({ file, line, reason });
  };
  const columns = newColumns();
  const indexFile = (report: FileReport, isFailure: boolean) => {
    if (!report.present) return;
    for (const scanned of scanLines(report.path)) {
      const row = parseObject(scanned.text);
      const fields = typeof row === "string" ? row : fieldsOf(row, scanned.line, isFailure);
      if (typeof fields === "string") {
        reportMalformed(report.path, scanned.line, fields);
        continue;
      }
      const agent = agents.id(fields.agent);
      columns.offset.push(scanned.offset);
      columns.length.push(scanned.length);
      columns.line.push(scanned.line);
      columns.task.push(fields.task);
      columns.rollout.push(fields.rollout);
      columns.agent.push(agent);
      columns.reward.push(fields.reward);
      columns.attempt.push(fields.attempt);
      columns.failureClass.push(isFailure ? failureClasses.id(fields.failureClass) : 0);
      columns.flags.push((isFailure ? FAILURE : 0) | (fields.terminal ? TERMINAL : 0));
      countForAgent(agentStats, agent, agents.names[agent]!, isFailure, fields.reward);
      report.lines++;
    }
  };
  // The failure-class id 0 means "none", so successes need no second column.
  failureClasses.id("");
  indexFile(files.rollouts, false);
  const successes = columns.offset.length;
  indexFile(files.failures, true);
  const entries: Entries = {
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
  const order = sortEntries(entries);
  const planned = indexPlanned(files.materialized, reportMalformed);
  const pairs = countPairs(entries, order, planned);
  return { files, entries, order, agents, failureClasses, agentStats, malformed, malformedCount, planned, pairs };
}
