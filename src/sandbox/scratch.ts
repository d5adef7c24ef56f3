// The host-side scratch dir, used only when running without bubblewrap (explicitly allowed unsafe
// mode; with bwrap the scratch dir is a tmpfs that exists only inside the run). Files are created
// with O_EXCL|O_NOFOLLOW in a fresh 0700 dir, and removal never follows a symlink the program planted:
// it unlinks the link, never what it points to.
import { chownSync, closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export function createScratch(files: Record<string, string | Uint8Array>, uid: number | null): string {
  const base = join(tmpdir(), `gymkit-sandbox-${process.pid}`);
  // 0711: other slots' uids may pass through to their own dir but cannot list the others.
  mkdirSync(base, { recursive: true, mode: 0o711 });
  const dir = mkdtempSync(join(base, "run-"));
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    const fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, typeof content === "string" ? Buffer.from(content) : content);
    } finally {
      closeSync(fd);
    }
  }
  if (uid !== null) chownTree(dir, Object.keys(files), uid);
  return dir;
}

function chownTree(dir: string, paths: string[], uid: number): void {
  const owned = new Set<string>([dir]);
  for (const path of paths) {
    let current = join(dir, path);
    while (current.startsWith(dir) && !owned.has(current)) {
      owned.add(current);
      current = dirname(current);
    }
  }
  for (const path of owned) chownSync(path, uid, uid);
}

export function removeScratch(dir: string): void {
  // rmSync lstat()s every entry: symlinks are unlinked, their targets untouched.
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
