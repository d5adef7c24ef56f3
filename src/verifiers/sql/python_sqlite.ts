// What Python's sqlite3 module adds around SQLite, as the SQL environments' upstream (NeMo Gym 07d6b0d,
// resources_servers/bird_sql and spider2_lite, on CPython 3.11/3.12) relies on:
//   - `cursor.execute(sql)` runs the first statement only and refuses SQL with more after it: the
//     text after the first statement may hold only whitespace and comments (CPython's `lstrip_sql`);
//     SQL with no statement at all (empty, comments, lone `;`) runs nothing and returns no rows;
//   - a `text_factory` of `bytes.decode(errors="ignore")`: undecodable bytes of a TEXT value are dropped;
//   - `set(rows) == set(rows)`: result rows compared as unordered sets of tuples under Python's
//     equality (an int equals the float of the same value; str, bytes and None only equal their kind).

export type SqlValue = number | bigint | string | Uint8Array | null;
export type SqlRow = SqlValue[];

/** CPython's `lstrip_sql`: the SQL after leading whitespace and comments, or "" when nothing is left. */
export function lstripSql(sql: string): string {
  let at = 0;
  while (at < sql.length) {
    const ch = sql[at]!;
    if (ch === " " || ch === "\t" || ch === "\f" || ch === "\n" || ch === "\r") at++;
    else if (ch === "-" && sql[at + 1] === "-") {
      const end = sql.indexOf("\n", at + 2);
      if (end < 0) return "";
      at = end + 1;
    } else if (ch === "/" && sql[at + 1] === "*") {
      const end = sql.indexOf("*/", at + 2);
      if (end < 0) return "";
      at = end + 2;
    } else return sql.slice(at);
  }
  return "";
}

/** `bytes.decode("utf-8", errors="ignore")`: valid sequences kept, each maximal invalid subpart dropped. */
export function decodeUtf8Ignore(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b < 0x80) {
      out += String.fromCharCode(b);
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else {
      i++;
      continue;
    }
    let cp = b & (0x3f >> need);
    let j = 1;
    for (; j <= need; j++) {
      const c = bytes[i + j];
      const min = j === 1 ? lo : 0x80;
      const max = j === 1 ? hi : 0xbf;
      if (c === undefined || c < min || c > max) break;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (j <= need) {
      i += j; // the start byte and the continuation bytes that were valid so far
      continue;
    }
    out += String.fromCodePoint(cp);
    i += need + 1;
  }
  return out;
}

function valueKey(value: SqlValue): string {
  if (value === null) return "n";
  if (typeof value === "bigint") return `i${value}`;
  if (typeof value === "number") return Number.isInteger(value) ? `i${BigInt(value)}` : `f${value}`;
  if (typeof value === "string") return `s${value}`;
  return `b${Buffer.from(value).toString("hex")}`;
}

/** A row's identity under Python's tuple equality and hashing. */
export function rowKey(row: readonly SqlValue[]): string {
  return JSON.stringify(row.map(valueKey));
}

/** `set(gold) == set(pred)`. */
export function sameRowSet(gold: readonly SqlRow[], pred: readonly SqlRow[]): boolean {
  const a = new Set(gold.map(rowKey));
  const b = new Set(pred.map(rowKey));
  return a.size === b.size && [...a].every((key) => b.has(key));
}
