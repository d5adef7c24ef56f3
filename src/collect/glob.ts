// A minimal glob for shard files: `*` and `?` in the last path segment only (Node 20 has no fs.glob).
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { UserError } from "../config/user_error.js";

export class GlobError extends UserError {}

export function globFiles(pattern: string): string[] {
  const dir = resolve(dirname(pattern));
  const name = basename(pattern);
  if (/[*?]/.test(dirname(pattern))) throw new GlobError(`--input-glob ${pattern}: only the file name may contain wildcards (* and ?), not the folders`);
  if (!existsSync(dir)) return [];
  if (!statSync(dir).isDirectory()) throw new GlobError(`--input-glob ${pattern}: ${dirname(pattern)}/ is a regular file, not a folder`);
  const regex = new RegExp(`^${name.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`);
  return readdirSync(dir)
    .filter((f) => regex.test(f))
    .sort()
    .map((f) => join(dir, f));
}
