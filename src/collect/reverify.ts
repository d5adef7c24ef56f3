// `gym eval reverify`: re-run an environment's `/verify` on stored rollouts (row fields + the stored
// `response`; no model calls), with the collector's concurrency, failure accounting and resume.
// This is also how recorded outputs are scored offline.
// A rollout line holds only what its environment's verify response declares, not the whole row; as
// NeMo Gym's reverify does (07d6b0d, nemo_gym/rollout_reverification.py), the row comes from the
// run's materialized inputs, paired by (task, rollout), and only `response` from the rollout.
import { closeSync, openSync } from "node:fs";
import { call, CallError, joinUrl, truncate } from "../http/client.js";
import { runPlanned, type CollectSummary } from "./collect.js";
import type { FailureLimit, Progress, Stall, WorkItem } from "./scheduler.js";
import { readJsonl, JsonlError } from "./jsonl.js";
import { pairKey, pairOfLine, resultLine } from "./lines.js";
import { readAt, scanLines } from "./line_scan.js";
import { fingerprintOf } from "./fingerprint.js";
import { PlanError, writeAtomically } from "./plan.js";
import { once, type RunFiles } from "./run_files.js";

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
  /** `reverifyRunFiles` of these options, already checked by the caller (see `CollectOptions.checkedFiles`). */
  checkedFiles?: RunFiles;
  onProgress?: (progress: Progress) => void;
  onNotice?: (message: string) => void;
  stallMs?: number;
  onStall?: (stall: Stall) => void;
}

/** The stored rollouts and the output of a reverify, for checking them before servers start. */
export function reverifyRunFiles(options: Pick<ReverifyOptions, "rolloutsPath" | "materializedInputsPath" | "outputPath" | "resume" | "overwrite">): RunFiles {
  return {
    inputs: [
      { path: options.rolloutsPath, role: "the --rollouts file" },
      ...(options.materializedInputsPath ? [{ path: options.materializedInputsPath, role: "the --materialized-inputs file" }] : []),
    ],
    outputPath: options.outputPath,
    resume: options.resume,
    overwrite: options.overwrite,
    // Every stored rollout is re-verified: the file itself is the whole plan.
    fingerprint: once(() => fingerprintOf("eval reverify", options.rolloutsPath, {})),
  };
}

/** What the previous `/verify` added, or the collector wrote; the environment sets these afresh. */
const VERIFY_OUTPUTS = /^(reward|_ng_failure_.*|_ng_attempt_index)$/;

export function verifyRequestOf(rollout: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(rollout).filter(([key]) => !VERIFY_OUTPUTS.test(key)));
}

/**
 * The rows of a materialized-inputs file by (task, rollout): only each row's place is kept in memory
 * (a map entry per row, not the row), and a row is read when asked for, through one open file. A
 * plain input row (a dataset line without `_ng_task_index`/`_ng_rollout_index`, such as NeMo Gym's
 * data/example.jsonl) is task N for the Nth non-blank line (from 0), for every rollout of that task.
 */
function indexRows(path: string): { rowOf(task: number, rollout: number): Record<string, unknown> | undefined; close(): void } {
  const offsets = new Map<number, number>();
  const lengths = new Map<number, number>();
  const plain = new Map<number, [offset: number, length: number]>();
  let index = 0;
  for (const { text, offset, length } of scanLines(path)) {
    const pair = pairOfLine(text);
    if (pair) {
      offsets.set(pairKey(pair[0], pair[1]), offset);
      lengths.set(pairKey(pair[0], pair[1]), length);
    } else {
      plain.set(index, [offset, length]);
    }
    index++;
  }
  const fd = openSync(path, "r");
  return {
    rowOf: (task, rollout) => {
      const key = pairKey(task, rollout);
      const offset = offsets.get(key);
      const place: [number, number] | undefined = offset !== undefined ? [offset, lengths.get(key)!] : plain.get(task);
      if (place === undefined) return undefined;
      return JSON.parse(readAt(fd, place[0], place[1]).toString("utf8")) as Record<string, unknown>;
    },
    close: () => closeSync(fd),
  };
}

export async function reverify(options: ReverifyOptions): Promise<CollectSummary> {
  const writePlan = async (planPath: string) => {
    let total = 0;
    const inputs = options.materializedInputsPath ? indexRows(options.materializedInputsPath) : undefined;
    try {
      await writeAtomically(planPath, async (write) => {
        for await (const line of readJsonl(options.rolloutsPath)) {
          const row = line.value;
          if (row.response === undefined || row.responses_create_params === undefined) {
            throw new JsonlError(options.rolloutsPath, line.line, "a stored rollout needs `responses_create_params` and `response`");
          }
          const agent = (row.agent_ref as { name?: string } | undefined)?.name;
          const environment = options.environmentOf(agent);
          if (!environment) throw new JsonlError(options.rolloutsPath, line.line, `no environment for agent "${agent ?? "(none)"}"; pass --resources-server ID or a --config that defines that agent`);
          // NeMo Gym rollout files carry no indices: each line is then its own task.
          const task = typeof row._ng_task_index === "number" ? row._ng_task_index : line.line - 1;
          const rollout = typeof row._ng_rollout_index === "number" ? row._ng_rollout_index : 0;
          let request = verifyRequestOf(row);
          if (inputs) {
            const input = inputs.rowOf(task, rollout);
            if (!input) throw new JsonlError(options.rolloutsPath, line.line, `no row of ${options.materializedInputsPath} has _ng_task_index ${task} and _ng_rollout_index ${rollout}: pass the run's own --materialized-inputs`);
            request = { ...input, response: row.response };
          }
          const planned = { ...request, agent_ref: { type: "responses_api_agents", name: agent ?? environment.name } };
          write(resultLine(task, rollout, planned));
          total++;
        }
        if (total === 0) throw new PlanError(`${options.rolloutsPath} has no rollouts (no non-blank lines): there is nothing to re-verify`);
      });
    } finally {
      inputs?.close();
    }
    return total;
  };

  const execute = async (item: WorkItem, signal: AbortSignal) => {
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
