// The judge prompt of NeMo Gym's math_with_judge (07d6b0d), which polymath inherits: judge only
// mathematical equivalence, end with one label. The user message layout is NeMo Gym's exactly.

export const JUDGE_EQUAL = "[[A=B]]";
export const JUDGE_NOT_EQUAL = "[[A!=B]]";

export const JUDGE_SYSTEM_PROMPT = `Please act as an impartial judge and evaluate the equivalence of the solutions given by two AI assistants to the mathematical problem displayed below. You will be given AI assistant A's answer and AI assistant B's answer. Your job is to evaluate whether assistant A's answer is equivalent to assistant B's answer.

Consider the mathematical equivalence of the AI assistants' answers above all other considerations. If the problem requests special formatting instructions, you may disregard any formatting considerations when evaluating the answers -- consider only mathematical equivalence.

After providing your explanation, you must output only one of the following choices as your final verdict with a label:

1. The AI assistants' answers are equivalent: ${JUDGE_EQUAL}
2. The AI assistants' answers are different: ${JUDGE_NOT_EQUAL}

Example output: "My final verdict is different ${JUDGE_NOT_EQUAL}".`;

export function judgeUserPrompt(question: string, answerA: string, answerB: string): string {
  return `<|Problem|>\n${question}\n\n<|Start of Assistant A's Answer|>\n${answerA}\n<|End of Assistant A's Answer|>\n\n<|Start of Assistant B's Answer|>\n${answerB}\n<|End of Assistant B's Answer|>`;
}
