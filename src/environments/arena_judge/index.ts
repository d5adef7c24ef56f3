// arena_judge: NeMo Gym's Arena Hard v2 pairwise judge (resources_servers/arena_judge/app.py at
// NVIDIA-NeMo/Gym 07d6b0d, after arena-hard-auto). The policy's answer is compared with the row's
// `baseline_answer` by a judge over Chat Completions, twice: candidate as A (gen-base) and candidate
// as B (base-gen), with the category's system+user prompt (prompts/arena.yaml for hard_prompt,
// arena_creative.yaml for creative_writing). Reward 1 when the gen-base verdict is A>B or A>>B. The
// judge texts and verdicts are kept on the rollout, from which the metrics (metrics.ts: pass@k of the
// verdicts and the Arena-Elo win rate, elo.ts) are computed.
import { z } from "zod";
import { parse as parseYaml } from "yaml";
import { defineEnvironment } from "../../environment_kit/define.js";
import { outputText, ServerRef } from "../../protocol/index.js";
import { JudgeClient, PromptTemplate, PromptTemplateError, readPromptFile, type ChatJudgeCall } from "../../judge/index.js";
import { arenaMetrics } from "./metrics.js";
import { BUNDLED_PROMPTS } from "./prompts.js";
import { parseVerdict, sanitizeGeneration } from "./verdict.js";

const Config = z.strictObject({
  judge_model_server: ServerRef,
  /** Chat Completions parameters of the judge call; `messages` is replaced per call. */
  judge_chat_completions_create_params: z.looseObject({ messages: z.array(z.unknown()) }),
  /** Category → prompt YAML (`system` optional, `user` required), relative paths from the working directory. */
  judge_prompt_paths: z.record(z.string(), z.string()).default({
    hard_prompt: "resources_servers/arena_judge/prompts/arena.yaml",
    creative_writing: "resources_servers/arena_judge/prompts/arena_creative.yaml",
  }),
  default_category: z.string().default("hard_prompt"),
  arena_elo_bootstrap_rounds: z.number().int().default(100),
  arena_elo_bootstrap_seed: z.number().int().min(0).max(0xffffffff).default(42),
  sanitize_generations: z.boolean().default(false),
  /** Deadline of one judge call in seconds (a Gymkit extension; NeMo Gym uses its client default). */
  judge_timeout_seconds: z.number().positive().default(600),
});
type Config = z.output<typeof Config>;

interface CategoryPrompt {
  system?: PromptTemplate;
  user: PromptTemplate;
}

/** A prompt YAML as NeMo Gym's PromptConfig takes it: `user` (a string) required, `system` optional. */
function loadPrompt(path: string): CategoryPrompt {
  const where = `judge_prompt_paths (${path})`;
  const data = parseYaml(readPromptFile(path, { key: "judge_prompt_paths", bundled: BUNDLED_PROMPTS })) as Record<string, unknown> | null;
  const user = data?.user;
  const system = data?.system;
  if (typeof user !== "string") throw new PromptTemplateError(`${where}: the file has no \`user\` template string`);
  if (system !== undefined && system !== null && typeof system !== "string") throw new PromptTemplateError(`${where}: \`system\` must be a string`);
  return { user: new PromptTemplate(user, `${where} user`), system: typeof system === "string" ? new PromptTemplate(system, `${where} system`) : undefined };
}

/** The verify response's own fields, in NeMo Gym's ArenaJudgeVerifyResponse order. */
const OWN_FIELDS = ["reward", "judgement_gen_base", "judgement_base_gen", "verdict_gen_base", "verdict_base_gen", "category", "invalid_gen_base", "invalid_base_gen"];
const REQUEST_FIELDS = ["responses_create_params", "response", "question", "baseline_answer", "uid"];

export default defineEnvironment({
  id: "arena_judge",
  description: "Arena Hard v2 pairwise LLM judge against a per-task baseline answer (both answer orders), with the Arena-Elo win rate as headline metric.",
  configSchema: Config,
  rowFields: {
    question: z.string().nullable().optional(),
    baseline_answer: z.string().nullable().optional(),
    category: z.string().nullable().optional(),
    uid: z.string().nullable().optional(),
  },
  reverifyMode: "stateless",
  setup: ({ config }) => {
    const prompts = new Map(Object.entries(config.judge_prompt_paths).map(([category, path]) => [category, loadPrompt(path)]));
    if (!prompts.has(config.default_category)) {
      throw new PromptTemplateError(`default_category=${JSON.stringify(config.default_category)} is not in judge_prompt_paths keys ${JSON.stringify([...prompts.keys()].sort())}.`);
    }
    return { prompts };
  },
  verify: async (request, ctx) => {
    const config = ctx.config;
    let candidate = outputText(request.response);
    let baseline = request.baseline_answer || "";
    const question = request.question || "";
    if (config.sanitize_generations) {
      candidate = sanitizeGeneration(candidate);
      baseline = sanitizeGeneration(baseline);
    }
    let category = request.category || config.default_category;
    // An unknown category is judged with the default one's prompt (NeMo Gym logs a warning).
    if (!ctx.resources.prompts.has(category)) category = config.default_category;
    const prompt = ctx.resources.prompts.get(category)!;

    const judge = JudgeClient.for(ctx, config.judge_model_server, request, { timeoutSeconds: config.judge_timeout_seconds });
    const judgeOnce = async (answer1: string, answer2: string): Promise<string> => {
      const fill = { question, answer_1: answer1, answer_2: answer2 };
      const messages = [...(prompt.system ? [{ role: "system", content: prompt.system.fill(fill) }] : []), { role: "user", content: prompt.user.fill(fill) }];
      const call: ChatJudgeCall = await judge.chat({ ...structuredClone(config.judge_chat_completions_create_params), messages });
      return call.text ?? "";
    };
    // Both orders at once; a failure of either fails the rollout, once both have settled.
    const outcomes = await Promise.allSettled([judgeOnce(candidate, baseline), judgeOnce(baseline, candidate)]);
    for (const outcome of outcomes) if (outcome.status === "rejected") throw outcome.reason;
    const [genBase, baseGen] = outcomes.map((o) => (o as PromiseFulfilledResult<string>).value) as [string, string];
    const verdictGenBase = parseVerdict(genBase);
    const verdictBaseGen = parseVerdict(baseGen);

    // NeMo Gym's response model allows extra fields: the row's own fields follow the declared ones.
    const rest = Object.fromEntries(Object.entries(request).filter(([key]) => !REQUEST_FIELDS.includes(key) && !OWN_FIELDS.includes(key)));
    return {
      reward: verdictGenBase === "A>>B" || verdictGenBase === "A>B" ? 1.0 : 0.0,
      judgement_gen_base: genBase,
      judgement_base_gen: baseGen,
      verdict_gen_base: verdictGenBase,
      verdict_base_gen: verdictBaseGen,
      category,
      invalid_gen_base: verdictGenBase === null,
      invalid_base_gen: verdictBaseGen === null,
      question: request.question ?? null,
      baseline_answer: request.baseline_answer ?? null,
      uid: request.uid ?? null,
      ...rest,
    };
  },
  aggregateMetrics: (rows, ctx) => arenaMetrics(rows, ctx.defaults(rows), { rounds: ctx.config.arena_elo_bootstrap_rounds, seed: ctx.config.arena_elo_bootstrap_seed }),
});
