// `gym eval reverify`: start only the environments (and any model they use, e.g. a judge), check each
// is safe to re-verify, and score stored rollouts again.
import { existsSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { siblingPaths } from "../collect/paths.js";
import { reverify, reverifyRunFiles } from "../collect/reverify.js";
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
  quiet: boolean;
}

export async function evalReverify(overrides: string[], options: ReverifyCliOptions): Promise<void> {
  const resolved = await resolveCliConfig(overrides, options, { environmentsOnly: true, command: "eval reverify" });
  const environments = resolved.instances.filter((i) => i.type === "resources_servers");
  if (environments.length === 0) throw new UsageError("no environment to verify with: pass --resources-server ID or a --config that defines one");
  const concurrency = Number(options.concurrency ?? resolved.config.num_samples_in_parallel ?? 16);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency must be a whole number ≥ 1, got ${options.concurrency}`);
  const { resume, overwrite } = resumeAndOverwrite(options, resolved.config);
  const rolloutsPath = resolvePath(options.rollouts);
  // The rows the rollouts were made from: named, or the run's own file beside the rollouts when it is there.
  if (options.materializedInputs !== undefined && options.inputs !== undefined) throw new UsageError("--inputs and --materialized-inputs name the same file; give one");
  const [inputsFlag, inputsGiven] = options.inputs !== undefined ? ["--inputs", options.inputs] : ["--materialized-inputs", options.materializedInputs];
  const besideRollouts = siblingPaths(rolloutsPath).materialized;
  const materializedInputsPath = inputsGiven !== undefined ? resolvePath(inputsGiven) : existsSync(besideRollouts) ? besideRollouts : undefined;
  if (materializedInputsPath !== undefined && !existsSync(materializedInputsPath)) throw new UsageError(`${inputsFlag} ${inputsGiven}: no such file`);
  const fileOptions = { rolloutsPath, materializedInputsPath, outputPath: resolvePath(options.output), resume, overwrite };
  // Before any server starts: the stored rollouts are never written, and no earlier output is replaced unasked.
  const checkedFiles = reverifyRunFiles(fileOptions);
  checkRunFiles(checkedFiles, (m) => process.stderr.write(`gym: ${m}\n`));

  const servers = await startServers(resolved.instances, { headPort: 0, globalConfig: resolved.redacted, ...nemoGymStartOptions(resolved, options) });
  try {
    // Re-verifying a stateful environment would read state no rollout created: refuse unless forced.
    for (const env of environments) {
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
    process.exitCode = reportCollection(summary, parseFailureLimit(options.maxFailures), { stats: retries.current(), uncounted: retries.uncounted });
  } finally {
    await servers.stop();
    await closeDispatcher();
  }
}
