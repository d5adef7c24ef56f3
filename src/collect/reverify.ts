// `gym eval reverify`: re-run an environment's `/verify` on stored rollouts (row fields + the stored
// `response`; no model calls), with the collector's concurrency, failure accounting and resume.
// This is also how recorded outputs are scored offline.
// A rollout line holds only what its environment's verify response declares, not the whole row; as
// NeMo Gym's reverify does (07d6b0d, nemo_gym/rollout_reverification.py), the row comes from the
// run's materialized inputs, paired by (task, rollout), and only `response` from the rollout.
import { closeSync, existsSync, openSync, writeSync } from "node:fs";
import { call, CallError, joinUrl, truncate } from "../http/client.js";
import { runPlanned, type CollectSummary } from "./collect.js";
import type { FailureLimit, Progress, Stall, WorkItem } from "./scheduler.js";
import { readJsonl, JsonlError } from "./jsonl.js";
import { pairKey, pairOfLine, resultLine } from "./lines.js";
import { readAt, scanLines } from "./line_scan.js";
import { fingerprintOf } from "./fingerprint.js";
import { PlanError, writeAtomically } from "./plan.js";
import { once, type RunFiles } from "./run_files.js";
import { siblingPaths } from "./paths.js";

export interface ReverifyOptions {
  rolloutsPath: string;
  /**
   * The run's `<stem>_materialized_inputs.jsonl`, whose rows are paired with the rollouts. Without it
   * (files of NeMo Gym releases before materialized inputs) each rollout line is its own request.
   */
  materializedInputsPath?: string;
  outputPath: string;
  /** Which environment verifies a stored rollout of this agent (undefined name: rollouts without agent_ref). */
  environmentOf: (agent: string | undefined) => { name: string; url: string } | undefined;
  concurrency: number;
  maxFailures?: FailureLimit;
  maxAttempts?: number;
  resume?: boolean;
  overwrite?: boolean;
  /** Re-verify at most this many stored rollouts (NeMo Gym's `limit`); rollouts carried through do not count. */
  limit?: number;
  /**
   * NeMo Gym's `judge_failed_only`: carry the stored successes through unchanged and re-verify only
   * the rollouts `<rollouts stem>_failures.jsonl` lists as `judge_failed` (each pair once, and none
   * that also succeeded).
   */
  judgeFailedOnly?: boolean;
  /** Skip the environments' `/aggregate_metrics` (NeMo Gym's `disable_aggregation`). */
  disableAggregation?: boolean;
  /**
   * With `judgeFailedOnly`, NeMo Gym's `append`: the successes are already in this file (often the
   * run's own rollouts file), so none is carried and no pair it holds is re-verified.
   */
  appendTo?: string;
  /** `reverifyRunFiles` of these options, already checked by the caller (see `CollectOptions.checkedFiles`). */
  checkedFiles?: RunFiles;
  onProgress?: (progress: Progress) => void;
  onNotice?: (message: string) => void;
  stallMs?: number;
  onStall?: (stall: Stall) => void;
}

/** The judge failures `--judge-failed-only` re-verifies: the stored run's failures file. */
export const judgeFailuresPath = (rolloutsPath: string) => siblingPaths(rolloutsPath).failures;

/** The stored rollouts and the output of a reverify, for checking them before servers start. */
export function reverifyRunFiles(
  options: Pick<ReverifyOptions, "rolloutsPath" | "materializedInputsPath" | "outputPath" | "resume" | "overwrite" | "limit" | "judgeFailedOnly">,
): RunFiles {
  return {
    inputs: [
      { path: options.rolloutsPath, role: "the --rollouts file" },
      ...(options.materializedInputsPath ? [{ path: options.materializedInputsPath, role: "the --inputs file" }] : []),
      ...(options.judgeFailedOnly ? [{ path: judgeFailuresPath(options.rolloutsPath), role: "the --rollouts file's failures file (--judge-failed-only)" }] : []),
    ],
    outputPath: options.outputPath,
    resume: options.resume,
    overwrite: options.overwrite,
    // The stored rollouts are the plan, cut by --limit and --judge-failed-only.
    fingerprint: once(() => fingerprintOf("eval reverify", options.rolloutsPath, { limit: options.limit, judge_failed_only: options.judgeFailedOnly || undefined })),
  };
}

/** What the previous `/verify` added, or the collector wrote; the environment sets these afresh. */
const VERIFY_OUTPUTS = /^(reward|_ng_failure_.*|_ng_attempt_index)$/;

export function verifyRequestOf(rollout: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(rollout).filter(([key]) => !VERIFY_OUTPUTS.test(key)));
}

/**
 * The rows of an inputs file by (task, rollout): only each row's place is kept in memory (a map entry
 * per row, not the row), and a row is read when asked for, through one open file. A run's
 * materialized inputs carry both indices; a plain dataset file (such as NeMo Gym's
 * `data/example.jsonl`) carries neither, and then line N is task N-1 for every rollout of it.
 */
function indexRows(path: string): { rowOf(task: number, rollout: number): Record<string, unknown> | undefined; close(): void } {
  const offsets = new Map<number, number>();
  const lengths = new Map<number, number>();
  let plain: boolean | undefined;
  let rows = 0;
  for (const { text, offset, length, line } of scanLines(path)) {
    const pair = pairOfLine(text);
    plain ??= pair === undefined;
    if (plain !== (pair === undefined)) {
      throw new JsonlError(path, line, "some rows carry `_ng_task_index` and `_ng_rollout_index` and others do not: give a run's materialized inputs (every row indexed) or a plain dataset file (none)");
    }
    if (!pair) parseRow(text, path, line);
    const key = pair ? pairKey(pair[0], pair[1]) : rows;
    rows++;
    offsets.set(key, offset);
    lengths.set(key, length);
  }
  const fd = openSync(path, "r");
  return {
    rowOf: (task, rollout) => {
      const key = plain ? task : pairKey(task, rollout);
      const offset = offsets.get(key);
      if (offset === undefined) return undefined;
      return JSON.parse(readAt(fd, offset, lengths.get(key)!).toString("utf8")) as Record<string, unknown>;
    },
    close: () => closeSync(fd),
  };
}

function parseRow(text: string, path: string, line: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new JsonlError(path, line, `not valid JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new JsonlError(path, line, "each line must be a JSON object");
  return value as Record<string, unknown>;
}

/** The (task, rollout) pairs of a result file's lines. */
function pairsIn(path: string): Set<number> {
  const pairs = new Set<number>();
  if (!existsSync(path)) return pairs;
  for (const { text } of scanLines(path)) {
    const pair = pairOfLine(text);
    if (pair) pairs.add(pairKey(pair[0], pair[1]));
  }
  return pairs;
}

/**
 * `--append`: adds the recovered rollouts (the successes of a judge-failed-only reverify written to
 * `recoveredPath`) to `targetPath`, skipping any pair it already holds, so running it twice adds
 * nothing twice. Returns how many lines were added.
 */
export function appendRecovered(recoveredPath: string, targetPath: string): number {
  const present = pairsIn(targetPath);
  const fd = openSync(targetPath, "a");
  let added = 0;
  try {
    for (const { text } of scanLines(recoveredPath)) {
      const pair = pairOfLine(text);
      if (!pair || present.has(pairKey(pair[0], pair[1]))) continue;
      present.add(pairKey(pair[0], pair[1]));
      writeSync(fd, `${text}\n`);
      added++;
    }
  } finally {
    closeSync(fd);
  }
  return added;
}

/** Where a carried-through rollout keeps its stored result in the plan (`--judge-failed-only`). */
const CARRIED = "_ng_reverify_carried";

export async function reverify(options: ReverifyOptions): Promise<CollectSummary> {
  const writePlan = async (planPath: string) => {
    let total = 0;
    const inputs = options.materializedInputsPath ? indexRows(options.materializedInputsPath) : undefined;
    try {
      await writeAtomically(planPath, async (write) => {
        const plan = (path: string, line: number, row: Record<string, unknown>, carried: boolean) => {
          if (row.response === undefined || row.responses_create_params === undefined) {
            throw new JsonlError(path, line, carried || !options.judgeFailedOnly
              ? "a stored rollout needs `responses_create_params` and `response`"
              : "this judge failure has no `response`: its failures file was written before gym kept the model's output there, so it can only be collected again");
          }
          const agent = (row.agent_ref as { name?: string } | undefined)?.name;
          const environment = options.environmentOf(agent);
          if (!environment) throw new JsonlError(path, line, `no environment for agent "${agent ?? "(none)"}"; pass --resources-server ID or a --config that defines that agent`);
          // NeMo Gym rollout files carry no indices: each line is then its own task.
          const task = typeof row._ng_task_index === "number" ? row._ng_task_index : line - 1;
          const rollout = typeof row._ng_rollout_index === "number" ? row._ng_rollout_index : 0;
          let request = verifyRequestOf(row);
          if (inputs) {
            const input = inputs.rowOf(task, rollout);
            if (!input) throw new JsonlError(path, line, `no row of ${options.materializedInputsPath} has _ng_task_index ${task} and _ng_rollout_index ${rollout}: pass the run's own --inputs`);
            request = { ...input, response: row.response };
          }
          const planned = { ...request, ...(carried ? { [CARRIED]: row } : {}), agent_ref: { type: "responses_api_agents", name: agent ?? environment.name } };
          write(resultLine(task, rollout, planned));
          total++;
          return pairKey(task, rollout);
        };
        let reverified = 0;
        const underLimit = () => options.limit === undefined || reverified < options.limit;
        const succeeded = options.appendTo !== undefined ? pairsIn(options.appendTo) : new Set<number>();
        if (options.appendTo === undefined) {
          for await (const line of readJsonl(options.rolloutsPath)) {
            if (!options.judgeFailedOnly && !underLimit()) break;
            succeeded.add(plan(options.rolloutsPath, line.line, line.value, options.judgeFailedOnly === true));
            if (!options.judgeFailedOnly) reverified++;
          }
        }
        if (options.judgeFailedOnly) {
          const failuresPath = judgeFailuresPath(options.rolloutsPath);
          for await (const line of readJsonl(failuresPath)) {
            if (!underLimit()) break;
            const row = line.value;
            if (row._ng_failure_class !== "judge_failed") continue;
            const key = pairKey(Number(row._ng_task_index), Number(row._ng_rollout_index));
            // A pair that also succeeded is carried; one failed several times is re-verified once.
            if (succeeded.has(key)) continue;
            succeeded.add(plan(failuresPath, line.line, row, false));
            reverified++;
          }
        }
        if (total === 0 && options.appendTo === undefined) throw new PlanError(`${options.rolloutsPath} has no rollouts (no non-blank lines): there is nothing to re-verify`);
      });
    } finally {
      inputs?.close();
    }
    return total;
  };

  const execute = async (item: WorkItem, signal: AbortSignal) => {
    const carried = item.row[CARRIED] as Record<string, unknown> | undefined;
    if (carried) return carried;
    const environment = options.environmentOf(item.agent) ?? options.environmentOf(undefined);
    if (!environment) throw new CallError(`no environment for agent "${item.agent}"`, item.agent, "status", 404);
    const url = joinUrl(environment.url, "/verify");
    const result = await call(url, { body: item.row, signal });
    if (result.status < 200 || result.status >= 300) {
      throw new CallError(`environment ${environment.name} /verify answered ${result.status}: ${truncate(result.text, 2000)}`, url, "status", result.status, result.text);
    }
    return JSON.parse(result.text) as Record<string, unknown>;
  };

  const files = options.checkedFiles ?? reverifyRunFiles(options);
  return runPlanned({
    inputs: files.inputs,
    fingerprint: files.fingerprint,
    preflighted: options.checkedFiles !== undefined,
    overwrite: options.overwrite,
    outputPath: options.outputPath,
    writePlan,
    execute,
    concurrency: options.concurrency,
    aggregateUrlOf: (agent) => {
      if (options.disableAggregation) return undefined;
      const environment = options.environmentOf(agent) ?? options.environmentOf(undefined);
      return environment ? joinUrl(environment.url, "/aggregate_metrics") : undefined;
    },
    maxFailures: options.maxFailures,
    maxAttempts: options.maxAttempts,
    resume: options.resume,
    onProgress: options.onProgress,
    onNotice: options.onNotice,
    stallMs: options.stallMs,
    onStall: options.onStall,
  });
}
