// Byte-capped capture of one output stream: keeps (or hands on, when streaming) at most `cap`
// bytes, and reports the first byte over so the runner can stop a flood instead of reading it forever.
import type { Readable } from "node:stream";

export class CappedCapture {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  overflowed = false;

  constructor(
    private readonly cap: number,
    private readonly onOverflow: () => void,
    private readonly onChunk?: (chunk: Buffer) => void,
  ) {}

  attach(stream: Readable): void {
    stream.on("data", (chunk: Buffer) => this.push(chunk));
    // A stream error (the pipe torn down by a kill) ends the capture; the exit code tells the story.
    stream.on("error", () => {});
  }

  push(chunk: Buffer): void {
    if (this.overflowed) return;
    const room = this.cap - this.size;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept.length > 0) {
      // A streaming caller has the bytes already; keeping a second copy would only cost memory.
      if (this.onChunk) this.onChunk(kept);
      else this.chunks.push(kept);
      this.size += kept.length;
    }
    if (chunk.length > room) {
      this.overflowed = true;
      this.onOverflow();
    }
  }

  /** What was kept ("" for a streamed stream). */
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
