// genrm_compare: NeMo Gym's pairwise GenRM reward (resources_servers/genrm_compare, matched at 07d6b0d).
// The N rollouts of one prompt form a cohort; a generative reward model (the `genrm_model_server`,
// usually a genrm_model in front of an engine) compares pairs of their final answers, and each
// rollout's reward is the mean of the scores it received (ties broken by the ranking), optionally
// adjusted for length and formatting. Rewards are relative within the cohort: a rollout's /verify
// returns only when all N of its cohort have been verified. See cohort.ts for where Gymkit differs.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { JudgeClient } from "../../judge/index.js";
import { ResponsesCreateParams, ServerRef } from "../../protocol/index.js";
import { COMPARISON_STRATEGIES } from "./aggregate.js";
import { Cohort } from "./cohort.js";
import { cohortKey, conversationOf, promptKey } from "./conversation.js";

/** NeMo Gym's default principle (app.py), sent when use_principle is on and the row gives none. */
export const DEFAULT_PRINCIPLE =
  "Please act as an impartial judge and evaluate the quality of the responses provided by two AI assistants " +
  "to the user prompt. Begin your evaluation by generating your own answer to the prompt. You must provide " +
  "your answer before judging any answers. When evaluating the assistants' answers, compare both assistants' " +
  "answers with your answer. You must identify and correct any mistakes or inaccurate information. Then " +
  "consider if the assistant's answers are helpful, relevant, and concise. Helpful means the answer correctly " +
  "responds to the prompt or follows the instructions. Note when user prompt has any ambiguity or more than " +
  "one interpretation, it is more helpful and appropriate to ask for clarifications or more information from " +
  "the user than providing an answer based on assumptions. Relevant means all parts of the response closely " +
  "connect or are appropriate to what is being asked. Concise means the response is clear and not verbose or " +
  "excessive. Then consider the creativity and novelty of the assistant's answers when needed. Finally, " +
  "identify any missing important information in the assistants' answers that would be beneficial to include " +
  "when responding to the user prompt.";

const Config = z.strictObject({
  genrm_model_server: ServerRef,
  genrm_responses_create_params: ResponsesCreateParams,
  /** Rollouts per prompt compared together; ≤ 1 gives every rollout default_score without asking the GenRM. */
  num_rollouts_per_prompt: z.number().int().default(1),
  comparison_strategy: z.enum(COMPARISON_STRATEGIES).default("circular"),
  num_judges_per_comparison: z.number().int().default(1),
  use_principle: z.boolean().default(false),
  default_principle: z.string().default(DEFAULT_PRINCIPLE),
  aggregator_method: z.literal("simple_tiebreaker").default("simple_tiebreaker"),
  reasoning_bonus: z.number().default(0.0),
  answer_bonus: z.number().default(0.0),
  top_percentile: z.number().default(0.2),
  group_reasoning_length_penalty_coeff: z.number().default(0.0),
  group_answer_length_penalty_coeff: z.number().default(0.0),
  group_style_penalty_coeff: z.number().default(0.0),
  default_score: z.number().default(3.0),
  default_ranking: z.number().default(3.5),
  /** NeMo Gym logs more with it; Gymkit accepts it and logs nothing extra. */
  debug_logging: z.boolean().default(false),
  genrm_parse_retries: z.number().int().default(3),
  genrm_parse_retry_sleep_s: z.number().default(0.2),
  /** Deadline of one GenRM call in seconds (a Gymkit extension; NeMo Gym's client has none shorter). */
  genrm_timeout_seconds: z.number().positive().default(600),
  /**
   * Gymkit extension, default off (NeMo Gym's verify response is only the request, response and
   * reward): also return every GenRM call made on a rollout's behalf as `genrm_evaluations`, so the
   * run can be re-scored from its file with the calls replayed (judge_replay_model).
   */
  record_comparisons: z.boolean().default(false),
  /**
   * Gymkit's: read the GenRM's last ```json verdict rather than its first (NeMo Gym's), so a verdict
   * planted in a response the GenRM quotes before giving its own is not taken (audit probe judge.own_verdict).
   */
  strict: z.boolean().default(false),
});
type Config = z.output<typeof Config>;

/** Open cohorts of one instance, by cohort key. */
type Cohorts = Map<string, Cohort>;

const index = (value: unknown): number | undefined => (typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined);

export default defineEnvironment({
  id: "genrm_compare",
  description: "Rewards relative to the other rollouts of the same prompt, from pairwise comparisons by a generative reward model (NeMo Gym's genrm_compare).",
  configSchema: Config,
  rowFields: {
    principle: z.string().nullish(),
    prompt_id: z.string().nullish(),
  },
  setup: (): Cohorts => new Map(),
  verify: async (request, ctx) => {
    const config: Config = ctx.config;
    const n = config.num_rollouts_per_prompt;
    if (n <= 1) return { reward: config.default_score };

    const input = request.responses_create_params.input;
    const task = index(request._ng_task_index);
    const rollout = index(request._ng_rollout_index);
    const base = cohortKey(task, request.prompt_id, promptKey(input, request.principle));
    // With both indices the rollout index places the rollout (see cohort.ts); else arrival order does.
    const placed = task !== undefined && rollout !== undefined;
    const key = placed ? `${base}::cohort::${Math.floor(rollout / n)}` : base;

    let cohort = ctx.resources.get(key);
    if (!cohort) {
      const principle = config.use_principle ? request.principle || config.default_principle : undefined;
      cohort = new Cohort(
        {
          size: n,
          strategy: config.comparison_strategy,
          judgesPerComparison: config.num_judges_per_comparison,
          template: config.genrm_responses_create_params,
          principle,
          defaultScore: config.default_score,
          defaultRanking: config.default_ranking,
          parseRetries: config.genrm_parse_retries,
          strictVerdict: config.strict,
          parseRetrySleepMs: config.genrm_parse_retry_sleep_s * 1000,
          adjustments: {
            defaultScore: config.default_score,
            reasoningBonus: config.reasoning_bonus,
            answerBonus: config.answer_bonus,
            topPercentile: config.top_percentile,
            reasoningLengthPenaltyCoeff: config.group_reasoning_length_penalty_coeff,
            answerLengthPenaltyCoeff: config.group_answer_length_penalty_coeff,
            stylePenaltyCoeff: config.group_style_penalty_coeff,
          },
        },
        conversationOf(input),
        (slot) => {
          const owner = placed ? { _ng_task_index: task, _ng_rollout_index: Math.floor(rollout / n) * n + slot } : {};
          return JudgeClient.for(ctx, config.genrm_model_server, owner, { timeoutSeconds: config.genrm_timeout_seconds });
        },
      );
      ctx.resources.set(key, cohort);
    }
    const slot = placed ? rollout % n : cohort.nextSlot();
    const entered = cohort.enter(slot, request.response);
    if (cohort.full) ctx.resources.delete(key);
    const { reward, calls } = await entered;
    return config.record_comparisons ? { reward, genrm_evaluations: calls } : { reward };
  },
});
