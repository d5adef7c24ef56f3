// The progress display: one live line on a terminal, a plain line every few seconds otherwise
// (so CI logs and `tee` stay readable). The live line is cut to the terminal's width (a wrapped line
// cannot be rewritten in place), cleared before any other message and drawn again after it, and
// cleared at the end. Retried calls and a stall report (what is in flight when nothing finishes) are
// part of it, so neither a run that limps nor one that hangs looks healthy.
import type { Progress, Stall } from "../collect/collect.js";
import { describeLimits, type LimitNow } from "../http/adaptive_limit.js";
import { RETRY_CLASSES, totalRetries, type RetryStats } from "../http/retry_stats.js";
import { fitToWidth, printable } from "./text_width.js";

/** Where the printer writes: process.stderr, or anything shaped like it. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  /** Read at every draw: a resized terminal gets lines of its new width. */
  columns?: number;
}

export interface ProgressPrinterOptions {
  quiet: boolean;
  plainEveryMs?: number;
  stream?: ProgressStream;
  /** Retry counters so far (this run's), shown when any call was retried. */
  retries?: () => RetryStats | undefined;
  /** `--concurrency auto`: the current limits, e.g. `rollouts 40, model 18` (shown on the live line). */
  limits?: () => string;
}

const CLEAR_LINE = "\r\x1b[2K";
/** A terminal that does not say its width is taken as the classic one. */
const DEFAULT_COLUMNS = 80;

export class ProgressPrinter {
  private readonly stream: ProgressStream;
  private readonly tty: boolean;
  private lastPlain = 0;
  private last?: Progress;
  /** A live line is on screen (and must be cleared before anything else is written). */
  private drawn = false;

  constructor(private readonly options: ProgressPrinterOptions) {
    this.stream = options.stream ?? process.stderr;
    this.tty = Boolean(this.stream.isTTY);
  }

  update(progress: Progress): void {
    this.last = progress;
    if (this.options.quiet) return;
    if (this.tty) {
      this.draw();
      return;
    }
    const now = Date.now();
    if (now - this.lastPlain >= (this.options.plainEveryMs ?? 5_000) || progress.done === progress.total) {
      this.lastPlain = now;
      this.stream.write(`${this.line(progress)}\n`);
    }
  }

  /** A message of its own line (`gym: …`), never mixed into the live line. Shown even with --quiet. */
  notice(message: string): void {
    this.clear();
    this.stream.write(`gym: ${message}\n`);
    if (!this.options.quiet && this.tty && this.last) this.draw();
  }

  /** Nothing finished for a while: name what is in flight, so a user can tell what is stuck. */
  stall(stall: Stall): void {
    this.notice(describeStall(stall));
  }

  finish(): void {
    this.clear();
  }

  private draw(): void {
    if (!this.last) return;
    const columns = this.stream.columns && this.stream.columns > 0 ? this.stream.columns : DEFAULT_COLUMNS;
    // One column spare: some terminals wrap when the last column is written.
    this.stream.write(`${CLEAR_LINE}${fitToWidth(this.line(this.last), columns - 1)}`);
    this.drawn = true;
  }

  private clear(): void {
    if (!this.drawn) return;
    this.stream.write(CLEAR_LINE);
    this.drawn = false;
  }

  private line(p: Progress): string {
    const retries = this.options.retries?.();
    return formatProgress(p, retries, this.options.limits?.());
  }
}

/**
 * The `--concurrency auto` part of the live line: the rollout admission, then every adaptive limit of
 * this process and of the processes the servers run in (`--process-per-server`, as last reported), e.g.
 * `rollouts 40, model 18`.
 */
export function describeRunLimits(rollouts: number, limits: readonly LimitNow[]): string {
  return [`rollouts ${rollouts}`, describeLimits(limits).replace(/^limits /, "")].filter(Boolean).join(", ");
}

export function formatProgress(p: Progress, retries?: RetryStats, limits?: string): string {
  const seconds = p.elapsedMs / 1000;
  // Only this run's work: pairs finished by earlier runs (resume) took no time now.
  const ranNow = p.done - p.alreadyDone;
  const rate = seconds > 0 ? ranNow / seconds : 0;
  const eta = rate > 0 ? `${((p.total - p.done) / rate).toFixed(0)} s` : "-";
  const rewards = Object.entries(p.meanReward)
    .map(([agent, mean]) => `${printable(agent)}=${mean.toFixed(3)}`)
    .join(" ");
  const retried = retries && totalRetries(retries).retries > 0 ? `  ${describeRetries(retries, true)}` : "";
  const before = p.alreadyDone > 0 ? ` (${p.alreadyDone} done before this run)` : "";
  const limited = limits ? `  limits ${limits}` : "";
  return `[gym] ${p.done}/${p.total} rollouts${before}  ${rate.toFixed(1)}/s  ETA ${eta}  failed ${p.failed}${retried}${limited}  mean reward ${rewards || "-"}`;
}

/** E.g. `retried 1652 (5xx 1650, 429 2; 41 s lost)`; the long form gives the time per class and says what it is. */
export function describeRetries(stats: RetryStats, short = false): string {
  const { retries, lostMs } = totalRetries(stats);
  const classes = RETRY_CLASSES.filter((name) => stats[name].retries > 0);
  const lost = formatDuration(lostMs);
  if (short) return `retried ${retries} (${classes.map((name) => `${name} ${stats[name].retries}`).join(", ")}; ${lost} lost)`;
  const parts = classes.map((name) => `${name} ${stats[name].retries}: ${formatDuration(stats[name].lost_ms)}`);
  return `retried ${retries} calls (${parts.join(", ")}); ${lost} of call time lost to them (failed attempts and backoff)`;
}

export function describeStall(stall: Stall): string {
  const oldest = stall.oldest.map((o) => `(task ${o.task}, rollout ${o.rollout}, agent ${printable(o.agent)}, ${formatDuration(o.ageMs)})`).join(", ");
  const more = stall.inFlight > stall.oldest.length ? ` and ${stall.inFlight - stall.oldest.length} more` : "";
  return `no rollout finished in the last ${formatDuration(stall.quietMs)}; ${stall.inFlight} in flight, the oldest: ${oldest}${more}`;
}

export function formatDuration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : seconds.toFixed(0)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
