// The two rules that keep gym from destroying data: no file gym writes may be a file it reads (by
// any spelling: symbolic links and hard links included), and no earlier result is replaced unless
// the user said `--overwrite`. Every command that writes files runs these before it writes anything.
// The refusal follows NeMo Gym's `gym eval reverify` (07d6b0d, nemo_gym/rollout_reverification.py:
// an existing output or failures file is an error unless `overwrite`; `resume_from_cache` reuses it),
// extended here to every command; a file that exists but is empty holds no result and is not refused.
import { closeSync, existsSync, lstatSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { FileError } from "../config/file_errors.js";

/** A path and the part it plays, as a message should name it ("the input file", "the output's plan file"). */
export interface NamedFile {
  path: string;
  role: string;
}

/** How `a` and `b` are the same file, or undefined when they are different files (or one does not exist). */
export function sameFileHow(a: string, b: string): string | undefined {
  if (!existsSync(a) || !existsSync(b)) return undefined;
  try {
    const realA = realpathSync(a);
    const realB = realpathSync(b);
    if (realA === realB) {
      const viaLink = lstatSync(a).isSymbolicLink() || lstatSync(b).isSymbolicLink() || realA !== a || realB !== b;
      return a === b ? "" : viaLink ? " (the same file, through a symbolic link)" : " (the same file)";
    }
    // Two names, one inode: a hard link. Writing either rewrites both.
    const statA = statSync(a);
    const statB = statSync(b);
    if (statA.dev === statB.dev && statA.ino === statB.ino) return " (a hard link to the same file)";
  } catch {
    return undefined;
  }
  return undefined;
}

/** Refuses (one line naming both) when any output is one of the inputs. */
export function refuseOutputsOverInputs(inputs: readonly NamedFile[], outputs: readonly NamedFile[], hint = "choose another --output"): void {
  for (const output of outputs) {
    for (const input of inputs) {
      const how = sameFileHow(output.path, input.path);
      if (how !== undefined) {
        throw new FileError(`${output.role} ${output.path} is ${input.role} ${input.path}${how}: gym would overwrite what it reads; ${hint}`);
      }
    }
  }
}

/** Lines in a file (a last line without a newline counts), read in blocks. */
export function countLines(path: string): number {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(1 << 20);
    let lines = 0;
    let last = 0x0a;
    for (let position = 0; ; ) {
      const n = readSync(fd, buffer, 0, buffer.length, position);
      if (n === 0) break;
      for (let i = buffer.indexOf(0x0a); i !== -1 && i < n; i = buffer.indexOf(0x0a, i + 1)) lines++;
      last = buffer[n - 1]!;
      position += n;
    }
    return last === 0x0a ? lines : lines + 1;
  } finally {
    closeSync(fd);
  }
}

function hasContent(path: string): boolean {
  try {
    const stats = statSync(path);
    return stats.isFile() && stats.size > 0;
  } catch {
    return false;
  }
}

/**
 * Refuses to replace results an earlier run left (non-empty files), naming the file, how many lines
 * it holds and the flags that say what to do with it. `resumable`: the command has `--resume`.
 */
export function refuseFinishedResults(paths: readonly string[], how: { overwrite?: boolean; resume?: boolean; resumable: boolean }): void {
  if (how.overwrite || how.resume) return;
  for (const path of paths) {
    if (!hasContent(path)) continue;
    const lines = countLines(path);
    const choices = how.resumable ? "pass --resume to continue that run, or --overwrite to replace it" : "pass --overwrite to replace it, or choose another --output";
    throw new FileError(`${path} already holds ${lines} line${lines === 1 ? "" : "s"} from an earlier run; ${choices}`);
  }
}
