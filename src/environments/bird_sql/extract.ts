// The SQL a BIRD answer commits to, as NeMo Gym's bird_sql server reads it at commit 07d6b0d: the last
// ```sql fenced block that holds a letter; `--` comments (which, without multiline mode, run to the end
// of the block) and `/* */` comments removed; whitespace collapsed; a leading **bold** header dropped.
// No block at all gives the harmless filler `SELECT 1`; a block emptied by comment removal gives "".
import { PY_SPACE_CHARS, pyStrip } from "../../verifiers/text/pystr.js";

export const NO_ANSWER_FILLER = "SELECT 1";

const BLOCK_SOURCE = "```sql(.*?[a-zA-Z].*?)```";
// Python's `$` without MULTILINE: the end, or just before a final newline.
const COMMENTS = /--[\s\S]*?(?=\n?$)|\/\*[\s\S]*?\*\//g;
const SPACES = new RegExp(`[${PY_SPACE_CHARS}]+`, "gu");
const BOLD_HEADER = /^\*\*.*\*\*/u;

/** True when the text has a ```sql block with at least one ASCII letter. */
export function hasSqlCodeblock(text: string): boolean {
  return text !== "" && new RegExp(BLOCK_SOURCE, "s").test(text);
}

export function extractSql(text: string): string {
  if (text === "") return NO_ANSWER_FILLER;
  const blocks = Array.from(text.matchAll(new RegExp(BLOCK_SOURCE, "gs")), (m) => m[1]!);
  if (blocks.length === 0) return NO_ANSWER_FILLER;
  const sql = blocks.at(-1)!.replace(COMMENTS, "").replace(SPACES, " ").replace(BOLD_HEADER, "");
  return pyStrip(sql);
}
