// `gym eval prepare`: NeMo Gym's `ng_prepare_benchmark` (nemo_gym/cli/eval.py at 07d6b0d) without
// Python: each benchmark named by --benchmark, or listed as a `type: benchmark` dataset of the config's
// agents, is prepared into the cache from its shipped preparation spec.
import { existsSync } from "node:fs";
import { benchmarkConfigPath, benchmarkOfDataset, loadPrepareSpec } from "../benchmarks/definitions.js";
import { agentDatasets } from "../benchmarks/run_input.js";
import { benchmarkCacheDir, prepareBenchmark, preparedPath } from "../benchmarks/prepare.js";
import { composeConfig } from "../config/index.js";
import type { CliConfigOptions } from "./config_args.js";
import { UsageError } from "./exit.js";

interface PrepareCliOptions extends CliConfigOptions {
  fromFile?: string;
  fromUrl?: string;
  useCached?: boolean;
}

export async function evalPrepare(overrides: string[], options: PrepareCliOptions): Promise<void> {
  const cacheDir = benchmarkCacheDir(options.benchmarkCache);
  // env.yaml is read as every command reads it (NeMo Gym users keep hf_token there).
  const configPaths = [...options.config];
  const namedByOverride = overrides.some((o) => /^\+{0,2}config_paths=/.test(o));
  if (options.benchmark === undefined && configPaths.length === 0 && !namedByOverride) {
    throw new UsageError("name what to prepare: --benchmark NAME (e.g. aime25), or a benchmark config with --config FILE / +config_paths=[...]");
  }
  if (options.benchmark !== undefined) configPaths.push(benchmarkConfigPath(options.benchmark));
  const { config } = composeConfig({ configPaths, overrides, cwd: process.cwd() });
  const hfToken = typeof config.hf_token === "string" && config.hf_token !== "" ? config.hf_token : undefined;
  // NeMo Gym's key for --use-cached.
  const useCached = options.useCached ?? (config.use_cached_prepared_benchmarks === true || config.use_cached_prepared_benchmarks === "true");
  const names: string[] = [];
  const unknown: string[] = [];
  for (const { agent, datasets } of agentDatasets(config)) {
    for (const dataset of datasets.filter((d) => d.type === "benchmark")) {
      const name = benchmarkOfDataset(dataset);
      if (name === undefined) unknown.push(`${agent}: ${String(dataset.name ?? dataset.jsonl_fpath)}`);
      else if (!names.includes(name)) names.push(name);
    }
  }
  if (names.length === 0) {
    throw new UsageError(`no benchmark dataset in the config: no agent lists a \`type: benchmark\` dataset with a NeMo Gym benchmarks/<name>/prepare.py${unknown.length ? ` (listed: ${unknown.join(", ")})` : ""}; try --benchmark NAME`);
  }
  // Every spec is checked before anything is fetched.
  for (const name of names) loadPrepareSpec(name);
  if ((options.fromFile !== undefined || options.fromUrl !== undefined) && names.length !== 1) {
    throw new UsageError(`--from-file/--from-url give the rows of one benchmark, but ${names.length} are named: ${names.join(", ")}; prepare them one at a time with --benchmark NAME`);
  }
  if (options.fromFile !== undefined && options.fromUrl !== undefined) throw new UsageError("give one of --from-file and --from-url");
  for (const name of names) {
    const target = preparedPath(cacheDir, loadPrepareSpec(name));
    if (useCached && existsSync(target)) {
      process.stdout.write(`${name}: already prepared at ${target} (--use-cached)\n`);
      continue;
    }
    const prepared = await prepareBenchmark(name, { cacheDir, fromFile: options.fromFile, fromUrl: options.fromUrl, hfToken });
    process.stdout.write(`${name}: ${prepared.rows} rows from ${prepared.from}\n  → ${prepared.path}\n`);
  }
}
