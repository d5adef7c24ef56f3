// The progress display: one live line on a terminal, a plain line every few seconds otherwise
// (so CI logs and `tee` stay readable).
import type { Progress } from "../collect/collect.js";

export class ProgressPrinter {
  private readonly tty = Boolean(process.stderr.isTTY);
  private lastPlain = 0;
  private last?: Progress;

  constructor(private readonly options: { quiet: boolean; plainEveryMs?: number }) {}

  update(progress: Progress): void {
    this.last = progress;
    if (this.options.quiet) return;
    if (this.tty) {
      process.stderr.write(`\r\x1b[2K${format(progress)}`);
      return;
    }
    const now = Date.now();
    if (now - this.lastPlain >= (this.options.plainEveryMs ?? 5_000) || progress.done === progress.total) {
      this.lastPlain = now;
      process.stderr.write(`${format(progress)}\n`);
    }
  }

  finish(): void {
    if (!this.options.quiet && this.tty && this.last) process.stderr.write("\n");
  }
}

function format(p: Progress): string {
  const seconds = p.elapsedMs / 1000;
  const rate = seconds > 0 ? p.done / seconds : 0;
  const eta = rate > 0 ? (p.total - p.done) / rate : 0;
  const rewards = Object.entries(p.meanReward)
    .map(([agent, mean]) => `${agent}=${mean.toFixed(3)}`)
    .join(" ");
  return `[gym] ${p.done}/${p.total} rollouts  ${rate.toFixed(1)}/s  ETA ${eta.toFixed(0)} s  failed ${p.failed}  mean reward ${rewards || "-"}`;
}
