// A stateful Python session: one long-lived sandboxed interpreter (in a slot of its own) that runs
// cells in a shared namespace. A cell that times out, floods its output or kills the interpreter
// ends the session — its state is gone, and the next cell under the same id starts a fresh one.
import { randomBytes } from "node:crypto";
import { launch, type Launched, type Machine, type Slot } from "./launch.js";
import { PYTHON } from "./languages.js";
import { PYTHON_REPL } from "./python_repl.js";
import { formatBytes } from "./classify.js";
import { cutMarker, resolveLimits, type RunLimits, type RunStatus } from "./types.js";

export interface CellResult {
  status: RunStatus;
  stdout: string;
  stderr: string;
  wallMs: number;
  reason?: string;
  /** Set on the first cell of a session that replaced one which ended unasked (its state is gone). */
  warning?: string;
}

export interface SessionOptions {
  /** Per-cell output caps and the memory/pids/file limits of the interpreter. */
  limits?: Partial<RunLimits>;
  /** CPU budget of the whole session (RLIMIT_CPU of the interpreter). Default 10 minutes. */
  cpuBudgetMs?: number;
}

/** Collects one stream of one cell until its done marker. */
class CellStream {
  private chunks: Buffer[] = [];
  private size = 0;
  overflowed = false;
  done: string | null = null;

  constructor(
    private readonly marker: Buffer,
    private readonly cap: number,
  ) {}

  push(chunk: Buffer): void {
    if (this.done !== null || this.overflowed) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    const all = Buffer.concat(this.chunks, this.size);
    const at = all.indexOf(this.marker);
    if (at >= 0) {
      const end = all.indexOf(0x0a, at);
      if (end < 0) return; // The rest of the marker line is still coming.
      this.done = all.subarray(at + this.marker.length, end).toString();
      this.chunks = [all.subarray(0, at)];
      this.size = at;
      return;
    }
    this.chunks = [all];
    if (this.size > this.cap + this.marker.length + 16) this.overflowed = true;
  }

  text(): string {
    return Buffer.concat(this.chunks, this.size).subarray(0, this.cap).toString("utf8");
  }
}

export class PythonSession {
  readonly createdAt = Date.now();
  lastUsedAt = Date.now();
  cells = 0;
  private readonly launched: Launched;
  private readonly nonce = randomBytes(12).toString("hex");
  private readonly limits: RunLimits;
  private exited = false;
  private queue: Promise<unknown> = Promise.resolve();
  private current: { out: CellStream; err: CellStream; settle(): void } | null = null;
  private readonly oomBefore: number;

  constructor(
    machine: Machine,
    private readonly slot: Slot,
    private readonly release: () => void,
    options: SessionOptions = {},
  ) {
    this.limits = resolveLimits({ ...options.limits, cpuMs: options.cpuBudgetMs ?? 600_000 });
    this.oomBefore = slot.cgroup?.counters().oomKills ?? 0;
    this.launched = launch(machine, slot, {
      argv: [PYTHON, "repl.py", this.nonce],
      files: { "repl.py": PYTHON_REPL },
      limits: this.limits,
      env: {},
    });
    this.launched.stdout.on("data", (chunk: Buffer) => this.current?.out.push(chunk));
    this.launched.stderr.on("data", (chunk: Buffer) => this.current?.err.push(chunk));
    this.launched.stdout.on("data", () => this.check());
    this.launched.stderr.on("data", () => this.check());
    this.launched.child.once("exit", () => {
      this.exited = true;
      this.current?.settle();
    });
    this.launched.child.once("error", () => {
      this.exited = true;
      this.current?.settle();
    });
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Runs one cell; cells of one session run one after another. */
  execute(code: string, timeoutMs: number): Promise<CellResult> {
    const result = this.queue.then(() => this.runCell(code, timeoutMs));
    this.queue = result.catch(() => {});
    return result;
  }

  /** Kills the interpreter and frees the slot. */
  async close(): Promise<void> {
    if (!this.exited) {
      this.launched.kill();
      await new Promise<void>((resolve) => {
        if (this.exited) return resolve();
        this.launched.child.once("exit", () => resolve());
      });
    }
    await this.launched.cleanUp();
    this.release();
  }

  private check(): void {
    const current = this.current;
    if (!current) return;
    if ((current.out.done !== null && current.err.done !== null) || current.out.overflowed || current.err.overflowed) current.settle();
  }

  private async runCell(code: string, timeoutMs: number): Promise<CellResult> {
    const started = performance.now();
    if (this.exited) return { status: "sandbox_error", stdout: "", stderr: "", wallMs: 0, reason: "the session has ended" };
    this.cells++;
    const out = new CellStream(Buffer.from(`\0${this.nonce}:done:`), this.limits.stdoutBytes);
    const err = new CellStream(Buffer.from(`\0${this.nonce}:done`), this.limits.stderrBytes);
    let timedOut = false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timedOut = true;
        resolve();
      }, timeoutMs);
      this.current = {
        out,
        err,
        settle: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const body = Buffer.from(code, "utf8");
      this.launched.stdin.write(`${body.length}\n`);
      this.launched.stdin.write(body);
    });
    this.current = null;
    this.lastUsedAt = Date.now();
    const wallMs = performance.now() - started;
    const base = { stdout: out.text(), stderr: err.text(), wallMs };
    if (out.done !== null && err.done !== null) return { ...base, status: out.done === "ok" ? "ok" : "runtime_error" };

    // The cell did not finish normally: the session cannot be trusted to be in a known state.
    const wasAlive = !this.exited;
    this.launched.kill();
    if (timedOut) return { ...base, status: "timeout", reason: `the cell ran past ${timeoutMs} ms; the session was restarted` };
    if (out.overflowed || err.overflowed) {
      const [stream, cap] = out.overflowed ? (["stdout", this.limits.stdoutBytes] as const) : (["stderr", this.limits.stderrBytes] as const);
      return {
        ...base,
        ...(stream === "stdout" ? { stdout: base.stdout + cutMarker(cap) } : { stderr: base.stderr + cutMarker(cap) }),
        status: "output_limit",
        reason: `output truncated after ${cap} bytes: ${stream} passed its cap, so the cell was stopped and the session restarted`,
      };
    }
    const oom = (this.slot.cgroup?.counters().oomKills ?? 0) > this.oomBefore;
    if (oom) return { ...base, status: "memory", reason: `killed: memory limit ${formatBytes(this.limits.memoryBytes)} exceeded; the session was restarted` };
    return { ...base, status: wasAlive ? "sandbox_error" : "runtime_error", reason: "the interpreter exited" };
  }
}
