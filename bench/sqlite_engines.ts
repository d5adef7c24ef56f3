// Measures the SQLite engines the SQL environments could run on, on one database file: sql.js (SQLite
// compiled to WebAssembly, the whole file loaded into memory) against node-sqlite3-wasm (WebAssembly,
// reading the file through a Node file-system VFS). Neither downloads a native binary on install.
// Usage: npx tsx bench/sqlite_engines.ts [path/to/node_modules/of/node-sqlite3-wasm]
// (install node-sqlite3-wasm outside the repository, e.g. `npm i --prefix /tmp/alt node-sqlite3-wasm@0.8.60`).
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import initSqlJs from "sql.js";

const ROWS = 400_000;
const QUERIES = ["SELECT count(*), sum(b), max(c) FROM t", "SELECT a % 97, avg(b) FROM t GROUP BY 1 ORDER BY 2 DESC LIMIT 3", "SELECT * FROM t WHERE a = 123456"];
const dir = mkdtempSync(join(tmpdir(), "sqlite-bench-"));
const path = join(dir, "bench.sqlite");
const SQL = await initSqlJs();
{
  const db = new SQL.Database();
  db.exec("CREATE TABLE t(a INTEGER PRIMARY KEY, b REAL, c TEXT)");
  db.exec(`WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ${ROWS}) INSERT INTO t SELECT x, x * 0.5, printf('row %d of the benchmark table', x) FROM n`);
  writeFileSync(path, db.export());
  db.close();
}
const mb = (n: number) => (n / 1048576).toFixed(1);
console.log(`database: ${ROWS} rows, ${mb(statSync(path).size)} MB`);

function measure<H>(name: string, open: () => H, query: (handle: H, sql: string) => unknown, close: (handle: H) => void): void {
  const rss0 = process.memoryUsage().rss;
  let t = performance.now();
  const handle = open();
  const openMs = performance.now() - t;
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    t = performance.now();
    for (const sql of QUERIES) query(handle, sql);
    times.push(performance.now() - t);
  }
  const rss = process.memoryUsage().rss - rss0;
  close(handle);
  console.log(`${name}: open ${openMs.toFixed(0)} ms; three queries ${times.map((x) => x.toFixed(0)).join(" / ")} ms (3 rounds); RSS +${mb(rss)} MB`);
}

measure(
  "sql.js 1.16.0",
  () => new SQL.Database(readFileSync(path)),
  (db, sql) => db.exec(sql),
  (db) => db.close(),
);
const altDir = process.argv[2];
if (altDir) {
  interface AltDb {
    all(sql: string): unknown;
    close(): void;
  }
  const { Database } = createRequire(join(altDir, "x.js"))("node-sqlite3-wasm") as { Database: new (path: string, options: { readOnly: boolean }) => AltDb };
  measure(
    "node-sqlite3-wasm",
    () => new Database(path, { readOnly: true }),
    (db: AltDb, sql: string) => db.all(sql),
    (db: AltDb) => db.close(),
  );
}
rmSync(dir, { recursive: true, force: true });
