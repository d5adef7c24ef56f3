// Reading a proof_judge policy answer and a judge's score, as NeMo Gym's proof_judge does (07d6b0d
// resources_servers/proof_judge/app.py): the answer is `## Solution` (the proof), then `## Self
// Evaluation` ending in a boxed score; scores are the last `\boxed{...}` read as a Python float and
// kept only when it is 0, 0.5 or 1.
import { pyFloatFromString } from "../../verifiers/text/pyfloat.js";
import { pyLen, pyStrip } from "../../verifiers/text/pystr.js";

export const SOLUTION_HEADER = "## Solution";
export const SELF_EVAL_HEADER = "## Self Evaluation";
/** Longest proof and self-evaluation judged, in characters (Python code points). */
export const MAX_PROOF_CHARS = 40_000;
export const MAX_VERIFICATION_CHARS = 20_000;

/**
 * The score in the last `\boxed{`: the text up to the first `}` after it, as `float()` reads it
 * (whitespace, `1.0`, `5e-1`, `+1` are fine), kept only if it equals 0, 0.5 or 1.
 */
export function extractBoxedScore(text: string): number | undefined {
  const start = text.lastIndexOf("\\boxed{");
  if (start < 0) return undefined;
  const contentStart = start + "\\boxed{".length;
  const end = text.indexOf("}", contentStart);
  if (end < 0) return undefined;
  const score = pyFloatFromString(pyStrip(text.slice(contentStart, end)));
  return score === 0 || score === 0.5 || score === 1 ? score : undefined;
}

export interface ParsedAnswer {
  proof: string;
  selfAnalysis: string;
  /** The policy's own score of its proof. */
  sPrime: number;
}

/** Why an answer is not judged (NeMo Gym's `reason` values). */
export type FormatFailure = "missing_think_end" | "missing_solution_header" | "missing_self_eval_header" | "invalid_boxed_score";

/** The proof, the self-evaluation and its score; or why the answer has the wrong shape. */
export function parseProofAnswer(response: string, assertThinkEnd: boolean): ParsedAnswer | FormatFailure {
  if (assertThinkEnd && !response.includes("</think>")) return "missing_think_end";
  const afterThinking = pyStrip(response.split("</think>").at(-1)!);
  const solutionAt = afterThinking.indexOf(SOLUTION_HEADER);
  if (solutionAt < 0) return "missing_solution_header";
  const afterSolution = afterThinking.slice(solutionAt + SOLUTION_HEADER.length);
  const evalAt = afterSolution.indexOf(SELF_EVAL_HEADER);
  if (evalAt < 0) return "missing_self_eval_header";
  const proof = pyStrip(afterSolution.slice(0, evalAt));
  const selfAnalysis = pyStrip(afterSolution.slice(evalAt + SELF_EVAL_HEADER.length));
  const sPrime = extractBoxedScore(selfAnalysis);
  if (sPrime === undefined) return "invalid_boxed_score";
  return { proof, selfAnalysis, sPrime };
}

/** Which part is too long to judge, if any (`proof_too_long`, then `self_verification_too_long`). */
export function tooLong(parsed: ParsedAnswer): "proof_too_long" | "self_verification_too_long" | undefined {
  if (pyLen(parsed.proof) > MAX_PROOF_CHARS) return "proof_too_long";
  if (pyLen(parsed.selfAnalysis) > MAX_VERIFICATION_CHARS) return "self_verification_too_long";
  return undefined;
}

/** Every output_text of the assistant messages, joined with nothing between (for the policy's answer and the judge's). */
export function assistantText(response: { output?: unknown } | null | undefined): string {
  if (!response || !Array.isArray(response.output)) return "";
  const parts: string[] = [];
  for (const item of response.output as Array<Record<string, unknown>>) {
    if (item.type !== "message" || item.role !== "assistant" || !Array.isArray(item.content)) continue;
    for (const part of item.content as Array<Record<string, unknown>>) {
      if (part.type === "output_text") parts.push(typeof part.text === "string" ? part.text : "");
    }
  }
  return parts.join("");
}
