// `gym eval submit`: the same run as `gym eval run`, split into N shards that run as a Slurm job array,
// plus a merge job held until every shard succeeds. Everything that can be checked here is checked
// before anything is submitted, because a mistake found by the cluster costs a queue wait per try.
import { checkReadableFile, checkWritableFile } from "../config/file_errors.js";
import { refuseFinishedResults, refuseOutputsOverInputs } from "../collect/output_guard.js";
import { runOutputs } from "../collect/run_files.js";
import { basename, dirname, extname, join, resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { emptyShards } from "../collect/plan.js";
import { agentNamesOf, checkPlan } from "../orchestrate/run_preflight.js";
import {
  findOnPath,
  renderScripts,
  sbatchCommandLine,
  shardGlob,
  shardPathParts,
  staleShards,
  submitScripts,
  writeScripts,
  type SlurmResources,
} from "../orchestrate/slurm.js";
import { engineUrls } from "../orchestrate/readiness.js";
import { exportProblem, hideSecrets, type JobSecrets } from "../orchestrate/slurm_secrets.js";
import { redactUrl } from "../config/url_secrets.js";
import { parseOverride, readsSetting } from "../config/index.js";
import { resolveCliConfig, type CliConfigOptions } from "./config_args.js";
import { UsageError } from "./exit.js";
import { parseModelServerFlags, parseRunOptions, positiveInt, type RunFlags } from "./run_options.js";

interface EvalSubmitOptions extends CliConfigOptions, Omit<RunFlags, "shard" | "resume"> {
  shards: string;
  maxParallel?: string;
  dryRun?: boolean;
  dir?: string;
  partition?: string;
  time?: string;
  cpusPerTask?: string;
  mem?: string;
  sbatchArg: string[];
  [key: string]: unknown;
}

/** Options of `submit` itself; everything else it has is an `eval run` option and is forwarded. */
const SUBMIT_ONLY = new Set(["shards", "maxParallel", "dryRun", "dir", "partition", "time", "cpusPerTask", "mem", "sbatchArg"]);
/**
 * Set by each array task (`--output`) or resolved here and passed explicitly (`--input`); `--overwrite`
 * is about the merged output, checked here: array tasks always `--resume`, so a requeued task keeps its work.
 */
const NOT_FORWARDED = new Set(["output", "input", "overwrite"]);
/** The job may run in another directory than this shell: paths go in absolute. */
const PATH_OPTIONS = new Set(["config", "modelPath", "nemoGymRoot", "nemoGymPython", "benchmarkCache"]);
/** What `eval aggregate` needs to start the environments and recompute their own metrics. */
const CONFIG_OPTIONS = new Set(["config", "resourcesServer", "modelType", "modelUrl", "model", "modelApiKey", "modelPath", "judgeUrl", "judgeModel", "nemoGymRoot", "nemoGymPython", "nemoGymReadyTimeout", "benchmark"]);

/** The node binary and the CLI entry this very process runs, so the jobs need no `gym` on PATH. */
const GYM = [process.execPath, fileURLToPath(new URL("./main.js", import.meta.url))];

/**
 * The `eval run` flags the user gave, rebuilt as arguments, for every option `submit` shares with
 * `run` (main.ts copies them from `run`, so a new `run` option is forwarded without a change here).
 */
function forwardedArgs(command: Command, options: EvalSubmitOptions, only?: Set<string>): string[] {
  const args: string[] = [];
  for (const option of command.options) {
    const key = option.attributeName();
    if (SUBMIT_ONLY.has(key) || NOT_FORWARDED.has(key) || (only && !only.has(key))) continue;
    const source = command.getOptionValueSource(key);
    if (source === undefined || source === "default" || source === "implied") continue;
    const value = options[key];
    const flag = option.long ?? option.short!;
    if (option.negate) {
      if (value === false) args.push(flag);
    } else if (typeof value === "boolean") {
      if (value) args.push(flag);
    } else {
      for (const item of Array.isArray(value) ? value : [value]) {
        const text = String(item);
        args.push(flag, PATH_OPTIONS.has(key) ? resolvePath(text) : text);
      }
    }
  }
  return args;
}

function isLoopback(url: string): boolean {
  try {
    return /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i.test(new URL(url).hostname);
  } catch {
    return false;
  }
}


/**
 * `eval run`'s file checks for every file the jobs will write: each shard output and its siblings, and
 * the merged output. Shard outputs from an earlier submit are resumed by design (run the same command
 * again after a failure), but a finished merged output is not replaced without --overwrite.
 */
function checkSubmitFiles(inputPath: string, outputPath: string, shards: number, overwrite: boolean): void {
  checkReadableFile(inputPath);
  const { prefix, suffix } = shardPathParts(outputPath);
  const outputs = [...runOutputs(outputPath), ...Array.from({ length: shards }, (_, i) => runOutputs(`${prefix}${i}${suffix}`)).flat()];
  for (const output of outputs) checkWritableFile(output.path);
  refuseOutputsOverInputs([{ path: inputPath, role: "the input file" }], outputs);
  refuseFinishedResults([outputPath], { overwrite, resumable: false });
}

export async function evalSubmit(overrides: string[], options: EvalSubmitOptions, command: Command): Promise<void> {
  const shards = positiveInt("--shards", options.shards)!;
  const maxParallel = positiveInt("--max-parallel", options.maxParallel);
  positiveInt("--cpus-per-task", options.cpusPerTask);
  if (options.time !== undefined && !/^((\d+-)?\d+(:\d{1,2}){0,2}|unlimited|infinite)$/i.test(options.time)) {
    throw new UsageError(`--time must be a Slurm time limit such as 04:00:00, 90 or 1-12:00:00, got ${options.time}`);
  }
  // Every run option is checked by the code `eval run` checks it with, so a typo fails here, not in N jobs.
  parseModelServerFlags(options);

  // The same resolution `eval run` does, so a config error surfaces now and not in N job logs. With
  // --model-server-cmd each array task starts its own server on its own port and points the policy
  // at it; until then any URL stands in (the merge job never calls the policy, but its config must
  // resolve too).
  const selfHosted = options.modelServerCmd !== undefined && options.modelUrl === undefined;
  const standIn = selfHosted ? ["--model-url", "http://127.0.0.1:0/v1"] : [];
  const resolved = await resolveCliConfig(overrides, selfHosted ? { ...options, modelUrl: standIn[1] } : options, { command: "eval submit" });
  const settings = resolved.config;
  // Each array task would collate the datasets again, into its own place: collate once with `eval run` instead.
  if (options.split ?? settings.split) {
    throw new UsageError("--split is not supported by gym eval submit: run `gym eval run --split S --limit 1` once to write <output stem>/preprocessed_datasets/S.jsonl, then submit with --input set to that file");
  }
  if (options.benchmark !== undefined && options.input === undefined && settings.input_jsonl_fpath === undefined) {
    throw new UsageError(
      `--benchmark ${options.benchmark}: gym eval submit needs the benchmark's rows collated once: run \`gym eval run --benchmark ${options.benchmark} --limit 1 -o OUT.jsonl …\`, then submit with --benchmark ${options.benchmark} --input OUT/preprocessed_datasets/benchmark.jsonl (the dataset's num_repeats still applies)`,
    );
  }
  const run = await parseRunOptions(options, settings);
  const inputPath = resolvePath(run.input);
  const outputPath = resolvePath(run.output);
  checkSubmitFiles(inputPath, outputPath, shards, Boolean(options.overwrite));
  if (options.modelPath !== undefined) checkReadableFile(resolvePath(String(options.modelPath)));
  if (options.serve !== false && !resolved.instances.some((i) => i.type === "responses_api_agents")) {
    throw new UsageError("the config defines no agent (responses_api_agents); add --resources-server ID or a config that defines one");
  }
  // The input and the repeats map as each array task would check them before its engine starts.
  if (options.serve !== false) {
    await checkPlan({
      inputPath,
      knownAgents: agentNamesOf(resolved.instances),
      defaultAgent: options.agent ?? (settings.agent_name as string | undefined) ?? resolved.onlyAgentOfResourcesServer,
      repeats: run.repeats,
      limit: run.limit,
      paramOverrides: run.paramOverrides,
      prompt: run.prompt,
    });
  }
  const { empty, tasks } = await emptyShards(inputPath, shards, run.limit);
  if (empty.length > 0) {
    const listed = empty.length > 10 ? `${empty.slice(0, 10).join(", ")}, …` : empty.join(", ");
    throw new UsageError(`--shards ${shards}: ${empty.length} shard(s) would get no task (${listed}; the input has ${tasks} task${tasks === 1 ? "" : "s"}), and an empty shard fails its array task; use fewer shards`);
  }
  // `eval aggregate` finds the shards by a glob that understands `*` and `?` only in the file name.
  if (/[*?]/.test(outputPath)) throw new UsageError(`--output must not contain * or ?: the merge finds the shards by the glob ${shardGlob(outputPath)}`);
  const stale = staleShards(outputPath, shards);
  if (stale.length > 0) {
    throw new UsageError(`${stale.length} shard output(s) from an earlier run with more shards would be merged into this one: ${stale.slice(0, 5).join(", ")}${stale.length > 5 ? ", …" : ""}. Remove them (and their _materialized_inputs/_failures/.done files) or choose another --output.`);
  }

  const sbatchPath = options.dryRun ? undefined : findOnPath("sbatch");
  if (!options.dryRun && !sbatchPath) {
    throw new UsageError("sbatch not found on PATH: run this on a Slurm login node, or pass --dry-run to write and print the scripts without submitting");
  }

  const resources: SlurmResources = {
    partition: options.partition,
    time: options.time,
    cpusPerTask: options.cpusPerTask === undefined ? undefined : Number(options.cpusPerTask),
    mem: options.mem,
    extra: options.sbatchArg,
  };
  const dir = resolvePath(options.dir ?? join(dirname(outputPath), `${basename(outputPath, extname(outputPath))}_slurm`));
  // The scripts and logs/ go there: a file in the way, /proc (where Node's recursive mkdir never returns), … are named now.
  checkWritableFile(join(dir, "logs", "shards.sbatch"), options.dir === undefined ? join(dir, "logs") : `--dir ${options.dir}`);
  // The merged output was checked above (refused if it holds a result and --overwrite is not given), so
  // the merge job may replace what it finds: at most its own earlier, interrupted attempt.
  // The merge job resolves the same config, without the run settings it would only warn about.
  const runOnly = (override: string) => {
    const key = parseOverride(override).path[0] ?? "";
    return readsSetting("eval run", key) && !readsSetting("eval aggregate", key);
  };
  const configArgs = [...forwardedArgs(command, options, CONFIG_OPTIONS), ...standIn, ...overrides.filter((override) => !runOnly(override))];
  // API keys and URL passwords reach the jobs through sbatch's environment, never the scripts.
  const secrets: JobSecrets = new Map();
  const runArgs = hideSecrets([...forwardedArgs(command, options), "--input", inputPath, ...overrides], secrets);
  const aggregateArgs = hideSecrets(configArgs, secrets);
  const blocked = exportProblem(resources.extra, secrets);
  if (blocked) throw new UsageError(blocked);
  const scripts = renderScripts({
    gym: GYM,
    cwd: process.cwd(),
    dir,
    output: outputPath,
    shards,
    maxParallel,
    runArgs,
    aggregateArgs: ["--overwrite", ...aggregateArgs],
    resources,
  });
  writeScripts(scripts);
  // The classic first-cluster-run mistake: an engine on this machine's loopback is not on the nodes'.
  if (!selfHosted) {
    for (const { instance, url } of engineUrls(resolved.instances)) {
      if (isLoopback(url)) {
        process.stderr.write(
          `gym: warning: ${instance} calls its engine at ${redactUrl(url)}, a loopback address: array tasks on other nodes will not reach it. Use an address the compute nodes can reach, or --model-server-cmd to start an engine in each task.\n`,
        );
      }
    }
  }

  const out = process.stdout;
  if (!sbatchPath) {
    const names = [...secrets.keys()];
    const setFirst = names.length === 0 ? "" : `# the jobs read ${names.join(", ")} (secrets you gave) from the environment sbatch passes on: export ${names.length === 1 ? "it" : "them"} first.\n`;
    out.write(
      `# ${scripts.arrayPath}\n${scripts.array}\n# ${scripts.mergePath}\n${scripts.merge}\n` +
        `# dry run: nothing submitted. Submit with:\n${setFirst}${sbatchCommandLine(scripts)}\n`,
    );
    return;
  }
  // sbatch refusing a job (bad partition, time over the limit, …) is a SlurmError: a user error, exit 2.
  const { arrayJobId, mergeJobId } = await submitScripts(scripts, sbatchPath, Object.fromEntries(secrets));
  out.write(
    `submitted ${shards} shard(s) as array job ${arrayJobId} and the merge as job ${mergeJobId} (runs once every shard succeeds)\n` +
      `scripts: ${scripts.arrayPath}\n         ${scripts.mergePath}\n` +
      `logs:    ${scripts.logsDir}/\n` +
      `watch:   squeue -j ${arrayJobId},${mergeJobId}\n` +
      `         sacct -j ${arrayJobId},${mergeJobId} --format=JobID,JobName%30,State,ExitCode,Elapsed\n` +
      `output:  ${outputPath} (with its _aggregate_metrics.json, written by the merge job)\n` +
      `if a shard fails, the merge is cancelled: fix the cause and run this same command again; finished rollouts are kept (--resume).\n`,
  );
}
