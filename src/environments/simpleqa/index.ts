// simpleqa: short-form factual QA graded by an LLM judge on SimpleQA-Verified's three grades, as NeMo
// Gym's simpleqa server does it (resources_servers/simpleqa/app.py at commit 07d6b0d). The policy's
// last assistant text goes, verbatim (no <think> handling: that is the model server's reasoning
// parser's job), into the judge prompt with the question and the gold target; the judge answers A
// (CORRECT, reward 1), B (INCORRECT) or C (NOT_ATTEMPTED). An empty judge reply is a judge failure.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { PromptTemplate, readPromptYaml } from "../../judge/index.js";
import { ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { askGrader } from "../../verifiers/graded_qa/judge.js";
import { lastAssistantText } from "../../verifiers/graded_qa/text.js";
import { simpleqaGrade, VERDICTS } from "./grade.js";
import { simpleqaMetrics } from "./metrics.js";
import { DEFAULT_JUDGE_PROMPT_PATH, PROMPTS } from "./prompts.js";

const Config = z.strictObject({
  judge_model_server: ServerRef,
  judge_responses_create_params: ResponsesCreateParams,
  /** A YAML file with the judge prompt under `user` (placeholders {question}, {expected_answer}, {generation}). */
  judge_prompt_path: z.string().min(1).default(DEFAULT_JUDGE_PROMPT_PATH),
  /** Ask the judge over /v1/chat/completions instead of /v1/responses. */
  use_chat_completions_for_judge: z.boolean().default(false),
});

const nullableText = z.string().nullable().default(null);

export default defineEnvironment({
  id: "simpleqa",
  description: "SimpleQA short-form factual QA with a 3-tier LLM judge (CORRECT / INCORRECT / NOT_ATTEMPTED): reward 1 for CORRECT.",
  configSchema: Config,
  // NeMo Gym's SimpleQARunRequest: every field optional, echoed (as null when absent), extra fields kept.
  rowFields: {
    id: z.union([z.number().int(), z.string()]).nullable().default(null),
    question: nullableText,
    expected_answer: nullableText,
  },
  verifyEchoes: "all",
  // NeMo Gym leaves simpleqa's reverify mode at the default, unknown.
  reverifyMode: "unknown",
  // The template is read once, when the instance starts (NeMo Gym reads it in model_post_init).
  setup: ({ config }) =>
    new PromptTemplate(
      readPromptYaml(config.judge_prompt_path, "user", { key: "judge_prompt_path", bundled: PROMPTS }),
      `judge_prompt_path (${config.judge_prompt_path})`,
    ),
  verify: async (request, ctx) => {
    const generation = lastAssistantText(request.response);
    const expected = request.expected_answer ?? "";
    const prompt = ctx.resources.fill({ question: request.question ?? "", expected_answer: expected, generation });
    const judgeText = await askGrader(ctx, ctx.config, request, prompt);
    const verdict = VERDICTS[simpleqaGrade(judgeText)];
    return {
      reward: verdict === "correct" ? 1.0 : 0.0,
      extracted_answer: generation,
      expected_answer: expected,
      verdict,
      judge_output: judgeText,
      is_correct: verdict === "correct" ? 1.0 : 0.0,
      is_incorrect: verdict === "incorrect" ? 1.0 : 0.0,
      is_not_attempted: verdict === "not_attempted" ? 1.0 : 0.0,
    };
  },
  aggregateMetrics: (rows, ctx) => simpleqaMetrics(rows, ctx.defaults(rows)),
});
