// Reading a node list and scoring it, as NeMo Gym's graphwalks server does (NVIDIA-NeMo/Gym 07d6b0d,
// resources_servers/graphwalks/app.py, after openai/graphwalks; lc_niah uses the same parts): the
// answer is on the last non-empty line as `Final Answer: [n1, n2, ...]`; the score is F1 between the
// predicted and expected node sets.
import { pySearch } from "./pyregex.js";
import { pyStrip } from "./pystr.js";

const FINAL_ANSWER = String.raw`Final Answer:\s*\[(.*)\]`;

/** The bracket contents of `Final Answer: [...]` on the last non-empty line, or null when absent. */
export function finalAnswerContent(response: string): string | null {
  const lines = pyStrip(response).split("\n").filter((line) => pyStrip(line) !== "");
  if (lines.length === 0) return null;
  const match = pySearch(FINAL_ANSWER, lines[lines.length - 1]!);
  return match ? match[1]! : null;
}

/** graphwalks' parse: items split on commas and stripped; `parseFailed` when there is no final answer line. */
export function parseNodeList(response: string): { nodes: string[]; parseFailed: boolean } {
  const content = finalAnswerContent(response);
  if (content === null) return { nodes: [], parseFailed: true };
  if (pyStrip(content) === "") return { nodes: [], parseFailed: false };
  return { nodes: content.split(",").map((item) => pyStrip(item)).filter((item) => item !== ""), parseFailed: false };
}

/**
 * `set(json.loads(expected_answer))` as keys comparable with predicted node strings: a JSON list
 * gives its elements, a string its characters, an object its keys; anything else (or invalid JSON,
 * or unhashable elements) gives the empty set, as Python's caught JSONDecodeError/TypeError do.
 * Non-string elements get keys no predicted string can equal (Python's 1 == 1.0 == True kept).
 */
export function expectedNodeSet(expectedAnswer: unknown): Set<string> {
  if (typeof expectedAnswer !== "string") return new Set();
  let parsed: unknown;
  try {
    parsed = JSON.parse(expectedAnswer);
  } catch {
    return new Set();
  }
  if (typeof parsed === "string") return new Set(Array.from(parsed).map((ch) => `s:${ch}`));
  if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return new Set(Object.keys(parsed).map((k) => `s:${k}`));
  if (!Array.isArray(parsed)) return new Set();
  const keys = new Set<string>();
  for (const item of parsed) {
    if (typeof item === "string") keys.add(`s:${item}`);
    else if (typeof item === "number" || typeof item === "boolean") keys.add(`n:${Number(item)}`);
    else if (item === null) keys.add("null");
    else return new Set(); // a list or object inside: unhashable
  }
  return keys;
}

/** Set F1 of predicted node strings against expected keys; both empty → 1, either empty → 0, parse failure → 0. */
export function nodeF1(predicted: readonly string[], expected: Set<string>, parseFailed: boolean): number {
  if (parseFailed) return 0.0;
  const mine = new Set(predicted.map((node) => `s:${node}`));
  if (mine.size === 0 && expected.size === 0) return 1.0;
  if (mine.size === 0 || expected.size === 0) return 0.0;
  let tp = 0;
  for (const node of mine) if (expected.has(node)) tp++;
  if (tp === 0) return 0.0;
  const precision = tp / mine.size;
  const recall = tp / expected.size;
  return (2 * precision * recall) / (precision + recall);
}
