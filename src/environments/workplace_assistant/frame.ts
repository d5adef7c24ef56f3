// A small stand-in for the pandas DataFrames the workplace tools keep (NVIDIA-NeMo/Gym 07d6b0d,
// pandas 2.3): rows of cells under named columns plus the row index labels, because NeMo Gym's reward
// compares tables with `DataFrame.equals`, which also compares the index (a deleted row leaves a gap;
// `concat` without `ignore_index` gives the new row the label 0).
import { readFileSync } from "node:fs";
import { pyEq, pyLower } from "./py.js";

export interface Frame {
  columns: string[];
  index: number[];
  rows: unknown[][];
}

// pandas 2.3 read_csv default NA strings (keep_default_na=True).
const NA_STRINGS = new Set(["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]);

/** RFC 4180 records (quoted fields may hold commas, quotes doubled, newlines). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else field += c;
      i++;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      record.push(field);
      if (record.length > 1 || record[0] !== "") records.push(record);
      record = [];
      field = "";
    } else field += c;
    i++;
  }
  if (field !== "" || record.length) {
    record.push(field);
    records.push(record);
  }
  return records;
}

/** `pd.read_csv(path, dtype=str)`: every cell a string, NA strings NaN; or with `names`, no header row. */
export function readCsv(path: string, names?: string[]): Frame {
  const records = parseCsv(readFileSync(path, "utf8"));
  const columns = names ?? records.shift()!;
  const rows = records.map((r) => columns.map((_, j) => (r[j] === undefined || NA_STRINGS.has(r[j]!) ? NaN : r[j])));
  return { columns, index: rows.map((_, i) => i), rows };
}

export const column = (frame: Frame, name: string): unknown[] => {
  const j = frame.columns.indexOf(name);
  return frame.rows.map((r) => r[j]);
};

export const copyFrame = (frame: Frame): Frame => ({ columns: [...frame.columns], index: [...frame.index], rows: frame.rows.map((r) => [...r]) });

/** `frame[frame[name] != value]`: rows kept with their labels. */
export function dropWhere(frame: Frame, name: string, value: unknown): Frame {
  const j = frame.columns.indexOf(name);
  const keep = frame.rows.map((r) => !pyEq(r[j], value));
  return { columns: frame.columns, index: frame.index.filter((_, i) => keep[i]), rows: frame.rows.filter((_, i) => keep[i]) };
}

/** `frame.loc[frame[key] == keyValue, field] = value`. */
export function setWhere(frame: Frame, key: string, keyValue: unknown, field: string, value: unknown): void {
  const k = frame.columns.indexOf(key);
  const j = frame.columns.indexOf(field);
  for (const row of frame.rows) if (pyEq(row[k], keyValue)) row[j] = value;
}

/** `pd.concat([frame, one_row_frame], ignore_index=…)` where the row has the same columns. */
export function appendRow(frame: Frame, values: Record<string, unknown>, ignoreIndex: boolean): Frame {
  const rows = [...frame.rows, frame.columns.map((c) => (c in values ? values[c] : NaN))];
  const index = ignoreIndex ? rows.map((_, i) => i) : [...frame.index, 0];
  return { columns: frame.columns, index, rows };
}

/** Lexicographic max of a string column, NaN skipped (`Series.max()` on an object column). */
export function maxOf(frame: Frame, name: string): unknown {
  let best: unknown = undefined;
  for (const v of column(frame, name)) {
    if (typeof v === "number" && Number.isNaN(v)) continue;
    if (best === undefined || (typeof v === "string" && typeof best === "string" ? v > best : false)) best = v;
  }
  return best;
}

/** `frame.to_dict(orient="records")`. */
export const records = (frame: Frame): Array<Record<string, unknown>> => frame.rows.map((r) => Object.fromEntries(frame.columns.map((c, j) => [c, r[j]])));

const isNa = (v: unknown) => v === null || v === undefined || (typeof v === "number" && Number.isNaN(v));

/**
 * NeMo Gym's `convert_strs_to_lowercase`: `df[col].str.lower()` for every column but status, list_name
 * and board — a string is lowered, a missing value stays missing, any other value becomes NaN.
 */
export function lowercased(frame: Frame): Frame {
  const keep = new Set(["status", "list_name", "board"]);
  const rows = frame.rows.map((r) => r.map((v, j) => (keep.has(frame.columns[j]!) ? v : typeof v === "string" ? pyLower(v) : NaN)));
  return { columns: frame.columns, index: frame.index, rows };
}

/** `DataFrame.equals` for object-column frames: same columns, same index labels, cells equal or both missing. */
export function framesEqual(a: Frame, b: Frame): boolean {
  if (a.columns.length !== b.columns.length || a.columns.some((c, i) => c !== b.columns[i])) return false;
  if (a.index.length !== b.index.length || a.index.some((x, i) => x !== b.index[i])) return false;
  return a.rows.every((row, i) => row.every((v, j) => (isNa(v) && isNa(b.rows[i]![j]) ? true : pyEq(v, b.rows[i]![j]))));
}
