// The bubblewrap command line for one run: every namespace unshared (no network, own pids, own
// mounts), the system read-only, the scratch dir and /tmp as size-capped tmpfs that vanish with the
// run, input files copied in through file descriptors, a clean environment. Nothing of the host's
// home, project or other runs is mounted, so there is nothing to read or write there.
import { lstatSync, readlinkSync } from "node:fs";
import type { RunLimits } from "./types.js";

/** The scratch dir inside the sandbox: the program's cwd and $HOME. */
export const SCRATCH = "/sandbox";

/** The few /etc entries programs need (dynamic linker config, alternatives, timezone); not passwd, not resolv.conf. */
const ETC_ENTRIES = ["ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime"];
/** Top-level dirs that are, on merged-/usr systems, symlinks into /usr. */
const USR_LINKS = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

export const BASE_ENV: Record<string, string> = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: SCRATCH,
  TMPDIR: "/tmp",
  LANG: "C.UTF-8",
  USER: "sandbox",
  PYTHONDONTWRITEBYTECODE: "1",
};

export interface BwrapPlan {
  argv: string[];
  limits: RunLimits;
  /** Input files, relative to the scratch dir, each read by bwrap from file descriptor `fd`. */
  files: Array<{ path: string; fd: number }>;
  /** The descriptor bwrap reads the seccomp filter from, if there is one. */
  seccompFd?: number;
  env: Record<string, string>;
}

let systemMounts: string[] | null = null;

/** Mount arguments for the read-only system, computed once (the host layout does not change). */
function systemMountArgs(): string[] {
  if (systemMounts) return systemMounts;
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const name of USR_LINKS) {
    const path = `/${name}`;
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(path), path);
      else if (stat.isDirectory()) args.push("--ro-bind", path, path);
    } catch {
      // Not on this system.
    }
  }
  for (const entry of ETC_ENTRIES) args.push("--ro-bind-try", `/etc/${entry}`, `/etc/${entry}`);
  systemMounts = args;
  return args;
}

export function bwrapArgs(plan: BwrapPlan): string[] {
  const size = String(plan.limits.scratchBytes);
  const args = [
    "--unshare-all",
    "--unshare-user",
    "--die-with-parent",
    "--new-session",
    // The program is the namespace's init and bwrap's direct child, so bwrap reaps it: no
    // reaper of bwrap's own outliving bwrap as a zombie that only the host's init can collect.
    // (As init, the program ignores signals it has no handler for, except kernel faults and
    // SIGKILL from outside: so the CPU limit ends it by the hard limit's SIGKILL, see classify.)
    "--as-pid-1",
    // No nested user namespaces: they are the usual door to kernel bugs from unprivileged code.
    "--disable-userns",
    // Unprivileged bwrap has no capabilities to drop; started by root it would keep them all.
    "--cap-drop",
    "ALL",
    "--hostname",
    "sandbox",
    ...systemMountArgs(),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--size",
    size,
    "--tmpfs",
    "/tmp",
    "--size",
    size,
    "--tmpfs",
    "/dev/shm",
    "--size",
    size,
    "--tmpfs",
    SCRATCH,
    "--chmod",
    "0700",
    SCRATCH,
  ];
  const dirs = new Set<string>();
  for (const { path } of plan.files) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  for (const dir of [...dirs].sort()) args.push("--dir", `${SCRATCH}/${dir}`);
  for (const { path, fd } of plan.files) args.push("--file", String(fd), `${SCRATCH}/${path}`);
  if (plan.seccompFd !== undefined) args.push("--seccomp", String(plan.seccompFd));
  // Last: the root tmpfs (with /etc and the mount points in it) becomes read-only too.
  args.push("--remount-ro", "/", "--chdir", SCRATCH, "--clearenv");
  for (const [key, value] of Object.entries({ ...BASE_ENV, ...plan.env })) args.push("--setenv", key, value);
  args.push("--", ...plan.argv);
  return args;
}

/** A relative path inside the scratch dir: no absolute paths, no `..`, no empty or odd segments. */
export function checkScratchPath(path: string): string | null {
  if (path.length === 0 || path.length > 255) return "must be 1-255 characters";
  if (path.startsWith("/")) return "must be relative to the scratch dir";
  if (path.includes("\0")) return "must not contain NUL";
  for (const segment of path.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return `has a bad segment "${segment}"`;
  }
  return null;
}
