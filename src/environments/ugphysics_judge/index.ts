// ugphysics_judge: NeMo Skills' UGPhysics evaluator on NeMo Gym's math_with_judge (NVIDIA-NeMo/Gym
// 07d6b0d, resources_servers/ugphysics_judge/app.py). math-verify first (a match is verdict TRUE); on
// a miss (and with should_use_judge) one judge call grades the whole generation against the reference
// solution and answer, and the verdict is read from `## Equivalence Judgement` then TRUE/FALSE, else
// from the last standalone TRUE/FALSE. The verdict (`extracted_verdict`) is what majority@k votes on;
// metrics are also given per `subject`. The config's `strict: true` (Gymkit's own, README) closes what the
// reward-hack audit finds in the default.
import { z } from "zod";
import { outputText } from "../../protocol/index.js";
import { JudgeClient } from "../../judge/index.js";
import { lastBoxedContent } from "../../verifiers/mcq/extract.js";
import { pyFinditer, pySearch } from "../../verifiers/text/pyregex.js";
import { mathMetrics } from "../../verifiers/math/metrics.js";
import { askSkillsJudge, fillJudgePrompt, loadJudgePromptConfig, mathJudgeConfigShape, mathVerifierPoolOf, rowExtras } from "../../verifiers/math/skills_judge.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { BUNDLED_PROMPTS } from "./prompts.js";

export const DEFAULT_PROMPT_PATH = "resources_servers/ugphysics_judge/prompts/judge.yaml";

/**
 * NeMo Skills' UGPhysicsMetrics.is_correct_judgement (as NeMo Gym's parse_judgement): the
 * `## Equivalence Judgement` header's TRUE/FALSE, else the last standalone TRUE/FALSE (any case);
 * undefined when the text is empty or has neither.
 */
export function ugphysicsVerdict(text: string | undefined): boolean | undefined {
  if (!text) return undefined;
  const header = pySearch("##\\s*Equivalence\\s*Judgement\\s*\\n\\s*(TRUE|FALSE)", text, { ignoreCase: true });
  if (header) return header[1]!.toUpperCase() === "TRUE";
  const words = pyFinditer("\\b(TRUE|FALSE)\\b", text, { ignoreCase: true });
  if (words.length > 0) return words[words.length - 1]![1]!.toUpperCase() === "TRUE";
  return undefined;
}

const Config = z.strictObject({
  ...mathJudgeConfigShape,
  use_chat_completions_for_judge: z.boolean().default(false),
  /** A prompt YAML (`user`, optional `system`) with {problem}, {solution}, {expected_answer}, {generation}. */
  judge_prompt_path: z.string().min(1).default(DEFAULT_PROMPT_PATH),
  /**
   * Gymkit's own (default false = NeMo Gym's reward): math-verify reads only the last `\boxed{…}`, the
   * final answer the prompt asks for; without one the library check is a miss and the judge decides.
   */
  strict: z.boolean().default(false),
});

/** The request fields NeMo Gym's UGPhysicsJudgeVerifyRequest declares, in its dump order. */
const REQUEST_FIELDS = ["question", "expected_answer", "solution", "subject"];

export default defineEnvironment({
  id: "ugphysics_judge",
  description: "Undergraduate physics answers checked by math-verify, then (on a miss) by the UGPhysics TRUE/FALSE judge with the reference solution.",
  configSchema: Config,
  rowFields: {
    question: z.string(),
    expected_answer: z.string(),
    solution: z.string().default(""),
    subject: z.string().nullable().default(null),
  },
  reverifyMode: "stateless",
  setup: ({ config }) => ({
    pool: mathVerifierPoolOf(config),
    prompt: loadJudgePromptConfig(config.judge_prompt_path, { key: "judge_prompt_path", bundled: BUNDLED_PROMPTS }),
  }),
  teardown: ({ pool }) => pool.close(),
  verify: async (request, ctx) => {
    const config = ctx.config;
    const generated = outputText(request.response);
    // strict: the library sees the last box alone, not numbers anywhere in the text (an echoed prompt).
    const box = config.strict ? lastBoxedContent(generated) : undefined;
    const { reward: libraryReward, extracted } =
      config.strict && box === undefined ? { reward: 0, extracted: null } : await ctx.resources.pool.verify(request.expected_answer, box === undefined ? generated : `\\boxed{${box}}`);
    const respond = (reward: number, judgeEvaluations: unknown[] | null, verdict: "TRUE" | "FALSE" | null) => {
      const own = {
        reward,
        expected_answer: request.expected_answer,
        extracted_answer: extracted,
        library_reward: libraryReward,
        judge_evaluations: judgeEvaluations,
        extracted_verdict: verdict,
        subject: request.subject,
      };
      // The response model allows extra fields: the rest of the row follows.
      return { ...own, ...rowExtras(request, own, REQUEST_FIELDS) };
    };
    if (libraryReward > 0.5) return respond(libraryReward, null, "TRUE");
    if (!config.should_use_judge) return respond(libraryReward, null, "FALSE");
    const messages = fillJudgePrompt(ctx.resources.prompt, { problem: request.question, solution: request.solution, expected_answer: request.expected_answer, generation: generated });
    const judge = JudgeClient.for(ctx, config.judge_model_server, request, { timeoutSeconds: config.judge_timeout_seconds });
    const call = await askSkillsJudge(judge, config.judge_responses_create_params, messages, config.use_chat_completions_for_judge);
    const verdict = ugphysicsVerdict(call.text);
    return respond(verdict === true ? 1.0 : 0.0, [call.evaluation], verdict === undefined ? null : verdict ? "TRUE" : "FALSE");
  },
  // judge_accuracy is the final reward of every rollout, symbolic_accuracy math-verify's; majority@k votes on the verdict.
  aggregateMetrics: (rows, ctx) =>
    mathMetrics(rows, ctx.defaults(rows), {
      scores: (row) => ({ symbolic_accuracy: numberOr0(row.library_reward), judge_accuracy: numberOr0(row.reward) }),
      answerKey: "extracted_verdict",
      subsetKey: "subject",
    }),
});

/** Python's float(r.get(key, 0.0)) for the values a verify response holds. */
function numberOr0(value: unknown): number {
  if (typeof value === "boolean") return value ? 1 : 0;
  return typeof value === "number" ? value : 0;
}
