// The options of a run, one definition for `gym eval run` and `gym eval submit` (the same run as Slurm
// array tasks): declared once on a commander command, and read once into a checked, typed RunOptions,
// each flag falling back to its config key (NeMo Gym's names). main.ts declares them at start-up, so
// this module imports no collection code up front: the parsing loads it when a run actually starts,
// and `gym --help` stays fast.
import { resolve as resolvePath } from "node:path";
import { Option, type Command } from "commander";
import type { PromptConfig } from "../collect/prompt_config.js";
import type { RepeatsSpec, Shard } from "../collect/plan.js";
import type { FailureLimit } from "../collect/scheduler.js";
import type { Split } from "../collect/split_input.js";
import { UsageError } from "./exit.js";
import { parseAutoConcurrency, type AutoBounds } from "../http/adaptive_limit.js";

/** The run options as commander hands them over: strings as typed, booleans for switches. */
export interface RunFlags {
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
  extend?: boolean;
  overwrite?: boolean;
  shard?: string;
  startingSeed?: string;
  numRandomSeeds?: string;
  randomSeeds?: string;
  promptConfig?: string;
  split?: string;
  disableAggregation?: boolean;
  modelReadyTimeout: string;
  modelServerCmd?: string;
  modelServerPort?: string;
  modelServerReadyTimeout: string;
  modelUnreachableTimeout?: string;
  serve: boolean;
  processPerServer?: boolean;
  headUrl?: string;
  quiet: boolean;
}

/** NeMo Gym's `head_server: {host, port}` (its default 127.0.0.1:11000), where a flag does not say otherwise. */
export function headServerOf(settings: Record<string, unknown>): { host: string; port: number } {
  const head = settings.head_server;
  const given = head !== null && typeof head === "object" && !Array.isArray(head) ? (head as { host?: unknown; port?: unknown }) : {};
  const host = typeof given.host === "string" && given.host !== "" ? given.host : "127.0.0.1";
  const port = given.port === undefined || given.port === null ? 11000 : Number(given.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`head_server.port must be a port number, got ${JSON.stringify(given.port)}`);
  return { host, port };
}

/** The head `--no-serve` asks: `--head-url`, else the config's `head_server`. */
export function headUrlOf(flag: string | undefined, settings: Record<string, unknown>): string {
  if (flag !== undefined) return flag;
  const { host, port } = headServerOf(settings);
  // A head listening on every interface is reached through loopback from here.
  return `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`;
}

/** Flags each array task of `eval submit` sets itself (`--shard i/N`, `--resume`), so submit does not take them. */
const PER_SHARD_FLAGS = new Set(["--shard", "--resume", "--extend"]);

/** Declares the run options on `command`; `perShard: false` leaves out the ones each array task sets. */
export function addRunOptions(command: Command, { perShard }: { perShard: boolean }): Command {
  const options = [
    new Option("-i, --input <path>", "input JSONL (config key: input_jsonl_fpath)"),
    new Option("-o, --output <path>", "output JSONL (config key: output_jsonl_fpath)"),
    new Option("-a, --agent <name>", "agent for rows without agent_ref"),
    new Option(
      "--concurrency <n>",
      "rollouts in flight at once, or auto[:MIN-MAX]: limits that find the engine's ceiling themselves (AIMD on its errors, latency and the event loop's lag, one per engine replica, judge and sandbox; default bounds 4-512) (config key: num_samples_in_parallel)",
    ),
    new Option("--num-repeats <n>", "rollouts per input row: an integer or a per-agent map, e.g. '{\"math_simple_agent\": 32, \"_default\": 1}'"),
    new Option("--num-repeats-add-seed", "use the rollout index as the sampling seed of each repeat"),
    new Option("--limit <n>", "only the first N input rows"),
    new Option("--temperature <t>", "sampling temperature for every row"),
    new Option("--top-p <p>", "nucleus sampling for every row"),
    new Option("--max-output-tokens <n>", "max output tokens for every row"),
    new Option("--max-failures <n>", "failed rollouts tolerated (N or P%); past it the run stops early and exits 4 (default: run all, exit 4 on any failure)"),
    new Option("--max-attempts <n>", "attempts per rollout across --resume runs before its failure is final (default 3)"),
    new Option(
      "--rollout-timeout <s>",
      "deadline of one whole rollout in seconds, past it the rollout fails as `timeout` (config key: rollout_timeout; default 3600: far above a healthy rollout, each model call has its own 600 s, yet a stuck one cannot hold its slot for ever; 0 or none: no deadline)",
    ),
    new Option(
      "--heartbeat <s>",
      "when no rollout has finished for this many seconds, print what is in flight: how many, and the oldest (task, rollout, agent, age) (config key: heartbeat; default 60; 0: never)",
    ),
    new Option("--resume", "continue a run: keep its results, repair a torn last line, run only what is missing (config key: resume_from_cache)"),
    new Option("--extend", "with --resume: grow the run to the current settings — more repeats, more seeds, more rows — running only the new rollouts; refused if any request already made would change (recorded in the plan fingerprint)"),
    new Option("--overwrite", "replace the results of an earlier run with this output (without it, gym refuses to)"),
    new Option("--num-random-seeds <n>", "NeMo-Skills' seeds: run N full sets of the repeats, seeds --starting-seed … +N−1; seed s takes rollout indices s·R … s·R+R−1 of each task, so per-seed runs merge (config key: num_random_seeds)"),
    new Option("--starting-seed <n>", "first seed of --num-random-seeds (default 0); alone, runs that one seed (config key: starting_seed)"),
    new Option("--random-seeds <list>", "explicit seeds, e.g. 0,2,5 (config key: random_seeds)"),
    new Option("--shard <i/n>", "run only the tasks of shard I of N (task index mod N); merge with `gym eval aggregate`"),
    new Option(
      "--prompt-config <path>",
      "a prompt YAML (`user`, optional `system` templates with {field} placeholders) that builds each row's responses_create_params.input from its fields (config key: prompt_config)",
    ),
    new Option(
      "--split <split>",
      "input = the agents' `datasets:` of this type (train, validation or benchmark), collated into <output stem>/preprocessed_datasets/<split>.jsonl; instead of --input (config key: split)",
    ),
    new Option(
      "--disable-aggregation",
      "do not call the environments' /aggregate_metrics (for shards merged later by `gym eval aggregate`); the collector's own statistics are still written (config key: disable_aggregation)",
    ),
    new Option("--model-ready-timeout <s>", "how long the model endpoint may take to answer at start-up").default("30"),
    new Option(
      "--model-server-cmd <command>",
      "start this inference server (bash -c; {port} is replaced) for the run's lifetime, e.g. 'vllm serve Qwen/Qwen3-8B --port {port}'; policy_base_url becomes http://127.0.0.1:<port>/v1 unless --model-url is given; log: <output stem>_model_server.log",
    ),
    new Option("--model-server-port <port>", "port for --model-server-cmd (default: a free one)"),
    new Option("--model-server-ready-timeout <s>", "how long --model-server-cmd may take until GET /v1/models answers 200").default("900"),
    new Option(
      "--model-unreachable-timeout <s>",
      "stop the run (exit 5, the rest left for --resume) when every replica of a model's engine has refused connections for this many seconds; a --model-server-cmd engine that exits stops it at once (config key: model_unreachable_timeout; default 60; 0: never)",
    ),
    new Option("--no-serve", "do not start servers; collect against the ones a running head knows"),
    new Option("--process-per-server", "run each started instance in its own process"),
    new Option("--head-url <url>", "head server to use with --no-serve (default: the config's head_server, else http://127.0.0.1:11000)"),
    new Option("--quiet", "no progress line").default(false),
  ];
  for (const option of options) if (perShard || !PER_SHARD_FLAGS.has(option.long!)) command.addOption(option);
  return command;
}

/** `--concurrency auto[:MIN-MAX]` (or the config key set so); undefined for a plain number. */
function autoBounds(value: unknown): AutoBounds | undefined {
  try {
    return parseAutoConcurrency(value);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function positiveInt(name: string, value: unknown): number | undefined {
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

/** `--rollout-timeout S` in ms: `fallbackS` unless given; `0` or `none` (only when asked) turns it off. */
function rolloutTimeoutMs(value: unknown, fallbackS: number): number | undefined {
  if (value === undefined || value === null || value === "") return fallbackS * 1000;
  if (typeof value === "string" && value.trim().toLowerCase() === "none") return undefined;
  const seconds = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(seconds) || seconds < 0) throw new UsageError(`--rollout-timeout must be a number of seconds ≥ 0 (0 or none: no deadline), got ${JSON.stringify(value)}`);
  return seconds > 0 ? seconds * 1000 : undefined;
}

/**
 * `--model-unreachable-timeout`: long enough for a blip or a load balancer's failover, short next to
 * an allocation spent pushing every remaining rollout through retries against a dead engine.
 */
export const DEFAULT_MODEL_UNREACHABLE_TIMEOUT_S = 60;

/** After this long with no rollout finished, say what is in flight (`--heartbeat`). */
export const DEFAULT_HEARTBEAT_S = 60;

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
function booleanSetting(name: string, value: unknown): boolean | undefined {
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
function inputAndOutput(options: { input?: string; output?: string }, settings: Record<string, unknown>): { input: string; output: string } {
  const input = options.input ?? (settings.input_jsonl_fpath as string | undefined);
  const output = options.output ?? (settings.output_jsonl_fpath as string | undefined);
  if (!input) throw new UsageError("no input file: pass --input FILE (or set input_jsonl_fpath in the config)");
  if (!output) throw new UsageError("no output file: pass --output FILE (or set output_jsonl_fpath in the config)");
  return { input, output };
}

/** With `split`, the input is the collated datasets file beside the output; naming an input too is a conflict. */
function splitInputAndOutput(
  split: Split,
  collatedPath: (output: string, split: Split) => string,
  options: { input?: string; output?: string },
  settings: Record<string, unknown>,
): { input: string; output: string } {
  const output = options.output ?? (settings.output_jsonl_fpath as string | undefined);
  if (!output) throw new UsageError("no output file: pass --output FILE (or set output_jsonl_fpath in the config)");
  const given = options.input !== undefined ? "--input" : settings.input_jsonl_fpath !== undefined ? "input_jsonl_fpath" : undefined;
  if (given) throw new UsageError(`--split ${split} and ${given} both name the input; give one (--split reads the agents' ${split} datasets)`);
  return { input: collatedPath(output, split), output };
}

/** A boolean flag or config key (`+disable_aggregation=true`); anything but a boolean is a usage error. */
function flagOrSetting(name: string, value: unknown): boolean {
  return booleanSetting(name, value) ?? false;
}

/** The self-hosted inference server (`--model-server-*`), read before the config: its port decides the policy's URL. */
export interface ModelServerFlags {
  command?: string;
  /** Given with --model-server-port; otherwise the run picks a free one. */
  port?: number;
  readyTimeoutS: number;
}

export function parseModelServerFlags(flags: Pick<RunFlags, "modelServerCmd" | "modelServerPort" | "modelServerReadyTimeout" | "serve">): ModelServerFlags {
  if (flags.modelServerCmd !== undefined && !flags.serve) {
    throw new UsageError("--model-server-cmd cannot be used with --no-serve: the running head's model already has its engine");
  }
  const port = positiveInt("--model-server-port", flags.modelServerPort);
  if (port !== undefined && port > 65535) throw new UsageError(`--model-server-port must be a port number ≤ 65535, got ${port}`);
  const readyTimeoutS = nonNegativeNumber("--model-server-ready-timeout", flags.modelServerReadyTimeout) ?? 900;
  return { command: flags.modelServerCmd, port, readyTimeoutS };
}

/** A run's options, checked, with the config's keys applied where a flag was not given. */
export interface RunOptions {
  split?: Split;
  input: string;
  output: string;
  prompt?: PromptConfig;
  disableAggregation: boolean;
  /** Rollouts in flight; with `auto`, the most ever let in. */
  concurrency: number;
  /** `--concurrency auto[:MIN-MAX]`: the bounds of the adaptive limits. */
  auto?: AutoBounds;
  repeats: RepeatsSpec;
  limit?: number;
  /** Failures the exit code tolerates (0 unless given). */
  maxFailures: FailureLimit;
  /** Whether a limit was given at all: only then does the run stop early when it is passed. */
  maxFailuresGiven: boolean;
  maxAttempts: number;
  /** Deadline of one whole rollout; undefined: none. */
  rolloutTimeoutMs?: number;
  heartbeatS: number;
  /** How long every replica of an engine may refuse connections before the run stops (0: never). */
  modelUnreachableTimeoutS: number;
  modelReadyTimeoutS: number;
  addSeed: boolean;
  /** NeMo-Skills random seeds; undefined = one set of repeats (seed 0). */
  seeds?: number[];
  /** Sampling parameters set on every row: the config's responses_create_params, then the flags. */
  paramOverrides: Record<string, unknown>;
}

/**
 * Reads and checks every option `eval run` and `eval submit` share, flag first, then config key, in
 * the order a user would fix them: where the rows come from, then how they are run.
 */
export async function parseRunOptions(flags: Partial<RunFlags>, settings: Record<string, unknown>): Promise<RunOptions> {
  const [{ parseRepeatsSpec }, { parseSplit, splitInputPath }, { loadPromptConfig }, { DEFAULT_ROLLOUT_TIMEOUT_S }] = await Promise.all([
    import("../collect/plan.js"),
    import("../collect/split_input.js"),
    import("../collect/prompt_config.js"),
    import("../collect/collect.js"),
  ]);
  const split = parseSplit(flags.split ?? settings.split);
  const { input, output } = split ? splitInputAndOutput(split, splitInputPath, flags, settings) : inputAndOutput(flags, settings);
  const promptPath = flags.promptConfig ?? settings.prompt_config;
  const prompt = promptPath === undefined || promptPath === null ? undefined : loadPromptConfig(resolvePath(String(promptPath)));
  const disableAggregation = flagOrSetting("--disable-aggregation", flags.disableAggregation ?? settings.disable_aggregation);
  const concurrencyGiven = flags.concurrency ?? settings.num_samples_in_parallel ?? settings.concurrency;
  const auto = autoBounds(concurrencyGiven);
  const concurrency = auto ? auto.max : (positiveInt("--concurrency", concurrencyGiven) ?? 16);
  const repeats = parseRepeatsSpec(flags.numRepeats ?? settings.num_repeats);
  const limit = positiveInt("--limit", flags.limit ?? settings.limit);
  const failuresGiven = flags.maxFailures ?? settings.max_failures;
  const maxFailures = parseFailureLimit(failuresGiven);
  const maxAttempts = positiveInt("--max-attempts", flags.maxAttempts ?? settings.max_attempts) ?? 3;
  const rolloutTimeout = rolloutTimeoutMs(flags.rolloutTimeout ?? settings.rollout_timeout, DEFAULT_ROLLOUT_TIMEOUT_S);
  const heartbeatS = nonNegativeNumber("--heartbeat", flags.heartbeat ?? settings.heartbeat) ?? DEFAULT_HEARTBEAT_S;
  const modelReadyTimeoutS = nonNegativeNumber("--model-ready-timeout", flags.modelReadyTimeout) ?? 30;
  const modelUnreachableTimeoutS = nonNegativeNumber("--model-unreachable-timeout", flags.modelUnreachableTimeout ?? settings.model_unreachable_timeout) ?? DEFAULT_MODEL_UNREACHABLE_TIMEOUT_S;
  const addSeed = Boolean(flags.numRepeatsAddSeed ?? settings.num_repeats_add_seed);
  const seeds = parseSeeds(flags, settings);

  const paramOverrides: Record<string, unknown> = { ...((settings.responses_create_params as Record<string, unknown> | undefined) ?? {}) };
  const temperature = nonNegativeNumber("--temperature", flags.temperature);
  if (temperature !== undefined) paramOverrides.temperature = temperature;
  const topP = nonNegativeNumber("--top-p", flags.topP);
  if (topP !== undefined) paramOverrides.top_p = topP;
  const maxOutputTokens = positiveInt("--max-output-tokens", flags.maxOutputTokens);
  if (maxOutputTokens !== undefined) paramOverrides.max_output_tokens = maxOutputTokens;

  return {
    split,
    input,
    output,
    prompt,
    disableAggregation,
    concurrency,
    ...(auto ? { auto } : {}),
    repeats,
    limit,
    maxFailures,
    maxFailuresGiven: failuresGiven !== undefined,
    maxAttempts,
    rolloutTimeoutMs: rolloutTimeout,
    heartbeatS,
    modelUnreachableTimeoutS,
    modelReadyTimeoutS,
    addSeed,
    seeds,
    paramOverrides,
  };
}

/** `--random-seeds 0,2,5`, or `--num-random-seeds N` from `--starting-seed S` (NeMo-Skills' pipeline flags). */
export function parseSeeds(flags: Pick<RunFlags, "startingSeed" | "numRandomSeeds" | "randomSeeds">, settings: Record<string, unknown>): number[] | undefined {
  const list = flags.randomSeeds ?? settings.random_seeds;
  const count = positiveInt("--num-random-seeds", flags.numRandomSeeds ?? settings.num_random_seeds);
  const startText = flags.startingSeed ?? settings.starting_seed;
  const start = startText === undefined || startText === null || startText === "" ? undefined : seedNumber("--starting-seed", startText);
  if (list !== undefined && list !== null && list !== "") {
    if (count !== undefined || start !== undefined) throw new UsageError("--random-seeds names the seeds itself: give it, or --num-random-seeds / --starting-seed, not both");
    const items = Array.isArray(list) ? list : String(list).split(",").map((s) => s.trim()).filter((s) => s !== "");
    const seeds = items.map((item) => seedNumber("--random-seeds", item));
    if (seeds.length === 0) throw new UsageError(`--random-seeds must list at least one seed, e.g. 0,2,5; got ${JSON.stringify(list)}`);
    const repeated = seeds.filter((seed, i) => seeds.indexOf(seed) !== i);
    if (repeated.length > 0) throw new UsageError(`--random-seeds lists seed ${repeated[0]} twice: each seed is one set of rollouts`);
    return seeds;
  }
  if (count === undefined && start === undefined) return undefined;
  return Array.from({ length: count ?? 1 }, (_, i) => (start ?? 0) + i);
}

function seedNumber(name: string, value: unknown): number {
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isInteger(n) || n < 0 || String(value).trim() === "") throw new UsageError(`${name}: a seed is a whole number ≥ 0, got ${JSON.stringify(value)}`);
  return n;
}

/** The options only `eval run` itself reads: `eval submit` sets them per array task (shard, resume) or checks its own merged output (overwrite). */
export async function parseShardAndResume(flags: Pick<RunFlags, "shard" | "resume" | "extend" | "overwrite">, settings: Record<string, unknown>): Promise<{ shard?: Shard; resume: boolean; extend: boolean; overwrite: boolean }> {
  const { parseShard } = await import("../collect/plan.js");
  const shard = parseShard(flags.shard ?? (settings.shard as string | undefined));
  const { resume, overwrite } = resumeAndOverwrite(flags, settings);
  const extend = flags.extend ?? false;
  if (extend && !resume) throw new UsageError("--extend grows a run that exists: use it with --resume (and the same --output)");
  return { shard, resume, extend, overwrite };
}
