// Many small synchronous appends to a file the run writes whole before anyone reads it (the plan's
// `.partial`, the metrics spool, the per-task metrics): one `writeSync` each cost a system call and a
// UTF-8 encoding per line — a few percent of a run's CPU at ~20,000 lines. Gathered here into blocks
// of about 64 KB, encoded into one reused buffer. Not for the output and failures files: each
// rollout's line goes to disk the moment it is known, so a crash loses no finished rollout.
import { writeSync } from "node:fs";

const BLOCK_CHARS = 64 * 1024;

export class BufferedFile {
  private pending: string[] = [];
  private chars = 0;
  private scratch = Buffer.allocUnsafe(0);

  constructor(private readonly fd: number) {}

  write(text: string): void {
    this.pending.push(text);
    this.chars += text.length;
    if (this.chars >= BLOCK_CHARS) this.flush();
  }

  /** Writes what is gathered; call before the file is closed or read. */
  flush(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join("");
    this.pending = [];
    this.chars = 0;
    const bytes = Buffer.byteLength(text);
    // One buffer for the whole run (grown only for a larger block): a fresh one per block would be
    // external memory the collector reclaims late.
    if (bytes > this.scratch.length) this.scratch = Buffer.allocUnsafe(Math.max(bytes, 4 * BLOCK_CHARS));
    this.scratch.write(text, 0, bytes, "utf8");
    for (let written = 0; written < bytes; ) written += writeSync(this.fd, this.scratch, written, bytes - written);
  }
}
