// The dataset rows a served environment's episodes start from: NeMo Gym rows (each with its
// `responses_create_params`), taken by index or in turn. Loaded from the JSONL files the config's
// agents list for that environment (their `datasets`), so an environment is served with the data it
// is evaluated on.
import { existsSync } from "node:fs";
import { readJsonl } from "../collect/jsonl.js";
import { EpisodeError } from "./errors.js";

export type DatasetRow = Record<string, unknown>;

export class DatasetRows {
  private cursor = 0;

  constructor(
    private readonly rows: readonly DatasetRow[],
    /** Where the rows came from, for messages (file paths, or "inline"). */
    readonly source = "inline",
  ) {}

  get size(): number {
    return this.rows.length;
  }

  /** The row at `index` (0-based); a bad index is a `bad_row` error naming the range. */
  at(index: number): DatasetRow {
    if (this.rows.length === 0) throw new EpisodeError("bad_row", `no dataset rows are configured for this environment (${this.source}); give its agent a dataset (datasets: [{jsonl_fpath: ...}])`);
    if (!Number.isInteger(index) || index < 0 || index >= this.rows.length) {
      throw new EpisodeError("bad_row", `row index ${String(index)} is out of range: ${this.rows.length} rows (0..${this.rows.length - 1}) from ${this.source}`);
    }
    return this.rows[index]!;
  }

  /** The next row in turn (wrapping around), with its index. */
  next(): { index: number; row: DatasetRow } {
    if (this.rows.length === 0) return { index: 0, row: this.at(0) };
    const index = this.cursor % this.rows.length;
    this.cursor = index + 1;
    return { index, row: this.rows[index]! };
  }
}

/** Reads rows from JSONL files in order; a malformed line is an error naming file and line. */
export async function loadDatasetRows(files: readonly string[]): Promise<DatasetRows> {
  const rows: DatasetRow[] = [];
  for (const file of files) {
    for await (const { value } of readJsonl(file)) rows.push(value);
  }
  return new DatasetRows(rows, files.length === 0 ? "no files" : files.join(", "));
}

/**
 * The JSONL files of the datasets the config's agents declare for `environment` (agents whose
 * `resources_server.name` is it), in config order, without duplicates. Files that do not exist (a
 * train split not downloaded) are returned apart, for a warning.
 */
export function datasetFilesFor(
  environment: string,
  instances: ReadonlyArray<{ type: string; fields: Record<string, unknown> }>,
): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  for (const instance of instances) {
    if (instance.type !== "responses_api_agents") continue;
    const ref = instance.fields.resources_server as { name?: unknown } | undefined;
    if (ref?.name !== environment) continue;
    const datasets = Array.isArray(instance.fields.datasets) ? (instance.fields.datasets as Array<Record<string, unknown>>) : [];
    for (const dataset of datasets) {
      const path = dataset?.jsonl_fpath;
      if (typeof path !== "string" || files.includes(path) || missing.includes(path)) continue;
      (existsSync(path) ? files : missing).push(path);
    }
  }
  return { files, missing };
}
