// Reading an NVARC answer, as NeMo Gym's nvarc server does at commit 07d6b0d (app.py and the Board
// class of its problem.py). Both modes first drop `<think>…</think>` blocks.
//   - transductive: the grid is written as rows of space-separated digits, inside `\boxed{…}` if there
//     is one (from the first `\boxed{` to the last `}`). Every character that is neither whitespace nor
//     a word character is deleted, then every word that is not a single digit 0-9; each non-blank line
//     left is a row. Rows of different lengths, or no rows, give no grid. (So `[[1,2],[3,4]]` reads as
//     no grid: its digits run together once the brackets and commas are gone.)
//   - inductive: the Python program is the last ```python block, else the last plain ``` block, else
//     the whole text when it contains `def transform`.
// Python semantics kept: `\s` is Python's whitespace, `\w` its Unicode word characters, `str.split()`.
import { PY_SPACE_CHARS, pyStrip } from "../../verifiers/text/pystr.js";

export type Grid = number[][];

const THINK = /<think>[\s\S]*?<\/think>/g;
const BOXED = /\\boxed\{([\s\S]+)\}/;
const WORD = "\\p{L}\\p{N}_";
const NOT_SPACE_OR_WORD = new RegExp(`[^${PY_SPACE_CHARS}${WORD}]`, "gu");
const WORDS = new RegExp(`[${WORD}]+`, "gu");
const SPACES = new RegExp(`[${PY_SPACE_CHARS}]+`, "u");
const DIGIT = /^[0-9]$/;

export const stripThinking = (text: string) => pyStrip(text.replace(THINK, ""));

/** True for a non-empty grid whose rows are all as long as its non-empty first row. */
export function isValidGrid(grid: Grid): boolean {
  return grid.length > 0 && grid[0]!.length > 0 && grid.every((row) => row.length === grid[0]!.length);
}

export function parseGridText(response: string): Grid | null {
  let text = stripThinking(response);
  const boxed = BOXED.exec(text);
  if (boxed) text = boxed[1]!;
  text = text.replace(NOT_SPACE_OR_WORD, "").replace(WORDS, (word) => (DIGIT.test(word) ? word : ""));
  const grid: Grid = [];
  for (const line of text.split("\n")) {
    if (pyStrip(line) === "") continue;
    grid.push(
      pyStrip(line)
        .split(SPACES)
        .map((cell) => Number(cell)),
    );
  }
  return isValidGrid(grid) ? grid : null;
}

export function extractPythonCode(response: string): string | null {
  const text = stripThinking(response);
  const python = Array.from(text.matchAll(new RegExp(`\`\`\`python[${PY_SPACE_CHARS}]*\\n([\\s\\S]*?)\`\`\``, "gu")), (m) => m[1]!);
  if (python.length > 0) return pyStrip(python.at(-1)!);
  const plain = Array.from(text.matchAll(new RegExp(`\`\`\`[${PY_SPACE_CHARS}]*\\n([\\s\\S]*?)\`\`\``, "gu")), (m) => m[1]!);
  if (plain.length > 0) return pyStrip(plain.at(-1)!);
  if (text.includes("def transform")) return text;
  return null;
}
