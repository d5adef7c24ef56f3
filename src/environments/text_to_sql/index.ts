// text_to_sql: an LLM judge decides whether the SQL in the model's answer is functionally equivalent
// to the row's SQL, as NeMo Gym's server does (resources_servers/text_to_sql/app.py at commit 07d6b0d).
// The SQL is taken from a fenced block or the raw text (extract.ts); the judge sees the dialect, the
// schema, the question and both queries (prompts.ts), and by default is asked twice with the two
// queries swapped: both must say equal for reward 1. Judge calls are recorded under `judge_evaluations`.
import { z } from "zod";
import { JudgeClient, judgeMessages, limiterOf, PromptTemplate, type JudgeMessage, type Limiter } from "../../judge/index.js";
import { outputText, ResponsesCreateParams, ServerRef, type ResponseObject } from "../../protocol/index.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { extractSql, judgeReplyText, normalizeDialect } from "./extract.js";
import { SQL_JUDGE_PROMPT_TEMPLATE, SQL_JUDGE_SYSTEM_MESSAGE } from "./prompts.js";

const SUPPORTED_DIALECTS = ["mysql", "postgresql", "sqlite"];

const Config = z.strictObject({
  judge_model_server: ServerRef,
  judge_responses_create_params: ResponsesCreateParams,
  /** Judge calls of this instance in flight at most; null: unbounded. */
  judge_endpoint_max_concurrency: z.number().int().positive().nullable().default(64),
  judge_system_message: z.string().default(SQL_JUDGE_SYSTEM_MESSAGE),
  judge_equal_label: z.string().default("[[A=B]]"),
  judge_not_equal_label: z.string().default("[[A!=B]]"),
  check_twice_swap: z.boolean().default(true),
  reward_if_swap_fails: z.number().default(0.0),
  /** Deadline of one judge call in seconds (a Gymkit extension; NeMo Gym uses its client default). */
  judge_timeout_seconds: z.number().positive().default(600),
  /** Gymkit's: the label found last in the judge's reply decides (not the first, NeMo Gym's), so a label quoted from the answer does not. */
  strict: z.boolean().default(false),
});
type Config = z.output<typeof Config>;

/** NeMo Gym's FailureCode values. */
type FailureCode = "none" | "no_sql_extracted" | "judge_evaluation_failed" | "unknown_error";

interface Evaluation {
  responses_create_params: ResponsesCreateParams;
  response: ResponseObject;
  verdict_label: string | null;
}

const TEMPLATE = new PromptTemplate(SQL_JUDGE_PROMPT_TEMPLATE, "text_to_sql judge prompt (prompts.py)");

/**
 * The verdict in the judge's text: equal when its label comes first; the other label; or none. With
 * `last` (Gymkit's `strict`) the label found last decides, where the prompt asks for the verdict.
 */
export function sqlVerdict(text: string, equalLabel: string, notEqualLabel: string, last = false): { equal: boolean; label: string | null } {
  if (!text) return { equal: false, label: null };
  const eq = last ? text.lastIndexOf(equalLabel) : text.indexOf(equalLabel);
  const neq = last ? text.lastIndexOf(notEqualLabel) : text.indexOf(notEqualLabel);
  if (eq >= 0 && (neq < 0 || (last ? eq > neq : eq < neq))) return { equal: true, label: equalLabel };
  if (neq >= 0) return { equal: false, label: notEqualLabel };
  return { equal: false, label: null };
}

export default defineEnvironment({
  id: "text_to_sql",
  description: "An LLM judge compares the generated SQL with the reference query (MySQL, PostgreSQL, SQLite): reward 1 when it finds them equivalent both ways.",
  configSchema: Config,
  rowFields: {
    uuid: z.union([z.string(), z.number().int()]).nullable().optional(),
    sql: z.string(),
    sql_dialect: z.string(),
    sql_context: z.string().default(""),
    sql_prompt: z.string(),
    metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  },
  // NeMo Gym leaves this server's mode unknown (not reviewed for reverify), though /verify needs no session.
  reverifyMode: "unknown",
  setup: ({ config }): { limiter: Limiter | undefined } => ({ limiter: limiterOf(config.judge_endpoint_max_concurrency) }),
  // A failed judge call throws JudgeFailure; the kit's /verify route makes it a judge_failed row.
  verify: async (request, ctx) => {
    const config: Config = ctx.config;
    const dialect = normalizeDialect(request.sql_dialect);
    // NeMo Gym raises ValueError here (a 500), before anything is judged.
    if (!dialect) throw new Error("SQL dialect is required but was not provided");
    if (!SUPPORTED_DIALECTS.includes(dialect)) throw new Error(`Unsupported SQL dialect '${dialect}'. Supported: [${SUPPORTED_DIALECTS.map((d) => `'${d}'`).join(", ")}]`);
    const generated = outputText(request.response);

    const judge = JudgeClient.for(ctx, config.judge_model_server, request, { timeoutSeconds: config.judge_timeout_seconds, limiter: ctx.resources.limiter });
    const evaluate = async (first: string, second: string): Promise<{ equal: boolean; evaluation: Evaluation }> => {
      const user = TEMPLATE.fill({ sql_prompt: request.sql_prompt, sql_context: request.sql_context, first_answer: first, second_answer: second, sql_dialect: dialect });
      const messages: JudgeMessage[] = config.judge_system_message ? [{ role: "system", content: config.judge_system_message }] : [];
      messages.push({ role: "user", content: user });
      const call = await judge.responses(judgeMessages(config.judge_responses_create_params, messages));
      const verdict = sqlVerdict(judgeReplyText(call.response), config.judge_equal_label, config.judge_not_equal_label, config.strict);
      return { equal: verdict.equal, evaluation: { responses_create_params: call.responses_create_params, response: call.response, verdict_label: verdict.label } };
    };

    let reward = 0.0;
    let judgePassed = false;
    let failure: FailureCode = "no_sql_extracted";
    const evaluations: Evaluation[] = [];
    const extracted = generated ? extractSql(generated) : undefined;
    if (extracted) {
      const first = await evaluate(request.sql, extracted);
      evaluations.push(first.evaluation);
      failure = "judge_evaluation_failed";
      if (first.equal && config.check_twice_swap) {
        const second = await evaluate(extracted, request.sql);
        evaluations.push(second.evaluation);
        if (second.equal) [reward, judgePassed, failure] = [1.0, true, "none"];
        else reward = config.reward_if_swap_fails;
      } else if (first.equal) {
        [reward, judgePassed, failure] = [1.0, true, "none"];
      }
    }
    return {
      reward,
      uuid: request.uuid ?? null,
      sql: request.sql,
      model_output: generated,
      // An empty ```sql block is reported as extracted (""), though nothing is judged.
      extracted_sql: generated ? (extracted ?? null) : null,
      sql_dialect: dialect,
      sql_context: request.sql_context,
      sql_prompt: request.sql_prompt,
      judge_passed: judgePassed,
      failure_reason: failure,
      judge_evaluations: evaluations,
      metadata: request.metadata ?? null,
    };
  },
});
