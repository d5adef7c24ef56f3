#!/usr/bin/env node
// `gym`: the command line. Thin by design: it parses arguments and calls the modules that do the
// work, imported lazily so that `gym --help` starts in milliseconds.
import { Command, CommanderError, Option } from "commander";
import { tuneHeap } from "../orchestrate/heap.js";
import { EXIT, fail, UsageError } from "./exit.js";
import { addRunOptions } from "./run_options.js";

try {
  tuneHeap();
} catch (error) {
  fail(new UsageError((error as Error).message));
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

// Commander has already printed its message (with its "did you mean"); only the exit code is ours.
// Explicit --help and --version exit 0; help shown because a command is missing is a usage error.
function parserExit(error: CommanderError): never {
  process.exit(error.exitCode === 0 ? 0 : EXIT.usage);
}

const program = new Command()
  .name("gym")
  .description("Gymkit: RL environments for language models, and scored rollouts from them (NeMo Gym compatible).")
  .version("0.1.0")
  .showHelpAfterError("(run with --help for usage)")
  // Commander exits 1 on its own errors (unknown option or command, missing argument); every usage
  // error exits 2, as the help says. Inherited by every command added below.
  .exitOverride(parserExit);

/** Options shared by every command that resolves a config. */
function configOptions(command: Command): Command {
  return command
    .option("--config <path>", "a config YAML (repeatable; later wins)", collect, [])
    .option("--resources-server <id>", "add the config of a built-in environment, e.g. example_multi_step")
    .option("--model-type <id>", "the policy model implementation: openai_model, vllm_model, local_model or replay_model")
    .option("--model-url <url>", "the model's base URL including /v1 (sets policy_base_url)")
    .option("--model <name>", "the model name sent to the engine (sets policy_model_name)")
    .option("--model-api-key <key>", "API key for the model endpoint (sets policy_api_key; default: dummy)")
    .option("--model-path <file>", "a GGUF file for --model-type local_model (sets policy_model_path)")
    .option("--judge-url <name=url>", "define model instance NAME (e.g. a judge a config names but does not define) as vllm_model in front of the engine at URL (base URL including /v1; repeatable)", collect, [])
    .option("--judge-model <name=model>", "the model name that --judge-url NAME's engine serves (default: NAME)", collect, [])
    .option("--nemo-gym-root <dir>", "a NeMo Gym checkout: its Python servers (entrypoint: app.py) run from there (default: $NEMO_GYM_ROOT)")
    .option("--nemo-gym-python <path>", "the Python that runs NeMo Gym servers (config key nemo_gym_python; default: each server's .venv)")
    .option("--nemo-gym-ready-timeout <s>", "how long a NeMo Gym Python server may take to answer GET / (default 600; a server given by url: at most 30)")
    .option("--benchmark <name>", "add a shipped benchmark's config (NeMo Gym's benchmarks/<name>/config.yaml, e.g. aime25 or livecodebench/v6_2408_2505); `eval run` then runs its benchmark dataset (`gym eval prepare` makes the data)")
    .option("--benchmark-cache <dir>", `where prepared benchmark data lives (default: $GYM_BENCHMARK_CACHE, else $XDG_CACHE_HOME/gymkit/benchmarks, ~/.cache by default)`)
    .argument("[overrides...]", "Hydra-style overrides: key=value, +key=value, ++key=value");
}

const env = program.command("env").description("start, inspect and resolve servers");

configOptions(env.command("start").description("start the head server and every configured instance, until Ctrl-C"))
  .option("--head-host <host>", "head server host (config key head_server.host; default 127.0.0.1)")
  .option("--head-port <port>", "head server port, 0 picks a free one (config key head_server.port; default 11000)")
  .option("--process-per-server", "run each instance in its own process")
  .option("--log-dir <dir>", "where NeMo Gym Python servers' output goes, <dir>/<instance>.log (config key nemo_gym_log_dir; default: ./gym_logs)")
  .option("--protocols <list>", "also serve every environment over these protocols, comma-separated: nemo-gym (always), openenv, ... (each environment gets a port, each protocol a path prefix)")
  .option("--max-sessions <n>", "protocol sessions each environment holds at once (OpenEnv's max_concurrent_envs; default 4096)")
  .option("--session-timeout <seconds>", "close OpenEnv, MCP and ORS sessions idle this long and free their slots (OpenEnv's session_timeout; default: never, ORS 900)")
  .action(async (overrides: string[], options) => (await import("./env_start.js")).envStart(overrides, options));

env
  .command("status")
  .description("list the instances a head server knows and whether each is healthy")
  .option("--head-url <url>", "head server URL", "http://127.0.0.1:11000")
  .option("--json", "print JSON instead of a table")
  .action(async (options) => (await import("./env_status.js")).envStatus(options));

env
  .command("init")
  .description("create a new environment folder (definition, config, example rows, test) that runs as it is")
  .argument("<id>", "the environment id (lower-case letters, digits, underscores)")
  .option("--dir <path>", "the folder to create (default: ./<id>)")
  .action(async (id: string, options) => (await import("./env_init.js")).envInit(id, options));

env
  .command("mcp")
  .description("serve one running environment as an MCP server over stdio (start_episode, its tools, submit_answer)")
  .requiredOption("--url <url>", "the environment server's base URL (e.g. from gym env status)")
  .option("--name <name>", "the environment's name, as MCP clients see it", "environment")
  .option("--rows <file>", "JSONL rows episodes start from (repeatable)", collect, [])
  .action(async (options) => (await import("./env_mcp.js")).envMcp(options));

env
  .command("audit")
  .description("reward-hack audit: play scripted null and adversarial policies through environments and report what gets rewarded")
  .argument("[ids...]", "built-in environment ids, then any config overrides (key=value, ++key=value)")
  .option("--config <path>", "audit the environment of this config (repeatable)", collect, [])
  .option("--all", "every built-in environment")
  .option("-i, --input <path>", "rows from this JSONL instead of the example data (one environment)")
  .option("--rows <n>", "rows per environment (default 3)")
  .option("--probes <list>", "only these probes or families, comma-separated")
  .option("--concurrency <n>", "rollouts at once (default 4)")
  .option("--report <path>", "also write the table as Markdown")
  .action(async (ids: string[], options) => (await import("./env_audit.js")).envAudit(ids, options));

configOptions(env.command("resolve").description("print the merged config (secrets hidden)")).action(async (overrides: string[], options) =>
  (await import("./env_resolve.js")).envResolve(overrides, options),
);

const evalCommand = program.command("eval").description("collect and score rollouts");

addRunOptions(
  configOptions(
    evalCommand
      .command("run")
      .description("start the servers, collect rollouts for every input row, write them with metrics, stop")
      .addHelpText(
        "after",
        `
Exit codes:
  0  every requested rollout succeeded (or failed within --max-failures)
  1  an unexpected error
  2  usage or config error (bad flag, bad config key, malformed input, unreachable model)
  3  rollouts missing or duplicated: fewer results than requested (the pairs are printed)
  4  too many failed rollouts (see <output stem>_failures.jsonl)
  5  engine unavailable: a --model-server-cmd engine exited, or every replica of an engine was
     unreachable for --model-unreachable-timeout; the rest is left unrun for --resume`,
      )
      .option("--dry-run", "check everything, print the plan (rollouts per agent, tasks), the commands it would start and the resolved config (secrets hidden); start and write nothing")
      .option("--view", "open the viewer (gym view) on this run: it prints the URL, updates as rollouts are written, and keeps serving after the run until Ctrl-C")
      .option("--view-port <port>", "port of --view's viewer (default: a free one)"),
  ),
  { perShard: true },
).action(async (overrides: string[], options) => (await import("./eval_run.js")).evalRun(overrides, options));

{
  // `submit` takes every `eval run` option except the two it sets per array task itself: --shard and --resume.
  const submit = evalCommand
    .command("submit")
    .description("run `eval run` as a Slurm job array of N shards plus a merge job that waits for them (`--dry-run` prints the scripts)")
    .requiredOption("--shards <n>", "number of shards = array tasks (task i runs shard i/N)")
    .option("--max-parallel <k>", "run at most K shards at once (Slurm's --array=…%K)")
    .option("--dry-run", "write and print the two scripts and the sbatch commands; submit nothing")
    .option("--dir <path>", "where the scripts and logs/ go (default: <output stem>_slurm/)")
    .option("--partition <name>", "Slurm partition of both jobs")
    .option("--time <limit>", "time limit of each job, e.g. 04:00:00")
    .option("--cpus-per-task <n>", "CPUs of each job")
    .option("--mem <size>", "memory of each job, e.g. 8G")
    .option("--sbatch-arg <arg>", "any other sbatch option for both jobs, e.g. --sbatch-arg=--account=proj (repeatable)", collect, []);
  addRunOptions(configOptions(submit), { perShard: false })
    .addHelpText("after", "\nExit codes: 0 submitted (or printed); 2 usage or config error, or sbatch refused a job; nothing is submitted when the config is invalid.")
    .action(async (overrides: string[], options, command: Command) => (await import("./eval_submit.js")).evalSubmit(overrides, options, command));
}

configOptions(
  evalCommand
    .command("prepare")
    .description("prepare benchmark data once into the cache: from the source NeMo Gym's prepare.py reads (Hugging Face or a raw file URL), or offline from --from-file / --from-url"),
)
  .option("--from-file <path>", "offline: a local JSONL of the source's rows (one benchmark)")
  .option("--from-url <url>", "a mirror URL serving the source's rows as JSONL (one benchmark)")
  .option("--use-cached", "keep data already prepared in the cache instead of preparing it again (NeMo Gym's +use_cached_prepared_benchmarks=true)")
  .addHelpText("after", "\nBenchmarks: --benchmark NAME (see `ls src/benchmarks` of the package), or every benchmark dataset of --config/+config_paths configs.\nHF_ENDPOINT, HF_DATASETS_SERVER_URL and HF_TOKEN (gated datasets such as gpqa) are read from the environment.")
  .action(async (overrides: string[], options) => (await import("./eval_prepare.js")).evalPrepare(overrides, options));
configOptions(
  evalCommand
    .command("reverify")
    .description("re-run the environments' /verify on stored rollouts (no model calls); same accounting, exit codes and --resume as `eval run`"),
)
  .requiredOption("--rollouts <path>", "stored rollouts (JSONL of verify responses, e.g. an `eval run` output)")
  .option("--materialized-inputs <path>", "the rows the rollouts were made from, joined by task index (default: `<rollouts stem>_materialized_inputs.jsonl` when it exists)")
  .option("--inputs <path>", "NeMo Gym's name for --materialized-inputs")
  .requiredOption("-o, --output <path>", "where to write the re-verified rollouts")
  .option("--concurrency <n>", "verifications in flight at once, or auto[:MIN-MAX] (judge calls gated adaptively, as in eval run)")
  .option("--max-failures <n>", "failures tolerated (N or P%) before exit code 4")
  .option("--max-attempts <n>", "attempts per rollout across --resume runs (default 3)")
  .option("--resume", "continue an interrupted reverify")
  .option("--overwrite", "replace an earlier output (without it, gym refuses to)")
  .option("--force", "re-verify even if an environment's reverify mode is not `stateless`")
  .option("--limit <n>", "re-verify at most the first N stored rollouts (with --judge-failed-only: N judge failures)")
  .option("--disable-aggregation", "skip the environments' /aggregate_metrics (e.g. for shards aggregated later with `gym eval aggregate`)")
  .option("--judge-failed-only", "carry the stored successes through and re-verify only the rollouts `<rollouts stem>_failures.jsonl` lists as judge_failed")
  .option("--append", "with --judge-failed-only: add the recovered rollouts to the existing --output (e.g. the run's own rollouts file) instead of writing a new one")
  .addOption(new Option("--quiet", "no progress line").default(false))
  .action(async (overrides: string[], options) => (await import("./eval_reverify.js")).evalReverify(overrides, options));

configOptions(
  evalCommand
    .command("aggregate")
    .description("merge shard outputs (sorted by task, rollout), account for every pair, recompute metrics; with --config the environments' own metrics too"),
)
  .requiredOption("--input-glob <glob>", "shard outputs, e.g. 'results/out-shard*.jsonl'")
  .requiredOption("-o, --output <path>", "the merged output")
  .option("--allow-partial", "merge shards that have no .done marker")
  .option("--overwrite", "replace an earlier merged output (without it, gym refuses to)")
  .action(async (overrides: string[], options) => (await import("./eval_aggregate.js")).evalAggregate(overrides, options));

evalCommand
  .command("profile")
  .description("per-task reward mean/std/min/max and pass rate (<stem>_reward_profiling.jsonl), for curriculum filtering")
  .requiredOption("--rollouts <path>", "a rollout file")
  .option("-o, --output <path>", "where to write the profile")
  .option("--pass-threshold <r>", "a rollout passes when reward ≥ this (default 1)")
  .option("--overwrite", "replace an earlier profile (without it, gym refuses to)")
  .action(async (options) => (await import("./eval_aggregate.js")).evalProfile(options));

evalCommand
  .command("export")
  .description("rollouts → trainer input: one line per rollout with prompt_ids, response_ids, response_mask, response_logprobs (see src/tokens/README.md)")
  .requiredOption("--rollouts <path>", "rollouts collected with return_token_id_information: true")
  .requiredOption("--output <path>", "where to write the tokens JSONL")
  .option("--format <format>", "export format (only: tokens)", "tokens")
  .option("--overwrite", "replace an earlier export (without it, gym refuses to)")
  .action(async (options) => (await import("./eval_export.js")).evalExport(options));

configOptions(
  program
    .command("serve")
    .description("serve POST /v1/rollouts (stream rollouts as NDJSON to trainers) over the configured servers, or a running head's, until Ctrl-C"),
)
  .option("--host <host>", "address of the rollout service", "127.0.0.1")
  .option("--port <port>", "port of the rollout service (0 picks a free one)", "11100")
  .option("--head-url <url>", "serve the agents of servers already running behind this head, instead of starting servers")
  .option("--head-port <port>", "port of the head server of the started servers (it serves /v1/rollouts too)", "0")
  .option("--process-per-server", "run each started instance in its own process")
  .option("--concurrency <n>", "rollouts in flight per request when the request does not say, or auto[:MIN-MAX] (as gym eval run's)", "16")
  .option("--model-ready-timeout <s>", "how long the model endpoint may take to answer at start-up", "30")
  .action(async (overrides: string[], options) => (await import("./serve.js")).serve(overrides, options));

program
  .command("view")
  .description("browse a run in a local web app: rollouts, conversations, tool calls, rewards, failures and metrics, until Ctrl-C")
  .option(
    "--rollouts <path>",
    "a rollout file; its <stem>_failures.jsonl, _aggregate_metrics.json and _materialized_inputs.jsonl are read when present. Repeat it, or give a directory of runs, to compare runs (the first is the baseline)",
    collect,
    [],
  )
  .option("--no-live", "index the files once at start-up instead of following them as they grow")
  .option("--host <host>", "address to bind", "127.0.0.1")
  .option("--port <port>", "port (0 picks a free one)", "11200")
  .option("--export <file>", "write one self-contained HTML report (plots, metrics, sample conversations) to <file> and exit, instead of serving")
  .action(async (options) => (await import("./view.js")).view(options));

const sandbox = program.command("sandbox").description("run untrusted code in isolation");

sandbox
  .command("exec")
  .description("run one program in the sandbox and print the JSON result (exit 0 only if its status is ok)")
  .argument("<file>", "the program")
  .option("--lang <language>", "python, shell or ipython (default: from the extension, else python)")
  .option("--stdin <file>", "a file to feed to the program's stdin")
  .option("--timeout <s>", "wall-clock limit in seconds", "10")
  .action(async (file: string, options) => (await import("./sandbox.js")).sandboxExec(file, options));

sandbox
  .command("serve")
  .description("serve POST /execute (NeMo-Skills sandbox API) until Ctrl-C")
  .option("--host <host>", "address to bind", "127.0.0.1")
  .option("--port <port>", "port (0 picks a free one)", "6000")
  .option("--concurrency <n>", "programs running at once (default: the number of cores)")
  .option("--max-sessions <n>", "live ipython sessions at once (default 16)")
  .option("--session-idle <s>", "close a session idle this long, in seconds", "600")
  .action(async (options) => (await import("./sandbox.js")).sandboxServe(options));

program.parseAsync(process.argv).catch((error: unknown) => fail(error));
