// `judge_replay_model`: plays a judge from the judge answers a rollouts file recorded, so a run (or
// NeMo Gym's own `example_rollouts.jsonl`) can be re-scored without the judge engine. Each rollout's
// answers are read, in call order, from the keys its environment writes them under
// (`judge_evaluations`, `judge_output`, `judgement_gen_base`/`judgement_base_gen`,
// `rubric_evaluations`, ...), and the judge kit's headers pick one: the rollout (`x-gymkit-rollout`)
// and the call's ordinal within that rollout's verification (`x-gymkit-judge-call`). Where the file
// recorded the judge's request too (`judge_evaluations`), the request is checked against it, so a
// changed prompt shows up as a mismatch instead of a silently reused verdict.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { HttpError } from "../http/errors.js";
import type { ServerImplementation } from "../http/implementation.js";
import { asHttpApp } from "../http/server.js";
import { ResponseObject, type ResponsesCreateParams, type RolloutRef } from "../protocol/index.js";
import type { ModelAdapter, ModelRequestContext } from "./adapter.js";
import { allJudgeText } from "../judge/text.js";
import { firstDifference } from "./first_difference.js";
import { canonicalRequest } from "./replay_key.js";
import { asNemoGymCreateParams } from "../protocol/nemo_gym_models.js";
import { buildResponse, newId, textChatCompletion } from "./response_object.js";
import { describeRollout } from "./rollout_header.js";
import { buildModelServer } from "./server.js";
import { emptyUsage } from "../protocol/index.js";

export const JudgeReplayModelConfig = z.strictObject({
  /** A rollouts JSONL (Gymkit's or NeMo Gym's); relative paths resolve against the working directory. */
  rollouts_path: z.string().min(1),
  /** The keys holding the judge's answers, read in this order to give each rollout's calls in order. */
  judge_keys: z.array(z.string().min(1)).min(1).default(["judge_evaluations"]),
  /** For a key holding a list of objects without a `response` (e.g. `rubric_evaluations`): the field with the judge's text. */
  text_field: z.string().min(1).nullable().default(null),
  /** Refuse a call whose request differs from the recorded one (where one was recorded). */
  check_requests: z.boolean().default(true),
});
export type JudgeReplayModelConfig = z.output<typeof JudgeReplayModelConfig>;

const ID = "judge_replay_model";

/** One recorded answer: the judge's whole Response (and the request) when recorded, else its text. */
export type RecordedAnswer = { response: ResponseObject; request?: ResponsesCreateParams } | { text: string };

const pairKey = (task: number, rollout: number) => `${task}:${rollout}`;

/**
 * A judge request as it is compared with a recorded one. NeMo Gym's files dump every field of its
 * create-params model, unset ones as their defaults (`parallel_tool_calls: true`, `tool_choice:
 * "auto"`, `tools: []` at 07d6b0d), while a request sent leaves them out: both sides get NeMo Gym's
 * defaults filled in, an empty tool list counts as none, then the replay key's canonical form.
 */
export function comparableRequest(params: ResponsesCreateParams): unknown {
  const filled = asNemoGymCreateParams(params) as Record<string, unknown>;
  if (Array.isArray(filled.tools) && filled.tools.length === 0) filled.tools = null;
  return canonicalRequest(filled as ResponsesCreateParams);
}

/** The recorded answers of one rollout line, in call order. */
export function recordedAnswers(line: Record<string, unknown>, keys: readonly string[], textField: string | null): RecordedAnswer[] {
  const answers: RecordedAnswer[] = [];
  const take = (value: unknown) => {
    if (typeof value === "string") {
      answers.push({ text: value });
    } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const item = value as Record<string, unknown>;
      const response = ResponseObject.safeParse(item.response);
      if (response.success) answers.push({ response: response.data, ...(item.responses_create_params ? { request: item.responses_create_params as ResponsesCreateParams } : {}) });
      else if (textField && typeof item[textField] === "string") answers.push({ text: item[textField] as string });
    }
  };
  for (const key of keys) {
    const value = line[key];
    if (Array.isArray(value)) value.forEach(take);
    else take(value);
  }
  return answers;
}

/** Every line's answers by (task, rollout); a line without indices is task = its 0-based line number, rollout 0 (as `gym eval reverify` numbers it). */
export function indexRecordedAnswers(path: string, keys: readonly string[], textField: string | null): Map<string, RecordedAnswer[]> {
  const index = new Map<string, RecordedAnswer[]>();
  const lines = readFileSync(path, "utf8").split("\n");
  lines.forEach((text, i) => {
    if (text.trim() === "") return;
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      throw new Error(`${path}:${i + 1}: not valid JSON: ${(error as Error).message}`, { cause: error });
    }
    const task = typeof line._ng_task_index === "number" ? line._ng_task_index : i;
    const rollout = typeof line._ng_rollout_index === "number" ? line._ng_rollout_index : 0;
    index.set(pairKey(task, rollout), recordedAnswers(line, keys, textField));
  });
  return index;
}

export function judgeReplayAdapter(config: JudgeReplayModelConfig): ModelAdapter {
  const index = indexRecordedAnswers(config.rollouts_path, config.judge_keys, config.text_field);

  const answerFor = (context: ModelRequestContext): RecordedAnswer => {
    const rollout: RolloutRef | null = context.rollout;
    if (!rollout) throw new HttpError(400, `${ID}: a judge call without the x-gymkit-rollout header cannot be matched to a recorded rollout`);
    const ordinal = context.judgeCall ?? 0;
    const answers = index.get(pairKey(rollout.task_index, rollout.rollout_index));
    if (!answers) throw new HttpError(404, `${ID}: ${config.rollouts_path} has no rollout for ${describeRollout(rollout)}`);
    const answer = answers[ordinal];
    if (!answer) {
      throw new HttpError(404, `${ID}: ${describeRollout(rollout)} recorded ${answers.length} judge answer(s) under ${config.judge_keys.join(", ")}; call ${ordinal} has none`);
    }
    return answer;
  };

  const textOf = (answer: RecordedAnswer): string => ("text" in answer ? answer.text : allJudgeText(answer.response));

  return {
    models: () => [ID],
    requestFields: "replay_model",

    async createResponse(params, context) {
      const answer = answerFor(context);
      if ("response" in answer) {
        if (config.check_requests && answer.request) {
          const difference = firstDifference(comparableRequest(params), comparableRequest(answer.request));
          if (difference !== undefined) {
            throw new HttpError(409, `${ID}: the judge request of ${describeRollout(context.rollout)} call ${context.judgeCall ?? 0} differs from the recorded one at ${difference}`);
          }
        }
        return answer.response;
      }
      const message = { type: "message", id: newId("msg"), role: "assistant", status: "completed", content: [{ type: "output_text", text: answer.text, annotations: [] }] };
      return buildResponse(params, { model: ID, output: [message] as ResponseObject["output"], usage: emptyUsage() });
    },

    async chatCompletions(_body, context) {
      return textChatCompletion(ID, textOf(answerFor(context)));
    },
  };
}

const implementation: ServerImplementation<JudgeReplayModelConfig> = {
  type: "responses_api_models",
  id: ID,
  configSchema: JudgeReplayModelConfig,
  async build({ name, config }) {
    return asHttpApp(buildModelServer({ name, id: ID, adapter: judgeReplayAdapter(config) }));
  },
};

export default implementation;
