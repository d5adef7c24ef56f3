// proof_judge: theorem proving scored by an LLM verifier, as NeMo Gym's proof_judge (07d6b0d). The
// policy writes `## Solution` (its proof) and `## Self Evaluation` ending in a boxed self-score s′;
// the judge scores the proof r_y ∈ {0, 0.5, 1}; with beta ≠ 0 a meta-verifier scores the
// self-evaluation r_meta, and reward = alpha·r_y + beta·(1 − |s′ − r_y|)·r_meta. A malformed or
// over-long answer is 0 without asking the judge. The verify response is NeMo Gym's: the request,
// the response and the reward, nothing else (no judge output is recorded; replay a run's judge from
// its engine recording, `record_path`, with replay_model).
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { JudgeCallFields, judgeCallOptions, JudgeClient } from "../../judge/index.js";
import { ServerRef } from "../../protocol/index.js";
import { IncorrectGroups } from "./group.js";
import { judgeProof } from "./judge.js";
import { assistantText, parseProofAnswer, tooLong } from "./parse.js";

const Config = z
  .strictObject({
    judge_model_server: ServerRef,
    /** The `model` of judge requests; empty means the judge instance's name. */
    judge_model_name: z.string().default(""),
    alpha: z.number().default(1.0),
    beta: z.number().default(0.0),
    temperature: z.number().default(0.6),
    top_p: z.number().default(0.95),
    max_tokens: z.number().int().default(100000),
    zero_reward_incorrect_groups: z.boolean().default(false),
    expected_group_size: z.number().int().default(-1),
    assert_think_end: z.boolean().default(false),
    ...JudgeCallFields,
  })
  .refine((c) => !c.zero_reward_incorrect_groups || c.expected_group_size > 0, {
    message: "expected_group_size must be > 0 when zero_reward_incorrect_groups is enabled",
    path: ["expected_group_size"],
  });
type Config = z.output<typeof Config>;

/** The reward before group zeroing, and r_y when the verifier was asked. */
async function score(problem: string, text: string, config: Config, judge: () => JudgeClient, judgeName: string): Promise<{ reward: number; r_y?: number }> {
  if (text === "") return { reward: 0.0 };
  const parsed = parseProofAnswer(text, config.assert_think_end);
  if (typeof parsed === "string" || tooLong(parsed)) return { reward: 0.0 };
  const settings = { model: config.judge_model_name || judgeName, temperature: config.temperature, top_p: config.top_p, max_tokens: config.max_tokens };
  const { r_y, r_meta } = await judgeProof(judge(), problem, parsed, config.beta, settings);
  if (config.beta === 0) return { reward: config.alpha * r_y, r_y };
  const r_z = (1.0 - Math.abs(parsed.sPrime - r_y)) * r_meta!;
  return { reward: config.alpha * r_y + config.beta * r_z, r_y };
}

export default defineEnvironment({
  id: "proof_judge",
  description: "Theorem proving with an LLM verifier (and optionally a meta-verifier of the self-evaluation).",
  configSchema: Config,
  rowFields: {
    problem: z.string().default(""),
  },
  reverifyMode: "unknown",
  setup: ({ config }) => ({ groups: config.zero_reward_incorrect_groups ? new IncorrectGroups(config.expected_group_size) : undefined }),
  verify: async (request, ctx) => {
    const config = ctx.config;
    const problem = request.problem;
    const judge = () => JudgeClient.for(ctx, config.judge_model_server, request, judgeCallOptions(config));
    const scored = await score(problem, assistantText(request.response), config, judge, config.judge_model_server.name);
    let reward = scored.reward;
    const groups = ctx.resources.groups;
    if (groups) {
      if (!problem) throw new Error("problem must be set when zero_reward_incorrect_groups is enabled");
      if (await groups.allZero(problem, scored.r_y ?? 0.0)) reward = 0.0;
    }
    return { reward };
  },
});
