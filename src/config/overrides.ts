// Command-line overrides: Hydra-style strings (`key=value`, `+key=value`, `++key=value`, `~key`,
// dotted paths) as NeMo Gym command lines write them, and structured overrides from Gymkit's own
// flags (`--model-url` → `policy_base_url`). Both are applied on top of the merged files and env.yaml.
import { ConfigError, ProblemList } from "./errors.js";
import { mergeInto } from "./merge.js";
import { OverrideValueError, parseOverrideValue } from "./override_value.js";
import type { Provenance } from "./provenance.js";
import { suggestPath } from "./suggest.js";
import { formatPath, getAt, isMapping, type Mapping } from "./tree.js";

/**
 * How an override treats an existing key.
 * - `override` (`key=value`): the key must already exist — a plain override of a missing key is
 *   almost always a typo, and Hydra rejects it too.
 * - `add` (`+key=value`) and `force` (`++key=value`): set whether or not the key exists. Hydra's `+`
 *   refuses an existing key, but NeMo Gym hands Hydra an empty config and merges the files after,
 *   so on a NeMo Gym command line `+policy_model_name=x` always works, even when env.yaml sets it.
 * - `delete` (`~key`): remove the key, which must exist.
 */
export type OverrideMode = "override" | "add" | "force" | "delete";

export interface Override {
  path: readonly string[];
  value: unknown;
  mode: OverrideMode;
  /** How messages name this override, e.g. "command-line override `+foo=1`". */
  source: string;
}

/** A structured override from a Gymkit flag: `path` is set to `value` (mappings merge into mappings). */
export interface FlagOverride {
  path: readonly string[];
  value: unknown;
  /** The flag as the user typed it, e.g. `--model-url`, so errors can point at it. */
  flag?: string;
}

const PREFIXES: ReadonlyArray<[string, OverrideMode]> = [
  ["++", "force"],
  ["+", "add"],
  ["~", "delete"],
];

/** Parses one Hydra-style override; throws ConfigError quoting it when it is malformed. */
export function parseOverride(text: string): Override {
  const source = `command-line override \`${text}\``;
  let rest = text.trim();
  let mode: OverrideMode = "override";
  for (const [prefix, prefixMode] of PREFIXES) {
    if (rest.startsWith(prefix)) {
      mode = prefixMode;
      rest = rest.slice(prefix.length);
      break;
    }
  }
  const eq = rest.indexOf("=");
  const key = (eq === -1 ? rest : rest.slice(0, eq)).trim();
  if (eq === -1 && mode !== "delete") {
    throw new ConfigError(`Could not parse the ${source}: it needs the form key=value (or +key=value to add a key).`);
  }
  const path = key.split(".");
  if (key === "" || path.some((segment) => segment === "" || /\s/.test(segment))) {
    throw new ConfigError(`Could not parse the ${source}: \`${key}\` is not a key path like \`a.b.c\`.`);
  }
  if (mode === "delete") return { path, value: undefined, mode, source };
  try {
    return { path, value: parseOverrideValue(rest.slice(eq + 1)), mode, source };
  } catch (error) {
    if (!(error instanceof OverrideValueError)) throw error;
    throw new ConfigError(`Could not parse the value of the ${source}: ${error.message}.`);
  }
}

/** A structured override for a Gymkit flag; it always sets (like `++`). */
export function flagOverride(flag: FlagOverride): Override {
  const source = flag.flag ? `command-line flag \`${flag.flag}\`` : `command-line override of \`${formatPath(flag.path)}\``;
  return { path: [...flag.path], value: flag.value, mode: "force", source };
}

/** Applies overrides in order to `config` (in place), collecting every problem before throwing. */
export function applyOverrides(config: Mapping, provenance: Provenance, overrides: readonly Override[]): void {
  const problems = new ProblemList();
  for (const override of overrides) {
    const problem = applyOne(config, provenance, override);
    if (problem) problems.add(problem);
  }
  problems.throwIfAny();
}

function applyOne(config: Mapping, provenance: Provenance, override: Override): string | undefined {
  const { path, mode, source } = override;
  const key = formatPath(path);
  const exists = getAt(config, path).found;
  if (!exists && (mode === "override" || mode === "delete")) {
    const hint = mode === "override" ? ` To add a new key, write \`+${key}=...\`.` : "";
    return `The ${source} names \`${key}\`, which is not in the config.${suggestPath(config, path)}${hint}`;
  }
  if (mode === "delete") {
    const parent = getAt(config, path.slice(0, -1)).value;
    if (isMapping(parent)) delete parent[path[path.length - 1] ?? ""];
    provenance.removed(path);
    return undefined;
  }
  // Setting `a.b.c` is merging `{a: {b: {c: value}}}`: a mapping value merges into an existing one
  // (as OmegaConf merges NeMo Gym's command line over its files), anything else replaces.
  let layer: unknown = override.value;
  for (let i = path.length - 1; i >= 0; i--) layer = { [path[i] ?? ""]: layer };
  mergeInto(config, layer as Mapping, source, provenance);
  return undefined;
}
