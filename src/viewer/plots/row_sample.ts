// What the plots need from the rows themselves (the index keeps no text): each rollout's extracted
// answer (for majority@k), its token usage and its latency. Every success row is read when there are
// at most ROWS_READ_ALL of at most ROW_BYTES_READ in all; beyond that an even sample within both
// (majority@k is then left out, since a vote needs all of a task's answers). Only a few numbers per
// row are kept.
//
// A live run (live/run_source.ts) gets a new index each time its file grows; its rows already read
// stay what they were (only whole appended lines are indexed), so a sample that read every row is
// carried to the next index and only the appended rows are read (`previous`).
import { RowReadError } from "../run_index/entries.js";
import type { RunIndex } from "../run_index/run_index.js";

export const ROWS_READ_ALL = 20_000;
/** Bytes of rows read at most (rows with token ids run to MBs): fewer rows are read when they are large. */
export const ROW_BYTES_READ = 256 * 1024 * 1024;
/** The field majority@k votes on, as NeMo Gym's math environments write it. */
export const ANSWER_KEY = "extracted_answer";

export interface SampledField {
  name: string;
  unit: string;
  /** Per agent name, the values read. */
  values: Map<string, number[]>;
}

export interface RowSample {
  rows: number;
  read: number;
  complete: boolean;
  answerKey: string;
  /** Entry id → its answer (null when the row has none); only when `complete`. */
  answers: Map<number, string | null>;
  answered: number;
  fields: SampledField[];
  /** Rows taken from the previous sample instead of read again. */
  carried: number;
}

const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
const obj = (value: unknown) => (value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);

/** Token counts of the row's `response.usage` (Responses names, or Chat Completions' as a fallback). */
function usageOf(row: Record<string, unknown>): { input?: number; output?: number; total?: number } {
  const usage = obj(obj(row.response)?.usage);
  if (!usage) return {};
  const input = num(usage.input_tokens) ?? num(usage.prompt_tokens);
  const output = num(usage.output_tokens) ?? num(usage.completion_tokens);
  return { input, output, total: num(usage.total_tokens) ?? (input !== undefined && output !== undefined ? input + output : undefined) };
}

/**
 * The rollout's latency in ms, where a row records one: a top-level `latency_total_ms` / `latency_ms`
 * (NeMo Gym's model-call records name it so), else the response's `completed_at − created_at` (seconds).
 */
export function latencyOf(row: Record<string, unknown>): number | undefined {
  const direct = num(row.latency_total_ms) ?? num(row.latency_ms);
  if (direct !== undefined) return direct;
  const response = obj(row.response);
  const created = num(response?.created_at);
  const completed = num(response?.completed_at);
  return created !== undefined && completed !== undefined && completed >= created ? (completed - created) * 1000 : undefined;
}

/**
 * The rows' numbers. `previous`, a sample of an earlier index of the same growing run, is extended
 * with the appended rows when both read every row; otherwise the rows are read afresh.
 */
export function readRowSample(run: RunIndex, maxRows = ROWS_READ_ALL, maxBytes = ROW_BYTES_READ, previous?: RowSample): RowSample {
  const e = run.entries;
  const rows = e.successes;
  let bytes = 0;
  for (let id = 0; id < rows; id++) bytes += e.length[id]!;
  const limit = bytes <= maxBytes ? Math.min(rows, maxRows) : Math.max(1, Math.min(maxRows, Math.floor((maxBytes / bytes) * rows)));
  const complete = rows <= limit;
  const step = complete ? 1 : rows / limit;
  const carry = complete && previous?.complete === true && previous.rows <= rows ? previous : undefined;
  const fields: SampledField[] = carry
    ? carry.fields.map((field) => ({ ...field, values: new Map([...field.values].map(([agent, values]) => [agent, values.slice()])) }))
    : [
        { name: "input_tokens", unit: "tokens", values: new Map() },
        { name: "output_tokens", unit: "tokens", values: new Map() },
        { name: "total_tokens", unit: "tokens", values: new Map() },
        { name: "latency_ms", unit: "ms", values: new Map() },
      ];
  const push = (field: SampledField, agent: string, value: number | undefined) => {
    if (value === undefined) return;
    let list = field.values.get(agent);
    if (!list) field.values.set(agent, (list = []));
    list.push(value);
  };
  const answers = new Map<number, string | null>(carry?.answers);
  let answered = carry?.answered ?? 0;
  let read = carry?.read ?? 0;
  for (let i = carry?.rows ?? 0; i < Math.min(rows, limit); i++) {
    const id = Math.floor(i * step);
    let row: Record<string, unknown>;
    try {
      row = run.readRow(id);
    } catch (error) {
      if (error instanceof RowReadError) continue;
      throw error;
    }
    read++;
    const agent = run.agents.names[e.agent[id]!]!;
    const usage = usageOf(row);
    push(fields[0]!, agent, usage.input);
    push(fields[1]!, agent, usage.output);
    push(fields[2]!, agent, usage.total);
    push(fields[3]!, agent, latencyOf(row));
    if (complete) {
      const answer = row[ANSWER_KEY];
      const text = answer === null || answer === undefined ? null : typeof answer === "string" ? answer : JSON.stringify(answer);
      if (text !== null) answered++;
      answers.set(id, text);
    }
  }
  return { rows, read, complete, answerKey: ANSWER_KEY, answers, answered, fields, carried: carry?.rows ?? 0 };
}

/** The row sample of one growing run, carried from each of its indexes to the next (a rewritten file gets a new one). */
export class RowSampleMemo {
  private last: RowSample | undefined;

  sampleOf(run: RunIndex): RowSample {
    const sample = readRowSample(run, ROWS_READ_ALL, ROW_BYTES_READ, this.last);
    // An older index answered late does not replace a newer one's sample.
    if (!this.last || sample.rows >= this.last.rows) this.last = sample;
    return sample;
  }
}
