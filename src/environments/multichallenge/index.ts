// multichallenge: NeMo Gym's MultiChallenge multi-turn environment (07d6b0d,
// resources_servers/multichallenge/app.py). Each row holds a conversation and a rubric of yes/no
// questions about the final assistant turn, each with the answer that passes (`pass_criteria`). The
// judge is asked once per question with the config's template (context, the policy's final answer
// with thinking removed, the question, the expected answer); the last [[YES]]/[[NO]] label of its
// reply is the verdict, and the item scores 1 when the verdict is the expected answer ("NO" expects
// NO; anything else expects YES). Scores aggregate by `aggregation_mode` (mean by default; weighted
// uses each item's `weight`). Every judge call is recorded in `rubric_evaluations`, the judge's text
// under `judge_response`.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { JudgeClient, judgeMessages, PromptTemplate, type JudgeMessage } from "../../judge/index.js";
import { ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { AggregationMode, aggregateScores, countPassed } from "../../verifiers/rubric/aggregate.js";
import { finalAssistantText } from "../../verifiers/rubric/response_text.js";
import { carriedRowFields, requireString, rubricItems } from "../../verifiers/rubric/verify_response.js";
import { contextFromMessages } from "./context.js";
import { DEFAULT_JUDGE_PROMPT_TEMPLATE, DEFAULT_JUDGE_SYSTEM_MESSAGE } from "./prompts.js";
import { extractVerdict } from "./verdict.js";

const Config = z.strictObject({
  name: z.string().default("multichallenge"),
  judge_model_server: ServerRef,
  judge_responses_create_params: ResponsesCreateParams,
  aggregation_mode: AggregationMode.default("mean"),
  judge_prompt_template: z.string().default(DEFAULT_JUDGE_PROMPT_TEMPLATE),
  /** No system message when null or empty. */
  judge_system_message: z.string().nullable().default(DEFAULT_JUDGE_SYSTEM_MESSAGE),
  parallel_evaluation: z.boolean().default(true),
  yes_label: z.string().default("[[YES]]"),
  no_label: z.string().default("[[NO]]"),
  /** Deadline of one judge call (a Gymkit extension; NeMo Gym uses its client default). */
  judge_timeout_seconds: z.number().positive().default(600),
});
type Config = z.output<typeof Config>;

/** The request fields NeMo Gym's MultiChallengeRunRequest declares (all optional), in its order. */
const DECLARED = ["uuid", "task_id", "rubric", "context", "metadata"] as const;
const POPPED = ["context", "rubric"] as const;
const OWN = ["context", "generated_response", "rubric_evaluations", "aggregation_mode", "num_passed", "num_total"] as const;

export interface RubricEvaluation {
  question: string;
  pass_criteria: string;
  judge_prompt: string;
  judge_response: string;
  verdict: "YES" | "NO";
  score: number;
  weight: number;
}

/** A rubric item's weight as NeMo Gym's float field takes it (a number, or a string that reads as one). */
function weightOf(item: Record<string, unknown>): number {
  const value = "weight" in item ? item.weight : 1.0;
  if (typeof value === "number") return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  throw new TypeError(`rubric item \`weight\` must be a number, got ${JSON.stringify(value)}`);
}

async function evaluateItem(item: Record<string, unknown>, context: string, response: string, template: PromptTemplate, judge: JudgeClient, config: Config): Promise<RubricEvaluation> {
  const question = "question" in item ? item.question : "";
  const passCriteria = "pass_criteria" in item ? item.pass_criteria : "YES";
  const weight = weightOf(item);
  const judgePrompt = template.fill({ context, response, question, pass_criteria: passCriteria });
  const messages: JudgeMessage[] = [];
  if (config.judge_system_message) messages.push({ role: "system", content: config.judge_system_message });
  messages.push({ role: "user", content: judgePrompt });
  const call = await judge.responses(judgeMessages(config.judge_responses_create_params, messages));
  const judgeText = finalAssistantText(call.response);
  const verdict = extractVerdict(judgeText, config.yes_label, config.no_label);
  const expected = requireString(passCriteria, "rubric item `pass_criteria`").toUpperCase();
  // "NO" expects a NO verdict; YES and anything else expect YES.
  const score = (expected === "NO" ? verdict === "NO" : verdict === "YES") ? 1.0 : 0.0;
  return {
    question: requireString(question, "rubric item `question`"),
    pass_criteria: passCriteria as string,
    judge_prompt: judgePrompt,
    judge_response: judgeText,
    verdict,
    score,
    weight,
  };
}

export default defineEnvironment({
  id: "multichallenge",
  description: "MultiChallenge multi-turn conversations: an LLM judge answers each rubric question YES/NO about the final reply; the reward aggregates the items that match their expected answer (mean by default).",
  configSchema: Config,
  rowFields: {
    uuid: z.union([z.string(), z.number().int()]).nullish(),
    task_id: z.number().int().nullish(),
    rubric: z.array(z.record(z.string(), z.unknown())).nullish(),
    context: z.string().nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
  },
  // NeMo Gym leaves this server at ReverifyMode.UNKNOWN, though /verify needs no session.
  reverifyMode: "unknown",
  verify: async (request, ctx) => {
    const config = ctx.config;
    const generated = finalAssistantText(request.response);
    const metadata = request.metadata && Object.keys(request.metadata).length > 0 ? request.metadata : undefined;
    let context = request.context || "";
    if (!context && metadata && "messages" in metadata) context = contextFromMessages(metadata.messages);
    let rubric: Array<Record<string, unknown>> = request.rubric ?? [];
    if (rubric.length === 0 && metadata && "rubric" in metadata) rubric = rubricItems(metadata.rubric, "metadata.rubric");
    const carried = carriedRowFields(request, DECLARED, POPPED, OWN);
    const template = new PromptTemplate(config.judge_prompt_template, "multichallenge `judge_prompt_template`");
    // Asked only when there is an item to judge (no items: reward 0 without a judge).
    const judge = rubric.length > 0 ? JudgeClient.for(ctx, config.judge_model_server, request, { timeoutSeconds: config.judge_timeout_seconds }) : undefined;
    const evaluate = (item: Record<string, unknown>) => evaluateItem(item, context, generated, template, judge!, config);
    let evaluations: RubricEvaluation[];
    if (config.parallel_evaluation && rubric.length > 1) {
      evaluations = await Promise.all(rubric.map(evaluate));
    } else {
      evaluations = [];
      for (const item of rubric) evaluations.push(await evaluate(item));
    }
    const scores = evaluations.map((e) => e.score);
    return {
      reward: aggregateScores(scores, config.aggregation_mode, evaluations.map((e) => e.weight)),
      context,
      generated_response: generated,
      rubric_evaluations: evaluations,
      aggregation_mode: config.aggregation_mode,
      num_passed: countPassed(scores),
      num_total: evaluations.length,
      ...carried,
    };
  },
});
