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

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Every server block of a merged config: `{name: {server_type: {implementation: fields}}}`. */
function serverBlocks(config: unknown): Array<{ name: string; type: string; fields: Record<string, unknown> }> {
  if (!isRecord(config)) return [];
  const blocks: Array<{ name: string; type: string; fields: Record<string, unknown> }> = [];
  for (const [name, block] of Object.entries(config)) {
    if (!isRecord(block)) continue;
    for (const [type, byImplementation] of Object.entries(block)) {
      if (!isRecord(byImplementation)) continue;
      for (const fields of Object.values(byImplementation)) if (isRecord(fields)) blocks.push({ name, type, fields });
    }
  }
  return blocks;
}

/** The `description` a merged config gives an environment instance, if any. */
export function descriptionIn(config: unknown, environment: string): string | undefined {
  const block = serverBlocks(config).find((b) => b.name === environment && b.type === "resources_servers");
  return typeof block?.fields.description === "string" ? block.fields.description : undefined;
}

/**
 * The JSONL files of the datasets the merged config's agents declare for `environment` (agents
 * whose `resources_server.name` is it), in config order, without duplicates. Files that do not exist
 * (a train split not downloaded) are returned apart, for a warning.
 */
export function datasetFilesFor(environment: string, config: unknown): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  for (const block of serverBlocks(config)) {
    if (block.type !== "responses_api_agents") continue;
    const ref = block.fields.resources_server;
    if (!isRecord(ref) || ref.name !== environment) continue;
    const datasets = Array.isArray(block.fields.datasets) ? block.fields.datasets : [];
    for (const dataset of datasets) {
      const path = isRecord(dataset) ? dataset.jsonl_fpath : undefined;
      if (typeof path !== "string" || files.includes(path) || missing.includes(path)) continue;
      (existsSync(path) ? files : missing).push(path);
    }
  }
  return { files, missing };
}
