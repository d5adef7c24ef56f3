// `gym eval aggregate` (merge shards) and `gym eval profile` (per-task reward statistics).
import { resolve as resolvePath } from "node:path";
import { checkMergeFiles, mergeShards, type MergeOptions } from "../collect/merge.js";
import { profileRewards } from "../collect/profile.js";
import { closeDispatcher, joinUrl } from "../http/client.js";
import { startServers, type RunningServers } from "../orchestrate/start.js";
import { nemoGymStartOptions, resolveCliConfig, type CliConfigOptions } from "./config_args.js";
import { EXIT, UsageError } from "./exit.js";
import { formatPairs } from "../collect/accounting.js";
import { CONFIG_PATHS_KEY, parseOverride } from "../config/index.js";

interface AggregateOptions extends CliConfigOptions {
  inputGlob: string;
  output: string;
  allowPartial?: boolean;
  overwrite?: boolean;
}

/** Whether an override sets `config_paths` (in any of its Hydra forms). */
function namesConfigFiles(override: string): boolean {
  try {
    const parsed = parseOverride(override);
    return parsed.path.length === 1 && parsed.path[0] === CONFIG_PATHS_KEY && parsed.mode !== "delete";
  } catch {
    return false;
  }
}

export async function evalAggregate(overrides: string[], options: AggregateOptions): Promise<void> {
  const mergeOptions: MergeOptions = { inputGlob: options.inputGlob, outputPath: resolvePath(options.output), allowPartial: options.allowPartial, overwrite: options.overwrite };
  // With a config, the environments run so their own metrics (pass@k, …) are recomputed too. The
  // config is checked first (its every problem and warning at once), then the files, and only then
  // do servers start: a refused output must not cost an environment start-up.
  // Any form that names config files counts: --config, --resources-server, --benchmark, or a
  // `config_paths` override (`+config_paths=[...]`, as NeMo Gym command lines and `eval submit`'s merge job write it).
  const withEnvironments = options.config.length > 0 || options.resourcesServer !== undefined || options.benchmark !== undefined || overrides.some(namesConfigFiles);
  if (!withEnvironments && overrides.length > 0) {
    throw new UsageError(`${overrides[0]}: overrides apply to a config, and none is given; add --config FILE, --resources-server ID, --benchmark NAME or +config_paths=[...] (to recompute the environments' metrics), or drop them`);
  }
  const resolved = withEnvironments ? await resolveCliConfig(overrides, options, { environmentsOnly: true, command: "eval aggregate" }) : undefined;
  checkMergeFiles(mergeOptions);
  let servers: RunningServers | undefined;
  let aggregateUrlOf: ((agent: string) => string | undefined) | undefined;
  if (resolved) {
    servers = await startServers(resolved.instances, { headPort: 0, ...nemoGymStartOptions(resolved, options) });
    const environments = resolved.instances.filter((i) => i.type === "resources_servers").map((i) => i.name);
    aggregateUrlOf = (agent) => {
      const env = resolved.agentEnvironments.get(agent) ?? (environments.length === 1 ? environments[0] : undefined);
      return env ? joinUrl(servers!.urlOf(env), "/aggregate_metrics") : undefined;
    };
  }
  try {
    const summary = await mergeShards({ ...mergeOptions, metrics: { aggregateUrlOf } });
    const { accounting } = summary;
    process.stdout.write(
      `merged ${summary.shards.length} shards: ${accounting.succeeded}/${accounting.requested} rollouts succeeded, ${accounting.failed} failed\n` +
        `rollouts: ${summary.paths.output}\nmetrics:  ${summary.paths.metrics}\n`,
    );
    for (const entry of summary.metrics) {
      if (entry.approximated) process.stdout.write(`note: ${entry.agent_ref.name}: ${entry.approximated.length} metric(s) of the environment could only be approximated from chunks of tasks (approximate_metrics in the metrics file): ${entry.approximated.slice(0, 4).join(", ")}${entry.approximated.length > 4 ? ", …" : ""}\n`);
    }
    if (summary.incomplete.length > 0) process.stderr.write(`gym: warning: merged ${summary.incomplete.length} incomplete shard(s): ${summary.incomplete.join(", ")}\n`);
    if (accounting.missing.count > 0 || accounting.duplicated.count > 0) {
      if (accounting.missing.count > 0) process.stderr.write(`gym: error: ${accounting.missing.count} requested rollouts are missing: (task, rollout) ${formatPairs(accounting.missing)}\n`);
      if (accounting.duplicated.count > 0) process.stderr.write(`gym: error: ${accounting.duplicated.count} pairs appear in more than one line: ${formatPairs(accounting.duplicated)}\n`);
      process.exitCode = EXIT.missing;
    }
  } finally {
    await servers?.stop();
    await closeDispatcher();
  }
}

export async function evalProfile(options: { rollouts: string; output?: string; passThreshold?: string; overwrite?: boolean }): Promise<void> {
  const summary = await profileRewards(resolvePath(options.rollouts), {
    outputPath: options.output ? resolvePath(options.output) : undefined,
    overwrite: options.overwrite,
    passThreshold: options.passThreshold === undefined ? undefined : Number(options.passThreshold),
  });
  process.stdout.write(
    `${summary.tasks} tasks, ${summary.rollouts} rollouts, mean reward ${summary.meanReward.toFixed(4)}\n` +
      `  every rollout passes: ${summary.allPass}\n  none passes:          ${summary.allFail}\n  mixed:                ${summary.mixed}\n` +
      `profile: ${summary.path}\n`,
  );
}
