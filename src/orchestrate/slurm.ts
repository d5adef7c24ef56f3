// Slurm scale-out: one job array runs the shards of an `eval run` (task i runs shard i/N), and a
// second job, held until every array task succeeds, merges them with `eval aggregate`. This module
// writes the two batch scripts and submits them; it knows nothing of commander or of the config,
// so the CLI decides which `gym` arguments go in and this decides how they are run.
import { execFile } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, delimiter, dirname, extname, join } from "node:path";
import { UserError } from "../config/user_error.js";

/**
 * One word of a job's command line: literal text, or `prefix` followed by the value of an environment
 * variable of the job (a secret: see slurm_secrets.ts), written as `prefix"${NAME}"`.
 */
export type ScriptWord = string | { env: string; prefix: string };

export interface SlurmResources {
  partition?: string;
  time?: string;
  cpusPerTask?: number;
  mem?: string;
  /** Passed through verbatim as extra `#SBATCH` lines of both jobs (`--account=x`, `--qos=y`, …). */
  extra: string[];
}

export interface SubmitPlan {
  /** The command that runs `gym`: the node binary and the CLI entry, both absolute (no PATH needed). */
  gym: string[];
  /** The directory the jobs run in, so relative paths left in overrides mean what they meant here. */
  cwd: string;
  /** Where the scripts go; logs go to `<dir>/logs`. */
  dir: string;
  /** The merged output (absolute); shards are written beside it as `<stem>-shard<i><ext>`. */
  output: string;
  shards: number;
  /** At most this many array tasks at once (`--array=…%K`); undefined = as many as Slurm allows. */
  maxParallel?: number;
  /** `eval run` arguments without `--shard`, `--output` and `--resume`, which each array task adds. */
  runArgs: ScriptWord[];
  /** Extra `eval aggregate` arguments (the config, so the environments' own metrics are recomputed). */
  aggregateArgs: ScriptWord[];
  resources: SlurmResources;
}

export interface SlurmScripts {
  arrayPath: string;
  mergePath: string;
  array: string;
  merge: string;
  logsDir: string;
}

/** Quotes one word for bash: bare when it is plainly safe, otherwise single-quoted. */
export function shellQuote(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Quotes one word of an `#SBATCH` line. sbatch parses these lines itself (no shell): it splits on
 * blanks, honours double quotes and takes the character after a backslash literally.
 */
function directiveQuote(word: string): string {
  return /^[^\s"'\\]*$/.test(word) ? word : `"${word.replace(/["\\]/g, "\\$&")}"`;
}

/** `--flag=value` with the value quoted for an `#SBATCH` line; a bare word otherwise. */
function directive(arg: string): string {
  const match = /^(--?[A-Za-z][\w-]*=)([\s\S]*)$/.exec(arg);
  return `#SBATCH ${match ? match[1]! + directiveQuote(match[2]!) : directiveQuote(arg)}`;
}

/** Slurm expands `%j`, `%A`, … in log file names; a literal `%` in a directory must be doubled. */
const logPattern = (dir: string, name: string) => join(dir.replace(/%/g, "%%"), name);

/** `/a/out.jsonl` → the shard path around the task id: `/a/out-shard` + id + `.jsonl`. */
export function shardPathParts(output: string): { prefix: string; suffix: string } {
  const ext = extname(output);
  return { prefix: join(dirname(output), `${basename(output, ext)}-shard`), suffix: ext };
}

/** The glob `eval aggregate` reads: every shard file of this output. */
export function shardGlob(output: string): string {
  const { prefix, suffix } = shardPathParts(output);
  return `${prefix}*${suffix}`;
}

/**
 * Shard outputs left by an earlier run with more shards. The merge globs `<stem>-shard*`, so these
 * would be merged too: their tasks overlap this run's and would show up as duplicates.
 */
export function staleShards(output: string, shards: number): string[] {
  const { prefix, suffix } = shardPathParts(output);
  const dir = dirname(prefix);
  if (!existsSync(dir)) return [];
  const name = basename(prefix);
  return readdirSync(dir)
    .filter((f) => f.startsWith(name) && f.endsWith(suffix))
    .filter((f) => {
      const index = f.slice(name.length, f.length - suffix.length);
      return /^\d+$/.test(index) && Number(index) >= shards;
    })
    .map((f) => join(dir, f));
}

/** A job name Slurm shows in `squeue` and uses for `%x` in log names. */
function jobName(output: string, role: string): string {
  const stem = basename(output, extname(output)).replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 40) || "run";
  return `gym-${stem}-${role}`;
}

function header(name: string, log: string, resources: SlurmResources): string[] {
  const lines = [directive(`--job-name=${name}`), directive(`--output=${log}`)];
  if (resources.partition) lines.push(directive(`--partition=${resources.partition}`));
  if (resources.time) lines.push(directive(`--time=${resources.time}`));
  if (resources.cpusPerTask) lines.push(directive(`--cpus-per-task=${resources.cpusPerTask}`));
  if (resources.mem) lines.push(directive(`--mem=${resources.mem}`));
  for (const arg of resources.extra) lines.push(directive(arg));
  return lines;
}

/** Quoted words, one flag (with its value) or override per line, for a script a person can read. */
function command(words: ScriptWord[]): string {
  return words
    .map((word, i) => {
      const text = typeof word === "string" ? word : word.prefix;
      const quoted = typeof word === "string" ? shellQuote(word) : `${word.prefix ? shellQuote(word.prefix) : ""}"\${${word.env}}"`;
      return (i > 0 && /^(-|\+)/.test(text) ? " \\\n  " : i > 0 ? " " : "") + quoted;
    })
    .join("");
}

/** The environment variables a job's words refer to. */
function variablesOf(words: ScriptWord[]): string[] {
  return [...new Set(words.flatMap((word) => (typeof word === "string" ? [] : [word.env])))];
}

/** A clear failure, before anything runs, when a secret the command line needs is not in the job's environment. */
function requireVariables(names: string[]): string[] {
  return names.map(
    (name) => `: "\${${name}:?is not set: gym eval submit passes it to sbatch in the environment (it holds a secret, never written here); export it before running this script}"`,
  );
}

export function renderScripts(plan: SubmitPlan): SlurmScripts {
  const logsDir = join(plan.dir, "logs");
  const arrayPath = join(plan.dir, "shards.sbatch");
  const mergePath = join(plan.dir, "merge.sbatch");
  const { prefix, suffix } = shardPathParts(plan.output);
  const last = plan.shards - 1;

  const array = [
    "#!/bin/bash",
    ...header(jobName(plan.output, "shards"), logPattern(logsDir, "%x-%A_%a.out"), plan.resources),
    // `%K` caps how many shards run at once (e.g. to spare a shared model endpoint).
    directive(`--array=0-${last}${plan.maxParallel ? `%${plan.maxParallel}` : ""}`),
    `# Written by \`gym eval submit\`: array task i runs shard i/${plan.shards} of the same \`gym eval run\`.`,
    "# --resume makes a requeued or re-submitted task continue its shard instead of starting over.",
    "set -euo pipefail",
    `: "\${SLURM_ARRAY_TASK_ID:?run this as a Slurm array task (sbatch), or set SLURM_ARRAY_TASK_ID=0..${last}}"`,
    ...requireVariables(variablesOf(plan.runArgs)),
    `cd ${shellQuote(plan.cwd)}`,
    `exec ${command([...plan.gym, "eval", "run", ...plan.runArgs])} \\\n` +
      `  --shard "\${SLURM_ARRAY_TASK_ID}/${plan.shards}" \\\n` +
      `  --output ${shellQuote(prefix)}"\${SLURM_ARRAY_TASK_ID}"${suffix ? shellQuote(suffix) : ""} \\\n` +
      "  --resume",
    "",
  ].join("\n");

  const merge = [
    "#!/bin/bash",
    ...header(jobName(plan.output, "merge"), logPattern(logsDir, "%x-%j.out"), plan.resources),
    // Without this a failed shard leaves the merge pending forever (DependencyNeverSatisfied).
    directive("--kill-on-invalid-dep=yes"),
    "# Written by `gym eval submit`: runs once every shard has succeeded (--dependency=afterok:<array job>);",
    "# refuses to merge a shard without its .done marker, and recomputes the metrics over all of them.",
    "set -euo pipefail",
    ...requireVariables(variablesOf(plan.aggregateArgs)),
    `cd ${shellQuote(plan.cwd)}`,
    `exec ${command([...plan.gym, "eval", "aggregate", "--input-glob", shardGlob(plan.output), "--output", plan.output, ...plan.aggregateArgs])}`,
    "",
  ].join("\n");

  return { arrayPath, mergePath, array, merge, logsDir };
}

/**
 * Writes both scripts and creates the log directory (Slurm does not create it: a job whose log
 * directory is missing fails without a word). Mode 0600: secrets are kept out of them
 * (slurm_secrets.ts), but paths and overrides are still the user's business.
 */
export function writeScripts(scripts: SlurmScripts): void {
  mkdirSync(scripts.logsDir, { recursive: true });
  writeFileSync(scripts.arrayPath, scripts.array, { mode: 0o600 });
  writeFileSync(scripts.mergePath, scripts.merge, { mode: 0o600 });
}

/** The commands `submitScripts` runs, as one shell line a user can paste. */
export function sbatchCommandLine(scripts: SlurmScripts): string {
  return (
    `jobid=$(sbatch --parsable ${shellQuote(scripts.arrayPath)}) && \\\n` +
    `  sbatch --parsable --dependency=afterok:"\${jobid%%;*}" ${shellQuote(scripts.mergePath)}`
  );
}

/** sbatch refused a job or answered unexpectedly: its own words, for the user to act on (a bad partition, a time over the limit, …). */
export class SlurmError extends UserError {}

/** The absolute path of `name` on PATH, if it is there. */
export function findOnPath(name: string, path = process.env.PATH ?? ""): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function sbatch(binary: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(binary, ["--parsable", ...args], { timeout: 60_000, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      if (error) {
        reject(new SlurmError(`sbatch ${args.join(" ")} failed: ${(stderr || error.message).trim()}`));
        return;
      }
      // `--parsable` prints `jobid` or `jobid;cluster`.
      const id = stdout.trim().split(";")[0] ?? "";
      if (!/^\d+$/.test(id)) reject(new SlurmError(`sbatch printed no job id: ${JSON.stringify(stdout.trim())}`));
      else resolve(id);
    });
  });
}

export interface Submission {
  arrayJobId: string;
  mergeJobId: string;
}

/**
 * Submits the array, then the merge held on it. If the merge cannot be submitted the array keeps
 * running (its work is kept and resumable) and the error names it, so the user can merge by hand.
 * `env` (the secrets the scripts refer to) is added to sbatch's environment, which it passes on.
 */
export async function submitScripts(scripts: SlurmScripts, sbatchPath: string, env: Record<string, string> = {}): Promise<Submission> {
  const arrayJobId = await sbatch(sbatchPath, [scripts.arrayPath], env);
  try {
    const mergeJobId = await sbatch(sbatchPath, [`--dependency=afterok:${arrayJobId}`, scripts.mergePath], env);
    return { arrayJobId, mergeJobId };
  } catch (error) {
    throw new SlurmError(
      `${(error as Error).message}\nthe shards are running as job ${arrayJobId}; once it has finished, merge with: ` +
        `sbatch ${shellQuote(scripts.mergePath)} (or run that script with bash)`,
    );
  }
}
