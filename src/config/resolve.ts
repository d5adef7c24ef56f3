// The whole pipeline from sources to a validated config:
//   defaults < config_paths files (nested, later wins) < replaced instances < env.yaml in the working
//   directory < command-line overrides (Hydra strings, then Gymkit flags)
//   → NeMo Gym's `_copy`/`_inherit_from`/`_delete_key` directives → `${...}` interpolation → instance validation.
// Composition is synchronous; only validation is async, because it loads implementations.
import { existsSync } from "node:fs";
import { join, resolve as resolvePath } from "node:path";
import { interpolatedRoots } from "./check_settings.js";
import { CONFIG_PATHS_KEY, configPathsOf, labelFor, loadConfigFiles, type BuiltinConfigResolver, type ConfigFile } from "./config_files.js";
import { applyDirectives } from "./directives.js";
import { ConfigError, ProblemList } from "./errors.js";
import { resolveInterpolations, type Environment } from "./interpolate.js";
import { readConfigFile } from "./load_yaml.js";
import { mergeInto } from "./merge.js";
import { applyOverrides, flagOverride, parseOverride, type FlagOverride, type Override } from "./overrides.js";
import { Provenance } from "./provenance.js";
import type { Mapping } from "./tree.js";
import { validateConfig, type ImplementationRegistry, type ResolvedInstance } from "./validate.js";

export const ENV_YAML = "env.yaml";

export interface ComposeOptions {
  /** Config files named by the user (`--config`), loaded before any `config_paths` override. */
  configPaths?: readonly string[];
  /** Hydra-style overrides as typed: `key=value`, `+key=value`, `++key=value`, `~key`. */
  overrides?: readonly string[];
  /** Structured overrides from Gymkit flags, applied after `overrides`. */
  flags?: readonly FlagOverride[];
  /** Working directory: relative paths and `env.yaml` are found here. Default: `process.cwd()`. */
  cwd?: string;
  /** Variables for `${oc.env:VAR}`. Default: `process.env`. */
  env?: Environment;
  /** `false` skips env.yaml; a string reads that file instead of `<cwd>/env.yaml`. */
  envYaml?: boolean | string;
  /** Maps NeMo Gym repo paths to built-in configs; default: the package's built-in environment and model configs. */
  builtinConfig?: BuiltinConfigResolver;
  /** Values used when no source sets them (e.g. `{policy_api_key: "dummy"}`); below every file. */
  defaults?: Mapping;
  /**
   * Instances to take wholesale from another file, replacing whatever the config files define under
   * that name (e.g. `--model-type vllm_model` → `{policy_model: <vllm_model.yaml>}`). env.yaml and
   * overrides still apply on top, so `++policy_model.responses_api_models.vllm_model.x=1` works.
   */
  replaceInstances?: Readonly<Record<string, string>>;
  /**
   * Instances defined by a flag, replacing whatever the config files define under that name (e.g.
   * `--judge-url genrm_model=URL` → a vllm_model instance in front of that engine). `source` names the
   * flag in messages. Overrides still apply on top.
   */
  defineInstances?: Readonly<Record<string, { source: string; definition: Mapping | ((existing: Mapping | undefined) => Mapping) }>>;
}

export interface ComposedConfig {
  /** The merged, interpolated config. */
  config: Mapping;
  /** Where each key came from, for error messages. */
  provenance: Provenance;
  /** Every config file loaded, absolute paths in merge order (env.yaml excluded). */
  files: string[];
  /** Top-level keys some `${...}` refers to (before resolution): settings that are used as variables. */
  referenced: Set<string>;
}

export interface ResolveOptions extends ComposeOptions {
  /** Implementation lookup for validation (orchestrate/registry.ts, or a test's own). */
  registry: ImplementationRegistry;
}

export interface ResolvedConfig extends ComposedConfig {
  instances: ResolvedInstance[];
}

/** Merges every source and resolves interpolations; throws ConfigError. Does not validate instances. */
export function composeConfig(options: ComposeOptions = {}): ComposedConfig {
  const cwd = options.cwd ?? process.cwd();
  const cli: Override[] = [...parseOverrides(options.overrides ?? []), ...(options.flags ?? []).map(flagOverride)];
  const isConfigPaths = (o: Override) => o.path.length === 1 && o.path[0] === CONFIG_PATHS_KEY;

  const envYaml = readEnvYaml(options.envYaml, cwd);

  // Which files to load: the command line's (`--config` and any `config_paths` override) replace
  // env.yaml's `config_paths`, as a command-line value replaces an env.yaml value everywhere else.
  const fromCli = [...(options.configPaths ?? [])];
  for (const override of cli.filter(isConfigPaths)) fromCli.push(...configPathsOf({ [CONFIG_PATHS_KEY]: override.value }, override.source));
  const cliNamesFiles = fromCli.length > 0 || cli.some(isConfigPaths);
  const rootsFrom = cliNamesFiles ? "the command line" : (envYaml?.label ?? ENV_YAML);
  const roots = cliNamesFiles ? fromCli : envYaml ? configPathsOf(envYaml.data, envYaml.label) : [];
  const files = loadConfigFiles(roots, cwd, { namedBy: rootsFrom, builtin: options.builtinConfig });

  const provenance = new Provenance();
  const merged: Mapping = {};
  if (options.defaults) mergeInto(merged, options.defaults, "defaults", provenance);
  for (const file of files) mergeInto(merged, file.data, file.label, provenance);
  for (const [name, path] of Object.entries(options.replaceInstances ?? {})) {
    files.push(...replaceInstance(merged, provenance, name, path, cwd, options.builtinConfig));
  }
  for (const [name, { source, definition: define }] of Object.entries(options.defineInstances ?? {})) {
    const existing = merged[name];
    const definition = typeof define === "function" ? define(existing !== null && typeof existing === "object" && !Array.isArray(existing) ? (existing as Mapping) : undefined) : define;
    delete merged[name];
    provenance.removed([name]);
    mergeInto(merged, { [name]: definition }, source, provenance);
  }
  if (envYaml) {
    const { [CONFIG_PATHS_KEY]: _followed, ...rest } = envYaml.data;
    mergeInto(merged, rest, envYaml.label, provenance);
  }
  applyOverrides(merged, provenance, cli.filter((o) => !isConfigPaths(o)));
  // Keep the list the user gave (not every nested include), as NeMo Gym's config dump does.
  if (roots.length > 0) mergeInto(merged, { [CONFIG_PATHS_KEY]: roots }, rootsFrom, provenance);

  applyDirectives(merged, provenance);
  const config = resolveInterpolations(merged, provenance, options.env ?? process.env);
  return { config, provenance, files: [...new Set(files.map((f) => f.path))], referenced: interpolatedRoots(merged) };
}

/** composeConfig, then validation of every instance against its implementation; throws ConfigError. */
export async function resolveConfig(options: ResolveOptions): Promise<ResolvedConfig> {
  const composed = composeConfig(options);
  const instances = await validateConfig(composed.config, { registry: options.registry, provenance: composed.provenance });
  return { ...composed, instances };
}

// Every malformed override is reported at once, not just the first.
function parseOverrides(texts: readonly string[]): Override[] {
  const problems = new ProblemList();
  const out: Override[] = [];
  for (const text of texts) {
    try {
      out.push(parseOverride(text));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const problem of error.problems) problems.add(problem);
    }
  }
  problems.throwIfAny();
  return out;
}

// `<cwd>/env.yaml` by default; `false` skips it, a string names another file. Absent is fine.
function readEnvYaml(choice: boolean | string | undefined, cwd: string): { data: Mapping; label: string } | undefined {
  if (choice === false) return undefined;
  const path = typeof choice === "string" ? resolvePath(cwd, choice) : join(cwd, ENV_YAML);
  // Only the default location may be absent; a file named explicitly must exist.
  if (typeof choice !== "string" && !existsSync(path)) return undefined;
  const label = typeof choice === "string" ? labelFor(path, cwd) : ENV_YAML;
  return { data: readConfigFile(path, label), label };
}

// The named instance as `path` (and its includes) define it, replacing the merged one entirely:
// merging would leave the old implementation id beside the new one. Returns the files it read.
function replaceInstance(
  merged: Mapping,
  provenance: Provenance,
  name: string,
  path: string,
  cwd: string,
  builtin: BuiltinConfigResolver | undefined,
): ConfigFile[] {
  const files = loadConfigFiles([path], cwd, { namedBy: `the replacement for \`${name}\``, builtin });
  const defining = files.filter((file) => Object.hasOwn(file.data, name));
  if (defining.length === 0) {
    const label = files[files.length - 1]?.label ?? path;
    throw new ConfigError(`${label} was given to replace the instance \`${name}\`, but it does not define \`${name}\`.`);
  }
  delete merged[name];
  provenance.removed([name]);
  for (const file of defining) mergeInto(merged, { [name]: file.data[name] }, file.label, provenance);
  return files;
}
