// A minimal glob for shard files: `*` and `?` in the last path segment only (Node 20 has no fs.glob).
import { existsSync, readdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

export function globFiles(pattern: string): string[] {
  const dir = resolve(dirname(pattern));
  const name = basename(pattern);
  if (/[*?]/.test(dirname(pattern))) throw new Error(`only the file name may contain wildcards: ${pattern}`);
  if (!existsSync(dir)) return [];
  const regex = new RegExp(`^${name.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`);
  return readdirSync(dir)
    .filter((f) => regex.test(f))
    .sort()
    .map((f) => join(dir, f));
}
