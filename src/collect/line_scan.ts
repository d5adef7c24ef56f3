// Reading a JSONL file line by line *with byte offsets*, so a later pass can fetch any line again by
// position (used to merge and sort files far larger than memory). Synchronous 1 MiB blocks: memory
// stays flat however fast the consumer is (readline's async iterator queues lines without bound when
// the consumer is slower than the disk, which made end-of-run passes the peak of a run's memory).
//
// One reader serves both the whole-file passes (`scanLines`) and readers that resume where they
// stopped (`readLines` from a byte and line count, up to a size: the live viewer's growing index),
// so the block and line handling exists once.
import { closeSync, openSync, readSync } from "node:fs";

export interface ScannedLine {
  text: string;
  offset: number;
  length: number;
  /** 1-based line number (blank lines count). */
  line: number;
}

export interface LineRange {
  /** Byte to start at: the start of a line (default 0). */
  from?: number;
  /** Bytes of the file to read up to (default: until the end, however long it grows while read). */
  size?: number;
  /** Lines before `from` (default 0), so line numbers continue. */
  lineNo?: number;
  /** Bytes read at a time (the buffer grows only for a longer line). */
  blockSize?: number;
  /** Also yield a last line with no newline after it (default: left unread, reported by the return value). */
  partialLast?: boolean;
}

/** Where a `readLines` pass stopped: the byte after the last newline read, and the lines counted up to there. */
export interface LinesEnd {
  position: number;
  lineNo: number;
}

/**
 * Yields every non-blank line of `fd` in `range` with its byte offset and length (newline excluded);
 * returns where the newline-terminated part ended, which is where a later pass resumes.
 */
export function* readLines(fd: number, range: LineRange = {}): Generator<ScannedLine, LinesEnd> {
  const from = range.from ?? 0;
  const size = range.size ?? Infinity;
  let lineNo = range.lineNo ?? 0;
  // One reused buffer: the unfinished tail of a block moves to the front, the next read fills the
  // rest (grown only for a line longer than what is left).
  let buffer = Buffer.alloc(Math.min(range.blockSize ?? 1 << 20, Math.max(1, size - from)));
  let filled = 0; // bytes in buffer
  let bufferOffset = from; // file offset of buffer[0]
  let position = from;
  while (position < size) {
    if (filled === buffer.length) {
      const bigger = Buffer.alloc(buffer.length * 2);
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
    const n = readSync(fd, buffer, filled, Math.min(buffer.length - filled, size - position), position);
    if (n === 0) break;
    position += n;
    filled += n;
    let start = 0;
    for (let i = buffer.indexOf(0x0a, 0); i !== -1 && i < filled; i = buffer.indexOf(0x0a, start)) {
      lineNo++;
      if (i > start) {
        const text = buffer.toString("utf8", start, i);
        if (text.trim()) yield { text, offset: bufferOffset + start, length: i - start, line: lineNo };
      }
      start = i + 1;
      if (start >= filled) break;
    }
    buffer.copy(buffer, 0, start, filled);
    filled -= start;
    bufferOffset += start;
  }
  if (range.partialLast && filled > 0) {
    const text = buffer.toString("utf8", 0, filled);
    if (text.trim()) yield { text, offset: bufferOffset, length: filled, line: lineNo + 1 };
  }
  return { position: bufferOffset, lineNo };
}

/** Yields every non-blank line of the file, the last one too when it has no newline yet. */
export function* scanLines(path: string, blockSize = 1 << 20): Generator<ScannedLine> {
  const fd = openSync(path, "r");
  try {
    yield* readLines(fd, { blockSize, partialLast: true });
  } finally {
    closeSync(fd);
  }
}

export function readAt(fd: number, offset: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  readSync(fd, buffer, 0, length, offset);
  return buffer;
}
