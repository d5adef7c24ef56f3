// inverse_if: NeMo Gym's Inverse IF instruction-following environment (07d6b0d,
// resources_servers/inverse_if/app.py). Each row brings its own rubric, judge prompt template and
// judge system prompt (the config's defaults fill in where a row has none). The judge is asked once
// per criterion, with the template filled from the prompt, the policy's answer (thinking removed),
// the reference answer and that criterion; its JSON verdict PASS/FAIL scores the criterion 1/0, and
// the scores are aggregated by `aggregation_mode` (mean by default). Every judge call is recorded in
// `rubric_evaluations`, the judge's text under `judge_response`.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { JudgeClient, judgeMessages, PromptTemplate, type JudgeMessage } from "../../judge/index.js";
import { ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { AggregationMode, aggregateScores, countPassed } from "../../verifiers/rubric/aggregate.js";
import { finalAssistantText } from "../../verifiers/rubric/response_text.js";
import { carriedRowFields, requireString, rubricItems } from "../../verifiers/rubric/verify_response.js";
import { extractVerdict } from "./verdict.js";

const Config = z.strictObject({
  name: z.string().default("inverse_if"),
  judge_model_server: ServerRef,
  judge_responses_create_params: ResponsesCreateParams,
  aggregation_mode: AggregationMode.default("mean"),
  /** Used for rows without their own template / system prompt (NeMo Gym requires both). */
  default_judge_prompt_template: z.string(),
  default_judge_system_prompt: z.string(),
  parallel_evaluation: z.boolean().default(true),
  /** Deadline of one judge call (a Gymkit extension; NeMo Gym uses its client default). */
  judge_timeout_seconds: z.number().positive().default(600),
  /**
   * Gymkit's: the JSON verdict (fenced or inline) found LAST in the judge's reply decides, not the
   * first (NeMo Gym's), so a {"result": "PASS"} the judge quotes from the answer does not. Off: NeMo Gym's reward.
   */
  strict: z.boolean().default(false),
});
type Config = z.output<typeof Config>;

/** The request fields NeMo Gym's InverseIFRunRequest declares (all optional), in its order. */
const DECLARED = ["uuid", "task_id", "prompt", "rubric", "reference_response", "judge_prompt_template", "judge_system_prompt", "metadata"] as const;
const POPPED = ["prompt", "rubric", "reference_response", "judge_prompt_template", "judge_system_prompt"] as const;
const OWN = ["prompt", "generated_response", "reference_response", "rubric_evaluations", "aggregation_mode", "num_passed", "num_total"] as const;

export interface RubricEvaluation {
  criterion_id: string;
  criteria: string;
  judge_prompt: string;
  judge_response: string;
  verdict: "PASS" | "FAIL";
  explanation: string;
  score: number;
}

interface Task {
  prompt: string;
  generated: string;
  reference: string;
  template: string;
  system: string;
}

async function evaluateCriterion(item: Record<string, unknown>, task: Task, judge: JudgeClient, config: Config): Promise<RubricEvaluation> {
  const criterionId = requireString(item.id ?? "", "rubric item `id`");
  const criteria = requireString(item.criteria ?? "", "rubric item `criteria`");
  const judgePrompt = new PromptTemplate(task.template, "inverse_if judge prompt template").fill({
    prompt: task.prompt,
    model_response: task.generated,
    standard_response: task.reference,
    criteria,
  });
  const messages: JudgeMessage[] = [];
  if (task.system) messages.push({ role: "system", content: task.system });
  messages.push({ role: "user", content: judgePrompt });
  const call = await judge.responses(judgeMessages(config.judge_responses_create_params, messages));
  const judgeText = finalAssistantText(call.response);
  const { verdict, explanation } = extractVerdict(judgeText, config.strict);
  return {
    criterion_id: criterionId,
    criteria,
    judge_prompt: judgePrompt,
    judge_response: judgeText,
    verdict,
    explanation: requireString(explanation, "the judge's `explanation`"),
    score: verdict === "PASS" ? 1.0 : 0.0,
  };
}

const optionalString = z.string().nullish();

export default defineEnvironment({
  id: "inverse_if",
  description: "Inverse IF instruction following: an LLM judge checks each rubric criterion with the row's own judge prompt (PASS/FAIL); the reward aggregates them (mean by default).",
  configSchema: Config,
  rowFields: {
    uuid: z.union([z.string(), z.number().int()]).nullish(),
    task_id: z.number().int().nullish(),
    prompt: optionalString,
    rubric: z.array(z.record(z.string(), z.unknown())).nullish(),
    reference_response: optionalString,
    judge_prompt_template: optionalString,
    judge_system_prompt: optionalString,
    metadata: z.record(z.string(), z.unknown()).nullish(),
  },
  // NeMo Gym leaves this server at ReverifyMode.UNKNOWN, though /verify needs no session.
  reverifyMode: "unknown",
  verify: async (request, ctx) => {
    const config = ctx.config;
    const carried = carriedRowFields(request, DECLARED, POPPED, OWN);
    const generated = finalAssistantText(request.response);
    let prompt: unknown = request.prompt || "";
    let reference: unknown = request.reference_response || "";
    let rubric: Array<Record<string, unknown>> = request.rubric ?? [];
    const metadata = request.metadata;
    if (metadata && Object.keys(metadata).length > 0) {
      if (!prompt) prompt = "prompt" in metadata ? metadata.prompt : "";
      if (!reference) reference = "reference_response" in metadata ? metadata.reference_response : "";
      if (rubric.length === 0) rubric = rubricItems("rubric" in metadata ? metadata.rubric : [], "metadata.rubric");
    }
    const task: Task = {
      prompt: requireString(prompt, "prompt"),
      generated,
      reference: requireString(reference, "reference_response"),
      template: request.judge_prompt_template || config.default_judge_prompt_template,
      system: request.judge_system_prompt || config.default_judge_system_prompt,
    };
    // Asked only when there is a criterion to judge (no criteria: reward 0 without a judge).
    const judge = rubric.length > 0 ? JudgeClient.for(ctx, config.judge_model_server, request, { timeoutSeconds: config.judge_timeout_seconds }) : undefined;
    let evaluations: RubricEvaluation[];
    if (config.parallel_evaluation && rubric.length > 1) {
      evaluations = await Promise.all(rubric.map((item) => evaluateCriterion(item, task, judge!, config)));
    } else {
      evaluations = [];
      for (const item of rubric) evaluations.push(await evaluateCriterion(item, task, judge!, config));
    }
    const scores = evaluations.map((e) => e.score);
    return {
      // inverse_if's criteria carry no weights: "weighted" is the mean.
      reward: aggregateScores(scores, config.aggregation_mode),
      prompt: task.prompt,
      generated_response: generated,
      reference_response: task.reference,
      rubric_evaluations: evaluations,
      aggregation_mode: config.aggregation_mode,
      num_passed: countPassed(scores),
      num_total: evaluations.length,
      ...carried,
    };
  },
});
