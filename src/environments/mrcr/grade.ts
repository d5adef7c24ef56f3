// MRCR's grade, as NeMo Gym's mrcr server computes it (NVIDIA-NeMo/Gym 07d6b0d,
// resources_servers/mrcr/app.py, the official openai/mrcr grader): a response that does not start
// with the row's random prefix scores 0; otherwise the prefix is removed from the response and from
// the expected answer, and the score is difflib's SequenceMatcher ratio of the two (autojunk on).
import { sequenceRatio } from "../../verifiers/text/sequence_matcher.js";

const removePrefix = (s: string, prefix: string) => (s.startsWith(prefix) ? s.slice(prefix.length) : s);

/** `response` is already stripped. */
export function mrcrGrade(response: string, expectedAnswer: string, prefix: string): number {
  if (!response.startsWith(prefix)) return 0.0;
  return sequenceRatio(removePrefix(response, prefix), removePrefix(expectedAnswer, prefix));
}
