// The SQL a Spider 2.0-Lite answer commits to, as NeMo Gym's spider2_lite server reads it at commit
// 07d6b0d, first rule that finds one: the last ```sql block (fence case-insensitive); else the last
// plain ``` block whose text starts with SELECT/INSERT/UPDATE/DELETE/WITH/CREATE/ALTER/DROP and a
// space; else the text from the first SELECT/INSERT/UPDATE/DELETE/WITH followed by a space up to the
// last `;` (or the end), with exactly one `;` at its end. None of these: no SQL (null).
import { PY_SPACE_CHARS, pyRstrip, pyStrip } from "../../verifiers/text/pystr.js";

const S = `[${PY_SPACE_CHARS}]`;
const SQL_BLOCK = new RegExp(`\`\`\`sql${S}*([\\s\\S]*?)${S}*\`\`\``, "giu");
const ANY_BLOCK = new RegExp(`\`\`\`${S}*([\\s\\S]*?)${S}*\`\`\``, "gu");
const STATEMENT_START = new RegExp(`^${S}*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP)${S}`, "iu");
const BARE_START = new RegExp(`(?:SELECT|INSERT|UPDATE|DELETE|WITH)${S}`, "iu");

export function extractSql(text: string): string | null {
  if (text === "") return null;
  const sqlBlocks = Array.from(text.matchAll(SQL_BLOCK), (m) => m[1]!);
  if (sqlBlocks.length > 0) return pyStrip(sqlBlocks.at(-1)!);
  const blocks = Array.from(text.matchAll(ANY_BLOCK), (m) => m[1]!);
  for (const block of blocks.reverse()) {
    const content = pyStrip(block);
    if (STATEMENT_START.test(content)) return content;
  }
  const start = BARE_START.exec(text)?.index;
  if (start === undefined) return null;
  const lastSemicolon = text.lastIndexOf(";");
  const extracted = pyStrip(lastSemicolon >= start ? text.slice(start, lastSemicolon + 1) : text.slice(start));
  return `${pyRstrip(extracted, ";")};`;
}
