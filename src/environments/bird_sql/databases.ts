// Where BIRD's databases live: `bird_sql_dir` as NeMo Gym's config names it (relative paths from the
// working directory, as NeMo Gym resolves them from its checkout root). NeMo Gym downloads and unpacks
// BIRD's dev archive there at start-up (`<dir>/dev_20240627/dev_databases/<db_id>/<db_id>.sqlite`);
// Gymkit does not download: the directory must already hold the databases, in that layout, or be the
// `dev_databases` folder itself. A missing or empty directory stops the server with what to do.
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";

const HINT =
  "bird_sql needs BIRD's dev databases: download BIRD's dev archive (dev.zip from the BIRD benchmark site), unpack it and its inner dev_databases.zip, and set bird_sql_dir to the folder holding dev_20240627/ (or to dev_20240627/dev_databases itself)";

function hasDatabases(dir: string): boolean {
  if (!existsSync(dir)) return false;
  return readdirSync(dir, { withFileTypes: true }).some(
    (entry) => entry.isDirectory() && readdirSync(join(dir, entry.name)).some((file) => file.endsWith(".sqlite") && !file.startsWith(".")),
  );
}

/** The `dev_databases` folder under `birdSqlDir`; throws when there is none with databases in it. */
export function devDatabasesDir(birdSqlDir: string): string {
  const base = resolve(birdSqlDir);
  for (const candidate of [join(base, "dev_20240627", "dev_databases"), base]) {
    if (hasDatabases(candidate)) return candidate;
  }
  throw new Error(`bird_sql_dir ${base} holds no BIRD databases (looked for dev_20240627/dev_databases/<db_id>/<db_id>.sqlite). ${HINT}`);
}

export const databasePath = (devDatabases: string, dbId: string) => join(devDatabases, dbId, `${dbId}.sqlite`);
