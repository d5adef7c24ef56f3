// OpenEnv's wire types as Gymkit serves them (matched against huggingface/OpenEnv 385de5eb,
// src/openenv/core/env_server/types.py and mcp_types.py): the WebSocket messages and their replies,
// the HTTP request bodies, the error codes, and the one action and observation model every Gymkit
// environment is served with (no per-environment classes: the tools come from the dataset row).
import { z } from "zod";

/** OpenEnv's WSErrorCode. */
export const WS_ERROR = {
  INVALID_JSON: "INVALID_JSON",
  UNKNOWN_TYPE: "UNKNOWN_TYPE",
  VALIDATION_ERROR: "VALIDATION_ERROR",
  EXECUTION_ERROR: "EXECUTION_ERROR",
  CAPACITY_REACHED: "CAPACITY_REACHED",
  FACTORY_ERROR: "FACTORY_ERROR",
  SESSION_ERROR: "SESSION_ERROR",
} as const;

/** OpenEnv's JsonRpcErrorCode (JSON-RPC 2.0's). */
export const JSON_RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  SERVER_ERROR: -32000,
} as const;

/** OpenEnv's ToolErrorType: framework failures of a tool call, carried in the observation's `error`. */
export type ToolErrorType = "execution_error" | "invalid_args" | "transport_error" | "tool_not_found" | "timeout";

const Metadata = z.record(z.string(), z.unknown()).default({});

/**
 * The actions (OpenEnv's Action models forbid unknown fields): OpenEnv's own MCP actions
 * `list_tools` / `call_tool` (so OpenEnv's MCP-aware clients work unchanged), and `submit_answer`,
 * the final answer that is scored.
 */
export const GymkitAction = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("call_tool"), tool_name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}), metadata: Metadata }),
  z.strictObject({ type: z.literal("list_tools"), metadata: Metadata }),
  z.strictObject({ type: z.literal("submit_answer"), answer: z.string(), metadata: Metadata }),
]);
export type GymkitAction = z.infer<typeof GymkitAction>;

/**
 * What `reset` takes (OpenEnv's ResetRequest: `seed`, `episode_id`, other keys allowed). Gymkit reads
 * `row` (a whole row), else `row_index` (the dataset row, 0-based), else `seed` (row `seed mod rows`);
 * with none, the next row in turn.
 */
export const ResetData = z.looseObject({
  seed: z.number().int().min(0).nullish(),
  episode_id: z.string().max(255).nullish(),
  row_index: z.number().int().min(0).nullish(),
  /** A whole dataset row to play instead of one of the configured ones. */
  row: z.record(z.string(), z.unknown()).nullish(),
});
export type ResetData = z.infer<typeof ResetData>;

/** OpenEnv's StepRequest (other keys allowed; over stateless HTTP `row_index` / `seed` pick the row). */
export const StepRequest = z.looseObject({
  action: z.record(z.string(), z.unknown()),
  timeout_s: z.number().positive().nullish(),
  request_id: z.string().max(255).nullish(),
  seed: z.number().int().min(0).nullish(),
  row_index: z.number().int().min(0).nullish(),
});

/** The WebSocket messages (OpenEnv's WSResetMessage, WSStepMessage, WSStateMessage, WSCloseMessage, WSMCPMessage). */
export const WsMessage = {
  reset: z.strictObject({ type: z.literal("reset"), data: z.record(z.string(), z.unknown()).default({}) }),
  step: z.strictObject({ type: z.literal("step"), data: z.record(z.string(), z.unknown()) }),
  state: z.strictObject({ type: z.literal("state") }),
  close: z.strictObject({ type: z.literal("close") }),
  mcp: z.strictObject({ type: z.literal("mcp"), data: z.record(z.string(), z.unknown()) }),
} as const;

/** OpenEnv's JsonRpcRequest. */
export const JsonRpcRequest = z.looseObject({
  jsonrpc: z.literal("2.0"),
  method: z.string(),
  params: z.unknown().default({}),
  id: z.union([z.string(), z.number()]).nullish(),
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequest>;

/** OpenEnv's Tool model (`input_schema`, snake case, as observations carry it). */
export interface OpenEnvTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** Gymkit's observation model: one flat model for every action, the unused fields null (OpenEnv's Observation, `reward`/`done`/`metadata` lifted out). */
export interface GymkitObservation {
  /** The row's prompt as messages (then the environment's own observation text, if any). */
  messages: Array<{ role: string; content: unknown }> | null;
  instructions: string | null;
  /** The tools the episode offers. */
  tools: OpenEnvTool[] | null;
  /** The dataset row the episode plays (-1 for a row given inline). */
  row_index: number | null;
  /** The environment's observation text (Gymnasium-style environments' reset and steps). */
  text: string | null;
  /** OpenEnv's CallToolObservation fields. */
  tool_name: string | null;
  result: unknown;
  error: { error_type: ToolErrorType; message: string } | null;
  /** The environment's /verify reply (its reward and own fields) after `submit_answer`. */
  verify: Record<string, unknown> | null;
}

export const OBSERVATION_JSON_SCHEMA = {
  title: "GymkitObservation",
  type: "object",
  properties: {
    messages: { anyOf: [{ type: "array", items: { type: "object", properties: { role: { type: "string" }, content: {} }, required: ["role", "content"] } }, { type: "null" }] },
    instructions: { anyOf: [{ type: "string" }, { type: "null" }] },
    tools: {
      anyOf: [
        { type: "array", items: { type: "object", properties: { name: { type: "string" }, description: { type: "string" }, input_schema: { type: "object" } }, required: ["name", "description", "input_schema"] } },
        { type: "null" },
      ],
    },
    row_index: { anyOf: [{ type: "integer" }, { type: "null" }] },
    text: { anyOf: [{ type: "string" }, { type: "null" }] },
    tool_name: { anyOf: [{ type: "string" }, { type: "null" }] },
    result: {},
    error: {
      anyOf: [
        { type: "object", properties: { error_type: { enum: ["execution_error", "invalid_args", "transport_error", "tool_not_found", "timeout"] }, message: { type: "string" } }, required: ["error_type", "message"] },
        { type: "null" },
      ],
    },
    verify: { anyOf: [{ type: "object" }, { type: "null" }] },
    done: { type: "boolean", default: false },
    reward: { anyOf: [{ type: "boolean" }, { type: "integer" }, { type: "number" }, { type: "null" }], default: null },
    metadata: { type: "object", default: {} },
  },
  additionalProperties: false,
} as const;

export const STATE_JSON_SCHEMA = {
  title: "GymkitState",
  type: "object",
  properties: {
    episode_id: { anyOf: [{ type: "string" }, { type: "null" }], default: null },
    step_count: { type: "integer", minimum: 0, default: 0 },
    environment: { type: "string" },
    status: { enum: ["idle", "running", "done", "closed"] },
    row_index: { anyOf: [{ type: "integer" }, { type: "null" }] },
    total_reward: { type: "number" },
    done: { type: "boolean" },
  },
  additionalProperties: true,
} as const;

/** The action schema `/schema` serves, from the zod model (so it cannot drift from what is accepted). */
export function actionJsonSchema(): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(GymkitAction, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return { title: "GymkitAction", ...schema };
}
