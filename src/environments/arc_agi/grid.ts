// Reading the model's answer grid, as NeMo Gym's arc_agi server does at commit 07d6b0d: the text of
// every assistant message (joined by newlines, then stripped), a grid written as `\boxed{[[...]]}`
// (or, when no such box exists, any bracketed `[[...]]` span), tried in order until one parses as a
// non-empty list of integer lists whose first row is non-empty.
//
// Python semantics kept: the patterns' `\d` and `\s` are Unicode-aware (`\p{Nd}`, `str.isspace`);
// whitespace is removed before parsing; the parse is JSON's (its C scanner reads ASCII digits only,
// rejects leading zeros, and wants nothing after the value). Numbers are kept exact: an integer too
// large for a double is compared by its digits, never rounded into a match.
import { PY_SPACE_CHARS, pyStrip } from "../../verifiers/text/pystr.js";

/** One cell: a JavaScript number when it holds the integer exactly, else a bigint (never equal to a number). */
export type Cell = number | bigint;
export type Grid = Cell[][];

const S = `[${PY_SPACE_CHARS}]`;
const BODY = `[\\p{Nd}${PY_SPACE_CHARS},\\[\\]]+`;
const GRID_SPAN = `\\[${S}*\\[${BODY}\\]${S}*\\]`;
const BOXED = new RegExp(`\\\\boxed\\{(${GRID_SPAN})\\}`, "gu");
const BARE = new RegExp(GRID_SPAN, "gu");
const SPACES = new RegExp(`${S}+`, "gu");

/** The assistant messages' text parts, newline-joined and stripped (Python `str.strip`). */
export function assistantText(output: readonly unknown[]): string {
  const texts: string[] = [];
  for (const item of output as Array<Record<string, unknown>>) {
    if (item?.type !== "message" || item.role !== "assistant") continue;
    if (typeof item.content === "string") texts.push(item.content);
    else if (Array.isArray(item.content)) {
      for (const part of item.content as Array<Record<string, unknown>>) if (typeof part?.text === "string") texts.push(part.text);
    }
  }
  return pyStrip(texts.join("\n"));
}

type Json = Cell | Json[];

/** JSON restricted to what the spans can hold (arrays and non-negative integers); undefined when invalid. */
function parseJson(text: string): Json | undefined {
  let at = 0;
  const value = (): Json | undefined => {
    const ch = text[at];
    if (ch === "[") {
      at++;
      const items: Json[] = [];
      if (text[at] === "]") {
        at++;
        return items;
      }
      for (;;) {
        const item = value();
        if (item === undefined) return undefined;
        items.push(item);
        if (text[at] === ",") at++;
        else if (text[at] === "]") {
          at++;
          return items;
        } else return undefined;
      }
    }
    const digits = /^(?:0|[1-9][0-9]*)/.exec(text.slice(at))?.[0];
    if (digits === undefined) return undefined;
    at += digits.length;
    const n = Number(digits);
    return Number.isSafeInteger(n) || BigInt(n) === BigInt(digits) ? n : BigInt(digits);
  };
  const parsed = value();
  return parsed !== undefined && at === text.length ? parsed : undefined;
}

const isCell = (v: Json): v is Cell => typeof v === "number" || typeof v === "bigint";

/** The first candidate span that is a grid, or null. */
export function parseGrid(text: string): Grid | null {
  let spans = Array.from(text.matchAll(BOXED), (m) => m[1]!);
  if (spans.length === 0) spans = Array.from(text.matchAll(BARE), (m) => m[0]);
  for (const span of spans) {
    const grid = parseJson(span.replace(SPACES, ""));
    if (!Array.isArray(grid) || grid.length === 0) continue;
    if (!grid.every((row) => Array.isArray(row) && row.every(isCell))) continue;
    if ((grid[0] as Json[]).length === 0) continue;
    return grid as Grid;
  }
  return null;
}

/** Python list equality of two grids. */
export function sameGrid(a: Grid, b: readonly (readonly Cell[])[]): boolean {
  return a.length === b.length && a.every((row, i) => row.length === b[i]!.length && row.every((cell, j) => cell === b[i]![j]));
}
