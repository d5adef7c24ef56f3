// The letter-grade reading NeMo Gym's abstention and omniscience servers share (07d6b0d): the stripped
// reply when it is exactly one of the letters; else its last line when that, stripped, is exactly one;
// else the first of the letters (in their order) that occurs anywhere in the reply; else `fallback`.
import { pyStrip } from "../text/pystr.js";

export function exactLetterGrade<L extends string>(judgeText: string, letters: readonly L[], fallback: L): L {
  const cleaned = pyStrip(judgeText);
  const whole = letters.find((l) => cleaned === l);
  if (whole) return whole;
  const lastLine = pyStrip(cleaned.slice(cleaned.lastIndexOf("\n") + 1));
  const last = letters.find((l) => lastLine === l);
  if (last) return last;
  return letters.find((l) => cleaned.includes(l)) ?? fallback;
}
