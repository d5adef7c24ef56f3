// `split`: the input of a run is not a file the user names but the agents' own datasets of one type
// (train, validation or benchmark), as each agent instance lists them under `datasets:`. Their rows are
// concatenated in config order, each stamped with the agent that lists it (and a benchmark dataset's
// `prompt_config` applied), into `<output stem>/preprocessed_datasets/<split>.jsonl`, which becomes
// the run's input. Behaviour reproduced from NeMo Gym 07d6b0d (nemo_gym/cli/eval.py
// e2e_rollout_collection and TrainDataProcessor's collation in nemo_gym/train_data_utils.py), except
// that a dataset file that is not there is an error naming it (`gym eval prepare` makes a shipped
// benchmark's), and that a dataset's `num_repeats` becomes the run's repeats of its agent (see
// datasetRepeats) instead of copies of each line, so pass@k groups the repeats of one task.
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { dirname, join, parse, resolve } from "node:path";
import { readJsonl } from "./jsonl.js";
import { applyPrompt, loadPromptConfig } from "./prompt_config.js";
import { UserError } from "../config/user_error.js";

export const SPLITS = ["train", "validation", "benchmark"] as const;
export type Split = (typeof SPLITS)[number];

export class SplitError extends UserError {}

export interface AgentDatasets {
  /** The agent instance name. */
  agent: string;
  /** Its `datasets:` list as written in the config. */
  datasets: unknown;
}

interface Dataset {
  name: string;
  type: string;
  jsonl_fpath: string;
  prompt_config?: string;
  num_repeats?: number;
}

/** Maps a dataset path as the config writes it to the file to read (default: relative to the working directory). */
export type DatasetLocator = (path: string, kind: "jsonl" | "prompt") => string;

export function parseSplit(value: unknown): Split | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "string" && (SPLITS as readonly string[]).includes(value)) return value as Split;
  throw new SplitError(`--split (split) must be one of ${SPLITS.join(", ")}, got ${JSON.stringify(value)}`);
}

/** Where the collated input of `split` goes for a run writing `outputPath` (NeMo Gym's layout). */
export function splitInputPath(outputPath: string, split: Split): string {
  const { dir, name } = parse(resolve(outputPath));
  return join(dir, name, "preprocessed_datasets", `${split}.jsonl`);
}

function datasetsOf(entry: AgentDatasets): Dataset[] {
  if (entry.datasets === undefined || entry.datasets === null) return [];
  if (!Array.isArray(entry.datasets)) throw new SplitError(`agent \`${entry.agent}\`: \`datasets\` must be a list of {name, type, jsonl_fpath}`);
  return entry.datasets.map((raw, i) => {
    const d = raw as Partial<Dataset> | null;
    if (!d || typeof d !== "object" || typeof d.type !== "string" || typeof d.jsonl_fpath !== "string") {
      throw new SplitError(`agent \`${entry.agent}\`: datasets[${i}] needs \`type\` and \`jsonl_fpath\``);
    }
    const name = typeof d.name === "string" ? d.name : `datasets[${i}]`;
    const repeats = (d as { num_repeats?: unknown }).num_repeats;
    if (repeats !== undefined && repeats !== null && (typeof repeats !== "number" || !Number.isInteger(repeats) || repeats < 1)) {
      throw new SplitError(`agent \`${entry.agent}\`: datasets[${i}] (${name}): \`num_repeats\` must be a whole number ≥ 1, got ${JSON.stringify(repeats)}`);
    }
    return {
      name,
      type: d.type,
      jsonl_fpath: d.jsonl_fpath,
      ...(typeof d.prompt_config === "string" ? { prompt_config: d.prompt_config } : {}),
      ...(typeof repeats === "number" ? { num_repeats: repeats } : {}),
    };
  });
}

/**
 * The repeats the `split` datasets ask for (their `num_repeats`, NeMo Gym's default 1), per agent, or
 * undefined when none sets one. An agent whose datasets disagree is an error: Gymkit repeats per agent.
 */
export function datasetRepeats(agents: readonly AgentDatasets[], split: Split): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  let any = false;
  for (const entry of agents) {
    const chosen = datasetsOf(entry).filter((d) => d.type === split);
    if (chosen.length === 0) continue;
    const values = new Set(chosen.map((d) => d.num_repeats ?? 1));
    any ||= chosen.some((d) => d.num_repeats !== undefined);
    if (values.size > 1) {
      throw new SplitError(`agent \`${entry.agent}\`: its ${split} datasets ask for different num_repeats (${chosen.map((d) => `${d.name}: ${d.num_repeats ?? 1}`).join(", ")}); give --num-repeats for the run`);
    }
    out[entry.agent] = [...values][0]!;
  }
  return any ? out : undefined;
}

/**
 * Writes the collated input of `split` to `target` (atomically) and returns how many rows it holds.
 * Relative dataset paths are relative to `cwd`, as NeMo Gym resolves them.
 */
export async function collateSplit(agents: readonly AgentDatasets[], split: Split, target: string, cwd: string, locate: DatasetLocator = (path) => resolve(cwd, path)): Promise<number> {
  const chosen = agents.flatMap((entry) => datasetsOf(entry).filter((d) => d.type === split).map((dataset) => ({ agent: entry.agent, dataset })));
  if (chosen.length === 0) {
    const listed = agents.flatMap((entry) => datasetsOf(entry).map((d) => `${entry.agent}: ${d.name} (${d.type})`));
    throw new SplitError(`--split ${split}: no agent lists a \`${split}\` dataset under \`datasets:\`; ${listed.length ? `datasets in the config: ${listed.join(", ")}` : "the config lists no datasets"}`);
  }
  for (const { agent, dataset } of chosen) {
    const path = locate(dataset.jsonl_fpath, "jsonl");
    if (!existsSync(path) || !statSync(path).isFile()) {
      throw new SplitError(`--split ${split}: dataset \`${dataset.name}\` of agent \`${agent}\` has no file at ${path}; put the file there (a shipped benchmark's: \`gym eval prepare --benchmark NAME\`; NeMo Gym's \`gym dataset download\` fetches others)`);
    }
  }
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  const fd = openSync(partial, "w");
  let rows = 0;
  try {
    for (const { agent, dataset } of chosen) {
      const path = locate(dataset.jsonl_fpath, "jsonl");
      const prompt = split === "benchmark" && dataset.prompt_config ? loadPromptConfig(locate(dataset.prompt_config, "prompt")) : undefined;
      for await (const line of readJsonl(path)) {
        const row = prompt ? applyPrompt(prompt, line, path) : line.value;
        writeSync(fd, `${JSON.stringify({ ...row, agent_ref: { type: "responses_api_agents", name: agent } })}\n`);
        rows++;
      }
    }
  } catch (error) {
    closeSync(fd);
    rmSync(partial, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(partial, target);
  return rows;
}
