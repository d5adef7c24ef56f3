// The status of a finished run, decided from what the host saw: its own kills, the cgroup's OOM
// counter, the exit status and signal. Only where the kernel leaves no other trace (an allocation
// refused under RLIMIT_AS, a write refused for size) does the program's stderr tip the balance, and
// then only between two failure statuses, never towards `ok`.
import { constants } from "node:os";
import type { RunStatus } from "./types.js";

export interface RunFacts {
  /** The sandbox itself failed (could not start, could not set up); the program never ran. */
  setupError?: string;
  /** We killed it: wall deadline passed. */
  timedOut: boolean;
  /** We killed it: stdout or stderr passed its cap. */
  outputLimited: "stdout" | "stderr" | null;
  exitCode: number | null;
  signal: string | null;
  /** The cgroup OOM-killed something during the run. */
  oomKilled: boolean;
  /** Memory is limited by RLIMIT_AS (no cgroup), so an allocation failure is the memory limit. */
  addressSpaceLimited: boolean;
  stderr: string;
  /** The wall-clock limit. */
  wallMs: number;
  cpuSeconds: number;
  /** CPU time the run used, where a cgroup measured it. */
  cpuMs: number | null;
  /** Wall time the run took. */
  measuredWallMs: number;
  /** The limits, so a reason can name the one that was hit (omitted: the reason names none). */
  memoryBytes?: number;
  fileBytes?: number;
  /** The byte cap of the stream named by `outputLimited`. */
  outputCapBytes?: number;
}

/** `512 MiB`, `1.5 MiB`, `4096 bytes`: a limit as people set it. */
export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (bytes >= 1024 * 1024) return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
  return `${bytes} bytes`;
}

const limitText = (bytes: number | undefined) => (bytes === undefined ? "" : ` ${formatBytes(bytes)}`);

const MEMORY_ERRORS = /MemoryError|Cannot allocate memory|std::bad_alloc|out of memory|OutOfMemoryError/;
const FILE_SIZE_ERRORS = /File too large|\[Errno 27\]|No space left on device|\[Errno 28\]/;

export function classify(facts: RunFacts): { status: RunStatus; reason?: string } {
  if (facts.setupError !== undefined) return { status: "sandbox_error", reason: facts.setupError };
  if (facts.outputLimited) {
    const after = facts.outputCapBytes === undefined ? "at its byte cap" : `after ${facts.outputCapBytes} bytes`;
    return { status: "output_limit", reason: `output truncated ${after}: ${facts.outputLimited} passed its cap, so the program was stopped` };
  }
  if (facts.timedOut) return { status: "timeout", reason: `wall-clock deadline passed (${facts.wallMs} ms)` };
  if (facts.oomKilled) return { status: "memory", reason: `killed: memory limit${limitText(facts.memoryBytes)} exceeded` };
  if (facts.signal === "SIGXCPU") return { status: "timeout", reason: `CPU time limit (${facts.cpuSeconds} s)` };
  // As the namespace's init the program ignores SIGXCPU; the hard limit's SIGKILL a second later
  // ends it. A SIGKILL we did not send, after that much CPU (or wall time, where CPU is not measured), is that.
  if (facts.signal === "SIGKILL" && (facts.cpuMs ?? facts.measuredWallMs) >= facts.cpuSeconds * 1000 - 50) {
    return { status: "timeout", reason: `CPU time limit (${facts.cpuSeconds} s)` };
  }
  if (facts.signal === "SIGXFSZ") return { status: "output_limit", reason: `killed: file size limit${limitText(facts.fileBytes)} exceeded` };
  if (facts.exitCode === 0 && facts.signal === null) return { status: "ok" };
  const tail = facts.stderr.slice(-2000);
  if (MEMORY_ERRORS.test(tail) && (facts.addressSpaceLimited || facts.signal === null)) {
    return { status: "memory", reason: `memory limit${limitText(facts.memoryBytes)} reached: an allocation failed` };
  }
  if (FILE_SIZE_ERRORS.test(tail)) {
    return { status: "output_limit", reason: `a write failed at the file size limit${limitText(facts.fileBytes)} or the scratch space limit` };
  }
  if (facts.signal) return { status: "runtime_error", reason: `killed by ${facts.signal}` };
  return { status: "runtime_error", reason: `exit code ${facts.exitCode}` };
}

/** bwrap reports a child killed by signal N as exit code 128 + N, like a shell. */
export function signalFromExitCode(code: number): string | null {
  if (code <= 128 || code > 128 + 64) return null;
  const number = code - 128;
  const entry = Object.entries(constants.signals).find(([, value]) => value === number);
  return entry ? entry[0] : null;
}
