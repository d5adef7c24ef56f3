// The sandbox: a fixed set of slots (each with its own uid and cgroup), a FIFO queue in front of
// them, and `run()`. Concurrency defaults to the number of cores. Long-lived sessions (stateful
// Python) take slots from a separate set so they never starve one-shot runs.
import os from "node:os";
import type { CgroupLayer } from "./cgroup.js";
import { executeInSlot } from "./execute.js";
import type { Machine, Slot } from "./launch.js";
import { probe, type ProbeReport } from "./probe.js";
import type { RunRequest, RunResult } from "./types.js";
import { allocateSlots, killUntilEmpty, processesOfUid, releaseSlots, slotUid } from "./uids.js";
import { UserError } from "../config/user_error.js";
import { sleep } from "../http/timing.js";
import { adaptiveLimit } from "../http/adaptive_limit.js";

export interface SandboxOptions {
  /** One-shot runs at once. Default: os.availableParallelism(). */
  concurrency?: number;
  /** Live sessions at once. Default 16. */
  maxSessions?: number;
  /** Run without bubblewrap when it is unavailable. Default: GYM_SANDBOX_ALLOW_UNSAFE=1. */
  allowUnsafe?: boolean;
  /** Turn layers off: for benchmarks and for tests of the fallbacks. */
  disable?: Array<"bwrap" | "seccomp" | "uid" | "cgroup">;
}

/**
 * Thrown when there is no real isolation and unsafe running was not explicitly allowed: the machine's
 * to fix (its message names what to install), so a user error: the CLI prints it without a stack and
 * exits 2, wherever it is thrown.
 */
export class SandboxUnavailableError extends UserError {}

/** Upper bound of `concurrency` and of `maxSessions`. */
const MAX_SLOTS = 64;

/** A FIFO counting semaphore. */
class Gate {
  private readonly free: number[];
  private readonly waiters: Array<(index: number) => void> = [];

  constructor(indices: number[]) {
    this.free = [...indices];
  }

  acquire(): Promise<number> {
    const index = this.free.shift();
    if (index !== undefined) return Promise.resolve(index);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  tryAcquire(): number | undefined {
    return this.free.shift();
  }

  release(index: number): void {
    const next = this.waiters.shift();
    if (next) next(index);
    else this.free.push(index);
  }
}

export class Sandbox {
  readonly concurrency: number;
  readonly maxSessions: number;
  /** The layers every run gets, `+`-joined, e.g. `bwrap+uid+cgroup+rlimit`. */
  readonly isolation: string;
  private readonly slots = new Map<number, Slot>();
  private readonly runGate: Gate;
  private readonly sessionGate: Gate;
  private readonly active = new Set<AbortController>();
  private closed = false;
  private readonly onExit = () => this.destroySlots();

  private constructor(
    readonly report: ProbeReport,
    private readonly machine: Machine,
    private readonly slotNumbers: { run: number[]; session: number[] },
    probeSlot: Slot | null,
  ) {
    this.concurrency = slotNumbers.run.length;
    this.maxSessions = slotNumbers.session.length;
    this.isolation = machine.isolation;
    this.runGate = new Gate(slotNumbers.run);
    this.sessionGate = new Gate(slotNumbers.session);
    if (probeSlot) this.slots.set(probeSlot.index, probeSlot);
    process.once("exit", this.onExit);
  }

  /** The uids of this sandbox's slots (run slots first), when runs get uids of their own. */
  get uids(): number[] {
    return this.report.layers.includes("uid") ? [...this.slotNumbers.run, ...this.slotNumbers.session].map(slotUid) : [];
  }

  /** Probes the machine and returns a ready sandbox, or throws SandboxUnavailableError saying why. */
  static async create(options: SandboxOptions = {}): Promise<Sandbox> {
    const concurrency = options.concurrency ?? os.availableParallelism();
    const maxSessions = options.maxSessions ?? 16;
    for (const [name, value] of [["concurrency", concurrency], ["maxSessions", maxSessions]] as const) {
      if (!Number.isInteger(value) || value < 1 || value > MAX_SLOTS) {
        throw new Error(`sandbox ${name} must be an integer from 1 to ${MAX_SLOTS}, got ${value}`);
      }
    }
    const numbers = allocateSlots(concurrency + maxSessions);
    const slotNumbers = { run: numbers.slice(0, concurrency), session: numbers.slice(concurrency) };
    let probeSlot: Slot | null = null;
    let report: ProbeReport;
    try {
      report = await probe({ disable: options.disable }, (cgroups, useUid) => (probeSlot = makeSlot(slotNumbers.run[0]!, cgroups, useUid)));
    } catch (error) {
      releaseSlots(numbers);
      throw error;
    }
    const allowUnsafe = options.allowUnsafe ?? process.env.GYM_SANDBOX_ALLOW_UNSAFE === "1";
    const refuse = (message: string): never => {
      (probeSlot as Slot | null)?.cgroup?.destroy();
      releaseSlots(numbers);
      throw new SandboxUnavailableError(message);
    };
    if (!report.bash) refuse("cannot run anything: bash is not installed");
    if (!report.bwrap && !allowUnsafe) {
      refuse(
        `refusing to run untrusted code without isolation: ${report.missing.bwrap}. ` +
          // The probe's reason names the package when it is simply missing: said once.
          `${/apt-get install/.test(report.missing.bwrap ?? "") ? "Install it" : "Install bubblewrap (apt-get install -y bubblewrap)"}, or set GYM_SANDBOX_ALLOW_UNSAFE=1 to run with ` +
          `${report.layers.join("+")} only (no filesystem, network or pid isolation).`,
      );
    }
    const machine: Machine = { bash: report.bash!, bwrap: report.bwrap, seccomp: report.seccomp, isolation: report.layers.join("+") };
    return new Sandbox(report, machine, slotNumbers, probeSlot);
  }

  /** Runs one program in a free slot (waiting for one if all are busy). */
  async run(request: RunRequest): Promise<RunResult> {
    if (this.closed) throw new Error("sandbox is closed");
    // `--concurrency auto`: at most the adaptive limit of the slots run at once, fed each run's
    // wall time (and this process's event-loop lag); a run the sandbox itself failed to start or
    // finish (`sandbox_error`: no process, no cgroup) counts as overload, a program's own limits do not.
    const gate = adaptiveLimit("sandbox", "sandbox", this.concurrency);
    const release = await gate?.acquire(request.signal);
    const index = await this.runGate.acquire();
    let result: RunResult | undefined;
    try {
      result = await this.runInSlot(index, request);
      return result;
    } finally {
      this.runGate.release(index);
      release?.(result === undefined ? "other" : result.status === "sandbox_error" ? "overload" : "ok");
    }
  }

  /**
   * A slot for a long-lived session, or null when all are taken (the caller may evict an idle one
   * and retry). The session must call `release` when it ends.
   */
  tryAcquireSessionSlot(): { slot: Slot; machine: Machine; release(): void } | null {
    if (this.closed) throw new Error("sandbox is closed");
    const index = this.sessionGate.tryAcquire();
    if (index === undefined) return null;
    return { slot: this.slot(index), machine: this.machine, release: () => this.sessionGate.release(index) };
  }

  /** Kills what is running, waits for it to settle, removes the cgroups. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.active) controller.abort();
    while (this.active.size > 0) await sleep(10);
    for (const slot of this.slots.values()) if (slot.uid !== null && !slot.cgroup) await killUntilEmpty(() => processesOfUid(slot.uid!));
    this.destroySlots();
    releaseSlots([...this.slotNumbers.run, ...this.slotNumbers.session]);
    process.removeListener("exit", this.onExit);
  }

  private async runInSlot(index: number, request: RunRequest): Promise<RunResult> {
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    request.signal?.addEventListener("abort", onAbort);
    if (request.signal?.aborted) controller.abort();
    this.active.add(controller);
    try {
      return await executeInSlot(this.machine, this.slot(index), { ...request, signal: controller.signal });
    } finally {
      this.active.delete(controller);
      request.signal?.removeEventListener("abort", onAbort);
    }
  }

  private slot(index: number): Slot {
    let slot = this.slots.get(index);
    if (!slot) {
      slot = makeSlot(index, this.report.cgroups, this.report.layers.includes("uid"));
      this.slots.set(index, slot);
    }
    return slot;
  }

  /** Synchronous, so it also runs from the process `exit` hook. */
  private destroySlots(): void {
    for (const slot of this.slots.values()) {
      try {
        slot.cgroup?.destroy();
      } catch {
        // Best effort at exit; a later sandbox sweeps stale cgroups.
      }
    }
    this.slots.clear();
  }
}

function makeSlot(index: number, cgroups: CgroupLayer | null, useUid: boolean): Slot {
  const uid = useUid ? slotUid(index) : null;
  // A process that died before us may have had our pid, and so this uid: clear anything it left.
  if (uid !== null) for (const pid of processesOfUid(uid)) process.kill(pid, "SIGKILL");
  return { index, uid, cgroup: cgroups ? cgroups.slot(String(index)) : null };
}
