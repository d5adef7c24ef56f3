// Reading a JSONL file line by line *with byte offsets*, so a later pass can fetch any line again by
// position (used to merge and sort files far larger than memory). Synchronous 1 MiB blocks: memory
// stays flat however fast the consumer is (readline's async iterator queues lines without bound when
// the consumer is slower than the disk, which made end-of-run passes the peak of a run's memory).
import { closeSync, openSync, readSync } from "node:fs";

export interface ScannedLine {
  text: string;
  offset: number;
  length: number;
  /** 1-based line number (blank lines count). */
  line: number;
}

/** Yields every non-blank line with its byte offset and length (newline excluded). */
export function* scanLines(path: string, blockSize = 1 << 20): Generator<ScannedLine> {
  const fd = openSync(path, "r");
  try {
    // One reused buffer: the unfinished tail of a block moves to the front, the next read fills the
    // rest (grown only for a line longer than what is left).
    let buffer = Buffer.alloc(blockSize);
    let filled = 0; // bytes in buffer
    let bufferOffset = 0; // file offset of buffer[0]
    let position = 0;
    let lineNo = 0;
    for (;;) {
      if (filled === buffer.length) {
        const bigger = Buffer.alloc(buffer.length * 2);
        buffer.copy(bigger, 0, 0, filled);
        buffer = bigger;
      }
      const n = readSync(fd, buffer, filled, buffer.length - filled, position);
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
    if (filled > 0) {
      const text = buffer.toString("utf8", 0, filled);
      if (text.trim()) yield { text, offset: bufferOffset, length: filled, line: lineNo + 1 };
    }
  } finally {
    closeSync(fd);
  }
}

export function readAt(fd: number, offset: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  readSync(fd, buffer, 0, length, offset);
  return buffer;
}
