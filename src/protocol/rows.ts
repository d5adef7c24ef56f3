// Data rows, materialised rows, verify request/response and rollout rows (NeMo Gym's wire shapes).
// Every row schema is loose: unknown top-level fields pass through untouched and are echoed back.
import { z } from "zod";
import { ResponseObject, ResponsesCreateParams } from "./responses.js";

export const ServerType = z.enum(["resources_servers", "responses_api_agents", "responses_api_models"]);
export type ServerType = z.infer<typeof ServerType>;

export const ServerRef = z.looseObject({ type: ServerType, name: z.string() });
export type ServerRef = z.infer<typeof ServerRef>;

export const AgentRef = z.looseObject({ type: z.literal("responses_api_agents").optional(), name: z.string() });
export type AgentRef = z.infer<typeof AgentRef>;

/** One JSONL input line. */
export const DataRow = z.looseObject({
  responses_create_params: ResponsesCreateParams,
  agent_ref: AgentRef.optional(),
});
export type DataRow = z.infer<typeof DataRow>;

/** A data row after repeats are expanded: which task it is, and which of its rollouts. */
export const MaterializedRow = DataRow.extend({
  _ng_task_index: z.number().int().nonnegative(),
  _ng_rollout_index: z.number().int().nonnegative(),
});
export type MaterializedRow = z.infer<typeof MaterializedRow>;

export const VerifyRequest = DataRow.extend({ response: ResponseObject });
export type VerifyRequest = z.infer<typeof VerifyRequest>;

export const VerifyResponse = VerifyRequest.extend({ reward: z.number() });
export type VerifyResponse = z.infer<typeof VerifyResponse>;

/** What the collector writes per successful rollout. */
export const RolloutRow = VerifyResponse.extend({
  _ng_task_index: z.number().int().nonnegative(),
  _ng_rollout_index: z.number().int().nonnegative(),
  agent_ref: AgentRef,
});
export type RolloutRow = z.infer<typeof RolloutRow>;

export const AggregateMetricsRequest = z.looseObject({
  verify_responses: z.array(z.looseObject({})),
});
export type AggregateMetricsRequest = z.infer<typeof AggregateMetricsRequest>;

/** One entry of `<stem>_aggregate_metrics.json`. */
export const AgentMetrics = z.looseObject({
  agent_ref: AgentRef,
  agent_metrics: z.record(z.string(), z.unknown()),
  key_metrics: z.record(z.string(), z.unknown()),
  group_level_metrics: z.array(z.record(z.string(), z.unknown())),
});
export type AgentMetrics = z.infer<typeof AgentMetrics>;
