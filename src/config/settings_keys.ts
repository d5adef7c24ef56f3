// Every top-level settings key (a top-level config key that is not a server instance) Gymkit knows,
// as data: which commands read it, and which NeMo Gym keys are accepted with a warning because they
// have no meaning here, or refused because ignoring them would silently change a result. Adding a key
// is one line. The NeMo Gym names come from nemo_gym/global_config.py (NEMO_GYM_RESERVED_TOP_LEVEL_KEYS),
// nemo_gym/config_types.py (exporters) and nemo_gym/rollout_collection.py at commit 07d6b0d.

/** The commands that resolve a config, named as typed after `gym`. */
export type ConfigCommand = "env start" | "env resolve" | "eval run" | "eval submit" | "eval reverify" | "eval aggregate" | "serve";

const ALL: readonly ConfigCommand[] = ["env start", "env resolve", "eval run", "eval submit", "eval reverify", "eval aggregate", "serve"];
// `eval submit` writes `eval run` command lines, so it reads (and checks) what `eval run` reads.
const RUN: readonly ConfigCommand[] = ["eval run", "eval submit"];
// Commands that start servers, NeMo Gym Python ones among them (orchestrate/python_server.ts).
const SERVE: readonly ConfigCommand[] = ["env start", "env resolve", "eval run", "eval submit", "eval reverify", "eval aggregate", "serve"];

/** Keys Gymkit reads, and the commands that read them (`env resolve` only prints, so it reads all). */
export const KNOWN_SETTINGS: Readonly<Record<string, readonly ConfigCommand[]>> = {
  config_paths: ALL,
  // Interpolated by the built-in model configs (`${policy_base_url}`), so every command that starts a model reads them.
  policy_base_url: ALL,
  policy_api_key: ALL,
  policy_model_name: ALL,
  policy_model_path: ALL,
  policy_recording_path: ALL,
  // The script of the built-in scripted_model (`gym env audit` sets it).
  policy_script_path: ALL,
  input_jsonl_fpath: RUN,
  output_jsonl_fpath: RUN,
  num_samples_in_parallel: [...RUN, "eval reverify"],
  concurrency: RUN,
  num_repeats: RUN,
  num_repeats_add_seed: RUN,
  // NeMo-Skills' pipeline names for seeds (`ns nemo_gym_rollouts --num_random_seeds …`).
  num_random_seeds: RUN,
  starting_seed: RUN,
  random_seeds: RUN,
  limit: RUN,
  max_failures: RUN,
  max_attempts: RUN,
  rollout_timeout: RUN,
  heartbeat: RUN,
  model_unreachable_timeout: RUN,
  shard: ["eval run"],
  responses_create_params: RUN,
  agent_name: RUN,
  resume_from_cache: ["eval run"],
  overwrite: RUN,
  prompt_config: RUN,
  split: RUN,
  disable_aggregation: RUN,
  // The Hugging Face token a run that prepares a gated benchmark (gpqa) uses; `gym eval prepare` reads it too.
  hf_token: RUN,
  // NeMo Gym Python servers: the Python to run them with (else their venv, under uv_venv_dir when
  // set), the Ray cluster they join (passed through to them), where `gym env start` writes their logs.
  nemo_gym_python: SERVE,
  uv_venv_dir: SERVE,
  ray_head_node_address: SERVE,
  nemo_gym_log_dir: ["env start", "env resolve"],
  // `{host, port}`: where `gym env start` puts the head, and the head `eval run --no-serve` asks.
  head_server: ["env start", "eval run"],
};

/** NeMo Gym keys that mean nothing in Gymkit: accepted, with a one-line warning (and what to use instead). */
export const NO_EFFECT_SETTINGS: Readonly<Record<string, string>> = {
  default_host: "servers bind 127.0.0.1 unless an instance sets `host`",
  disallowed_ports: "Gymkit lets the system pick free ports",
  port_range_low: "Gymkit lets the system pick free ports",
  port_range_high: "Gymkit lets the system pick free ports",
  use_absolute_ip: "",
  head_server_deps: "Gymkit installs no Python environments",
  python_version: "Gymkit installs no Python environments",
  pip_install_verbose: "Gymkit installs no Python environments",
  uv_pip_set_python: "Gymkit installs no Python environments",
  skip_venv_if_present: "Gymkit installs no Python environments",
  uv_cache_dir: "Gymkit installs no Python environments",
  model_endpoint_readiness_timeout_seconds: "use --model-ready-timeout",
  allow_openai_version_skew: "",
  results_dir: "",
  cache_dir: "",
  verbose: "",
  json: "use --json where a command has it",
  query: "",
  component_name: "",
  observability_enabled: "",
  model_call_capture_dir: "record model calls with the model's `record_path`",
  upload_rollouts: "Gymkit uploads rollouts nowhere",
  upload_rollouts_to_wandb: "Gymkit uploads rollouts nowhere",
  reuse_existing_data_preparation: "",
};

/** Prefixes of NeMo Gym keys that mean nothing here (exporter settings), with the reason. */
export const NO_EFFECT_PREFIXES: ReadonlyArray<[prefix: string, why: string]> = [
  ["wandb_", "Gymkit has no Weights & Biases exporter"],
  ["mlflow_", "Gymkit has no MLflow exporter"],
];

/** NeMo Gym keys whose silent absence would change what runs or the rewards: refused, with why. */
export const UNSUPPORTED_SETTINGS: Readonly<Record<string, string>> = {
  dry_run: "Gymkit has no dry run for this command; `gym env resolve` checks a config without starting anything",
  skip_verification: "Gymkit always verifies rollouts",
  skip_verification_reward: "Gymkit always verifies rollouts",
  rollout_collection_driver: "Gymkit runs no Python collection drivers",
  skills: "Gymkit does not stamp Agent Skills onto rollouts",
  token_id_capture: "ask the model for token ids with its `return_token_id_information: true`",
};

export type SettingKind =
  | { kind: "known"; readBy: readonly ConfigCommand[] }
  | { kind: "no-effect"; why: string }
  | { kind: "unsupported"; why: string }
  | { kind: "unknown" };

export function classifySetting(key: string): SettingKind {
  if (Object.hasOwn(KNOWN_SETTINGS, key)) return { kind: "known", readBy: KNOWN_SETTINGS[key]! };
  if (Object.hasOwn(NO_EFFECT_SETTINGS, key)) return { kind: "no-effect", why: NO_EFFECT_SETTINGS[key]! };
  const prefix = NO_EFFECT_PREFIXES.find(([p]) => key.startsWith(p));
  if (prefix) return { kind: "no-effect", why: prefix[1] };
  if (Object.hasOwn(UNSUPPORTED_SETTINGS, key)) return { kind: "unsupported", why: UNSUPPORTED_SETTINGS[key]! };
  return { kind: "unknown" };
}

/** Every key a "did you mean" may suggest. */
export function settingNames(): string[] {
  return [...Object.keys(KNOWN_SETTINGS), ...Object.keys(NO_EFFECT_SETTINGS), ...Object.keys(UNSUPPORTED_SETTINGS)];
}

/** Whether `command` reads the settings key `key` (instances, and keys Gymkit does not know, are not settings it reads). */
export function readsSetting(command: ConfigCommand, key: string): boolean {
  return Object.hasOwn(KNOWN_SETTINGS, key) && KNOWN_SETTINGS[key]!.includes(command);
}
