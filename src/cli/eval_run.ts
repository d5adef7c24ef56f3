// `gym eval run`: resolve the config, start (or find) the servers, check the model answers, collect,
// print the key metrics, stop, and exit with a code that says whether every rollout came back.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve as resolvePath } from "node:path";
import { collect, collectRunFiles, finishedRun, type CollectSummary, type Progress } from "../collect/collect.js";
import { checkRunFiles } from "../collect/run_files.js";
import { formatPairs } from "../collect/accounting.js";
import type { FailureLimit } from "../collect/scheduler.js";
import { collateRunInput } from "../benchmarks/run_input.js";
import { datasetRepeats } from "../collect/split_input.js";
import { benchmarkCacheDir } from "../benchmarks/prepare.js";
import { closeDispatcher } from "../http/client.js";
import { adaptiveLimits, describeSettled, setAutoConcurrency, settledLimits } from "../http/adaptive_limit.js";
import { autoAdmission } from "../collect/auto_admission.js";
import { totalRetries, type RetryStats } from "../http/retry_stats.js";
import { RunRetries } from "../orchestrate/retry_totals.js";
import { agentUrlsOf, fetchInstances } from "../orchestrate/status.js";
import { redactUrl } from "../config/url_secrets.js";
import { freePort, startServers, type RunningServers } from "../orchestrate/start.js";
import { expandCommand, launchModelServer, type ModelServer } from "../orchestrate/model_server_process.js";
import { shellQuote } from "../orchestrate/slurm.js";
import { siblingPaths } from "../collect/paths.js";
import { engineUrls, waitForModels } from "../orchestrate/readiness.js";
import { EngineWatch } from "../orchestrate/engine_watch.js";
import { agentNamesOf, checkBeforeStart, renderDryRun } from "../orchestrate/run_preflight.js";
import { nemoGymLaunchNotice, nemoGymStartOptions, resolveCliConfig, type CliConfigOptions } from "./config_args.js";
import { EXIT, UsageError } from "./exit.js";
import { describeRetries, describeRunLimits, ProgressPrinter } from "./progress.js";
import { headUrlOf, parseModelServerFlags, parseRunOptions, parseShardAndResume, type RunFlags } from "./run_options.js";

type EvalRunOptions = CliConfigOptions & RunFlags & { dryRun?: boolean; view?: boolean; viewPort?: string };

/** How often the retry counters of servers in other processes are asked for, for the live line. */
const REMOTE_RETRIES_EVERY_MS = 5_000;
/** … and of their `--concurrency auto` limits, when the run has them. */
const REMOTE_LIMITS_EVERY_MS = 1_000;

export async function evalRun(overrides: string[], options: EvalRunOptions): Promise<void> {
  // A self-hosted server's port is fixed first: the policy's base URL (unless --model-url) points at it.
  const selfHosted = parseModelServerFlags(options);
  const serverPort = selfHosted.command === undefined ? undefined : (selfHosted.port ?? (await freePort()));
  const serverUrl = serverPort === undefined ? undefined : (options.modelUrl ?? `http://127.0.0.1:${serverPort}/v1`);
  const resolved = await resolveCliConfig(overrides, serverUrl === undefined ? options : { ...options, modelUrl: serverUrl }, { command: "eval run" });
  const settings = resolved.config;
  // --benchmark runs the benchmark's own dataset unless an input or another split is named.
  const impliedSplit = options.benchmark !== undefined && [options.split, settings.split, options.input, settings.input_jsonl_fpath].every((v) => v === undefined);
  const run = await parseRunOptions(impliedSplit ? { ...options, split: "benchmark" } : options, settings);
  const { split, input, output, prompt } = run;
  const headUrl = headUrlOf(options.headUrl, settings);
  const { shard, resume, extend, overwrite } = await parseShardAndResume(options, settings);
  const defaultAgent = options.agent ?? (settings.agent_name as string | undefined) ?? resolved.onlyAgentOfResourcesServer;

  let retries: RunRetries | undefined;
  // `--concurrency auto`: on before any server starts (servers of other processes inherit it).
  const admission = run.auto ? autoAdmission(run.auto, { localGates: options.serve && !options.processPerServer }) : undefined;
  setAutoConcurrency(run.auto);
  // With a process per server the engine, judge and sandbox limits are the servers' (reported at GET /retries).
  const limits = admission ? () => describeRunLimits(admission.limit, [...adaptiveLimits(), ...(retries?.limits ?? [])]) : undefined;
  // Made first, so every message of the run goes through it and never lands inside the live line.
  const printer = new ProgressPrinter({ quiet: options.quiet, retries: () => retries?.current(), ...(limits ? { limits } : {}) });
  const notice = (message: string) => printer.notice(message);

  const agents = resolved.instances
    .filter((i) => i.type === "responses_api_agents")
    .map((i) => ({ agent: i.name, datasets: ((resolved.config[i.name] as Record<string, Record<string, Record<string, unknown>>> | undefined)?.responses_api_agents?.[i.implementation])?.datasets }));
  // The datasets' num_repeats (NeMo Gym's benchmark configs set it) unless the run names its own; also
  // for a --benchmark run given its collated input (as `eval submit`'s array tasks are).
  const repeatsGiven = options.numRepeats !== undefined || settings.num_repeats !== undefined;
  // A dry run writes nothing of the run's: the split is collated into a scratch file, removed at exit.
  const scratch = split && options.dryRun ? mkdtempSync(join(tmpdir(), "gym-dry-run-")) : undefined;
  if (scratch) process.once("exit", () => rmSync(scratch, { recursive: true, force: true }));
  const inputPath = scratch ? join(scratch, `${split}.jsonl`) : resolvePath(input);
  if (split) {
    const hfToken = typeof settings.hf_token === "string" ? settings.hf_token : undefined;
    const collated = await collateRunInput(agents, split, inputPath, { cacheDir: benchmarkCacheDir(options.benchmarkCache), cwd: process.cwd(), hfToken, notice });
    notice(`--split ${split}: ${collated.rows} rows from the agents' ${split} datasets, collated into ${scratch ? `a scratch file (--dry-run; a run writes ${input})` : input}`);
    if (collated.repeats && !repeatsGiven) run.repeats = collated.repeats;
  } else if (options.benchmark !== undefined && !repeatsGiven) {
    run.repeats = datasetRepeats(agents, "benchmark") ?? run.repeats;
  }

  // Every file is checked before any server starts (the model server's log is one of the outputs).
  const fileOptions = {
    inputPath,
    outputPath: resolvePath(output),
    limit: run.limit,
    repeats: run.repeats,
    defaultAgent,
    paramOverrides: run.paramOverrides,
    addSeed: run.addSeed,
    seeds: run.seeds,
    shard,
    prompt,
    resume,
    extend,
    overwrite,
  };
  const checkedFiles = collectRunFiles(fileOptions);
  checkRunFiles(checkedFiles, notice);

  // Then everything else that needs no server: agents, the whole input and maps, the ports, and
  // whether a --resume has anything left to run. Only then does the engine (minutes, for vLLM) start.
  const headInstances = options.serve ? undefined : await fetchInstances(headUrl);
  const knownAgents = headInstances ? new Set(agentUrlsOf(headInstances).keys()) : agentNamesOf(resolved.instances);
  if (knownAgents.size === 0) throw new UsageError("the config defines no agent (responses_api_agents); add --resources-server ID or a config that defines one");
  if (headInstances && options.agent !== undefined && !knownAgents.has(options.agent)) {
    throw new UsageError(`--agent ${options.agent}: the head server at ${redactUrl(headUrl)} runs no agent of that name; its agents: ${[...knownAgents].join(", ") || "(none)"}`);
  }
  const before = await checkBeforeStart({
    plan: { ...fileOptions, knownAgents },
    outputPath: fileOptions.outputPath,
    // A plan to be extended is checked as a new one (its growth is what runs), and is never "finished".
    resume: resume && !extend,
    maxAttempts: run.maxAttempts,
    instances: options.serve ? resolved.instances : [],
    ports: selfHosted.port !== undefined ? [{ what: "--model-server-port", port: selfHosted.port }] : [],
  });
  if (options.dryRun) {
    const modelServer =
      selfHosted.command !== undefined && serverPort !== undefined && serverUrl !== undefined
        ? { command: expandCommand(selfHosted.command, serverPort), port: serverPort, url: serverUrl, log: siblingPaths(resolvePath(output)).modelServerLog }
        : undefined;
    process.stdout.write(
      renderDryRun({ input, output, shard, ...before, modelServer, instances: resolved.instances, redactedConfig: resolved.redacted, headUrl: options.serve ? undefined : headUrl }),
    );
    return;
  }
  if (before.progress?.pending === 0) {
    const finished = await finishedRun(fileOptions.outputPath, run.maxAttempts, shard ? `${shard.index}/${shard.count}` : undefined);
    if (finished) {
      notice(`nothing to run: every one of the ${before.progress.planned} planned rollouts of ${output} has its final outcome; no server or engine was started`);
      process.exitCode = reportCollection(finished, run.maxFailures);
      return;
    }
  }

  // --view: the viewer follows the output from before its first line.
  // The viewer (~80 KB of modules) is loaded only for --view (issue 23, start-up).
  const runViewer = options.view ? await (await import("./eval_run_view.js")).startRunViewer(fileOptions.outputPath, options.viewPort, notice) : undefined;
  let servers: RunningServers | undefined;
  let modelServer: ModelServer | undefined;
  // Stops the run at once when the engine goes away (exit 5), leaving the rest for --resume.
  const watch = new EngineWatch({ engines: options.serve ? engineUrls(resolved.instances) : [], unreachableWindowMs: run.modelUnreachableTimeoutS * 1000, onNotice: notice });
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
      if (selfHosted.command !== undefined && serverPort !== undefined && serverUrl !== undefined) {
        const logPath = siblingPaths(resolvePath(output)).modelServerLog;
        notice(`starting the model server on port ${serverPort} (log: ${logPath}); waiting up to ${selfHosted.readyTimeoutS} s for ${serverUrl}/models`);
        modelServer = launchModelServer({
          command: selfHosted.command,
          port: serverPort,
          baseUrl: serverUrl,
          readyTimeoutMs: selfHosted.readyTimeoutS * 1000,
          logPath,
          onNotice: notice,
          onDied: (how) => watch.down(`the model server (--model-server-cmd) ${how}; its log: ${logPath}`),
        });
        await modelServer.ready();
      }
      await waitForModels(resolved.instances, run.modelReadyTimeoutS * 1000);
      const pythonLogDir = siblingPaths(resolvePath(output)).serverLogs;
      const launching = nemoGymLaunchNotice(resolved, pythonLogDir);
      const externalNames = new Set(resolved.instances.filter((i) => i.externalUrl).map((i) => i.name));
      if (launching) notice(launching);
      servers = await startServers(resolved.instances, {
        headPort: 0,
        processPerServer: options.processPerServer,
        globalConfig: resolved.redacted,
        onServerEvent: notice,
        ...nemoGymStartOptions(resolved, options),
        pythonLogDir,
      });
      agentUrls = agentUrlsOf(servers.instances);
      // NeMo Gym Python servers and servers given by url are not Gymkit processes: they keep no retry counters.
      retries = await RunRetries.start(servers.instances.filter((i) => i.dir_path === undefined && !externalNames.has(i.name)));
    } else {
      // Gymkit's head or NeMo Gym's: agents are known by instance name (NeMo Gym's `process_name`).
      const instances = headInstances!;
      agentUrls = agentUrlsOf(instances);
      if (options.agent !== undefined && !agentUrls.has(options.agent)) {
        throw new UsageError(`--agent ${options.agent}: the head server at ${redactUrl(headUrl)} runs no agent of that name; its agents: ${[...agentUrls.keys()].join(", ") || "(none)"}`);
      }
      retries = await RunRetries.start(instances);
    }
    if (agentUrls.size === 0) throw new UsageError("the config defines no agent (responses_api_agents); add --resources-server ID or a config that defines one");
    const running = retries;
    if (running.remoteProcesses > 0) {
      // More often with `--concurrency auto`: the live line shows the servers' limits as they move.
      remotePoll = setInterval(() => void running.refresh(), run.auto ? REMOTE_LIMITS_EVERY_MS : REMOTE_RETRIES_EVERY_MS);
      remotePoll.unref();
    }

    watch.start();
    summary = await collect({
      ...fileOptions,
      checkedFiles,
      agentUrls,
      concurrency: run.concurrency,
      ...(admission ? { admit: (inFlight: number) => admission.admit(inFlight) } : {}),
      prompt,
      disableAggregation: run.disableAggregation,
      rolloutTimeoutMs: run.rolloutTimeoutMs,
      // Stop early only when asked to; by default every rollout runs and failures decide the exit code.
      maxFailures: run.maxFailuresGiven ? run.maxFailures : undefined,
      maxAttempts: run.maxAttempts,
      onProgress: (p: Progress) => printer.update(p),
      onNotice: notice,
      stallMs: run.heartbeatS * 1000,
      onStall: (stall) => printer.stall(stall),
      engine: watch,
    });
    printer.finish();
    // The servers' counters and limits as they stand at the end, before the servers stop.
    if (running.remoteProcesses > 0) await running.refresh();
    // This process's limits, then the servers' (with --process-per-server the engine, judge and sandbox gates are theirs).
    const settled = [...settledLimits(), ...running.settled];
    if (run.auto && settled.length > 0) notice(`--concurrency auto: the limits settled at ${describeSettled(settled)} (mean over the last half of the run, and its range)`);
    if (run.disableAggregation) notice("disable_aggregation: the environments' /aggregate_metrics was not called; run `gym eval aggregate` once every shard has finished for their metrics");
  } finally {
    watch.stop();
    if (remotePoll) clearInterval(remotePoll);
    printer.finish();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await stopAll();
  }
  process.exitCode = reportCollection(summary, run.maxFailures, retries && { stats: retries.current(), uncounted: retries.uncounted });
  if (runViewer) await runViewer.serveAfterRun();
}

/** Prints the outcome and key metrics; returns the exit code. */
export function reportCollection(summary: CollectSummary, maxFailures: FailureLimit, retries?: { stats: RetryStats; uncounted: number }): number {
  const out = process.stdout;
  const { accounting } = summary;
  for (const entry of summary.metrics) {
    out.write(`\n${entry.agent_ref.name}\n`);
    for (const [key, value] of Object.entries(entry.key_metrics)) out.write(`  ${key.padEnd(32)} ${formatNumber(value)}\n`);
    if (entry.approximated) {
      out.write(`  note: ${entry.approximated.length} metric(s) of the environment could only be approximated from chunks of tasks (approximate_metrics in the metrics file): ${entry.approximated.slice(0, 4).join(", ")}${entry.approximated.length > 4 ? ", …" : ""}\n`);
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
  if (summary.engineDown !== undefined) {
    // Not a failure of the rollouts: the rest was left unrun on purpose, for a resume once the engine is back.
    const inFlight = summary.dropped > 0 ? `; the ${summary.dropped} in flight when it went away are not recorded as failed either` : "";
    process.stderr.write(
      `gym: error: engine unavailable: ${summary.engineDown}. The run stopped at once: ${accounting.missing.count} of ${accounting.requested} requested rollouts are left unrun, not recorded as failures${inFlight}. ` +
        `Restart the engine and run the same command with --resume to run exactly them.\n`,
    );
    code = EXIT.engineUnavailable;
  }
  if (accounting.missing.count > 0 || accounting.duplicated.count > 0) {
    if (accounting.missing.count > 0 && summary.engineDown === undefined) {
      process.stderr.write(`gym: error: ${accounting.missing.count} of ${accounting.requested} requested rollouts are missing: (task, rollout) ${formatPairs(accounting.missing)}; run again with --resume to finish them\n`);
    }
    if (accounting.duplicated.count > 0) {
      process.stderr.write(`gym: error: ${accounting.duplicated.count} (task, rollout) pairs have more than one result line: ${formatPairs(accounting.duplicated)}\n`);
    }
    if (code === EXIT.ok || accounting.duplicated.count > 0) code = EXIT.missing;
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
