// Compiled submissions kept by what went into them, so that one compilation serves every batch of a
// row, every rollout that wrote the same program and every re-verification of it. Gymkit's own
// addition (NeMo Gym's ccc_eval.py at commit 07d6b0d compiles the submission once per test; it keeps
// only the problem folder compiled without it, per process). A build is the problem folder after the
// submission's compilation, as a tar, with the compiler step's output; only a clean compilation
// (nothing on standard error) is kept: a failing one is cheap to repeat and may have failed for a
// passing reason (a deadline). Builds live in memory (a byte cap, least recently used out first) and,
// when `compile_cache_dir` names a folder, as one file per build there, shared by processes.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface Build {
  /** The compiled problem folder as a tar; null when it was too large to carry between runs. */
  tar: Buffer | null;
  stdout: string;
  stderr: string;
}

/** Whether a build may be kept: clean compilation, folder carried. */
export const keepable = (build: Build): build is Build & { tar: Buffer } => build.stderr === "" && build.tar !== null;

/** The compilers a problem's compile.sh usually calls: a different binary makes a different key. */
function compilerStamp(): string {
  return ["/usr/bin/g++", "/usr/bin/gcc", "/usr/bin/c++"]
    .map((path) => {
      try {
        const stat = statSync(path);
        return `${path}:${stat.size}:${stat.mtimeMs}`;
      } catch {
        return `${path}:-`;
      }
    })
    .join(",");
}
let stamp: string | undefined;

/** The key of a compilation: everything that goes into the folder it leaves behind. */
export function buildKey(parts: readonly unknown[]): string {
  stamp ??= compilerStamp();
  return createHash("sha256").update(JSON.stringify([stamp, ...parts])).digest("hex");
}

const memory = new Map<string, Build & { tar: Buffer }>();
let memoryBytes = 0;
const inFlight = new Map<string, Promise<Build | null>>();

const sizeOf = (build: Build) => (build.tar?.length ?? 0) + build.stdout.length + build.stderr.length;

function remember(key: string, build: Build & { tar: Buffer }, capBytes: number): void {
  const size = sizeOf(build);
  if (size > capBytes) return;
  const old = memory.get(key);
  if (old) {
    memory.delete(key);
    memoryBytes -= sizeOf(old);
  }
  memory.set(key, build);
  memoryBytes += size;
  for (const [k, b] of memory) {
    if (memoryBytes <= capBytes) break;
    memory.delete(k);
    memoryBytes -= sizeOf(b);
  }
}

function recall(key: string): Build | undefined {
  const build = memory.get(key);
  if (build) {
    // Most recently used last.
    memory.delete(key);
    memory.set(key, build);
  }
  return build;
}

/** A build file: one JSON line (compiler output, tar length), then the tar. Anything else is no build. */
function readBuildFile(path: string): (Build & { tar: Buffer }) | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  const newline = bytes.indexOf(0x0a);
  if (newline < 0) return undefined;
  try {
    const head = JSON.parse(bytes.subarray(0, newline).toString("utf8")) as { stdout?: unknown; stderr?: unknown; tarBytes?: unknown };
    const tar = bytes.subarray(newline + 1);
    if (typeof head.stdout !== "string" || head.stderr !== "" || head.tarBytes !== tar.length) return undefined;
    return { tar, stdout: head.stdout, stderr: "" };
  } catch {
    return undefined;
  }
}

function writeBuildFile(dir: string, key: string, build: Build & { tar: Buffer }): void {
  const path = join(dir, `${key}.build`);
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    const head = Buffer.from(`${JSON.stringify({ stdout: build.stdout, stderr: build.stderr, tarBytes: build.tar.length })}\n`, "utf8");
    writeFileSync(temporary, Buffer.concat([head, build.tar]));
    // Whole or absent: a reader never sees half a file.
    renameSync(temporary, path);
  } catch {
    // A cache that cannot be written costs a compilation later, nothing else.
    rmSync(temporary, { force: true });
  }
}

export interface CacheOptions {
  /** Memory for kept builds (0: none kept in memory). */
  memoryCapBytes: number;
  /** Folder for build files shared by processes, or null. */
  dir: string | null;
}

/**
 * The build for `key`: kept in memory, else in the folder, else made by `compile` (once, however many
 * ask at the same time). `compile` resolves null when the compilation did not complete.
 */
export async function buildFor(key: string, options: CacheOptions, compile: () => Promise<Build | null>): Promise<Build | null> {
  const kept = recall(key);
  if (kept) return kept;
  const pending = inFlight.get(key);
  if (pending) return pending;
  const made = (async () => {
    if (options.dir !== null) {
      const stored = readBuildFile(join(options.dir, `${key}.build`));
      if (stored) {
        remember(key, stored, options.memoryCapBytes);
        return stored;
      }
    }
    const build = await compile();
    if (build && keepable(build)) {
      remember(key, build, options.memoryCapBytes);
      if (options.dir !== null) writeBuildFile(options.dir, key, build);
    }
    return build;
  })();
  inFlight.set(key, made);
  try {
    return await made;
  } finally {
    inFlight.delete(key);
  }
}

/** Empties the memory (tests). */
export function forgetBuilds(): void {
  memory.clear();
  memoryBytes = 0;
}
