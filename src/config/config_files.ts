// Loads the files named by `config_paths`, following each file's own `config_paths`.
//
// Order is "later wins": a file's includes come before the file itself (so the including file can
// adjust what it includes), and the files of one list come in list order. A path is looked up
// relative to the file that names it, then relative to the working directory (NeMo Gym resolves
// config_paths from its repo root, which plays the working directory's part here), and finally — so
// NeMo Gym command lines work unchanged — a NeMo Gym repo path such as
// `resources_servers/example_multi_step/configs/example_multi_step.yaml` maps to Gymkit's built-in copy.
import { existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { nemoGymBuiltinPath } from "./builtin_configs.js";
import { ConfigError } from "./errors.js";
import { readConfigFile } from "./load_yaml.js";
import type { Mapping } from "./tree.js";

export const CONFIG_PATHS_KEY = "config_paths";

export interface ConfigFile {
  /** Absolute path. */
  path: string;
  /** How messages name the file: relative to the working directory when inside it. */
  label: string;
  /** The file's contents without its `config_paths` key (which was followed, not merged). */
  data: Mapping;
}

/** Maps a NeMo Gym repo-relative config path to a built-in file, or undefined. */
export type BuiltinConfigResolver = (path: string) => string | undefined;

export function labelFor(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/** The `config_paths` value of a source as a list of strings; throws naming the source otherwise. */
export function configPathsOf(data: Mapping, label: string): string[] {
  const value = data[CONFIG_PATHS_KEY];
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value;
  throw new ConfigError(`\`${CONFIG_PATHS_KEY}\` in ${label} must be a list of file paths, not ${JSON.stringify(value)}.`);
}

/** Loads `paths` (relative ones from `cwd`; `namedBy` says where they were listed) and their includes, in merge order. */
export function loadConfigFiles(
  paths: readonly string[],
  cwd: string,
  options: { namedBy?: string; builtin?: BuiltinConfigResolver } = {},
): ConfigFile[] {
  const builtin = options.builtin ?? nemoGymBuiltinPath;
  const out: ConfigFile[] = [];
  const visit = (path: string, chain: readonly string[]): void => {
    const key = canonical(path);
    const label = labelFor(path, cwd);
    const seen = chain.indexOf(key);
    if (seen !== -1) {
      const loop = [...chain.slice(seen), key].map((p) => labelFor(p, cwd));
      throw new ConfigError(`\`${CONFIG_PATHS_KEY}\` has a cycle: ${loop.join(" → ")}. A file cannot include itself, directly or through others.`);
    }
    const data = readConfigFile(path, label);
    for (const include of configPathsOf(data, label)) {
      visit(locate(include, [dirname(path), cwd], builtin, label), [...chain, key]);
    }
    const { [CONFIG_PATHS_KEY]: _followed, ...rest } = data;
    out.push({ path, label, data: rest });
  };
  for (const path of paths) visit(locate(path, [cwd], builtin, options.namedBy ?? "the command line"), []);
  return out;
}

function locate(path: string, bases: readonly string[], builtin: BuiltinConfigResolver, namedBy: string): string {
  const tried: string[] = [];
  for (const base of isAbsolute(path) ? [""] : bases) {
    const candidate = resolve(base, path);
    if (existsSync(candidate)) return candidate;
    if (!tried.includes(candidate)) tried.push(candidate);
  }
  const fallback = isAbsolute(path) ? undefined : builtin(path);
  if (fallback !== undefined && existsSync(fallback)) return fallback;
  throw new ConfigError(`Config file \`${path}\` (named in ${namedBy}) does not exist; looked for ${tried.join(" and ")}.`);
}

// Symlinks and `a/../b` spellings of one file must count as the same file for cycle detection.
function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
