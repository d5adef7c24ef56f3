// NeMo Gym's judge prompt file(s) of physics_judge, verbatim (NVIDIA-NeMo/Gym 07d6b0d,
// resources_servers/physics_judge/prompts/judge.yaml; Apache-2.0), so that judge requests are byte for byte
// NeMo Gym's. Keyed by the relative paths NeMo Gym's configs and defaults name them with.
import type { BundledPrompts } from "../../judge/index.js";

const JUDGE_YAML = `# Character-for-character copy of NeMo Skills' nemo_skills/prompt/config/judge/physics.yaml.
# Skills uses {problem} / {generation} / {expected_answer} as placeholder names;
# the physics_judge resource server fills them with the row's question, model
# generation, and expected answer (same fields Skills passes to its judge stage).
#
# No \`system:\` key -> the resource server omits the system message, matching
# Skills' judge pipeline which only sends a user message. Any divergence from
# the Skills prompt breaks parity with the ns eval baseline.
#
# adapted from https://arxiv.org/abs/2506.00022

user: |-
  You are a diligent and precise assistant tasked with evaluating the correctness of responses. You will receive a question, an output sentence, and the correct answer. Your task is to determine if the output sentence accurately answers the question based on the provided correct answer. Respond with either [Correct] or [Incorrect].
  Special considerations:
  1. Multiple Answers: If the output contains multiple answers, evaluate whether later answers modify or correct earlier ones. In such cases, compare the final answer with the correct answer. If the final answer is unclear or incorrect, respond with [Incorrect].
  2. Mathematical Problems: If the formats differ but the answers are mathematically equivalent, respond with [Correct].
  3. Explicit Options: If the question provides explicit candidate answers, the output will be considered correct if it clearly indicates the correct option’s code or the correct option’s content.
  4. No Explicit Options: If the question does not provide explicit options, the output must align with the correct answer in content and meaning to be considered [Correct].
  Question: {problem}, Output sentence: {generation}, Correct answer: {expected_answer}, Judgement:
`;

export const BUNDLED_PROMPTS: BundledPrompts = {
  "resources_servers/physics_judge/prompts/judge.yaml": JUDGE_YAML,
  "prompts/judge.yaml": JUDGE_YAML,
};
