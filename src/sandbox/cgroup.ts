// cgroup limits for sandbox slots: pids and memory caps, an OOM-kill counter and CPU accounting, on
// the v1 layout (one hierarchy per controller) or v2 (one unified tree). One cgroup per slot is made
// once and reused, because creating one per run costs ~25 ms. Ours live in `gymkit-sandbox/` at the
// root of each hierarchy (not under the cgroup this process happens to be in, which belongs to
// whoever started us), named `<pid>-<slot>` so a later process can tell and remove stale ones.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const CGROUP_DIR = "gymkit-sandbox";

export interface CgroupCounters {
  /** Processes the kernel OOM-killed in this slot since it was created. */
  oomKills: number;
  /** CPU time used by the slot since it was created, in nanoseconds, or null if not measured. */
  cpuNs: number | null;
}

export interface CgroupSlot {
  /** Moves a process into the slot; call before it forks, so everything it starts is inside. */
  attach(pid: number): void;
  setLimits(memoryBytes: number, pids: number): void;
  counters(): CgroupCounters;
  /** Processes currently in the slot. */
  members(): number[];
  /** Kills the slot's processes (if any are left) and removes it. */
  destroy(): void;
}

export interface CgroupLayer {
  version: 1 | 2;
  /** A slot named `<our pid>-<name>`, created now. */
  slot(name: string): CgroupSlot;
  /** Removes slots left behind by processes that no longer exist. */
  sweepStale(): void;
}

/** The cgroup layer of this machine, or why there is none. */
export function detectCgroups(): { layer: CgroupLayer } | { error: string } {
  let mounts: string;
  try {
    mounts = readFileSync("/proc/mounts", "utf8");
  } catch (error) {
    return { error: `cannot read /proc/mounts: ${(error as Error).message}` };
  }
  const v1 = new Map<string, string>();
  let v2Root: string | null = null;
  for (const line of mounts.split("\n")) {
    const [, mountPoint, fsType, options] = line.split(" ");
    if (!mountPoint || !options) continue;
    if (fsType === "cgroup") for (const option of options.split(",")) v1.set(option, mountPoint);
    if (fsType === "cgroup2" && v2Root === null) v2Root = mountPoint;
  }
  const errors: string[] = [];
  const pids = v1.get("pids");
  const memory = v1.get("memory");
  if (pids && memory) {
    const layer = new V1Layer(pids, memory, v1.get("cpuacct") ?? null);
    const problem = layer.check();
    if (!problem) return { layer };
    errors.push(`cgroup v1: ${problem}`);
  }
  if (v2Root) {
    const layer = new V2Layer(v2Root);
    const problem = layer.check();
    if (!problem) return { layer };
    errors.push(`cgroup v2 at ${v2Root}: ${problem}`);
  }
  if (errors.length === 0) errors.push("no cgroup hierarchy with the pids and memory controllers is mounted");
  return { error: errors.join("; ") };
}

function readNumber(path: string, key?: string): number | null {
  try {
    const text = readFileSync(path, "utf8");
    if (key === undefined) return Number(text.trim());
    const line = text.split("\n").find((l) => l.startsWith(`${key} `));
    return line ? Number(line.slice(key.length + 1)) : null;
  } catch {
    return null;
  }
}

function readPids(path: string): number[] {
  try {
    return readFileSync(path, "utf8").split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function killPids(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** rmdir that retries briefly: a cgroup stays busy for a moment after its last process dies. */
function removeDir(path: string, members: () => number[]): void {
  for (let attempt = 0; attempt < 200; attempt++) {
    killPids(members());
    try {
      rmdirSync(path);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY") throw error;
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
  }
}

/** Stale `<pid>-<slot>` dirs under `root`: their creator is dead. */
function staleSlots(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root).filter((name) => {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    return Number.isInteger(pid) && pid !== process.pid && !isAlive(pid);
  });
}

/** Proves a layer works: a throwaway slot that takes limits and goes away again (throws if not). */
function probeSlot(layer: CgroupLayer): void {
  const probe = layer.slot(`probe-${Date.now()}`);
  probe.setLimits(64 * 1024 * 1024, 16);
  probe.destroy();
}

class V1Layer implements CgroupLayer {
  readonly version = 1 as const;
  private readonly roots: { pids: string; memory: string; cpuacct: string | null };

  constructor(pids: string, memory: string, cpuacct: string | null) {
    this.roots = { pids: join(pids, CGROUP_DIR), memory: join(memory, CGROUP_DIR), cpuacct: cpuacct ? join(cpuacct, CGROUP_DIR) : null };
  }

  check(): string | null {
    try {
      probeSlot(this);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }

  slot(name: string): CgroupSlot {
    const dirName = `${process.pid}-${name}`;
    const dirs = [this.roots.pids, this.roots.memory, ...(this.roots.cpuacct ? [this.roots.cpuacct] : [])].map((root) => join(root, dirName));
    for (const dir of dirs) mkdirSync(dir, { recursive: true });
    const [pidsDir, memoryDir, cpuDir] = dirs as [string, string, string | undefined];
    // No swap inside a sandbox: a memory bomb must hit the limit, not crawl.
    try {
      writeFileSync(join(memoryDir, "memory.swappiness"), "0");
    } catch {
      // Not every kernel lets a child cgroup set it; the memsw limit below still applies.
    }
    let current = { memory: -1, pids: -1 };
    const members = () => readPids(join(pidsDir, "cgroup.procs"));
    return {
      attach(pid) {
        for (const dir of dirs) writeFileSync(join(dir, "cgroup.procs"), String(pid));
      },
      setLimits(memoryBytes, pids) {
        if (memoryBytes !== current.memory) {
          const memsw = join(memoryDir, "memory.memsw.limit_in_bytes");
          const hasMemsw = existsSync(memsw);
          // memsw must stay >= the plain limit, so the order of the two writes depends on the direction.
          const limitFile = join(memoryDir, "memory.limit_in_bytes");
          const raising = memoryBytes > (readNumber(limitFile) ?? 0);
          if (hasMemsw && raising) writeFileSync(memsw, String(memoryBytes));
          writeFileSync(limitFile, String(memoryBytes));
          if (hasMemsw && !raising) writeFileSync(memsw, String(memoryBytes));
        }
        if (pids !== current.pids) writeFileSync(join(pidsDir, "pids.max"), String(pids));
        current = { memory: memoryBytes, pids };
      },
      counters() {
        return {
          oomKills: readNumber(join(memoryDir, "memory.oom_control"), "oom_kill") ?? 0,
          cpuNs: cpuDir ? readNumber(join(cpuDir, "cpuacct.usage")) : null,
        };
      },
      members,
      destroy() {
        for (const dir of dirs) removeDir(dir, () => readPids(join(dir, "cgroup.procs")));
      },
    };
  }

  sweepStale(): void {
    for (const root of [this.roots.pids, this.roots.memory, this.roots.cpuacct]) {
      if (!root) continue;
      for (const name of staleSlots(root)) {
        const dir = join(root, name);
        try {
          removeDir(dir, () => readPids(join(dir, "cgroup.procs")));
        } catch {
          // Someone else is cleaning it up, or it is not ours to remove: leave it.
        }
      }
    }
  }
}

class V2Layer implements CgroupLayer {
  readonly version = 2 as const;
  private readonly root: string;

  constructor(private readonly mountPoint: string) {
    this.root = join(mountPoint, CGROUP_DIR);
  }

  check(): string | null {
    try {
      const available = readFileSync(join(this.mountPoint, "cgroup.controllers"), "utf8").split(/\s+/);
      for (const controller of ["pids", "memory"]) {
        if (!available.includes(controller)) return `the ${controller} controller is not available (it is bound to v1 or disabled)`;
      }
      enableControllers(this.mountPoint);
      mkdirSync(this.root, { recursive: true });
      enableControllers(this.root);
      probeSlot(this);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }

  slot(name: string): CgroupSlot {
    const dir = join(this.root, `${process.pid}-${name}`);
    mkdirSync(dir, { recursive: true });
    const members = () => readPids(join(dir, "cgroup.procs"));
    let current = { memory: -1, pids: -1 };
    return {
      attach(pid) {
        writeFileSync(join(dir, "cgroup.procs"), String(pid));
      },
      setLimits(memoryBytes, pids) {
        if (memoryBytes !== current.memory) {
          writeFileSync(join(dir, "memory.max"), String(memoryBytes));
          if (existsSync(join(dir, "memory.swap.max"))) writeFileSync(join(dir, "memory.swap.max"), "0");
        }
        if (pids !== current.pids) writeFileSync(join(dir, "pids.max"), String(pids));
        current = { memory: memoryBytes, pids };
      },
      counters() {
        const usec = readNumber(join(dir, "cpu.stat"), "usage_usec");
        return { oomKills: readNumber(join(dir, "memory.events"), "oom_kill") ?? 0, cpuNs: usec === null ? null : usec * 1000 };
      },
      members,
      destroy() {
        try {
          writeFileSync(join(dir, "cgroup.kill"), "1");
        } catch {
          // cgroup.kill is Linux 5.14+; removeDir kills member by member anyway.
        }
        removeDir(dir, members);
      },
    };
  }

  sweepStale(): void {
    for (const name of staleSlots(this.root)) {
      const dir = join(this.root, name);
      try {
        removeDir(dir, () => readPids(join(dir, "cgroup.procs")));
      } catch {
        // Not ours to remove after all: leave it.
      }
    }
  }
}

/** v2 only delegates a controller to children listed in the parent's cgroup.subtree_control. */
function enableControllers(dir: string): void {
  const enabled = readFileSync(join(dir, "cgroup.subtree_control"), "utf8").split(/\s+/);
  const missing = ["pids", "memory"].filter((c) => !enabled.includes(c));
  if (missing.length > 0) writeFileSync(join(dir, "cgroup.subtree_control"), missing.map((c) => `+${c}`).join(" "));
}
