// `gym eval aggregate`: merge shard outputs into one file sorted by (task, rollout), with their plans
// and failure logs, then account for every pair and recompute metrics over the whole. Lines are
// indexed by position (24 bytes each) and copied in order, so shards larger than memory merge fine.
import { closeSync, existsSync, openSync, writeFileSync, writeSync } from "node:fs";
import { accountFor, type Accounting } from "./accounting.js";
import { globFiles } from "./glob.js";
import { readLedger } from "./ledger.js";
import { pairKey, pairOfLine } from "./lines.js";
import { siblingPaths } from "./paths.js";
import { computeRunMetrics, type AgentMetricsSummary, type RunMetricsOptions } from "./run_metrics.js";
import { readAt, scanLines } from "./line_scan.js";

export class MergeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InputError";
  }
}

const SIBLING = /(_materialized_inputs|_failures|_aggregate_metrics|_reward_profiling)\.jsonl?$|\.done$/;

export interface MergeOptions {
  inputGlob: string;
  outputPath: string;
  allowPartial?: boolean;
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

export async function mergeShards(options: MergeOptions): Promise<MergeSummary> {
  const outputPaths = siblingPaths(options.outputPath);
  const shards = globFiles(options.inputGlob).filter((f) => !SIBLING.test(f) && f !== outputPaths.output);
  if (shards.length === 0) throw new MergeError(`no shard outputs match ${options.inputGlob}`);
  const incomplete = shards.filter((s) => !existsSync(siblingPaths(s).done));
  if (incomplete.length > 0 && !options.allowPartial) {
    throw new MergeError(`${incomplete.length} of ${shards.length} shards are not complete (no .done marker): ${incomplete.join(", ")}. Finish them with \`gym eval run --resume --shard I/N\`, or pass --allow-partial.`);
  }
  const parts = shards.map((s) => siblingPaths(s));
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
