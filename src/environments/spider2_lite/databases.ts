// Where Spider 2.0-Lite's SQLite databases live: `spider2_lite_dir` as NeMo Gym's config names it
// (relative paths from the working directory). NeMo Gym downloads them at start-up into
// `<dir>/sqlite/<db_id>.sqlite`; Gymkit does not download: that folder (or `<dir>` itself) must hold
// the `.sqlite` files already. A missing or empty directory stops the server with what to do.
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";

const HINT =
  "spider2_lite needs Spider 2.0-Lite's SQLite databases: download the local SQLite archive that Spider 2.0's spider2-lite README links (the .sqlite files), and put the files in <spider2_lite_dir>/sqlite/ (or set spider2_lite_dir to the folder holding them)";

const hasDatabases = (dir: string) => existsSync(dir) && readdirSync(dir).some((file) => file.endsWith(".sqlite"));

/** The folder of `<db_id>.sqlite` files under `spider2LiteDir`; throws when there is none. */
export function sqliteDir(spider2LiteDir: string): string {
  const base = resolve(spider2LiteDir);
  for (const candidate of [join(base, "sqlite"), base]) if (hasDatabases(candidate)) return candidate;
  throw new Error(`spider2_lite_dir ${base} holds no Spider 2.0-Lite databases (looked for sqlite/<db_id>.sqlite). ${HINT}`);
}

export const databasePath = (dir: string, dbId: string) => join(dir, `${dbId}.sqlite`);
