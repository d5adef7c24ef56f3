// One line of the rollout table (or of a task's view): the index's fields of an entry plus what its
// row, read back from disk, says.
import { summarizeRow } from "../row_summary.js";
import { RowReadError, TERMINAL } from "../run_index/entries.js";
import type { RunIndex } from "../run_index/run_index.js";
import { clip, finite } from "./params.js";

const ERROR_CHARS = 300;

export function agentName(run: RunIndex, id: number): string {
  return run.agents.names[run.entries.agent[id]!]!;
}

export function listing(run: RunIndex, id: number) {
  const e = run.entries;
  const failure = run.isFailure(id);
  const task = e.task[id]!;
  const rollout = e.rollout[id]!;
  const base = {
    task,
    rollout,
    agent: agentName(run, id),
    status: failure ? "failure" : "success",
    reward: finite(e.reward[id]!),
    attempt: e.attempt[id]!,
    failure_class: failure ? run.failureClasses.names[e.failureClass[id]!]! : null,
    terminal: failure ? (e.flags[id]! & TERMINAL) !== 0 : null,
    line: e.line[id]!,
  };
  try {
    const row = run.readRow(id);
    const error = failure && row._ng_failure_error !== undefined ? { error: clip(String(row._ng_failure_error), ERROR_CHARS) } : {};
    return { ...base, ...summarizeRow(row, failure ? run.readPlanned(task, rollout) : undefined), ...error };
  } catch (error) {
    if (error instanceof RowReadError) return { ...base, unreadable: error.message };
    throw error;
  }
}
