// `gym eval reverify`: start only the environments (and any model they use, e.g. a judge), check each
// is safe to re-verify, and score stored rollouts again.
import { existsSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { parseAutoConcurrency, setAutoConcurrency, type AutoBounds } from "../http/adaptive_limit.js";
import { siblingPaths } from "../collect/paths.js";
import { appendRecovered, judgeFailuresPath, reverify, reverifyRunFiles } from "../collect/reverify.js";
import { repairTornLine } from "../collect/ledger.js";
import { computeRunMetrics } from "../collect/run_metrics.js";
import { checkRunFiles } from "../collect/run_files.js";
import { callJson, closeDispatcher, joinUrl } from "../http/client.js";
import { startServers } from "../orchestrate/start.js";
import { nemoGymStartOptions, resolveCliConfig, type CliConfigOptions } from "./config_args.js";
import { RunRetries } from "../orchestrate/retry_totals.js";
import { reportCollection } from "./eval_run.js";
import { DEFAULT_HEARTBEAT_S, parseFailureLimit, resumeAndOverwrite } from "./run_options.js";
import { UsageError } from "./exit.js";
import { ProgressPrinter } from "./progress.js";

interface ReverifyCliOptions extends CliConfigOptions {
  rollouts: string;
  materializedInputs?: string;
  /** NeMo Gym's `--inputs`: the same file as --materialized-inputs. */
  inputs?: string;
  output: string;
  concurrency?: string;
  maxFailures?: string;
  maxAttempts?: string;
  resume?: boolean;
  overwrite?: boolean;
  force?: boolean;
  limit?: string;
  disableAggregation?: boolean;
  judgeFailedOnly?: boolean;
  append?: boolean;
  quiet: boolean;
}

export async function evalReverify(overrides: string[], options: ReverifyCliOptions): Promise<void> {
  const resolved = await resolveCliConfig(overrides, options, { environmentsOnly: true, command: "eval reverify" });
  const environments = resolved.instances.filter((i) => i.type === "resources_servers");
  if (environments.length === 0) throw new UsageError("no environment to verify with: pass --resources-server ID or a --config that defines one");
  const concurrencyGiven = options.concurrency ?? resolved.config.num_samples_in_parallel ?? 16;
  // `auto[:MIN-MAX]`: as many verifications as MAX, the judge calls and the judges' engines gated adaptively.
  let auto: AutoBounds | undefined;
  try {
    auto = parseAutoConcurrency(concurrencyGiven);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  setAutoConcurrency(auto);
  const concurrency = auto ? auto.max : Number(concurrencyGiven);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency must be a whole number ≥ 1 or auto[:MIN-MAX], got ${options.concurrency}`);
  const { resume, overwrite } = resumeAndOverwrite(options, resolved.config);
  const rolloutsPath = resolvePath(options.rollouts);
  // The rows the rollouts were made from: named, or the run's own file beside the rollouts when it is there.
  if (options.materializedInputs !== undefined && options.inputs !== undefined) throw new UsageError("--inputs and --materialized-inputs name the same file; give one");
  const [inputsFlag, inputsGiven] = options.inputs !== undefined ? ["--inputs", options.inputs] : ["--materialized-inputs", options.materializedInputs];
  const besideRollouts = siblingPaths(rolloutsPath).materialized;
  const materializedInputsPath = inputsGiven !== undefined ? resolvePath(inputsGiven) : existsSync(besideRollouts) ? besideRollouts : undefined;
  if (materializedInputsPath !== undefined && !existsSync(materializedInputsPath)) throw new UsageError(`${inputsFlag} ${inputsGiven}: no such file`);
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) throw new UsageError(`--limit must be a whole number ≥ 1, got ${options.limit}`);
  if (options.append && !options.judgeFailedOnly) throw new UsageError("--append adds recovered judge failures to an existing output: it is only valid with --judge-failed-only");
  if (options.append && (overwrite || resume)) throw new UsageError(`--append and --${overwrite ? "overwrite" : "resume"} cannot be combined: --append only adds the rollouts --output lacks`);
  if (options.judgeFailedOnly && !existsSync(judgeFailuresPath(rolloutsPath))) {
    throw new UsageError(`--judge-failed-only re-verifies the judge failures listed in ${judgeFailuresPath(rolloutsPath)}, which does not exist`);
  }
  const target = resolvePath(options.output);
  // --append re-verifies into a scratch output beside the target (its own plan, failures and
  // metrics, replaced each time), then adds the recovered rollouts the target lacks.
  const outputPath = options.append ? siblingPaths(target).recovered : target;
  const fileOptions = {
    rolloutsPath,
    materializedInputsPath,
    outputPath,
    resume,
    overwrite: overwrite || options.append === true,
    limit,
    judgeFailedOnly: options.judgeFailedOnly === true,
    disableAggregation: options.disableAggregation === true,
    ...(options.append ? { appendTo: target } : {}),
  };
  // Before any server starts: the stored rollouts are never written, and no earlier output is replaced unasked.
  const checkedFiles = reverifyRunFiles(fileOptions);
  checkRunFiles(checkedFiles, (m) => process.stderr.write(`gym: ${m}\n`));

  const servers = await startServers(resolved.instances, { headPort: 0, globalConfig: resolved.redacted, ...nemoGymStartOptions(resolved, options) });
  try {
    // Re-verifying a stateful environment would read state no rollout created: refuse unless forced.
    // Judge-failure recovery re-scores only what a judge failed to score, as NeMo Gym allows.
    for (const env of options.judgeFailedOnly ? [] : environments) {
      const mode = await callJson<string>(joinUrl(servers.urlOf(env.name), "/reverify_mode"));
      if (mode !== "stateless" && !options.force) {
        throw new UsageError(`environment "${env.name}" says its reverify mode is "${mode}", not "stateless": its /verify may depend on session state the stored rollouts do not carry. Pass --force to re-verify anyway.`);
      }
    }
    const only = environments.length === 1 ? environments[0]!.name : undefined;
    const environmentOf = (agent: string | undefined) => {
      const name = (agent && resolved.agentEnvironments.get(agent)) || (agent && environments.some((e) => e.name === agent) ? agent : undefined) || only;
      return name ? { name, url: servers.urlOf(name) } : undefined;
    };
    const retries = await RunRetries.start(servers.instances.filter((i) => i.dir_path === undefined && i.pid !== 0));
    const printer = new ProgressPrinter({ quiet: options.quiet, retries: () => retries.current() });
    const summary = await reverify({
      ...fileOptions,
      checkedFiles,
      environmentOf,
      concurrency,
      maxFailures: options.maxFailures === undefined ? undefined : parseFailureLimit(options.maxFailures),
      maxAttempts: options.maxAttempts === undefined ? undefined : Number(options.maxAttempts),
      onProgress: (p) => printer.update(p),
      onNotice: (m) => printer.notice(m),
      stallMs: DEFAULT_HEARTBEAT_S * 1000,
      onStall: (stall) => printer.stall(stall),
    });
    printer.finish();
    if (options.judgeFailedOnly) process.stderr.write(RECOVERY_WARNING);
    if (options.append) {
      repairTornLine(target);
      const added = appendRecovered(outputPath, target);
      const metrics = await computeRunMetrics(target, { aggregateUrlOf: options.disableAggregation ? () => undefined : (agent) => aggregateUrlOf(environmentOf(agent)) });
      try {
        if (!options.disableAggregation) metrics.write(siblingPaths(target).metrics);
      } finally {
        metrics.dispose();
      }
      process.stdout.write(`appended ${added} recovered rollout(s) to ${target}${options.disableAggregation ? "" : `; metrics: ${siblingPaths(target).metrics}`}\n`);
    }
    process.exitCode = reportCollection(summary, parseFailureLimit(options.maxFailures), { stats: retries.current(), uncounted: retries.uncounted });
  } finally {
    await servers.stop();
    await closeDispatcher();
  }
}

/** Printed by every `--judge-failed-only` run: the merged file has rewards from two verifications. */
const RECOVERY_WARNING =
  "gym: note: --judge-failed-only merges rewards from two verifications: the carried successes were scored by the original run, the recovered rollouts by this config; they agree only if the judge and verifier settings are the ones that run used\n";

const aggregateUrlOf = (environment: { url: string } | undefined) => (environment ? joinUrl(environment.url, "/aggregate_metrics") : undefined);
