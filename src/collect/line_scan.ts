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
    const block = Buffer.alloc(blockSize);
    let carry = Buffer.alloc(0);
    let carryOffset = 0;
    let position = 0;
    let lineNo = 0;
    for (;;) {
      const n = readSync(fd, block, 0, block.length, position);
      if (n === 0) break;
      const data = carry.length ? Buffer.concat([carry, block.subarray(0, n)]) : block.subarray(0, n);
      let start = 0;
      for (let i = data.indexOf(0x0a); i !== -1; i = data.indexOf(0x0a, start)) {
        lineNo++;
        if (i > start) {
          const text = data.toString("utf8", start, i);
          if (text.trim()) yield { text, offset: carryOffset + start, length: i - start, line: lineNo };
        }
        start = i + 1;
      }
      carryOffset += start;
      carry = Buffer.from(data.subarray(start));
      position += n;
    }
    if (carry.length && carry.toString("utf8").trim()) yield { text: carry.toString("utf8"), offset: carryOffset, length: carry.length, line: lineNo + 1 };
  } finally {
    closeSync(fd);
  }
}

export function readAt(fd: number, offset: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  readSync(fd, buffer, 0, length, offset);
  return buffer;
}
