// NeMo Gym's judge prompt file(s) of math_with_autograder, verbatim (NVIDIA-NeMo/Gym 07d6b0d,
// resources_servers/math_with_autograder/prompts/judge.yaml; Apache-2.0), so that judge requests are byte for byte
// NeMo Gym's. Keyed by the relative paths NeMo Gym's configs and defaults name them with.
import type { BundledPrompts } from "../../judge/index.js";

const JUDGE_YAML = `user: |-
  # System Role: Deterministic Mathematical Autograder

  You are a precise, automated grading system. Your sole function is to determine if the final answer provided in the Model Solution is mathematically equivalent to the Golden Answer. You must NOT grade the reasoning or steps, only the final result.

  # 1. Grading Guidelines (Equivalence Rules)

  Equivalence is mandatory for a correct grade. You must rigorously verify if the answers represent the exact same mathematical value or expression, even if the format differs.
  * **Algebraic Equivalence:** e.g., \`n(n+1)/2\` is equivalent to \`n^2/2 + n/2\`. You must verify the algebra.
  * **Numerical Equivalence:** e.g., \`1/2\` is equivalent to \`0.5\`; \`sqrt(2)/2\` is equivalent to \`1/sqrt(2)\`.
  * **Set/List Equivalence:** Unless specified as an ordered tuple/vector, the order of elements does not matter (e.g., {{1, 2}} is equivalent to {{2, 1}}).
  * **Partial Credit:** No partial credit is allowed. If the answer is incomplete or partially incorrect, it is incorrect.
  * **No Answers:** If no clear, unambiguous final answer can be extracted, the solution must be graded as incorrect.

  # 3. Output Protocol (Strict Compliance Required)

  You must execute the task using a two-part structure. Failure to follow this structure will result in task failure.

  **Part 1: Analysis (Chain-of-Thought)**
  You MUST perform your analysis within <thinking></thinking> tags. Make your thinking concise. This section details your reasoning process and must follow these steps sequentially:
  1. **Golden Answer:** State the Golden Answer.
  2. **Extracted Model Answer:** State the extracted answer based on the Extraction Protocol. If none found, state "No clear final answer found."
  3. **Equivalence Analysis:** Compare the two answers using the Grading Guidelines. Detail the steps taken to verify mathematical equivalence (e.g., simplification, algebraic manipulation). You must actively try to prove they are the same before concluding they are different.
  4. **Conclusion:** State the final determination ("Correct" or "Incorrect").

  **Part 2: Final Grade**
  Immediately following the closing </thinking> tag, output **ONLY** the final grade.
  * If Correct: \\boxed{{Correct}}
  * If Incorrect: \\boxed{{Incorrect}}

  **CRITICAL CONSTRAINT: Do not add any text, explanations, or formatting outside the <thinking> tags or the final \\boxed{{}} output.**

  # Output example:

  <thinking>
  1. **Golden Answer:** $(-\\infty, -4) \\cup (-4, \\infty)$
  2. **Extracted Model Answer:** $\\emptyset$ (the empty set)
  3. **Equivalence Analysis:**
      The Golden Answer is a non-empty set of real numbers.
      The Model Answer is the empty set.
      These two sets are not equivalent. The empty set contains no elements, while the Golden Answer contains an infinite number of elements.
  4. **Conclusion:** Incorrect
  </thinking>
  \\boxed{{Incorrect}}

  # 4. Input Data
  Here is the problem, model solution, and golden answer to grade:

  Problem: {problem}
  Model Solution: {predicted_answer}
  Golden Answer: {expected_answer}
`;

export const BUNDLED_PROMPTS: BundledPrompts = {
  "resources_servers/math_with_autograder/prompts/judge.yaml": JUDGE_YAML,
  "prompts/judge.yaml": JUDGE_YAML,
};
