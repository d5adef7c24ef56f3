// equivalence_llm_judge: an LLM judge decides whether the model's answer is equivalent to the expected
// one, as NeMo Gym's server does (resources_servers/equivalence_llm_judge/app.py at commit 07d6b0d).
// The candidate is the last assistant message, optionally narrowed by a regex (the config's, or the
// row's `template_metadata.output_regex`); a first "equal" may be double-checked with the two answers
// swapped, a first "not equal" under a row regex may be retried on the whole message for partial
// credit. Every judge call is recorded under `judge_evaluations` with its verdict label.
import { z } from "zod";
import { JudgeClient, limiterOf, PromptTemplate, readPromptFile, type Limiter } from "../../judge/index.js";
import { pythonStr } from "../../protocol/python_format.js";
import { ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { pyLen, pyStrip } from "../../verifiers/text/pystr.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import type { VerifyResult } from "../../environment_kit/types.js";
import { lastAssistantText, lastUserText } from "./extract.js";
import { judgeEquivalence, type EquivalenceEvaluation, type JudgeSetup } from "./judge.js";
import { PROMPTS } from "./prompts.js";

const Config = z.strictObject({
  judge_model_server: ServerRef,
  judge_responses_create_params: ResponsesCreateParams,
  /** Judge calls of this instance in flight at most; null: unbounded. */
  judge_endpoint_max_concurrency: z.number().int().positive().nullable().default(64),
  judge_system_message: z.string().nullable().default(null),
  /** Read from the working directory when the file is there, else the bundled copy (prompts.ts). */
  judge_prompt_template_fpath: z.string().default("prompt_templates/equivalence_llm_judge.txt"),
  judge_equal_label: z.string().default("[[A=B]]"),
  judge_not_equal_label: z.string().default("[[A!=B]]"),
  question_extract_regex: z.string().nullable().default(null),
  response_extract_regex: z.string().nullable().default(null),
  msg_extraction_failure: z.string().default("[NO VALID ANSWER EXTRACTED]"),
  check_twice_swap: z.boolean().default(false),
  reward_if_swap_fails: z.number().default(0.0),
  use_per_record_regex: z.boolean().default(true),
  extraction_length_threshold: z.number().int().nullable().default(120),
  check_full_generation_on_fail: z.boolean().default(true),
  reward_if_full_generation_succeeds: z.number().default(0.5),
  /** Deadline of one judge call in seconds (a Gymkit extension; NeMo Gym uses its client default). */
  judge_timeout_seconds: z.number().positive().default(600),
  /** Gymkit's: the label found last in the judge's reply decides (not the first, NeMo Gym's), so a label quoted from the answer does not. */
  strict: z.boolean().default(false),
});
type Config = z.output<typeof Config>;

interface Resources {
  limiter: Limiter | undefined;
  template: PromptTemplate;
}

/** The row's `template_metadata.output_regex` when it is set (any truthy value, as NeMo Gym tests it). */
function rowPattern(request: Record<string, unknown>): unknown {
  const metadata = request.template_metadata;
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return undefined;
  const pattern = (metadata as Record<string, unknown>).output_regex;
  return truthy(pattern) ? pattern : undefined;
}

function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === "object") return Object.keys(value).length > 0;
  return Boolean(value);
}

/** The expected answer: the row's when non-empty, else `metadata.expected_answer` as Python's str(), else "". */
function expectedOf(request: { expected_answer?: string | null; metadata?: Record<string, unknown> | null }): string {
  if (request.expected_answer) return request.expected_answer;
  const fallback = request.metadata?.expected_answer;
  return fallback === undefined || fallback === null ? "" : pythonStr(fallback);
}

const implementation = defineEnvironment({
  id: "equivalence_llm_judge",
  description: "An LLM judge compares the model's answer with the expected answer: reward 1 when it says they are equivalent.",
  configSchema: Config,
  rowFields: {
    uuid: z.union([z.string(), z.number().int()]).nullable().optional(),
    expected_answer: z.string().nullable().optional(),
    options: z.array(z.record(z.string(), z.string())).nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  },
  // NeMo Gym leaves this server's mode unknown (not reviewed for reverify), though /verify needs no session.
  reverifyMode: "unknown",
  setup: ({ config }): Resources => {
    const text = readPromptFile(config.judge_prompt_template_fpath, { key: "judge_prompt_template_fpath", bundled: PROMPTS });
    return {
      limiter: limiterOf(config.judge_endpoint_max_concurrency),
      template: new PromptTemplate(pyStrip(text), `judge_prompt_template_fpath (${config.judge_prompt_template_fpath})`),
    };
  },
  // A failed judge call throws JudgeFailure; the kit's /verify route makes it a judge_failed row.
  verify: async (request, ctx) => {
    const config: Config = ctx.config;
    const expected = expectedOf(request);
    const question = lastUserText(request.responses_create_params.input, config.question_extract_regex);
    const pattern = config.use_per_record_regex ? rowPattern(request) : undefined;
    // A row regex is skipped for long expected answers: the judge then sees the whole message, and
    // neither the swap check nor the whole-message retry runs.
    const longAnswer = pattern !== undefined && config.extraction_length_threshold !== null && pyLen(expected) > config.extraction_length_threshold;
    const extractRegex = pattern !== undefined ? (longAnswer ? null : pattern) : config.response_extract_regex;
    const output = request.response.output as unknown[];
    const generated = lastAssistantText(output, extractRegex, config.msg_extraction_failure);

    const setup: JudgeSetup = {
      client: JudgeClient.for(ctx, config.judge_model_server, request, { timeoutSeconds: config.judge_timeout_seconds, limiter: ctx.resources.limiter }),
      template: ctx.resources.template,
      params: config.judge_responses_create_params,
      systemMessage: config.judge_system_message,
      equalLabel: config.judge_equal_label,
      notEqualLabel: config.judge_not_equal_label,
      strict: config.strict,
    };
    const result = (reward: number, evaluations: EquivalenceEvaluation[]): VerifyResult => ({ reward, expected_answer: expected, judge_evaluations: evaluations });

    const first = await judgeEquivalence(setup, { question, expected_answer: expected, generated_answer: generated });
    if (!first.equal) {
      if (longAnswer) return result(0.0, [first.evaluation]);
      if (config.check_full_generation_on_fail && pattern !== undefined) {
        const whole = lastAssistantText(output, null, config.msg_extraction_failure);
        const retry = await judgeEquivalence(setup, { question, expected_answer: expected, generated_answer: whole });
        return result(retry.equal ? config.reward_if_full_generation_succeeds : 0.0, [first.evaluation, retry.evaluation]);
      }
      return result(0.0, [first.evaluation]);
    }
    if (!config.check_twice_swap || longAnswer) return result(1.0, [first.evaluation]);
    const swapped = await judgeEquivalence(setup, { question, expected_answer: generated, generated_answer: expected });
    return result(swapped.equal ? 1.0 : config.reward_if_swap_fails, [first.evaluation, swapped.evaluation]);
  },
});

export default {
  ...implementation,
  // NeMo Gym's nl2bash-equivalency.yaml sets it, but its 07d6b0d config model does not declare it and
  // drops it: the prompt comes from judge_prompt_template_fpath all the same.
  noEffectFields: {
    judge_prompt_template:
      "NeMo Gym's equivalence_llm_judge (07d6b0d) does not read it either (its config model drops undeclared fields); the judge prompt is the file judge_prompt_template_fpath names",
  },
};
