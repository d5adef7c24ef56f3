// Where the package keeps its built-in config files, and how a NeMo Gym repo path maps onto them.
// A layout fact, not a registry: config composition needs it to follow `config_paths`, and it must not
// reach up into orchestrate/ (which loads the implementations) to learn it.
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root (the folder holding package.json), from both src/ (tests) and dist/ (installed). */
export const PACKAGE_ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");

/** `configs/<id>.yaml` of a built-in environment, e.g. for `--resources-server ID`. */
export function environmentConfigPath(id: string): string {
  return join(PACKAGE_ROOT, "src", "environments", id, "configs", `${id}.yaml`);
}

/** `configs/<id>.yaml` of a built-in model type, e.g. for `--model-type vllm_model`. */
export function modelConfigPath(id: string): string {
  return join(PACKAGE_ROOT, "src", "models", "configs", `${id}.yaml`);
}

/** The folder of the shipped benchmark definitions (NeMo Gym's `benchmarks/` layout: configs and prompts). */
export const BENCHMARKS_ROOT = join(PACKAGE_ROOT, "src", "benchmarks");

/** Maps a NeMo Gym `benchmarks/<...>.yaml` path (a benchmark config or prompt) to the shipped copy, or undefined. */
export function benchmarkBuiltinPath(path: string): string | undefined {
  const match = /^(?:\.\/)?benchmarks\/((?:[\w.-]+\/)*[\w.-]+\.ya?ml)$/.exec(path);
  if (!match || match[1]!.split("/").includes("..")) return undefined;
  return join(BENCHMARKS_ROOT, match[1]!);
}

/** Maps a NeMo Gym repo-relative config path to a built-in file, or undefined. */
export function nemoGymBuiltinPath(path: string): string | undefined {
  const benchmark = benchmarkBuiltinPath(path);
  if (benchmark !== undefined) return benchmark;
  const match = /^(?:\.\/)?(resources_servers|responses_api_models)\/([\w-]+)\/configs\/([\w-]+)\.ya?ml$/.exec(path);
  if (!match) return undefined;
  const [, type, folder, file] = match;
  if (folder !== file) return undefined;
  return type === "resources_servers" ? environmentConfigPath(file ?? "") : modelConfigPath(file ?? "");
}
