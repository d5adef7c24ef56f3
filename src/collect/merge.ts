// `gym eval aggregate`: merge shard outputs into one file sorted by (task, rollout), with their plans
// and failure logs, then account for every pair and recompute metrics over the whole. Lines are
// indexed by position (24 bytes each) and copied in order, so shards larger than memory merge fine.
import { closeSync, existsSync, openSync, writeFileSync, writeSync } from "node:fs";
import { accountFor, type Accounting } from "./accounting.js";
import { checkReadableFile, checkWritableFile, ensureParentFolder } from "../config/file_errors.js";
import { refuseFinishedResults, refuseOutputsOverInputs, type NamedFile } from "./output_guard.js";
import { runOutputs } from "./run_files.js";
import { globFiles } from "./glob.js";
import { readLedger } from "./ledger.js";
import { pairKey, pairOfLine } from "./lines.js";
import { siblingPaths } from "./paths.js";
import { computeRunMetrics, type AgentMetricsSummary, type RunMetricsOptions } from "./run_metrics.js";
import { readAt, scanLines } from "./line_scan.js";
import { UserError } from "../config/user_error.js";

export class MergeError extends UserError {}

const SIBLING = /(_materialized_inputs|_failures|_aggregate_metrics|_reward_profiling|_plan_fingerprint)\.jsonl?$|\.done$|_model_server\.log$/;

export interface MergeOptions {
  inputGlob: string;
  outputPath: string;
  allowPartial?: boolean;
  /** Replace an earlier merged output (without it, one that holds lines is refused). */
  overwrite?: boolean;
  metrics?: RunMetricsOptions;
}

export interface MergeSummary {
  shards: string[];
  incomplete: string[];
  accounting: Accounting;
  metrics: AgentMetricsSummary[];
  paths: ReturnType<typeof siblingPaths>;
}

/** Copies every line of `sources` into `target`, sorted by pair key. */
function writeSorted(sources: string[], target: string): void {
  const keys: number[] = [];
  const files: number[] = [];
  const offsets: number[] = [];
  const lengths: number[] = [];
  sources.forEach((source, fileIndex) => {
    if (!existsSync(source)) return;
    for (const line of scanLines(source)) {
      const pair = pairOfLine(line.text);
      if (!pair) throw new MergeError(`${source}: a line at byte ${line.offset} has no _ng_task_index/_ng_rollout_index`);
      keys.push(pairKey(pair[0], pair[1]));
      files.push(fileIndex);
      offsets.push(line.offset);
      lengths.push(line.length);
    }
  });
  const order = Uint32Array.from(keys.keys()).sort((a, b) => keys[a]! - keys[b]! || files[a]! - files[b]!);
  const fds = sources.map((s) => (existsSync(s) ? openSync(s, "r") : -1));
  const out = openSync(target, "w");
  try {
    for (const i of order) {
      writeSync(out, readAt(fds[files[i]!]!, offsets[i]!, lengths[i]!));
      writeSync(out, "\n");
    }
  } finally {
    closeSync(out);
    for (const fd of fds) if (fd >= 0) closeSync(fd);
  }
}

/**
 * The shard outputs the glob matches, after checking every file the merge reads and writes: inputs
 * readable, outputs writable, no output one of the inputs (or their plans and failure logs), and no
 * earlier merged output replaced without `overwrite`.
 */
export function checkMergeFiles(options: MergeOptions): string[] {
  const outputPaths = siblingPaths(options.outputPath);
  const shards = globFiles(options.inputGlob).filter((f) => !SIBLING.test(f) && f !== outputPaths.output);
  if (shards.length === 0) throw new MergeError(`no shard outputs match ${options.inputGlob}`);
  const inputs: NamedFile[] = [];
  for (const shard of shards) {
    checkReadableFile(shard);
    const parts = siblingPaths(shard);
    inputs.push({ path: shard, role: "the shard output" }, { path: parts.materialized, role: "the shard plan" }, { path: parts.failures, role: "the shard failures file" });
  }
  const outputs = runOutputs(options.outputPath);
  for (const output of outputs) checkWritableFile(output.path);
  refuseOutputsOverInputs(inputs, outputs);
  refuseFinishedResults([outputPaths.output, outputPaths.failures, outputPaths.metrics], { overwrite: options.overwrite, resumable: false });
  return shards;
}

export async function mergeShards(options: MergeOptions): Promise<MergeSummary> {
  const outputPaths = siblingPaths(options.outputPath);
  const shards = checkMergeFiles(options);
  const incomplete = shards.filter((s) => !existsSync(siblingPaths(s).done));
  if (incomplete.length > 0 && !options.allowPartial) {
    throw new MergeError(`${incomplete.length} of ${shards.length} shards are not complete (no .done marker): ${incomplete.join(", ")}. Finish them with \`gym eval run --resume --shard I/N\`, or pass --allow-partial.`);
  }
  const parts = shards.map((s) => siblingPaths(s));
  ensureParentFolder(outputPaths.output);
  writeSorted(parts.map((p) => p.output), outputPaths.output);
  writeSorted(parts.map((p) => p.materialized), outputPaths.materialized);
  writeSorted(parts.map((p) => p.failures), outputPaths.failures);
  const accounting = await accountFor(outputPaths.materialized, await readLedger(outputPaths.output, outputPaths.failures));
  const computed = await computeRunMetrics(outputPaths.output, options.metrics);
  try {
    computed.write(outputPaths.metrics);
  } finally {
    computed.dispose();
  }
  const metrics = computed.summaries;
  if (accounting.missing.count === 0 && accounting.duplicated.count === 0 && incomplete.length === 0) {
    writeFileSync(outputPaths.done, `${JSON.stringify({ merged: shards, ...accounting }, null, 2)}\n`);
  }
  return { shards, incomplete, accounting, metrics, paths: outputPaths };
}
