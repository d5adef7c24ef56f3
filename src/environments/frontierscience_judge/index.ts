// frontierscience_judge: one judge call per rollout (NVIDIA-NeMo/Gym 07d6b0d,
// resources_servers/frontierscience_judge/app.py). In `olympiad` mode the judge compares the model's
// answer with the reference answer and the reward is 1 for a final `Judgement: YES`; in `research`
// mode it grades against a rubric and the reward is 1 for a score at or above the threshold. The
// judge's text is recorded as `judge_output`. Metrics: pass@k / majority@k on the answer, per subject.
import { z } from "zod";
import { ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { JudgeClient, PromptTemplate, readPromptYaml } from "../../judge/index.js";
import { mathMetrics } from "../../verifiers/math/metrics.js";
import { rowExtras } from "../../verifiers/math/skills_judge.js";
import { pyStrip } from "../../verifiers/text/pystr.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { assistantText, parseJudgement, parseRubricScore } from "./parse.js";
import { BUNDLED_PROMPTS } from "./prompts.js";

export const DEFAULT_PROMPT_PATH = "prompts/judge.yaml";

const Config = z.strictObject({
  judge_model_server: ServerRef,
  judge_responses_create_params: ResponsesCreateParams,
  /** olympiad: Judgement YES/NO decides; research: a rubric score at or above the threshold does. */
  judge_mode: z.enum(["olympiad", "research"]).default("olympiad"),
  rubric_pass_score_threshold: z.number().default(7.0),
  rubric_max_score: z.number().default(10.0),
  /** A YAML file with the prompt under `user`; placeholders {question}, {expected_answer}, {rubric}, {generation}. */
  judge_prompt_path: z.string().min(1).default(DEFAULT_PROMPT_PATH),
  use_chat_completions_for_judge: z.boolean().default(false),
  /** Deadline of one judge call, in seconds (a Gymkit extension; NeMo Gym uses its client default). */
  judge_timeout_seconds: z.number().positive().default(600),
});
type Config = z.output<typeof Config>;

/** The request fields NeMo Gym's FrontierScienceJudgeVerifyRequest declares, in its dump order. */
const REQUEST_FIELDS = ["id", "subject", "question", "rubric"];

/** The judge's text: Chat Completions content stripped, or the Response's last assistant text without thinking. */
async function askJudge(judge: JudgeClient, config: Config, prompt: string): Promise<string> {
  const template = config.judge_responses_create_params;
  if (config.use_chat_completions_for_judge) {
    const body: Record<string, unknown> = { messages: [{ role: "user", content: prompt }], max_tokens: template.max_output_tokens || 2048 };
    // Sampling settings come from the template; olympiad mode pins them to greedy when it has none.
    if (template.temperature !== undefined && template.temperature !== null) body.temperature = template.temperature;
    else if (config.judge_mode === "olympiad") body.temperature = 0.0;
    if (template.top_p !== undefined && template.top_p !== null) body.top_p = template.top_p;
    else if (config.judge_mode === "olympiad") body.top_p = 1.0;
    const call = await judge.chat(body);
    return call.text ? pyStrip(call.text) : "";
  }
  const params = structuredClone(template);
  params.input = [{ type: "message", role: "user", content: prompt }] as ResponsesCreateParams["input"];
  const call = await judge.responses(params);
  return assistantText(call.response);
}

export default defineEnvironment({
  id: "frontierscience_judge",
  description: "FrontierScience answers graded by one LLM judge call: Judgement YES/NO (olympiad) or a rubric score (research).",
  configSchema: Config,
  rowFields: {
    id: z.union([z.number(), z.string()]).nullable().default(null),
    subject: z.string().nullable().default(null),
    question: z.string().nullable().default(null),
    expected_answer: z.string().nullable().default(null),
    rubric: z.string().nullable().default(null),
  },
  reverifyMode: "stateless",
  setup: ({ config }) => ({
    prompt: new PromptTemplate(readPromptYaml(config.judge_prompt_path, "user", { key: "judge_prompt_path", bundled: BUNDLED_PROMPTS }), `judge_prompt_path (${config.judge_prompt_path})`),
  }),
  verify: async (request, ctx) => {
    const config = ctx.config;
    // A reasoning trace opened but never closed was cut off mid-thought: no answer.
    const raw = assistantText(request.response, true);
    let generation = assistantText(request.response);
    const opened = raw.includes("<think>") || raw.includes("<thinking>");
    const closed = raw.includes("</think>") || raw.includes("</thinking>");
    if (opened && !closed) generation = "";
    const question = request.question || "";
    const expected = request.expected_answer || "";
    const rubric = request.rubric || expected;
    const prompt = ctx.resources.prompt.fill({ question, expected_answer: expected, rubric, generation });

    const judge = JudgeClient.for(ctx, config.judge_model_server, request, { timeoutSeconds: config.judge_timeout_seconds });
    const judgeText = await askJudge(judge, config, prompt);

    let verdict: string | null = parseJudgement(judgeText) ?? null;
    let rubricScore: number | null = null;
    let rubricScoreNormalized: number | null = null;
    let invalid = false;
    let reward: number;
    if (config.judge_mode === "research") {
      rubricScore = parseRubricScore(judgeText, config.rubric_max_score) ?? null;
      if (rubricScore === null) {
        invalid = true;
        reward = verdict === "YES" ? 1.0 : 0.0;
      } else {
        rubricScoreNormalized = Math.max(0.0, Math.min(rubricScore, config.rubric_max_score)) / config.rubric_max_score;
        reward = rubricScore >= config.rubric_pass_score_threshold ? 1.0 : 0.0;
        if (verdict === null) verdict = reward ? "YES" : "NO";
      }
    } else {
      reward = verdict === "YES" ? 1.0 : 0.0;
    }
    const own = {
      reward,
      extracted_answer: generation ? generation : null,
      expected_answer: expected,
      verdict,
      judge_output: judgeText,
      rubric_score: rubricScore,
      rubric_score_normalized: rubricScoreNormalized,
      invalid_judge_response: invalid,
    };
    // The response model allows extra fields: the rest of the row follows (a row's own extracted_answer is dropped).
    const { extracted_answer: _dropped, ...row } = request as Record<string, unknown>;
    return { ...own, ...rowExtras(row, own, REQUEST_FIELDS) };
  },
  aggregateMetrics: (rows, ctx) =>
    mathMetrics(rows, ctx.defaults(rows), {
      scores: (row) => {
        const scores: Record<string, number> = { accuracy: typeof row.reward === "number" ? row.reward : 0 };
        if (typeof row.rubric_score_normalized === "number") scores.rubric_score = row.rubric_score_normalized;
        return scores;
      },
      answerKey: "extracted_answer",
      subsetKey: "subject",
    }),
});
