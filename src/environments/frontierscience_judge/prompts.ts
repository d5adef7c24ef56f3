// NeMo Gym's judge prompt file(s) of frontierscience_judge, verbatim (NVIDIA-NeMo/Gym 07d6b0d,
// resources_servers/frontierscience_judge/prompts/judge.yaml, prompts/research_judge.yaml; Apache-2.0), so that judge requests are byte for byte
// NeMo Gym's. Keyed by the relative paths NeMo Gym's configs and defaults name them with.
import type { BundledPrompts } from "../../judge/index.js";

const JUDGE_YAML = `# Source: https://cdn.openai.com/pdf/2fcd284c-b468-4c21-8ee0-7a783933efcc/frontierscience-paper.pdf Page 13
user: |-
  You are grading an attempted answer to a science olympiad problem. You will be given the
  problem, attempted answer, and reference answer. Evaluate the solution against the provided
  reference solution, ensuring it is complete and matches the reference solution. Pay close
  attention to detail and grade it strictly, but fairly.
  The reference answer is either a single number or expression in latex formatting, a chemical
  formula, a compound name, or a phrase referring to a specific name, entity, or method.
  Mark the attempted answer as correct if it fully matches the reference answer or is otherwise
  equivalent (e.g., an equivalent algebraic expression, a numerical number within 1 decimal
  place rounding of the reference answer (e.g., 6.69 ≈ 6.7), an equivalent name for a
  compound/formula, equivalent when accounting for units, etc.). Mark it as incorrect if it is
  not equivalent to the reference answer.
  ***
  The problem: {question}
  ***
  The reference answer: {expected_answer}
  ***
  The attempted answer: {generation}
  ***
  First, think step-by-step about whether the attempted answer matches the reference answer.
  If the attempted answer is correct, write "Judgement: YES" in the last line of your
  response, with no other text or formatting. If it is incorrect, write "Judgement: NO".
`;

const RESEARCH_JUDGE_YAML = `# Source: https://openai.com/index/frontierscience/
# FrontierScience-Research uses per-task rubrics totaling 10 points. A solution
# is counted correct when it receives at least 7/10 rubric points.
user: |-
  You are grading an attempted answer to a FrontierScience research task.
  You will be given the task, a grading rubric, and the attempted answer.

  Grade strictly against the rubric. Award partial credit only when the
  attempted answer satisfies the specific rubric item. Do not award credit for
  vague or unsupported statements that merely gesture at the right concept.
  The rubric totals 10 points. A solution is correct only if it receives at
  least 7 out of 10 points.

  ***
  The task:
  {question}
  ***
  The grading rubric:
  {rubric}
  ***
  The attempted answer:
  {generation}
  ***

  First, briefly explain the awarded points by rubric item. Then write the
  total score on its own line as exactly:
  Score: <number>/10

  On the final line, write exactly one of:
  Judgement: YES
  Judgement: NO

  Use Judgement: YES if and only if the score is at least 7/10.
`;

export const BUNDLED_PROMPTS: BundledPrompts = {
  "resources_servers/frontierscience_judge/prompts/judge.yaml": JUDGE_YAML,
  "prompts/judge.yaml": JUDGE_YAML,
  "resources_servers/frontierscience_judge/prompts/research_judge.yaml": RESEARCH_JUDGE_YAML,
  "prompts/research_judge.yaml": RESEARCH_JUDGE_YAML,
};
