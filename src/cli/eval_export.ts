// `gym eval export --format tokens --rollouts out.jsonl --output tokens.jsonl`: the trainer export
// (tokens/export.ts) as a command. Rollouts that cannot be exported (no token ids, or not contiguous) are
// listed and make the exit code 3, so a pipeline never trains on a silently shortened set.
import { closeSync, openSync, writeSync } from "node:fs";
import { EXIT, UsageError } from "./exit.js";
import { checkReadableFile, checkWritableFile, ensureParentFolder } from "../config/file_errors.js";
import { refuseFinishedResults, refuseOutputsOverInputs } from "../collect/output_guard.js";
import { exportTokens } from "../tokens/export.js";

export interface ExportOptions {
  rollouts: string;
  output: string;
  format: string;
  overwrite?: boolean;
}

export async function evalExport(options: ExportOptions): Promise<void> {
  if (options.format !== "tokens") throw new UsageError(`--format ${options.format}: the only export format is "tokens"`);
  checkReadableFile(options.rollouts);
  checkWritableFile(options.output);
  refuseOutputsOverInputs([{ path: options.rollouts, role: "the --rollouts file" }], [{ path: options.output, role: "the export output" }]);
  refuseFinishedResults([options.output], { overwrite: options.overwrite, resumable: false });
  ensureParentFolder(options.output);
  const fd = openSync(options.output, "w");
  let summary;
  try {
    summary = await exportTokens(options.rollouts, (line) => writeSync(fd, line));
  } finally {
    closeSync(fd);
  }
  process.stdout.write(`wrote ${summary.written} rollout(s) to ${options.output}\n`);
  if (summary.problems.length) {
    for (const p of summary.problems) process.stderr.write(`gym: not exported: line ${p.line} (task ${p.task}, rollout ${p.rollout}): ${p.message}\n`);
    process.stderr.write(`gym: ${summary.problems.length} rollout(s) could not be exported\n`);
    process.exitCode = EXIT.missing;
  }
}
