// Recordings: one JSON line per served response, `{key_hash, rollout, request, response}`.
// Writers append synchronously (a line is whole or absent, even if the process dies right after);
// the reader indexes byte offsets rather than holding responses, so a recording of any size
// costs memory per line, not per token.
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { ResponseObject, ResponsesCreateParams, type RolloutRef } from "../protocol/index.js";
import { keyHash, replayKey } from "./replay_key.js";

export const RecordingLine = z.looseObject({
  key_hash: z.string(),
  rollout: z.strictObject({ task_index: z.number().int().nonnegative(), rollout_index: z.number().int().nonnegative() }).nullable(),
  request: ResponsesCreateParams,
  response: ResponseObject,
});
export type RecordingLine = z.infer<typeof RecordingLine>;

export class RecordingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RecordingError";
  }
}

/** Appends served responses to a JSONL file (created with its folder if missing). */
export class Recorder {
  readonly path: string;

  constructor(path: string) {
    this.path = resolve(path);
    mkdirSync(dirname(this.path), { recursive: true });
  }

  append(rollout: RolloutRef | null, request: ResponsesCreateParams, response: ResponseObject): void {
    const line: RecordingLine = { key_hash: keyHash(replayKey(request, rollout)), rollout, request, response };
    appendFileSync(this.path, `${JSON.stringify(line)}\n`);
  }
}

export interface IndexedLine {
  hash: string;
  lineNumber: number;
  offset: number;
  length: number;
}

/** A recording indexed by key hash; responses are read from disk when asked for. */
export class RecordingIndex {
  private constructor(
    readonly path: string,
    private readonly byHash: Map<string, IndexedLine>,
    private readonly byRollout: Map<string, IndexedLine[]>,
    /** Models named by the recorded responses, for `GET /v1/models`. */
    readonly models: ReadonlySet<string>,
  ) {}

  get size(): number {
    return this.byHash.size;
  }

  get rolloutCount(): number {
    return this.byRollout.size;
  }

  has(hash: string): boolean {
    return this.byHash.has(hash);
  }

  /** Reads and parses one line (validated when the index was built). */
  line(hash: string): RecordingLine | undefined {
    const entry = this.byHash.get(hash);
    return entry && this.read(entry);
  }

  /** Every recorded line of one rollout, in file order. */
  linesOf(rollout: RolloutRef | null): RecordingLine[] {
    return (this.byRollout.get(rolloutKey(rollout)) ?? []).map((entry) => this.read(entry));
  }

  private read(entry: IndexedLine): RecordingLine {
    const buffer = Buffer.alloc(entry.length);
    const fd = openSync(this.path, "r");
    try {
      readSync(fd, buffer, 0, entry.length, entry.offset);
    } finally {
      closeSync(fd);
    }
    return JSON.parse(buffer.toString("utf8")) as RecordingLine;
  }

  /**
   * Validates every line and indexes it under the hash of its request and rollout (recomputed, so
   * hand-edited recordings work). When a key repeats, the later line wins, as in a re-recording.
   */
  static load(path: string): RecordingIndex {
    const absolute = resolve(path);
    if (!existsSync(absolute)) {
      throw new RecordingError(
        `recording ${absolute} does not exist; record one by setting record_path on openai_model or vllm_model and running against a live engine`,
      );
    }
    const byHash = new Map<string, IndexedLine>();
    const byRollout = new Map<string, IndexedLine[]>();
    const models = new Set<string>();
    for (const { lineNumber, offset, bytes } of lines(absolute)) {
      const text = bytes.toString("utf8");
      if (!text.trim()) continue;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (error) {
        throw new RecordingError(`${absolute}:${lineNumber}: not valid JSON (${(error as Error).message}); a recording line is {key_hash, rollout, request, response}`);
      }
      const parsed = RecordingLine.safeParse(json);
      if (!parsed.success) {
        const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(line)"}: ${i.message}`);
        throw new RecordingError(`${absolute}:${lineNumber}: not a recording line (${issues.join("; ")}); expected {key_hash, rollout, request, response}`);
      }
      const entry: IndexedLine = { hash: keyHash(replayKey(parsed.data.request, parsed.data.rollout)), lineNumber, offset, length: bytes.length };
      byHash.set(entry.hash, entry);
      models.add(parsed.data.response.model);
      const group = rolloutKey(parsed.data.rollout);
      byRollout.set(group, [...(byRollout.get(group) ?? []), entry]);
    }
    return new RecordingIndex(absolute, byHash, byRollout, models);
  }
}

function rolloutKey(rollout: RolloutRef | null): string {
  return rollout ? `${rollout.task_index}:${rollout.rollout_index}` : "-";
}

/** The file's lines with their byte offsets, read in chunks (lines carrying token ids can be large). */
function* lines(path: string): Generator<{ lineNumber: number; offset: number; bytes: Buffer }> {
  const fd = openSync(path, "r");
  try {
    const chunk = Buffer.alloc(1 << 20);
    let pending: Buffer[] = [];
    let pendingStart = 0;
    let position = 0;
    let lineNumber = 0;
    while (true) {
      const read = readSync(fd, chunk, 0, chunk.length, position);
      if (read === 0) break;
      let start = 0;
      for (let i = 0; i < read; i++) {
        if (chunk[i] !== 0x0a) continue;
        const bytes = Buffer.concat([...pending, chunk.subarray(start, i)]);
        yield { lineNumber: ++lineNumber, offset: pendingStart, bytes };
        pending = [];
        start = i + 1;
        pendingStart = position + start;
      }
      if (start < read) pending.push(Buffer.from(chunk.subarray(start, read)));
      position += read;
    }
    if (pending.length) yield { lineNumber: ++lineNumber, offset: pendingStart, bytes: Buffer.concat(pending) };
  } finally {
    closeSync(fd);
  }
}
