// `gym eval run`: resolve the config, start (or find) the servers, check the model answers, collect,
// print the key metrics, stop, and exit with a code that says whether every rollout came back.
import { resolve as resolvePath } from "node:path";
import { collect, collectRunFiles, DEFAULT_ROLLOUT_TIMEOUT_S, type CollectSummary, type Progress } from "../collect/collect.js";
import { checkRunFiles } from "../collect/run_files.js";
import { formatPairs } from "../collect/accounting.js";
import type { FailureLimit } from "../collect/scheduler.js";
import { parseRepeatsSpec, parseShard } from "../collect/plan.js";
import { loadPromptConfig } from "../collect/prompt_config.js";
import { collateSplit, parseSplit, splitInputPath, type Split } from "../collect/split_input.js";
import { closeDispatcher } from "../http/client.js";
import { totalRetries, type RetryStats } from "../http/retry_stats.js";
import { RunRetries } from "../orchestrate/retry_totals.js";
import { fetchInstances } from "../orchestrate/status.js";
import { freePort, startServers, type RunningServers } from "../orchestrate/start.js";
import { launchModelServer, type ModelServer } from "../orchestrate/model_server_process.js";
import { shellQuote } from "../orchestrate/slurm.js";
import { siblingPaths } from "../collect/paths.js";
import { waitForModels } from "../orchestrate/readiness.js";
import { resolveCliConfig, type CliConfigOptions } from "./config_args.js";
import { EXIT, UsageError } from "./exit.js";
import { describeRetries, ProgressPrinter } from "./progress.js";

interface EvalRunOptions extends CliConfigOptions {
  input?: string;
  output?: string;
  agent?: string;
  concurrency?: string;
  numRepeats?: string;
  numRepeatsAddSeed?: boolean;
  limit?: string;
  temperature?: string;
  topP?: string;
  maxOutputTokens?: string;
  maxFailures?: string;
  maxAttempts?: string;
  rolloutTimeout?: string;
  heartbeat?: string;
  resume?: boolean;
  overwrite?: boolean;
  shard?: string;
  promptConfig?: string;
  split?: string;
  disableAggregation?: boolean;
  modelReadyTimeout: string;
  modelServerCmd?: string;
  modelServerPort?: string;
  modelServerReadyTimeout: string;
  serve: boolean;
  processPerServer?: boolean;
  headUrl: string;
  quiet: boolean;
}

export function positiveInt(name: string, value: unknown): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a whole number ≥ 1, got ${JSON.stringify(value)}`);
  return n;
}

export function nonNegativeNumber(name: string, value: unknown): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`${name} must be a number ≥ 0, got ${JSON.stringify(value)}`);
  return n;
}

/** `--rollout-timeout S` in ms: a default unless given; `0` or `none` (only when asked) turns it off. */
export function rolloutTimeoutMs(value: unknown): number | undefined {
  if (value === undefined || value === null || value === "") return DEFAULT_ROLLOUT_TIMEOUT_S * 1000;
  if (typeof value === "string" && value.trim().toLowerCase() === "none") return undefined;
  const seconds = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(seconds) || seconds < 0) throw new UsageError(`--rollout-timeout must be a number of seconds ≥ 0 (0 or none: no deadline), got ${JSON.stringify(value)}`);
  return seconds > 0 ? seconds * 1000 : undefined;
}

/** After this long with no rollout finished, say what is in flight (`--heartbeat`). */
export const DEFAULT_HEARTBEAT_S = 60;

/** How often the retry counters of servers in other processes are asked for, for the live line. */
const REMOTE_RETRIES_EVERY_MS = 5_000;

/** `--max-failures N` or `N%`. */
export function parseFailureLimit(value: unknown): FailureLimit {
  if (value === undefined || value === null || value === "") return { count: 0 };
  const text = String(value).trim();
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (percent) return { percent: Number(percent[1]) };
  const count = Number(text);
  if (!Number.isInteger(count) || count < 0) throw new UsageError(`--max-failures must be a count (e.g. 10) or a percentage (e.g. 2%), got ${text}`);
  return { count };
}

/** A yes/no setting from a flag or a config key (`++resume_from_cache=true`, or `true` in a YAML file). */
export function booleanSetting(name: string, value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "boolean") return value;
  if (value === "true" || value === "false") return value === "true";
  throw new UsageError(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

/**
 * `--resume` / `--overwrite`, or NeMo Gym's `resume_from_cache` key (its `gym eval run --resume` sets
 * it) and `overwrite`. Asking for both is a contradiction, not a choice to make silently.
 */
export function resumeAndOverwrite(options: { resume?: boolean; overwrite?: boolean }, settings: Record<string, unknown>): { resume: boolean; overwrite: boolean } {
  const resume = options.resume ?? booleanSetting("resume_from_cache", settings.resume_from_cache) ?? false;
  const overwrite = options.overwrite ?? booleanSetting("overwrite", settings.overwrite) ?? false;
  if (resume && overwrite) throw new UsageError("--resume (resume_from_cache) and --overwrite contradict each other: resume keeps the earlier results, overwrite replaces them; pass one");
  return { resume, overwrite };
}

/** The input and output files, from the flags or else the config (as NeMo Gym's keys name them). */
export function inputAndOutput(options: { input?: string; output?: string }, settings: Record<string, unknown>): { input: string; output: string } {
  const input = options.input ?? (settings.input_jsonl_fpath as string | undefined);
  const output = options.output ?? (settings.output_jsonl_fpath as string | undefined);
  if (!input) throw new UsageError("no input file: pass --input FILE (or set input_jsonl_fpath in the config)");
  if (!output) throw new UsageError("no output file: pass --output FILE (or set output_jsonl_fpath in the config)");
  return { input, output };
}

/** With `split`, the input is the collated datasets file beside the output; naming an input too is a conflict. */
function splitInputAndOutput(split: Split, options: { input?: string; output?: string }, settings: Record<string, unknown>): { input: string; output: string } {
  const output = options.output ?? (settings.output_jsonl_fpath as string | undefined);
  if (!output) throw new UsageError("no output file: pass --output FILE (or set output_jsonl_fpath in the config)");
  const given = options.input !== undefined ? "--input" : settings.input_jsonl_fpath !== undefined ? "input_jsonl_fpath" : undefined;
  if (given) throw new UsageError(`--split ${split} and ${given} both name the input; give one (--split reads the agents' ${split} datasets)`);
  return { input: splitInputPath(output, split), output };
}

/** A boolean flag or config key (`+disable_aggregation=true`); anything but a boolean is a usage error. */
function flagOrSetting(name: string, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === "boolean") return value;
  if (value === "true" || value === "false") return value === "true";
  throw new UsageError(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

export async function evalRun(overrides: string[], options: EvalRunOptions): Promise<void> {
  // A self-hosted server's port is fixed first: the policy's base URL (unless --model-url) points at it.
  let serverPort: number | undefined;
  if (options.modelServerCmd !== undefined) {
    if (!options.serve) throw new UsageError("--model-server-cmd cannot be used with --no-serve: the running head's model already has its engine");
    serverPort = positiveInt("--model-server-port", options.modelServerPort) ?? (await freePort());
    if (serverPort > 65535) throw new UsageError(`--model-server-port must be a port number ≤ 65535, got ${serverPort}`);
  }
  const serverUrl = serverPort === undefined ? undefined : (options.modelUrl ?? `http://127.0.0.1:${serverPort}/v1`);
  const serverReadyS = nonNegativeNumber("--model-server-ready-timeout", options.modelServerReadyTimeout) ?? 900;
  const resolved = await resolveCliConfig(overrides, serverUrl === undefined ? options : { ...options, modelUrl: serverUrl }, { command: "eval run" });
  const settings = resolved.config;

  const split = parseSplit(options.split ?? settings.split);
  const { input, output } = split ? splitInputAndOutput(split, options, settings) : inputAndOutput(options, settings);
  const promptPath = options.promptConfig ?? settings.prompt_config;
  const prompt = promptPath === undefined || promptPath === null ? undefined : loadPromptConfig(resolvePath(String(promptPath)));
  const disableAggregation = flagOrSetting("--disable-aggregation", options.disableAggregation ?? settings.disable_aggregation);
  const concurrency = positiveInt("--concurrency", options.concurrency ?? settings.num_samples_in_parallel ?? settings.concurrency) ?? 16;
  const repeats = parseRepeatsSpec(options.numRepeats ?? settings.num_repeats);
  const limit = positiveInt("--limit", options.limit ?? settings.limit);
  const failuresGiven = options.maxFailures ?? settings.max_failures;
  const maxFailures = parseFailureLimit(failuresGiven);
  const maxAttempts = positiveInt("--max-attempts", options.maxAttempts ?? settings.max_attempts) ?? 3;
  const rolloutTimeout = rolloutTimeoutMs(options.rolloutTimeout ?? settings.rollout_timeout);
  const heartbeatS = nonNegativeNumber("--heartbeat", options.heartbeat ?? settings.heartbeat) ?? DEFAULT_HEARTBEAT_S;
  const readyTimeoutS = nonNegativeNumber("--model-ready-timeout", options.modelReadyTimeout) ?? 30;
  const shard = parseShard(options.shard ?? (settings.shard as string | undefined));
  const addSeed = Boolean(options.numRepeatsAddSeed ?? settings.num_repeats_add_seed);

  const paramOverrides: Record<string, unknown> = { ...((settings.responses_create_params as Record<string, unknown> | undefined) ?? {}) };
  const temperature = nonNegativeNumber("--temperature", options.temperature);
  if (temperature !== undefined) paramOverrides.temperature = temperature;
  const topP = nonNegativeNumber("--top-p", options.topP);
  if (topP !== undefined) paramOverrides.top_p = topP;
  const maxOutputTokens = positiveInt("--max-output-tokens", options.maxOutputTokens);
  if (maxOutputTokens !== undefined) paramOverrides.max_output_tokens = maxOutputTokens;

  const defaultAgent = options.agent ?? (settings.agent_name as string | undefined) ?? resolved.onlyAgentOfResourcesServer;
  const { resume, overwrite } = resumeAndOverwrite(options, settings);

  let retries: RunRetries | undefined;
  // Made first, so every message of the run goes through it and never lands inside the live line.
  const printer = new ProgressPrinter({ quiet: options.quiet, retries: () => retries?.current() });
  const notice = (message: string) => printer.notice(message);

  if (split) {
    const agents = resolved.instances
      .filter((i) => i.type === "responses_api_agents")
      .map((i) => ({ agent: i.name, datasets: ((resolved.config[i.name] as Record<string, Record<string, Record<string, unknown>>> | undefined)?.responses_api_agents?.[i.implementation])?.datasets }));
    const rows = await collateSplit(agents, split, resolvePath(input), process.cwd());
    notice(`--split ${split}: ${rows} rows from the agents' ${split} datasets, collated into ${input}`);
  }

  // Every file is checked before any server starts (the model server's log is one of the outputs).
  const fileOptions = { inputPath: resolvePath(input), outputPath: resolvePath(output), limit, repeats, defaultAgent, paramOverrides, addSeed, shard, prompt, resume, overwrite };
  const checkedFiles = collectRunFiles(fileOptions);
  checkRunFiles(checkedFiles, notice);

  let servers: RunningServers | undefined;
  let modelServer: ModelServer | undefined;
  let agentUrls: Map<string, string>;
  const stopAll = async () => {
    await servers?.stop();
    servers = undefined;
    await modelServer?.stop();
    modelServer = undefined;
    await closeDispatcher();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    notice(`${signal}: stopping servers; the rollouts written so far are kept in ${output}; continue with --resume`);
    void stopAll().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  let summary: CollectSummary;
  let remotePoll: NodeJS.Timeout | undefined;
  try {
    if (options.serve) {
      if (options.modelServerCmd !== undefined && serverPort !== undefined && serverUrl !== undefined) {
        const logPath = siblingPaths(resolvePath(output)).modelServerLog;
        notice(`starting the model server on port ${serverPort} (log: ${logPath}); waiting up to ${serverReadyS} s for ${serverUrl}/models`);
        modelServer = launchModelServer({ command: options.modelServerCmd, port: serverPort, baseUrl: serverUrl, readyTimeoutMs: serverReadyS * 1000, logPath, onNotice: notice });
        await modelServer.ready();
      }
      await waitForModels(resolved.instances, readyTimeoutS * 1000);
      servers = await startServers(resolved.instances, { headPort: 0, processPerServer: options.processPerServer, globalConfig: resolved.redacted, onServerEvent: notice });
      agentUrls = new Map(servers.instances.filter((i) => i.server_type === "responses_api_agents").map((i) => [i.name, i.url]));
      retries = await RunRetries.start(servers.instances);
    } else {
      const instances = await fetchInstances(options.headUrl);
      agentUrls = new Map(instances.filter((i) => i.server_type === "responses_api_agents").map((i) => [i.name, i.url]));
      retries = await RunRetries.start(instances);
    }
    if (agentUrls.size === 0) throw new UsageError("the config defines no agent (responses_api_agents); add --resources-server ID or a config that defines one");
    const running = retries;
    if (running.remoteProcesses > 0) {
      remotePoll = setInterval(() => void running.refresh(), REMOTE_RETRIES_EVERY_MS);
      remotePoll.unref();
    }

    summary = await collect({
      ...fileOptions,
      checkedFiles,
      agentUrls,
      concurrency,
      prompt,
      disableAggregation,
      rolloutTimeoutMs: rolloutTimeout,
      // Stop early only when asked to; by default every rollout runs and failures decide the exit code.
      maxFailures: failuresGiven === undefined ? undefined : maxFailures,
      maxAttempts,
      onProgress: (p: Progress) => printer.update(p),
      onNotice: notice,
      stallMs: heartbeatS * 1000,
      onStall: (stall) => printer.stall(stall),
    });
    printer.finish();
    if (disableAggregation) notice("disable_aggregation: the environments' /aggregate_metrics was not called; run `gym eval aggregate` once every shard has finished for their metrics");
    // The servers' counters as they stand at the end, before the servers stop.
    if (running.remoteProcesses > 0) await running.refresh();
  } finally {
    if (remotePoll) clearInterval(remotePoll);
    printer.finish();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await stopAll();
  }
  process.exitCode = reportCollection(summary, maxFailures, retries && { stats: retries.current(), uncounted: retries.uncounted });
}

/** Prints the outcome and key metrics; returns the exit code. */
export function reportCollection(summary: CollectSummary, maxFailures: FailureLimit, retries?: { stats: RetryStats; uncounted: number }): number {
  const out = process.stdout;
  const { accounting } = summary;
  for (const entry of summary.metrics) {
    out.write(`\n${entry.agent_ref.name}\n`);
    for (const [key, value] of Object.entries(entry.key_metrics)) out.write(`  ${key.padEnd(32)} ${formatNumber(value)}\n`);
    if (entry.approximated) {
      out.write(`  note: ${entry.approximated.length} across-runs metric(s) are approximate (merged over chunks of tasks; the environment returns no per_sample_aggregate): ${entry.approximated.slice(0, 4).join(", ")}${entry.approximated.length > 4 ? ", …" : ""}\n`);
    }
  }
  const classes = Object.entries(accounting.failureClasses).map(([k, v]) => `${k}: ${v}`).join(", ");
  out.write(
    `\n${accounting.succeeded}/${accounting.requested} rollouts succeeded, ${accounting.failed} failed${classes ? ` (${classes})` : ""}, in ${(summary.elapsedMs / 1000).toFixed(1)} s\n` +
      `rollouts: ${summary.paths.output}\nmetrics:  ${summary.paths.metrics}\n`,
  );
  if (retries && (totalRetries(retries.stats).retries > 0 || retries.uncounted > 0)) {
    // A run that only succeeded after many retries is not a healthy run: say so next to the count.
    const uncounted = retries.uncounted > 0 ? `; the retries inside ${retries.uncounted} server process(es) could not be counted (no GET /retries)` : "";
    out.write(`${totalRetries(retries.stats).retries > 0 ? describeRetries(retries.stats) : "no retried calls counted"}${uncounted}\n`);
  }
  if (accounting.failed > 0) out.write(`failures: ${summary.paths.failures}\n`);
  out.write(`browse:   gym view --rollouts ${shellQuote(summary.paths.output)}\n`);
  let code: number = EXIT.ok;
  if (accounting.missing.count > 0 || accounting.duplicated.count > 0) {
    if (accounting.missing.count > 0) {
      process.stderr.write(`gym: error: ${accounting.missing.count} of ${accounting.requested} requested rollouts are missing: (task, rollout) ${formatPairs(accounting.missing)}; run again with --resume to finish them\n`);
    }
    if (accounting.duplicated.count > 0) {
      process.stderr.write(`gym: error: ${accounting.duplicated.count} (task, rollout) pairs have more than one result line: ${formatPairs(accounting.duplicated)}\n`);
    }
    code = EXIT.missing;
  }
  const overLimit =
    (maxFailures.count !== undefined && accounting.failed > maxFailures.count) ||
    (maxFailures.percent !== undefined && accounting.requested > 0 && (accounting.failed / accounting.requested) * 100 > maxFailures.percent);
  if (overLimit || summary.stoppedEarly) {
    const allowed = maxFailures.percent !== undefined ? `${maxFailures.percent}%` : String(maxFailures.count ?? 0);
    process.stderr.write(`gym: error: ${accounting.failed} rollouts failed (allowed: ${allowed})${summary.stoppedEarly ? "; stopped early" : ""}; see ${summary.paths.failures}\n`);
    // Stopping early leaves pairs unrun by design; the cause is the failures, so say that.
    if (code === EXIT.ok || summary.stoppedEarly) code = EXIT.tooManyFailures;
  }
  return code;
}

function formatNumber(value: unknown): string {
  return typeof value === "number" ? (Number.isInteger(value) ? String(value) : value.toFixed(4)) : JSON.stringify(value);
}
