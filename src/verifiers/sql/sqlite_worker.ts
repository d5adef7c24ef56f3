// One SQL worker thread: opens SQLite database files with sql.js (SQLite compiled to WebAssembly) and
// runs one statement at a time as Python's `sqlite3` cursor would (python_sqlite.ts). Databases are
// opened read-only in effect (`PRAGMA query_only`, any open transaction rolled back after each
// query): a model's query can never change a user's database file or what the next query sees.
import { existsSync, readFileSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import initSqlJs, { type Database, type Statement } from "sql.js";
import { decodeUtf8Ignore, lstripSql, type SqlRow, type SqlValue } from "./python_sqlite.js";

export interface SqlRequest {
  id: number;
  dbPath: string;
  sql: string;
}
export type SqlReply = { ready: true } | { id: number; ok: true; rows: SqlRow[] } | { id: number; ok: false; error: string };

/** sql.js calls its typings leave out: integers as bigint, and a column's raw bytes. */
type RowReader = Statement & { get(params: null, config: { useBigInt: boolean }): SqlValue[]; getBlob(column: number): Uint8Array };

const SQL = await initSqlJs();
/** Open databases by path, most recently used last; a few kept (a database may be large). */
const open = new Map<string, Database>();
const KEEP = 4;

function database(path: string): Database {
  let db = open.get(path);
  if (db) {
    open.delete(path);
  } else {
    // Python's sqlite3.connect creates a missing file; an empty database behaves the same without
    // writing one.
    db = existsSync(path) ? new SQL.Database(readFileSync(path)) : new SQL.Database();
    while (open.size >= KEEP) {
      const [oldest, oldDb] = open.entries().next().value as [string, Database];
      oldDb.close();
      open.delete(oldest);
    }
  }
  open.set(path, db);
  return db;
}

function run(path: string, sql: string): SqlRow[] {
  const db = database(path);
  db.exec("PRAGMA query_only = 1");
  const statements = db.iterateStatements(sql);
  try {
    const first = statements.next();
    if (first.done) return [];
    const statement = first.value;
    try {
      if (lstripSql(statements.getRemainingSQL()) !== "") throw new Error("You can only execute one statement at a time.");
      const rows: SqlRow[] = [];
      while (statement.step()) {
        const row = (statement as RowReader).get(null, { useBigInt: true });
        for (let i = 0; i < row.length; i++) {
          const value = row[i];
          // A TEXT value with undecodable bytes: read its bytes and drop those, as Python's text_factory.
          if (typeof value === "string" && value.includes("\uFFFD")) row[i] = decodeUtf8Ignore((statement as RowReader).getBlob(i));
        }
        rows.push(row);
      }
      return rows;
    } finally {
      statement.free();
    }
  } finally {
    try {
      db.exec("ROLLBACK");
    } catch {
      // No transaction was open.
    }
  }
}

parentPort!.on("message", (request: SqlRequest) => {
  let reply: SqlReply;
  try {
    reply = { id: request.id, ok: true, rows: run(request.dbPath, request.sql) };
  } catch (error) {
    reply = { id: request.id, ok: false, error: (error as Error).message };
  }
  parentPort!.postMessage(reply);
});
parentPort!.postMessage({ ready: true } satisfies SqlReply);
