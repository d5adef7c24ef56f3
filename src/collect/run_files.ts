// The files of a planned run (`eval run`, `eval reverify`) checked before anything starts: every input
// readable, every output writable and none of them an input, no earlier result replaced without
// `--overwrite`, and a `--resume` only of a run planned from the same input and settings.
import { checkReadableFile, checkWritableFile, FileError } from "../config/file_errors.js";
import { checkExtensible } from "./extend.js";
import { differences, isRepeatsExtension, readFingerprint, type PlanFingerprint } from "./fingerprint.js";
import { refuseFinishedResults, refuseOutputsOverInputs, type NamedFile } from "./output_guard.js";
import { siblingPaths } from "./paths.js";

export interface RunFiles {
  inputs: readonly NamedFile[];
  outputPath: string;
  resume?: boolean;
  overwrite?: boolean;
  /** `--extend`: the resumed run's plan may grow (checked against the old plan when it is made). */
  extend?: boolean;
  /** Computed on demand: hashing the input is only needed to resume or to plan. */
  fingerprint: () => PlanFingerprint;
}

/** Every file gym writes for a run with this output, as messages name them. */
export function runOutputs(outputPath: string): NamedFile[] {
  const paths = siblingPaths(outputPath);
  return [
    { path: paths.output, role: "the output file" },
    { path: paths.materialized, role: "the output's plan file" },
    { path: paths.failures, role: "the output's failures file" },
    { path: paths.metrics, role: "the output's metrics file" },
    { path: paths.done, role: "the output's .done marker" },
    { path: paths.fingerprint, role: "the output's plan fingerprint" },
    { path: paths.modelServerLog, role: "the output's model server log" },
  ];
}

/** Memoises a fingerprint so the input is hashed once per run however many times it is asked for. */
export function once(compute: () => PlanFingerprint): () => PlanFingerprint {
  let value: PlanFingerprint | undefined;
  return () => (value ??= compute());
}

export function checkRunFiles(files: RunFiles, onNotice?: (message: string) => void): void {
  for (const input of files.inputs) checkReadableFile(input.path, input.path);
  const outputs = runOutputs(files.outputPath);
  for (const output of outputs) checkWritableFile(output.path);
  refuseOutputsOverInputs(files.inputs, outputs);
  const paths = siblingPaths(files.outputPath);
  refuseFinishedResults([paths.output, paths.failures, paths.metrics], { ...files, resumable: true });
  if (files.resume) checkResumable(files, onNotice);
}

function checkResumable(files: RunFiles, onNotice?: (message: string) => void): void {
  const paths = siblingPaths(files.outputPath);
  const planned = readFingerprint(paths.fingerprint);
  if (!planned) {
    onNotice?.(`${paths.fingerprint} does not exist (a run made before gym recorded plan fingerprints, or none was planned yet): resuming without checking that the input and settings are the ones that run used`);
    return;
  }
  const requested = files.fingerprint();
  const changed = differences(planned, requested);
  if (files.extend) {
    checkExtensible(planned, requested, files.outputPath);
    if (changed.length > 0) onNotice?.(`--extend: growing the plan of ${files.outputPath} (${changed.join("; ")})`);
    return;
  }
  if (changed.length === 0) return;
  if (isRepeatsExtension(planned, requested)) {
    throw new FileError(
      `--resume ${files.outputPath}: more repeats than the run planned (${changed[0]}). Add --extend to grow the finished run by the new repeats (recorded in its plan fingerprint), or collect them into another --output`,
    );
  }
  throw new FileError(
    `--resume ${files.outputPath}: that run was planned differently (${changed.join("; ")}). Resume with the same input and settings, or start over with --overwrite or another --output`,
  );
}
