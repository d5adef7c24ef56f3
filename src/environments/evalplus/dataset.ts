// The EvalPlus task files: HumanEval+ (v0.1.10) and MBPP+ (v0.2.0), JSON lines (optionally gzipped)
// as evalplus publishes them. NeMo Gym's evalplus server (07d6b0d) has the `evalplus` package download
// them into its cache at start-up; Gymkit never downloads: it reads the file the config names, else
// evalplus' own override variable (HUMANEVAL_OVERRIDE_PATH / MBPP_OVERRIDE_PATH), else evalplus' cache
// path (`~/.cache/evalplus/HumanEvalPlus-v0.1.10.jsonl`, `MbppPlus-v0.2.0.jsonl`).
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";

export type EvalPlusDataset = "humaneval" | "mbpp";

const CACHE_NAMES: Record<EvalPlusDataset, string> = { humaneval: "HumanEvalPlus-v0.1.10.jsonl", mbpp: "MbppPlus-v0.2.0.jsonl" };
const OVERRIDES: Record<EvalPlusDataset, string> = { humaneval: "HUMANEVAL_OVERRIDE_PATH", mbpp: "MBPP_OVERRIDE_PATH" };

/** MBPP+ task ids are `Mbpp/<n>`; every other id is HumanEval+'s. */
export function datasetOf(taskId: string): EvalPlusDataset {
  return taskId.startsWith("Mbpp/") ? "mbpp" : "humaneval";
}

/** Where a dataset's file is looked for: the configured path, evalplus' override, evalplus' cache. */
export function taskFilePath(dataset: EvalPlusDataset, configured: string | null | undefined): string {
  if (configured) return configured;
  const override = process.env[OVERRIDES[dataset]];
  if (override) return override;
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(cache, "evalplus", CACHE_NAMES[dataset]);
}

/** A task file's lines by task id, each kept as its raw JSON text (so Python reads 1.0 as a float). */
export function readTaskFile(path: string): Map<string, string> {
  if (!existsSync(path)) {
    throw new Error(`evalplus task file ${path} does not exist: download it from evalplus' releases (https://github.com/evalplus/humanevalplus_release, mbppplus_release) and name it in the config (humaneval_file / mbpp_file)`);
  }
  const bytes = readFileSync(path);
  const text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8");
  const tasks = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const task = JSON.parse(line) as { task_id?: unknown };
    if (typeof task.task_id !== "string") throw new Error(`${path}: a line without a task_id`);
    tasks.set(task.task_id, line);
  }
  return tasks;
}
