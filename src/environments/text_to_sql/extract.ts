// Reading text_to_sql's inputs as NeMo Gym's server does (resources_servers/text_to_sql/app.py at commit
// 07d6b0d): the SQL in the model's answer, the dialect name, and the judge's reply text.
import type { ResponseObject } from "../../protocol/index.js";
import { pyFinditer, pyMatch, pySearch } from "../../verifiers/text/pyregex.js";
import { pyRstrip, pyStrip } from "../../verifiers/text/pystr.js";

const SQL_FENCE = "```sql\\s*([\\s\\S]*?)\\s*```";
const ANY_FENCE = "```\\s*([\\s\\S]*?)\\s*```";
const SQL_START_OF_BLOCK = "^\\s*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP)\\s";
const SQL_KEYWORD = "(?:SELECT|INSERT|UPDATE|DELETE|WITH)\\s";

/**
 * The SQL of a model answer, tried in order: the last ```sql fence (any case; its content, stripped,
 * even when empty); the last plain ``` fence whose content starts with a SQL keyword; else the text
 * from the first SELECT/INSERT/UPDATE/DELETE/WITH keyword to the last semicolon after it (or to the
 * end), stripped, ending in exactly one semicolon. Undefined when there is none.
 */
export function extractSql(text: string): string | undefined {
  if (!text) return undefined;
  const fenced = pyFinditer(SQL_FENCE, text, { ignoreCase: true });
  if (fenced.length > 0) return pyStrip(fenced[fenced.length - 1]![1] ?? "");
  const blocks = pyFinditer(ANY_FENCE, text);
  for (let i = blocks.length - 1; i >= 0; i--) {
    const content = pyStrip(blocks[i]![1] ?? "");
    if (pyMatch(SQL_START_OF_BLOCK, content, { ignoreCase: true })) return content;
  }
  const start = pySearch(SQL_KEYWORD, text, { ignoreCase: true });
  if (!start) return undefined;
  const lastSemicolon = text.lastIndexOf(";");
  const extracted = pyStrip(lastSemicolon >= start.index ? text.slice(start.index, lastSemicolon + 1) : text.slice(start.index));
  return `${pyRstrip(extracted, ";")};`;
}

const DIALECT_ALIASES: Readonly<Record<string, string>> = { postgres: "postgresql", pg: "postgresql", sqlite3: "sqlite" };

/** The dialect name stripped, lower-cased and de-aliased; undefined for an empty one. */
export function normalizeDialect(dialect: string): string | undefined {
  if (!dialect) return undefined;
  const name = pyStrip(dialect).toLowerCase();
  return DIALECT_ALIASES[name] ?? name;
}

/**
 * The judge's text: of every assistant message (or message without a role), its non-blank text parts
 * stripped and joined by newlines; the messages joined by newlines; stripped.
 */
export function judgeReplyText(response: ResponseObject): string {
  const texts: string[] = [];
  for (const item of response.output as Array<Record<string, unknown>>) {
    if (item.type !== "message") continue;
    if (item.role !== undefined && item.role !== null && item.role !== "assistant") continue;
    const content = item.content;
    if (Array.isArray(content)) {
      const parts = content.flatMap((part) => {
        const t = part !== null && typeof part === "object" ? (part as Record<string, unknown>).text : undefined;
        return typeof t === "string" && pyStrip(t) ? [pyStrip(t)] : [];
      });
      if (parts.length > 0) texts.push(parts.join("\n"));
    } else if (typeof content === "string" && pyStrip(content)) {
      texts.push(pyStrip(content));
    }
  }
  return pyStrip(texts.join("\n"));
}
