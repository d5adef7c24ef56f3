// File problems in plain words. Every command checks the files it was given before it starts any
// server or touches any output, and Node's own fs errors (which carry an errno code but read like
// "ENOTDIR: not a directory, open '…'") are turned into one line naming the path and what is wrong.
// It sits in config, the lowest layer that reads the user's files, so every layer above may use it
// without an import running back up the house.
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readSync, statfsSync, statSync, type Stats } from "node:fs";
import { dirname, resolve } from "node:path";
import { UserError } from "./user_error.js";

/** A file the user named cannot be used; the message is a complete, user-facing line (exit 2). */
export class FileError extends UserError {}

/** What each errno means to someone who only typed a path. */
const REASONS: Record<string, string> = {
  ENOENT: "no such file or folder",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "it is a folder, not a file",
  ENOTDIR: "a part of the path is a file, not a folder",
  EROFS: "the file system is read-only",
  ENOSPC: "no space left on the disk",
  EDQUOT: "the disk quota is used up",
  EINVAL: "the operating system refused it as invalid for this kind of file",
  EIO: "input/output error, it cannot be read like a regular file",
  EBADF: "the file cannot be opened for this (it is not a regular file)",
  ENAMETOOLONG: "the path is too long",
  ELOOP: "too many symbolic links (a link loop?)",
  EMFILE: "too many open files",
  ENXIO: "no such device",
  EBUSY: "the file is busy",
  ETXTBSY: "the file is busy",
  EEXIST: "it already exists",
  EXDEV: "it is on another file system",
};

export function isFsError(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === "string" && code in REASONS && typeof (error as NodeJS.ErrnoException).syscall === "string";
}

/** The nearest ancestor of `path` that exists (`path` itself when it exists). */
function nearestExisting(path: string): string {
  let current = resolve(path);
  while (!existsSync(current)) {
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return current;
}

/** For ENOTDIR: which part of the path is a regular file. */
function fileInTheWay(path: string): string | undefined {
  let current = dirname(resolve(path));
  for (;;) {
    try {
      if (!statSync(current).isDirectory()) return current;
    } catch {
      // Missing or unreadable parts are not what is in the way.
    }
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

function reasonFor(error: NodeJS.ErrnoException, path: string): string {
  if (error.code === "ENOTDIR") {
    const blocker = fileInTheWay(path);
    if (blocker) return `${blocker}/ is a regular file, not a folder`;
  }
  return `${REASONS[error.code ?? ""] ?? error.message} (${error.code})`;
}

/** One line for a Node fs error met while doing `action` ("read", "write", …) to `path` (how the user named it). */
export function fileErrorFrom(error: NodeJS.ErrnoException, action: string, path: string = error.path ?? "(unnamed file)"): FileError {
  return new FileError(`cannot ${action} ${path}: ${reasonFor(error, path)}`);
}

// Kernel file systems: their files look regular to stat() but are not data (reads of /proc/self/mem
// fail, writes to /proc/version "succeed" at open and fail later, and Node's recursive mkdir loops
// forever under /proc).
const KERNEL_FILE_SYSTEMS = new Map<number, string>([
  [0x9fa0, "/proc"],
  [0x62656572, "/sys"],
  [0x64626720, "debugfs"],
  [0x73636673, "securityfs"],
  [0x6e736673, "nsfs"],
]);

function kernelFileSystem(path: string): string | undefined {
  try {
    return KERNEL_FILE_SYSTEMS.get(Number(statfsSync(path).type));
  } catch {
    return undefined;
  }
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isSocket()) return "a socket";
  return "not a regular file";
}

function statOrThrow(path: string, action: string, label: string): Stats {
  try {
    return statSync(path);
  } catch (error) {
    if (isFsError(error)) throw fileErrorFrom(error, action, label);
    throw error;
  }
}

/**
 * Why `path` cannot be read as a regular file, in plain words, or undefined when it can. Pipes and
 * devices are refused rather than opened, because opening a FIFO blocks until someone writes.
 */
export function unreadableReason(path: string): string | undefined {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    if (isFsError(error)) return reasonFor(error, path);
    throw error;
  }
  if (stats.isDirectory()) return "it is a folder, not a file";
  if (!stats.isFile()) return `it is ${kindOf(stats)}, not a regular file; save its content to a file first`;
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    // One byte proves the content can be read (e.g. /proc/self/mem opens but every read fails).
    readSync(fd, Buffer.alloc(1), 0, 1, 0);
  } catch (error) {
    if (isFsError(error)) return reasonFor(error, path);
    throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return undefined;
}

/** A file gym will read: it must be a regular, readable file. `label` is how the message names it. */
export function checkReadableFile(path: string, label: string = path): void {
  const reason = unreadableReason(path);
  if (reason !== undefined) throw new FileError(`cannot read ${label}: ${reason}`);
}

/**
 * A file gym will create or replace: it must be (or become) a regular file in a writable folder, and
 * nothing of it is touched here. Folders that do not exist yet are fine (`ensureParentFolder` makes them).
 */
export function checkWritableFile(path: string, label: string = path): void {
  const existing = nearestExisting(path);
  const kernel = kernelFileSystem(existing);
  if (kernel) throw new FileError(`cannot write ${label}: it is inside ${kernel}, the kernel's own files, not a place for data`);
  const stats = statOrThrow(existing, "write", label);
  if (existing === resolve(path)) {
    if (!stats.isFile()) throw new FileError(`cannot write ${label}: it is ${kindOf(stats)}, not a regular file`);
  } else if (!stats.isDirectory()) {
    throw new FileError(`cannot write ${label}: ${existing}/ is a regular file, not a folder`);
  }
  try {
    accessSync(existing, constants.W_OK);
  } catch (error) {
    if (isFsError(error)) throw fileErrorFrom(error, "write", label);
    throw error;
  }
}

/**
 * Creates the missing folders above `path`, one at a time: Node 20's recursive mkdir never returns
 * for some paths (e.g. under /proc), and one level at a time also names the level that failed.
 */
export function ensureParentFolder(path: string, label: string = path): void {
  const missing: string[] = [];
  for (let dir = dirname(resolve(path)); !existsSync(dir); dir = dirname(dir)) {
    missing.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (error) {
      if (isFsError(error) && error.code !== "EEXIST") throw fileErrorFrom(error, "write", label);
      if (!isFsError(error)) throw error;
    }
  }
}
