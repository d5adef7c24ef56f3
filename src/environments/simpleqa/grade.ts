// simpleqa's reading of the judge's grade (NeMo Gym resources_servers/simpleqa/app.py, 07d6b0d):
// the first character of the stripped text if it is A, B or C; else the first character of its last
// line; else the first of A, B, C (in that order) that occurs anywhere; else C (NOT_ATTEMPTED), as
// NeMo Skills grades an unparsable judgement. Note the leniency this keeps: a judge that starts with
// a word beginning with "A", "B" or "C" ("After review… B") is read as that letter.
import { pyStrip } from "../../verifiers/text/pystr.js";

export type SimpleQaGrade = "A" | "B" | "C";
const GRADES: readonly SimpleQaGrade[] = ["A", "B", "C"];

const leading = (s: string): SimpleQaGrade | undefined => GRADES.find((g) => s.startsWith(g));

export function simpleqaGrade(judgeText: string): SimpleQaGrade {
  const cleaned = pyStrip(judgeText);
  const first = leading(cleaned);
  if (first) return first;
  const lastLine = pyStrip(cleaned.slice(cleaned.lastIndexOf("\n") + 1));
  const last = leading(lastLine);
  if (last) return last;
  return GRADES.find((g) => cleaned.includes(g)) ?? "C";
}

export const VERDICTS = { A: "correct", B: "incorrect", C: "not_attempted" } as const;
