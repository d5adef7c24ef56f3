// omniscience: factual knowledge graded by an LLM judge on AA-Omniscience's four grades, as NeMo Gym's
// omniscience server does it (resources_servers/omniscience/app.py at commit 07d6b0d). The policy's
// answer (answer.ts: reasoning removed; cut-off reasoning leaves "") goes into the judge prompt with
// the question and gold answer; the judge answers A (CORRECT, reward 1), B (INCORRECT: a
// hallucination, omniscience index −1), C (PARTIAL_ANSWER) or D (NOT_ATTEMPTED). An unreadable reply
// is B; an empty one is a judge failure.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { PromptTemplate, readPromptYaml } from "../../judge/index.js";
import { ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { exactLetterGrade } from "../../verifiers/graded_qa/grades.js";
import { askGrader } from "../../verifiers/graded_qa/judge.js";
import { omniscienceAnswer } from "./answer.js";
import { omniscienceMetrics } from "./metrics.js";
import { DEFAULT_JUDGE_PROMPT_PATH, PROMPTS } from "./prompts.js";

const Config = z.strictObject({
  judge_model_server: ServerRef,
  judge_responses_create_params: ResponsesCreateParams,
  /** A YAML file with the judge prompt under `user` (placeholders {question}, {expected_answer}, {generation}). */
  judge_prompt_path: z.string().min(1).default(DEFAULT_JUDGE_PROMPT_PATH),
  /** Ask the judge over /v1/chat/completions instead of /v1/responses. */
  use_chat_completions_for_judge: z.boolean().default(false),
});

const GRADES = ["A", "B", "C", "D"] as const;
const VERDICTS = { A: "correct", B: "incorrect", C: "partial", D: "not_attempted" } as const;
const nullableText = z.string().nullable().default(null);

export default defineEnvironment({
  id: "omniscience",
  description: "Omniscience factual knowledge QA with a 4-tier LLM judge (CORRECT / INCORRECT / PARTIAL_ANSWER / NOT_ATTEMPTED): reward 1 for CORRECT.",
  configSchema: Config,
  // NeMo Gym's OmniscienceRunRequest: every field optional, echoed (as null when absent), extra fields kept.
  rowFields: {
    id: z.union([z.number().int(), z.string()]).nullable().default(null),
    domain: nullableText,
    topic: nullableText,
    question: nullableText,
    expected_answer: nullableText,
  },
  verifyEchoes: "all",
  // NeMo Gym leaves omniscience's reverify mode at the default, unknown.
  reverifyMode: "unknown",
  setup: ({ config }) =>
    new PromptTemplate(
      readPromptYaml(config.judge_prompt_path, "user", { key: "judge_prompt_path", bundled: PROMPTS }),
      `judge_prompt_path (${config.judge_prompt_path})`,
    ),
  verify: async (request, ctx) => {
    const generation = omniscienceAnswer(request.response);
    const expected = request.expected_answer ?? "";
    const prompt = ctx.resources.fill({ question: request.question ?? "", expected_answer: expected, generation });
    // A Responses judge's own <think> blocks are removed before its grade is read.
    const judgeText = await askGrader(ctx, ctx.config, request, prompt, { stripJudgeThinking: true });
    const verdict = VERDICTS[exactLetterGrade(judgeText, GRADES, "B")];
    const isCorrect = verdict === "correct" ? 1.0 : 0.0;
    const isIncorrect = verdict === "incorrect" ? 1.0 : 0.0;
    return {
      reward: isCorrect,
      extracted_answer: generation,
      expected_answer: expected,
      verdict,
      judge_output: judgeText,
      is_correct: isCorrect,
      is_incorrect: isIncorrect,
      is_partial: verdict === "partial" ? 1.0 : 0.0,
      is_not_attempted: verdict === "not_attempted" ? 1.0 : 0.0,
      omniscience_index: isCorrect - isIncorrect,
      is_hallucination: isIncorrect,
    };
  },
  aggregateMetrics: (rows, ctx) => omniscienceMetrics(rows, ctx.defaults(rows)),
});
