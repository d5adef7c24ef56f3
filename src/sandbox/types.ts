// What a sandbox run takes and gives back. Limits have safe defaults so a caller only names the
// ones it cares about (usually the wall-clock timeout).

/** How a run ended, from the host's point of view (never from anything the program printed). */
export type RunStatus = "ok" | "runtime_error" | "timeout" | "memory" | "output_limit" | "sandbox_error";

export interface RunLimits {
  /** Wall-clock deadline; the whole process tree is killed when it passes. */
  wallMs: number;
  /** CPU time (RLIMIT_CPU, rounded up to whole seconds). Default: the wall deadline + 1 s. */
  cpuMs?: number;
  /** Memory: the cgroup limit, or RLIMIT_AS where there is no cgroup. */
  memoryBytes: number;
  /** Processes and threads: cgroup pids.max and RLIMIT_NPROC of the slot uid. */
  pids: number;
  /**
   * Bytes kept of each stream; one byte more and the run is killed as `output_limit`, and the stream
   * ends with a `[output truncated after N bytes]` line (`cutMarker`) where it was cut.
   */
  stdoutBytes: number;
  stderrBytes: number;
  /** Largest file the program may write (RLIMIT_FSIZE). */
  fileBytes: number;
  /** Open file descriptors (RLIMIT_NOFILE). */
  openFiles: number;
  /** Size of each writable tmpfs (the scratch dir and /tmp): bounds the total a program can write. */
  scratchBytes: number;
}

export const DEFAULT_LIMITS: RunLimits = {
  wallMs: 10_000,
  memoryBytes: 1024 * 1024 * 1024,
  pids: 64,
  stdoutBytes: 1024 * 1024,
  stderrBytes: 1024 * 1024,
  fileBytes: 16 * 1024 * 1024,
  openFiles: 256,
  scratchBytes: 64 * 1024 * 1024,
};

export interface RunRequest {
  /** Program and arguments, run in the scratch dir. `argv[0]` is looked up on the sandbox PATH. */
  argv: string[];
  /** Files placed in the scratch dir before the run, by relative path. */
  files?: Record<string, string | Uint8Array>;
  stdin?: string | Uint8Array;
  limits?: Partial<RunLimits>;
  /** Extra environment variables; the environment is otherwise clean. */
  env?: Record<string, string>;
  /** Sees stdout as it arrives (for drivers that stream results); the result's `stdout` is then "". */
  onStdout?(chunk: Buffer): void;
  /** Kills the run; the result then has `aborted: true`. */
  signal?: AbortSignal;
}

export interface RunResult {
  status: RunStatus;
  exitCode: number | null;
  /** The signal that ended the program, e.g. "SIGKILL", or null. */
  signal: string | null;
  stdout: string;
  stderr: string;
  /** CPU time of the whole process tree, where a cgroup measures it; otherwise null. */
  cpuMs: number | null;
  wallMs: number;
  /** The isolation layers this run had, `+`-joined, e.g. `bwrap+uid+cgroup+rlimit`. */
  isolation: string;
  /**
   * Why the status is what it is, when that is not obvious: which limit, with its value
   * ("killed: memory limit 512 MiB exceeded", "output truncated after 1048576 bytes: …").
   */
  reason?: string;
  /** The caller aborted the run (its status then only says how it was stopped). */
  aborted?: boolean;
}

/** Put where a stream was cut at its byte cap, so a reader sees output is missing (and from where). */
export function cutMarker(capBytes: number): string {
  return `\n[output truncated after ${capBytes} bytes]\n`;
}

export function resolveLimits(limits: Partial<RunLimits> | undefined): RunLimits {
  const merged: RunLimits = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(limits ?? {})) {
    if (value !== undefined) (merged as unknown as Record<string, number>)[key] = value;
  }
  for (const [key, value] of Object.entries(merged)) {
    if (value !== undefined && (!Number.isFinite(value) || value <= 0)) throw new Error(`sandbox limit ${key} must be a positive number, got ${value}`);
  }
  return merged;
}

/** RLIMIT_CPU in whole seconds: the soft limit sends SIGXCPU, the hard one a second later SIGKILL. */
export function cpuSeconds(limits: RunLimits): number {
  return Math.max(1, Math.ceil((limits.cpuMs ?? limits.wallMs + 1000) / 1000));
}
