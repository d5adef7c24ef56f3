// StructEval's key-path check (NeMo Gym 07d6b0d structeval, after StructEval's eval_utils): a path is
// dot-separated keys, with `[n]` indices, `*` for "any element of a list", backticks around keys
// that contain dots, `@name` falling back to `name` (XML attributes), and `csv::Header` naming a
// CSV column.

export class PathSyntaxError extends Error {}

export function tokenizePath(path: string): string[] {
  if (path.startsWith("csv::")) return [path];
  const tokens: string[] = [];
  let buf = "";
  let inBacktick = false;
  let i = 0;
  while (i < path.length) {
    const ch = path[i]!;
    if (ch === "`") {
      inBacktick = !inBacktick;
      i++;
    } else if (ch === "." && !inBacktick) {
      if (buf) tokens.push(buf);
      buf = "";
      i++;
    } else if (ch === "[" && !inBacktick) {
      if (buf) tokens.push(buf);
      buf = "";
      const close = path.indexOf("]", i);
      if (close < 0) throw new PathSyntaxError(`Unclosed '[' in path: ${path}`);
      tokens.push(path.slice(i, close + 1));
      i = close + 1;
    } else {
      buf += ch;
      i++;
    }
  }
  if (buf) tokens.push(buf);
  return tokens;
}

const isDict = (node: unknown): node is Record<string, unknown> => node !== null && typeof node === "object" && !Array.isArray(node);
const has = (node: Record<string, unknown>, key: string) => Object.prototype.hasOwnProperty.call(node, key);

/** Python's `int(text)` for an index token's inside (sign, digits, surrounding spaces, underscores). */
function indexOf(text: string): number | undefined {
  const m = /^\s*([+-]?[0-9](?:_?[0-9])*)\s*$/.exec(text);
  return m ? Number(m[1]!.replace(/_/g, "")) : undefined;
}

function walk(node: unknown, tokens: readonly string[]): boolean {
  if (tokens.length === 0) return true;
  const [tok, ...rest] = tokens as [string, ...string[]];
  if (isDict(node) && has(node, "csv_headers") && tok.startsWith("csv::")) {
    const headers = (node.csv_headers as string[] | null) ?? [];
    return headers.includes(tok.slice(5)) && rest.length === 0;
  }
  if (tok === "*") return Array.isArray(node) && node.some((item) => walk(item, rest));
  if (tok.startsWith("[") && tok.endsWith("]")) {
    const idx = indexOf(tok.slice(1, -1));
    if (idx === undefined) return false;
    return Array.isArray(node) && idx >= 0 && idx < node.length && walk(node[idx], rest);
  }
  if (isDict(node)) {
    if (has(node, tok)) return walk(node[tok], rest);
    if (tok.startsWith("@") && has(node, tok.slice(1))) return walk(node[tok.slice(1)], rest);
  }
  return false;
}

/** Whether `path` exists in the parsed document. */
export function pathExists(data: unknown, path: string): boolean {
  return walk(data, tokenizePath(path));
}
