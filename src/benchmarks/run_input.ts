// A run's input from the agents' datasets of one split, benchmark-aware: NeMo Gym's `benchmarks/…`
// paths of a benchmark config resolve to the prepared cache and the shipped prompts, a shipped
// benchmark whose data is not prepared yet is prepared first (once; later runs reuse the cache), and
// the datasets' `num_repeats` become the run's repeats per agent.
import { collateSplit, datasetRepeats, type AgentDatasets, type Split } from "../collect/split_input.js";
import { benchmarkPathLocator, prepareBenchmark, unpreparedBenchmarks, type DatasetEntry } from "./prepare.js";

/** Each agent instance of a merged config with its `datasets:` list (entries that are not mappings dropped). */
export function agentDatasets(config: Record<string, unknown>): Array<{ agent: string; datasets: DatasetEntry[] }> {
  const out: Array<{ agent: string; datasets: DatasetEntry[] }> = [];
  for (const [agent, value] of Object.entries(config)) {
    const agents = (value as { responses_api_agents?: Record<string, { datasets?: unknown } | null> } | null)?.responses_api_agents;
    if (!agents || typeof agents !== "object") continue;
    for (const fields of Object.values(agents)) {
      const datasets = Array.isArray(fields?.datasets) ? (fields.datasets.filter((d) => d !== null && typeof d === "object") as DatasetEntry[]) : [];
      out.push({ agent, datasets });
    }
  }
  return out;
}

export interface SplitInputOptions {
  cacheDir: string;
  cwd: string;
  hfToken?: string;
  notice: (message: string) => void;
}

/** Collates `split` into `target`; returns the row count and the repeats the datasets ask for (if any does). */
export async function collateRunInput(
  agents: readonly AgentDatasets[],
  split: Split,
  target: string,
  options: SplitInputOptions,
): Promise<{ rows: number; repeats?: Record<string, number> }> {
  const locate = benchmarkPathLocator(options.cacheDir, options.cwd);
  if (split === "benchmark") {
    const missing = new Set<string>();
    for (const entry of agents) {
      const datasets = Array.isArray(entry.datasets) ? (entry.datasets as DatasetEntry[]) : [];
      for (const name of unpreparedBenchmarks(datasets, locate)) missing.add(name);
    }
    for (const name of missing) {
      options.notice(`benchmark ${name} is not prepared in ${options.cacheDir}: preparing it now (once; \`gym eval prepare --benchmark ${name}\` does this ahead)`);
      const prepared = await prepareBenchmark(name, { cacheDir: options.cacheDir, hfToken: options.hfToken });
      options.notice(`benchmark ${name}: ${prepared.rows} rows from ${prepared.from} → ${prepared.path}`);
    }
  }
  const repeats = datasetRepeats(agents, split);
  const rows = await collateSplit(agents, split, target, options.cwd, locate);
  return { rows, ...(repeats ? { repeats } : {}) };
}
