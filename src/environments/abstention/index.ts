// abstention: reward for abstaining when unsure rather than hallucinating, as NeMo Gym's abstention
// server does it (resources_servers/abstention/app.py at commit 07d6b0d). The policy answers in
// \boxed{…} and boxes the abstention token ([IDK]) when unsure. An answer that normalises to the
// token abstains without asking the judge; any other is graded by an LLM judge: A (CORRECT) →
// correct_reward, C (NOT_ATTEMPTED, an implicit abstention) → abstention_reward, B or anything
// unreadable → incorrect_reward. An empty judge reply is a judge failure.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { PromptTemplate } from "../../judge/index.js";
import { ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { exactLetterGrade } from "../../verifiers/graded_qa/grades.js";
import { askGrader } from "../../verifiers/graded_qa/judge.js";
import { abstentionAnswer, normalizeAnswer } from "./answer.js";
import { DEFAULT_JUDGE_PROMPT_TEMPLATE } from "./prompts.js";

const Config = z.strictObject({
  judge_model_server: ServerRef,
  judge_responses_create_params: ResponsesCreateParams,
  /** The judge prompt itself (placeholders {question}, {target}, {predicted_answer}). */
  judge_prompt_template: z.string().default(DEFAULT_JUDGE_PROMPT_TEMPLATE),
  /** Reward for abstaining (lambda; meant to lie between incorrect_reward and correct_reward). */
  abstention_reward: z.number().default(0.5),
  /** What the policy boxes to abstain, compared after normalisation. */
  abstention_token: z.string().default("[IDK]"),
  correct_reward: z.number().default(1.0),
  incorrect_reward: z.number().default(0.0),
});

const GRADES = ["A", "B", "C"] as const;
const nullableText = z.string().nullable().default(null);

export default defineEnvironment({
  id: "abstention",
  description: "Train models to abstain when unsure: three-tier reward (correct > abstain > incorrect) with an LLM judge.",
  configSchema: Config,
  // NeMo Gym's AbstentionRunRequest: every field optional, echoed (as null when absent), extra fields kept.
  rowFields: {
    id: z.union([z.number().int(), z.string()]).nullable().default(null),
    question: nullableText,
    answer: nullableText,
  },
  verifyEchoes: "all",
  // NeMo Gym leaves abstention's reverify mode at the default, unknown.
  reverifyMode: "unknown",
  setup: ({ config }) => ({
    template: new PromptTemplate(config.judge_prompt_template, "judge_prompt_template"),
    abstentionToken: normalizeAnswer(config.abstention_token),
  }),
  verify: async (request, ctx) => {
    const config = ctx.config;
    const extracted = abstentionAnswer(request.response);
    const groundTruth = request.answer ?? "";
    let verdict: "correct" | "abstain" | "incorrect";
    let reward: number;
    let judgeText: string | null = null;
    if (normalizeAnswer(extracted) === ctx.resources.abstentionToken) {
      verdict = "abstain";
      reward = config.abstention_reward;
    } else {
      const prompt = ctx.resources.template.fill({ question: request.question ?? "", target: groundTruth, predicted_answer: extracted });
      // The judge's own <think> blocks are removed before its grade is read.
      judgeText = await askGrader(ctx, config, request, prompt, { stripJudgeThinking: true });
      const grade = exactLetterGrade(judgeText, GRADES, "B");
      verdict = grade === "A" ? "correct" : grade === "C" ? "abstain" : "incorrect";
      reward = grade === "A" ? config.correct_reward : grade === "C" ? config.abstention_reward : config.incorrect_reward;
    }
    const isCorrect = verdict === "correct" ? 1.0 : 0.0;
    const isIncorrect = verdict === "incorrect" ? 1.0 : 0.0;
    return {
      reward,
      extracted_answer: extracted,
      ground_truth: groundTruth,
      verdict,
      judge_output: judgeText,
      is_correct: isCorrect,
      is_abstain: verdict === "abstain" ? 1.0 : 0.0,
      is_incorrect: isIncorrect,
      omniscience_index: isCorrect - isIncorrect,
    };
  },
});
