// The judge kit: what every LLM-judged environment uses to ask its judges and read their verdicts.
//
//   verify: withJudgeFailsafe(async (request, ctx) => {
//     const judge = JudgeClient.for(ctx, ctx.config.judge_model_server, request, { limiter: ctx.resources.limiter });
//     const call = await judge.responses(judgeMessages(ctx.config.judge_responses_create_params, [{ role: "user", content: prompt.fill({...}) }]));
//     const label = firstLabel(call.text, ["[[A=B]]", "[[A!=B]]"]);
//     return { reward: label === "[[A=B]]" ? 1 : 0, judge_evaluations: [call] };
//   }),
//
// A failed call (transport, timeout, non-2xx, a body that is not a Response) is a JudgeFailure, which
// withJudgeFailsafe turns into a `judge_failed` row, never a zero. Record the calls under the key
// NeMo Gym's server writes them to; `judge_replay_model` plays them back.
export { JudgeFailure, judgeFailedResult, withJudgeFailsafe } from "./failure.js";
export { JudgeClient, JUDGE_RETRY, type ChatJudgeCall, type JudgeClientOptions, type JudgeEvaluation } from "./client.js";
export { JudgeCallFields, judgeCallOptions, type JudgeCallConfig } from "./call_fields.js";
export { Limiter, limiterOf } from "./limiter.js";
export { firstLabel, firstLabelIs, jsonVerdict, numericScore, regexLabel } from "./labels.js";
export { judgeMessages, judgeRequest, type JudgeMessage } from "./request.js";
export { allJudgeText, chatJudgeText, finalJudgeText } from "./text.js";
export { PromptTemplate, PromptTemplateError, readPromptFile, readPromptYaml, readPromptYamlMapping, type BundledPrompts, type PromptSource } from "./templates.js";
export { askPanel, majorityVote, swapChecked } from "./vote.js";
