// Gymkit's public API for writing your own environments (and reading what they produce). A config
// runs one by naming a module in `entrypoint:` (see README, "Write an environment"); `gymkit/testing`
// starts it on 127.0.0.1 for its tests, and `gymkit/client` talks to the rollout service.
export { z } from "zod";
export { defineEnvironment } from "./environment_kit/define.js";
export type {
  EnvironmentContext,
  EnvironmentDefinition,
  EnvironmentImplementation,
  EnvironmentInstance,
  MetricsContext,
  SeedInput,
  ToolDefinition,
  VerifyInput,
  VerifyResult,
} from "./environment_kit/types.js";
export { aggregateMetrics, type AggregateResult } from "./metrics/aggregate.js";
export { highestK, passAtKMetrics, type PassAtKOptions, type PassAtKResult } from "./metrics/pass_at_k.js";
export { summarize } from "./metrics/stats.js";
// The judge kit, for environments scored by an LLM judge.
export {
  JudgeClient,
  JudgeFailure,
  Limiter,
  limiterOf,
  firstLabel,
  firstLabelIs,
  regexLabel,
  numericScore,
  jsonVerdict,
  judgeMessages,
  judgeRequest,
  finalJudgeText,
  allJudgeText,
  chatJudgeText,
  PromptTemplate,
  readPromptFile,
  readPromptYaml,
  swapChecked,
  majorityVote,
  askPanel,
  type JudgeEvaluation,
  type ChatJudgeCall,
  type JudgeClientOptions,
} from "./judge/index.js";
export { outputText, ResponseObject, ResponsesCreateParams, ServerRef } from "./protocol/index.js";
export type { HttpApp, ListenOptions } from "./http/app.js";
export type { ServerImplementation, InstanceContext } from "./http/implementation.js";
