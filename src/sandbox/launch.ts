// Starts one sandboxed process in a slot. The chain is
//   node → bash (as the slot uid: close stray fds, set rlimits, wait to be put in the cgroup)
//        → bwrap (namespaces, mounts) → the program.
// bash's `ulimit` sets the rlimits because Node has no setrlimit (and it saves the extra exec of
// prlimit). The handshake on fd 4 makes bash wait until the host has moved it into the slot's
// cgroups, so not a single fork escapes them. File descriptors the Node process inherited without
// close-on-exec (a parent's pipe, say) are closed before anything untrusted runs.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { BASE_ENV, bwrapArgs, SCRATCH } from "./bwrap.js";
import type { CgroupSlot } from "./cgroup.js";
import { createScratch, removeScratch } from "./scratch.js";
import { cpuSeconds, type RunLimits } from "./types.js";
import { killUntilEmpty, processesOfUid } from "./uids.js";

/** What the start-up probe found; fixed for the life of a Sandbox. */
export interface Machine {
  bash: string;
  /** bwrap's path, or null in (explicitly allowed) unsafe mode. */
  bwrap: string | null;
  /** The seccomp filter bwrap installs, or null. */
  seccomp: Buffer | null;
  /** The layers every run gets, `+`-joined. */
  isolation: string;
}

export interface Slot {
  index: number;
  /** The slot's own uid, or null when we are not root (runs then keep our uid). */
  uid: number | null;
  cgroup: CgroupSlot | null;
}

export interface LaunchSpec {
  argv: string[];
  files: Record<string, string | Uint8Array>;
  limits: RunLimits;
  env: Record<string, string>;
}

export interface Launched {
  child: ChildProcess;
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
  /**
   * bwrap's report: whether the sandbox came up (`started`) and the program's exit code.
   * Resolves when the status pipe closes (bwrap exited).
   */
  bwrapStatus: Promise<{ started: boolean; exitCode: number | null }>;
  /** Kills the whole tree now: the process group, then the slot's leftovers. */
  kill(): void;
  /** After exit: kills anything left in the slot (by cgroup or uid) and removes host scratch. True if nothing is left. */
  cleanUp(): Promise<boolean>;
}

/** Bytes of headroom in the pids limit for bash and bwrap's own two processes. */
export const PIDS_OVERHEAD = 4;
const STATUS_FD = 3;
const HANDSHAKE_FD = 4;

export function launch(machine: Machine, slot: Slot, spec: LaunchSpec): Launched {
  const useCgroup = slot.cgroup !== null;
  const seccomp = machine.bwrap ? machine.seccomp : null;
  // fd 3: bwrap's status; 4: the cgroup handshake (if any); then the seccomp filter (if any); then the files.
  const seccompFd = seccomp ? (useCgroup ? HANDSHAKE_FD + 1 : HANDSHAKE_FD) : undefined;
  const firstFileFd = (seccompFd ?? (useCgroup ? HANDSHAKE_FD : HANDSHAKE_FD - 1)) + 1;
  const files = Object.entries(spec.files);
  const lastFd = firstFileFd + files.length - 1;
  if (slot.cgroup) slot.cgroup.setLimits(spec.limits.memoryBytes, spec.limits.pids + PIDS_OVERHEAD);

  let command: string[];
  let scratchDir: string | null = null;
  if (machine.bwrap) {
    const plan = { argv: spec.argv, limits: spec.limits, env: spec.env, files: files.map(([path], i) => ({ path, fd: firstFileFd + i })), seccompFd };
    command = [machine.bwrap, "--json-status-fd", String(STATUS_FD), ...bwrapArgs(plan)];
  } else {
    scratchDir = createScratch(spec.files, slot.uid);
    command = spec.argv;
  }
  const script = wrapperScript({
    keepFds: Math.max(machine.bwrap ? lastFd : 2, useCgroup ? HANDSHAKE_FD : 2, seccompFd ?? 2, STATUS_FD),
    limits: spec.limits,
    limitProcesses: slot.uid !== null,
    // With a cgroup the memory limit is the cgroup's; an address-space cap would only break
    // runtimes that reserve much more than they use.
    limitAddressSpace: !useCgroup,
    handshake: useCgroup,
  });
  const stdio: Array<"pipe" | "ignore"> = ["pipe", "pipe", "pipe", machine.bwrap ? "pipe" : "ignore"];
  if (useCgroup) stdio.push("pipe");
  if (seccomp) stdio.push("pipe");
  if (machine.bwrap) for (let i = 0; i < files.length; i++) stdio.push("pipe");

  const env = machine.bwrap ? { PATH: BASE_ENV.PATH! } : { ...BASE_ENV, HOME: scratchDir!, ...spec.env };
  const child = spawn(machine.bash, ["-c", script, "gymkit-sandbox", ...command], {
    cwd: scratchDir ?? "/",
    env,
    stdio,
    // Its own process group, so one kill reaches bash/bwrap and anything still in that group.
    detached: true,
    ...(slot.uid !== null ? { uid: slot.uid, gid: slot.uid } : {}),
  });
  // Errors on the pipes (EPIPE when the program never reads its stdin) are expected; the exit status tells.
  for (const stream of child.stdio) (stream as NodeJS.EventEmitter | null)?.on("error", () => {});

  if (child.pid !== undefined) {
    if (slot.cgroup) {
      try {
        slot.cgroup.attach(child.pid);
        (child.stdio[HANDSHAKE_FD] as Writable).end("go\n");
      } catch {
        // Not in the cgroup: never let it proceed (closing the handshake without a line makes bash exit).
        (child.stdio[HANDSHAKE_FD] as Writable).destroy();
        killGroup(child);
      }
    }
    if (seccomp) (child.stdio[seccompFd!] as Writable).end(seccomp);
    if (machine.bwrap) {
      files.forEach(([, content], i) => (child.stdio[firstFileFd + i] as Writable).end(content));
    }
  }

  const bwrapStatus = machine.bwrap ? readStatus(child.stdio[STATUS_FD] as Readable) : Promise.resolve({ started: true, exitCode: null });

  const members = slot.cgroup ? () => slot.cgroup!.members() : slot.uid !== null ? () => processesOfUid(slot.uid!) : null;
  return {
    child,
    stdin: child.stdin!,
    stdout: child.stdout!,
    stderr: child.stderr!,
    bwrapStatus,
    kill() {
      // Inside first: bwrap (our child) then reaps the program and exits by itself. Killing bwrap
      // first would orphan the program, leaving a zombie only the host's init can reap.
      // (Without bwrap there is no such reaper in between: kill everything at once.)
      const outer = child.pid;
      const inside = (members ? members() : childrenOf(outer)).filter((pid) => pid !== outer);
      for (const pid of inside) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Gone already.
        }
      }
      if (inside.length === 0 || !machine.bwrap) killGroup(child);
      else {
        // bwrap exits by itself once the program is dead. Only should it not (long after, so that a
        // loaded machine is not mistaken for a stuck bwrap, which would orphan the program), end it
        // too; never once it has exited, as its pgid may then be reused.
        setTimeout(() => {
          if (child.exitCode === null && child.signalCode === null) killGroup(child);
        }, 5000).unref();
      }
    },
    async cleanUp() {
      // Without a cgroup or a uid of its own, the pid namespace (bwrap) and the process group are all we have.
      const clean = members ? await killUntilEmpty(members) : true;
      if (scratchDir) removeScratch(scratchDir);
      return clean;
    },
  };
}

/** Direct children of `pid` (where the kernel lists them), for when there is no cgroup or uid to go by. */
function childrenOf(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" ").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // The group is gone.
  }
}

interface WrapperOptions {
  keepFds: number;
  limits: RunLimits;
  limitProcesses: boolean;
  limitAddressSpace: boolean;
  handshake: boolean;
}

/** The bash script run as the slot uid before exec'ing bwrap (or the program, in unsafe mode). */
export function wrapperScript(options: WrapperOptions): string {
  const { limits } = options;
  const kib = (bytes: number) => Math.max(1, Math.floor(bytes / 1024));
  const cpu = cpuSeconds(limits);
  const ulimits = [`-c 0`, `-n ${limits.openFiles}`, `-f ${kib(limits.fileBytes)}`];
  if (options.limitProcesses) ulimits.push(`-u ${limits.pids + PIDS_OVERHEAD}`);
  if (options.limitAddressSpace) ulimits.push(`-v ${kib(limits.memoryBytes)}`);
  const lines = [
    // Never `2>/dev/null` on this loop: bash would make that redirection permanent.
    `for f in /proc/$$/fd/*; do n=\${f##*/}; if [ "$n" -gt ${options.keepFds} ]; then eval "exec $n>&-"; fi; done`,
    `ulimit ${ulimits.join(" ")} || { echo "gymkit-sandbox: cannot set rlimits" >&2; exit 125; }`,
    // Soft limit first (SIGXCPU), then the hard one a second later (SIGKILL).
    `ulimit -S -t ${cpu} && ulimit -H -t ${cpu + 1} || { echo "gymkit-sandbox: cannot set the CPU limit" >&2; exit 125; }`,
  ];
  if (options.handshake) lines.push(`read -r _ <&${HANDSHAKE_FD} || exit 125`, `exec ${HANDSHAKE_FD}<&-`);
  lines.push(`exec "$@"`);
  return lines.join("\n");
}

/** Reads bwrap's --json-status-fd: `{"child-pid": …}` once the sandbox is up, `{"exit-code": …}` at the end. */
function readStatus(stream: Readable): Promise<{ started: boolean; exitCode: number | null }> {
  return new Promise((resolve) => {
    let text = "";
    stream.on("data", (chunk: Buffer) => (text += chunk.toString()));
    const done = () => {
      let started = false;
      let exitCode: number | null = null;
      for (const line of text.split("\n")) {
        if (!line.trim()) continue;
        try {
          const record = JSON.parse(line) as Record<string, unknown>;
          if (typeof record["child-pid"] === "number") started = true;
          if (typeof record["exit-code"] === "number") exitCode = record["exit-code"];
        } catch {
          // A torn line from a killed bwrap: ignore.
        }
      }
      resolve({ started, exitCode });
    };
    stream.on("close", done);
    stream.on("error", () => {});
  });
}

export { SCRATCH };
