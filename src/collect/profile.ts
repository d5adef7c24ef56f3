// `gym eval profile`: per-task reward statistics of a rollout file, for curriculum filtering
// (drop tasks every rollout solves, or none does). One streaming pass; a few numbers per task.
import { closeSync, openSync, writeSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { checkReadableFile, checkWritableFile, ensureParentFolder } from "../config/file_errors.js";
import { JsonlError } from "./jsonl.js";
import { scanLines } from "./line_scan.js";
import { refuseFinishedResults, refuseOutputsOverInputs } from "./output_guard.js";

export interface TaskProfile {
  _ng_task_index: number;
  agent_ref?: unknown;
  num_rollouts: number;
  mean_reward: number;
  std_reward: number;
  min_reward: number;
  max_reward: number;
  /** Share of rollouts with reward ≥ the pass threshold. */
  pass_rate: number;
}

interface Running {
  n: number;
  mean: number;
  m2: number;
  min: number;
  max: number;
  passes: number;
  agent?: unknown;
}

export interface ProfileSummary {
  path: string;
  tasks: number;
  rollouts: number;
  allPass: number;
  allFail: number;
  mixed: number;
  meanReward: number;
}

export function profilePath(rolloutsPath: string): string {
  const ext = extname(rolloutsPath);
  return join(dirname(rolloutsPath), `${basename(rolloutsPath, ext)}_reward_profiling.jsonl`);
}

/** A rollout passes when its reward is at least this (the default of `--pass-threshold`; the viewer's too). */
export const DEFAULT_PASS_THRESHOLD = 1;

export async function profileRewards(rolloutsPath: string, options: { passThreshold?: number; outputPath?: string; overwrite?: boolean } = {}): Promise<ProfileSummary> {
  const threshold = options.passThreshold ?? DEFAULT_PASS_THRESHOLD;
  const path = options.outputPath ?? profilePath(rolloutsPath);
  checkReadableFile(rolloutsPath);
  checkWritableFile(path);
  refuseOutputsOverInputs([{ path: rolloutsPath, role: "the --rollouts file" }], [{ path, role: "the profile output" }]);
  refuseFinishedResults([path], { overwrite: options.overwrite, resumable: false });
  const tasks = new Map<number, Running>();
  let rollouts = 0;
  let total = 0;
  for (const { text, line: lineNo } of scanLines(rolloutsPath)) {
    let row: Record<string, unknown>;
    try {
      row = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new JsonlError(rolloutsPath, lineNo, "not valid JSON");
    }
    const task = row._ng_task_index;
    const reward = row.reward;
    if (typeof task !== "number" || typeof reward !== "number") throw new JsonlError(rolloutsPath, lineNo, "a rollout needs numeric _ng_task_index and reward");
    let t = tasks.get(task);
    if (!t) tasks.set(task, (t = { n: 0, mean: 0, m2: 0, min: Infinity, max: -Infinity, passes: 0, agent: row.agent_ref }));
    // Welford's update: exact enough and one pass.
    t.n++;
    const delta = reward - t.mean;
    t.mean += delta / t.n;
    t.m2 += delta * (reward - t.mean);
    t.min = Math.min(t.min, reward);
    t.max = Math.max(t.max, reward);
    if (reward >= threshold) t.passes++;
    rollouts++;
    total += reward;
  }
  ensureParentFolder(path);
  const fd = openSync(path, "w");
  let allPass = 0;
  let allFail = 0;
  try {
    for (const [task, t] of [...tasks].sort((a, b) => a[0] - b[0])) {
      const profile: TaskProfile = {
        _ng_task_index: task,
        ...(t.agent ? { agent_ref: t.agent } : {}),
        num_rollouts: t.n,
        mean_reward: t.mean,
        std_reward: t.n > 1 ? Math.sqrt(t.m2 / (t.n - 1)) : 0,
        min_reward: t.min,
        max_reward: t.max,
        pass_rate: t.passes / t.n,
      };
      if (t.passes === t.n) allPass++;
      else if (t.passes === 0) allFail++;
      writeSync(fd, `${JSON.stringify(profile)}\n`);
    }
  } finally {
    closeSync(fd);
  }
  return { path, tasks: tasks.size, rollouts, allPass, allFail, mixed: tasks.size - allPass - allFail, meanReward: rollouts ? total / rollouts : 0 };
}
