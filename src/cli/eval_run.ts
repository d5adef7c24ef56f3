// `gym eval run`: resolve the config, start (or find) the servers, check the model answers, collect,
// print the key metrics, stop, and exit with a code that says whether every rollout came back.
import { resolve as resolvePath } from "node:path";
import { collect, type CollectSummary, type Progress } from "../collect/collect.js";
import { closeDispatcher } from "../http/client.js";
import { fetchInstances } from "../orchestrate/status.js";
import { startServers, type RunningServers } from "../orchestrate/start.js";
import { waitForModels } from "../orchestrate/readiness.js";
import { resolveCliConfig, type CliConfigOptions } from "./config_args.js";
import { EXIT, UsageError } from "./exit.js";
import { ProgressPrinter } from "./progress.js";

interface EvalRunOptions extends CliConfigOptions {
  input?: string;
  output?: string;
  agent?: string;
  concurrency?: string;
  numRepeats?: string;
  limit?: string;
  temperature?: string;
  topP?: string;
  maxOutputTokens?: string;
  maxFailures?: string;
  rolloutTimeout?: string;
  modelReadyTimeout: string;
  serve: boolean;
  headUrl: string;
  quiet: boolean;
}

function positiveInt(name: string, value: unknown): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a whole number ≥ 1, got ${JSON.stringify(value)}`);
  return n;
}

function nonNegativeNumber(name: string, value: unknown): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`${name} must be a number ≥ 0, got ${JSON.stringify(value)}`);
  return n;
}

export async function evalRun(overrides: string[], options: EvalRunOptions): Promise<void> {
  const resolved = await resolveCliConfig(overrides, options);
  const settings = resolved.config;

  const input = options.input ?? (settings.input_jsonl_fpath as string | undefined);
  const output = options.output ?? (settings.output_jsonl_fpath as string | undefined);
  if (!input) throw new UsageError("no input file: pass --input FILE (or set input_jsonl_fpath in the config)");
  if (!output) throw new UsageError("no output file: pass --output FILE (or set output_jsonl_fpath in the config)");
  const concurrency = positiveInt("--concurrency", options.concurrency ?? settings.num_samples_in_parallel ?? settings.concurrency) ?? 16;
  const numRepeats = positiveInt("--num-repeats", options.numRepeats ?? settings.num_repeats) ?? 1;
  const limit = positiveInt("--limit", options.limit ?? settings.limit);
  const maxFailures = nonNegativeNumber("--max-failures", options.maxFailures ?? settings.max_failures) ?? 0;
  const rolloutTimeoutS = nonNegativeNumber("--rollout-timeout", options.rolloutTimeout ?? settings.rollout_timeout) ?? 600;
  const readyTimeoutS = nonNegativeNumber("--model-ready-timeout", options.modelReadyTimeout) ?? 30;

  const paramOverrides: Record<string, unknown> = { ...((settings.responses_create_params as Record<string, unknown> | undefined) ?? {}) };
  const temperature = nonNegativeNumber("--temperature", options.temperature);
  if (temperature !== undefined) paramOverrides.temperature = temperature;
  const topP = nonNegativeNumber("--top-p", options.topP);
  if (topP !== undefined) paramOverrides.top_p = topP;
  const maxOutputTokens = positiveInt("--max-output-tokens", options.maxOutputTokens);
  if (maxOutputTokens !== undefined) paramOverrides.max_output_tokens = maxOutputTokens;

  const defaultAgent = options.agent ?? (settings.agent_name as string | undefined) ?? resolved.onlyAgentOfResourcesServer;

  let servers: RunningServers | undefined;
  let agentUrls: Map<string, string>;
  const stopAll = async () => {
    await servers?.stop();
    servers = undefined;
    await closeDispatcher();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`\ngym: ${signal}: stopping servers; the rollouts written so far are kept in ${output}\n`);
    void stopAll().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  let summary: CollectSummary;
  try {
    if (options.serve) {
      await waitForModels(resolved.instances, readyTimeoutS * 1000);
      servers = await startServers(resolved.instances, { headPort: 0, globalConfig: resolved.redacted });
      agentUrls = new Map(servers.instances.filter((i) => i.server_type === "responses_api_agents").map((i) => [i.name, i.url]));
    } else {
      const instances = await fetchInstances(options.headUrl);
      agentUrls = new Map(instances.filter((i) => i.server_type === "responses_api_agents").map((i) => [i.name, i.url]));
    }
    if (agentUrls.size === 0) throw new UsageError("the config defines no agent (responses_api_agents); add --resources-server ID or a config that defines one");

    const printer = new ProgressPrinter({ quiet: options.quiet });
    summary = await collect({
      inputPath: resolvePath(input),
      outputPath: resolvePath(output),
      agentUrls,
      concurrency,
      limit,
      numRepeats: () => numRepeats,
      defaultAgent,
      paramOverrides,
      rolloutTimeoutMs: rolloutTimeoutS * 1000,
      onProgress: (p: Progress) => printer.update(p),
    });
    printer.finish();
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await stopAll();
  }
  process.exitCode = report(summary, maxFailures);
}

/** Prints the outcome and key metrics; returns the exit code. */
function report(summary: CollectSummary, maxFailures: number): number {
  const out = process.stdout;
  for (const entry of summary.metrics) {
    out.write(`\n${entry.agent_ref.name}\n`);
    for (const [key, value] of Object.entries(entry.key_metrics)) out.write(`  ${key.padEnd(32)} ${formatNumber(value)}\n`);
  }
  out.write(
    `\n${summary.succeeded}/${summary.requested} rollouts succeeded, ${summary.failed} failed, in ${(summary.elapsedMs / 1000).toFixed(1)} s\n` +
      `rollouts: ${summary.paths.output}\nmetrics:  ${summary.paths.metrics}\n`,
  );
  if (summary.failed > 0) out.write(`failures: ${summary.paths.failures}\n`);
  const accounted = summary.succeeded + summary.failed;
  if (accounted < summary.requested || summary.missing.length > 0) {
    const pairs = summary.missing.slice(0, 20).map(([t, r]) => `(${t}, ${r})`).join(", ");
    process.stderr.write(
      `gym: error: ${summary.requested - accounted} of ${summary.requested} requested rollouts are missing` +
        (pairs ? `: (task, rollout) ${pairs}${summary.missing.length > 20 ? ` and ${summary.missing.length - 20} more` : ""}` : "") +
        "\n",
    );
    return EXIT.missing;
  }
  if (summary.failed > maxFailures) {
    process.stderr.write(`gym: error: ${summary.failed} rollouts failed (allowed: ${maxFailures}); see ${summary.paths.failures}\n`);
    return EXIT.tooManyFailures;
  }
  return EXIT.ok;
}

function formatNumber(value: unknown): string {
  return typeof value === "number" ? (Number.isInteger(value) ? String(value) : value.toFixed(4)) : JSON.stringify(value);
}
