// What frontierscience_judge reads (NVIDIA-NeMo/Gym 07d6b0d, resources_servers/frontierscience_judge/
// app.py): the model's answer (the last assistant message with text, thinking traces removed), the
// judge's `Judgement: YES|NO` (the last one wins), and in research mode a rubric score. Python `re`
// patterns run through verifiers/text/pyregex (Unicode \d, \s and \b as Python has them).
import { pyFinditer, pySearch, pySub } from "../../verifiers/text/pyregex.js";
import { pyFloatFromString, pySplitLines } from "../../verifiers/text/pyfloat.js";
import { pyStrip } from "../../verifiers/text/pystr.js";

const NUMBER = "([+-]?(?:\\d+(?:\\.\\d+)?|\\.\\d+))";
const BRACKETED_SCORE = `(?:final[_\\s-]*)?score\\s*\\[\\s*${NUMBER}\\s*\\]\\s*/\\s*(?:max[_\\s-]*possible[_\\s-]*)?score\\s*\\[\\s*${NUMBER}\\s*\\]`;
const DENOMINATED_SCORE = `${NUMBER}\\s*(?:/|out\\s+of)\\s*${NUMBER}`;
const LABELED_SCORE = `(?:final\\s+)?score\\s*[:=]\\s*${NUMBER}`;

/** Removes `<think>…</think>` and `<thinking>…</thinking>` blocks, and anything before a stray closing tag; then strips. */
export function stripThinking(text: string): string {
  let out = pySub("<think>.*?</think>", () => "", text, { dotAll: true });
  out = pySub("<thinking>.*?</thinking>", () => "", out, { dotAll: true });
  out = out.replace(/^[\s\S]*?<\/think>/, "");
  out = out.replace(/^[\s\S]*?<\/thinking>/, "");
  return pyStrip(out);
}

/**
 * The text of the last assistant message that has any (its text parts joined by newlines, stripped),
 * with thinking removed unless `keepThinking`; "" when there is none.
 */
export function assistantText(response: { output: readonly unknown[] }, keepThinking = false): string {
  for (const item of [...(response.output as Array<Record<string, unknown>>)].reverse()) {
    if (item?.type !== "message" || item.role !== "assistant") continue;
    let texts: string[] = [];
    if (Array.isArray(item.content)) {
      for (const part of item.content as Array<Record<string, unknown>>) if (typeof part?.text === "string") texts.push(part.text);
    } else if (typeof item.content === "string") {
      texts = [item.content];
    }
    if (texts.length > 0) {
      const full = pyStrip(texts.join("\n"));
      return keepThinking ? full : stripThinking(full);
    }
  }
  return "";
}

/** The last `Judgement: YES|NO` (any case), upper-cased; undefined when there is none. */
export function parseJudgement(text: string): "YES" | "NO" | undefined {
  if (!text) return undefined;
  const matches = pyFinditer("Judgement:\\s*(YES|NO)", text, { ignoreCase: true });
  if (matches.length === 0) return undefined;
  return matches[matches.length - 1]![1]!.toUpperCase() as "YES" | "NO";
}

/**
 * The rubric score on `maxScore` points, from the last line mentioning "score" that holds one:
 * `FINAL_SCORE[7] / MAX_POSSIBLE_SCORE[10]` or `7/10` / `7 out of 10` (normalized onto maxScore;
 * a denominator ≤ 0 gives none), else `Score: 7` as written.
 */
export function parseRubricScore(text: string, maxScore = 10.0): number | undefined {
  if (!text) return undefined;
  for (const line of pySplitLines(text).reverse()) {
    if (!line.toLowerCase().includes("score")) continue;
    for (const pattern of [BRACKETED_SCORE, DENOMINATED_SCORE]) {
      const match = pySearch(pattern, line, { ignoreCase: true });
      if (!match) continue;
      const numerator = pyFloatFromString(match[1]!)!;
      const denominator = pyFloatFromString(match[2]!)!;
      if (denominator <= 0) return undefined;
      return (numerator / denominator) * maxScore;
    }
    const labeled = pySearch(LABELED_SCORE, line, { ignoreCase: true });
    if (labeled) return pyFloatFromString(labeled[1]!)!;
  }
  return undefined;
}
