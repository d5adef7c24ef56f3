// NeMo Gym's deprecated entry points (`ng_*` and their `nemo_gym_*` twins, its pyproject
// [project.scripts] at commit 07d6b0d) and the `gym` command each stands for, as data. The mapping is
// NeMo Gym's own (nemo_gym/cli/legacy.py); `gymHas: false` marks the commands Gymkit does not have.
// Commands that take flags instead of Hydra overrides get `flags`: `+key=value` → `--flag value`
// (a `null` flag means Gymkit does not need that key, which is said, not ignored).

export interface LegacyCommand {
  /** The `gym` command words NeMo Gym maps the name to, then fixed arguments. */
  gym: readonly string[];
  /** False when Gymkit has no such command. */
  gymHas: boolean;
  /** Hydra keys turned into the flags of a Gymkit command that takes no overrides. */
  flags?: Readonly<Record<string, string | null>>;
  /** A Hydra key whose value's last path segment becomes the command's argument (`+entrypoint=servers/my_env` → `my_env`). */
  argumentFromBasenameOf?: string;
  /** Why a name with no `gym` equivalent has none, and what to do instead. */
  instead?: string;
}

/** Keyed by the name without its `ng_` / `nemo_gym_` prefix. */
export const LEGACY_COMMANDS: Readonly<Record<string, LegacyCommand>> = {
  run: { gym: ["env", "start"], gymHas: true },
  test: { gym: ["env", "test"], gymHas: false },
  test_all: { gym: ["env", "test"], gymHas: false },
  dev_test: { gym: ["dev", "test"], gymHas: false },
  init_resources_server: { gym: ["env", "init"], gymHas: true, flags: { entrypoint: "--dir" }, argumentFromBasenameOf: "entrypoint" },
  list_benchmarks: { gym: ["list", "benchmarks"], gymHas: false },
  prepare_benchmark: { gym: ["eval", "prepare"], gymHas: true },
  collect_rollouts: { gym: ["eval", "run", "--no-serve"], gymHas: true },
  e2e_collect_rollouts: { gym: ["eval", "run"], gymHas: true },
  aggregate_rollouts: { gym: ["eval", "aggregate"], gymHas: true, flags: { input_glob: "--input-glob", output_jsonl_fpath: "--output", merge_shards: null } },
  materialize_prompts: { gym: ["dataset", "render"], gymHas: false },
  reward_profile: {
    gym: ["eval", "profile"],
    gymHas: true,
    flags: { rollouts_jsonl_fpath: "--rollouts", output_jsonl_fpath: "--output", materialized_inputs_jsonl_fpath: null },
  },
  upload_dataset_to_gitlab: { gym: ["dataset", "upload", "--storage", "gitlab"], gymHas: false },
  download_dataset_from_gitlab: { gym: ["dataset", "download", "--storage", "gitlab"], gymHas: false },
  prepare_data: { gym: ["dataset", "collate"], gymHas: false },
  upload_dataset_to_hf: { gym: ["dataset", "upload"], gymHas: false },
  download_dataset_from_hf: { gym: ["dataset", "download"], gymHas: false },
  gitlab_to_hf_dataset: { gym: ["dataset", "migrate"], gymHas: false },
  delete_dataset_from_gitlab: { gym: ["dataset", "rm"], gymHas: false },
  dump_config: { gym: ["env", "resolve"], gymHas: true },
  validate: { gym: ["env", "validate"], gymHas: false },
  help: { gym: ["--help"], gymHas: true },
  status: { gym: ["env", "status"], gymHas: true },
  pip_list: { gym: ["env", "packages"], gymHas: false },
  version: { gym: ["--version"], gymHas: true },
  reinstall: { gym: [], gymHas: false, instead: "reinstall Gymkit with npm (`npm install gymkit`)" },
};

export const LEGACY_PREFIXES = ["nemo_gym_", "ng_"] as const;

/** Every installed name: `ng_<key>` and `nemo_gym_<key>` for each entry. */
export function legacyNames(): string[] {
  return Object.keys(LEGACY_COMMANDS).flatMap((key) => LEGACY_PREFIXES.map((prefix) => `${prefix}${key}`));
}

/** The entry for an installed name (`ng_run`, `nemo_gym_run`), or undefined. */
export function legacyCommandOf(name: string): LegacyCommand | undefined {
  const prefix = LEGACY_PREFIXES.find((p) => name.startsWith(p));
  if (!prefix) return undefined;
  const key = name.slice(prefix.length);
  return Object.hasOwn(LEGACY_COMMANDS, key) ? LEGACY_COMMANDS[key] : undefined;
}
