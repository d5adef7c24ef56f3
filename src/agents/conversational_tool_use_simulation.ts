// conversational_tool_use/simulation (instance `conversational_tool_use_agent` in NeMo Gym's config):
// a customer-service conversation between the policy and a user played by the environment's user
// simulator, with tool results from its tool simulator, scored by its judge. Matches NVIDIA-NeMo/Gym
// 07d6b0d responses_api_agents/conversational_tool_use/simulation/app.py, against the session routes
// of resources_servers/conversational_tool_use_simulation.
//
// `/run`: the row's first user message is materialised (`initial_user_message`), its policy prompt and
// tools checked against its top-level `policy` and `tools`, the session seeded (`/seed_session`, with
// the rollout id), then the conversation runs (below), and `/verify` scores it. The conversation, at
// most `max_agent_steps` policy responses: unless the row arrives mid-conversation, the simulated user
// opens (`/next_user_message`); each policy response is trimmed (one function call unless
// `parallel_tool_calls`, no blank messages) and recorded (`/record_agent_outputs`); its function calls
// are answered by `/execute_agent_tool_call`, a text answer by the user's next message, until the user
// ends (`###STOP###`, `###TRANSFER###`), the environment says stop, or the step limit
// (`/record_agent_step_limit`) or a broken response (`/record_generation_error`) ends it.
//
// Failures. A connection error, a timeout, or an answer 408/409/425/429/5xx while seeding, conversing
// or verifying is NeMo Gym's transient failure: a reply with `_ng_failure_class: "transient"`,
// `error_stage` and `error_message`, reward 0 and `instance_config.mask_sample: true`, which the
// collector writes to `<stem>_failures.jsonl` (never scored). Anything else (a 4xx from the
// environment, a model answer that is not a Response) fails `/run` with the side that failed
// (`env_error`, `model_error`). A seeded session that is not verified is always discarded
// (`/discard_session`).
//
// Usage. `response.usage` is the policy's, summed as NeMo Gym's agent sums it (the totals added up;
// after the first response the cached and reasoning details read 0). The environment's own model
// calls (user simulator, tool simulator, judge) are not the policy's tokens and stay out of it: the
// rollout's `usage_by_role` (a Gymkit key) holds each role's usage apart —
// `{policy, user, tool_simulator, judge}`, the last three as the environment's verify reply reports
// them in its `simulator_usage` (null for a role that made no call, or that the environment does not
// report).
import { z } from "zod";
import type { InstanceContext, ServerImplementation } from "../http/implementation.js";
import { parseOr422 } from "../http/errors.js";
import { asNemoGymCreateParams, asNemoGymResponse } from "../protocol/nemo_gym_models.js";
import { ServerRef, type ResponseObject, type Usage } from "../protocol/index.js";
import { pythonJsonDumps } from "../tokens/python_json.js";
import { buildAgentServer, type AgentUpstreams } from "./agent_server.js";
import {
  canonicalizeTranscript,
  incompleteDetailsRepr,
  inputItems,
  isTextMessage,
  materializeInitialUserMessage,
  mergePolicyUsage,
  normalizeInputItems,
  parallelToolCalls,
  prefilledResumeState,
  recordedOutputs,
  selectOutputs,
  userMessage,
  validateMaterializedParams,
  type Item,
} from "./conversational_tool_use_transcript.js";
import { UpstreamError, type EnvironmentClient } from "./upstream.js";

export const ID = "conversational_tool_use/simulation";

export const ConversationalToolUseAgentConfig = z.strictObject({
  resources_server: ServerRef.extend({ type: z.literal("resources_servers") }),
  model_server: ServerRef.extend({ type: z.literal("responses_api_models") }),
  /** Policy responses per rollout (user and tool turns do not count). */
  max_agent_steps: z.number().int().min(1).default(50),
  /** Ask the environment's user simulator for the opening message when the row has no conversation. */
  seed_first_user_message: z.boolean().default(true),
  /** Deadline of each HTTP call the agent makes (model, session routes, verify), in seconds. */
  request_timeout_s: z.number().positive().default(600),
});
export type ConversationalToolUseAgentConfig = z.infer<typeof ConversationalToolUseAgentConfig>;

/** The row fields the agent reads, with NeMo Gym's defaults; everything else passes through. */
const RunRequest = z.looseObject({
  domain_name: z.string().default(""),
  profile: z.enum(["general", "proactive"]).nullish(),
  policy: z.string(),
  tools: z.array(z.record(z.string(), z.unknown())),
  customer_scenario: z.record(z.string(), z.unknown()).default({}),
  source_artifacts: z.record(z.string(), z.unknown()).default({}),
  initial_user_message: z.string().nullish(),
});

const TRANSIENT = "transient";
type Stage = "seed_session" | "rollout" | "verify";

/** NeMo Gym's transient infrastructure failures: no answer, no answer in time, or 408/409/425/429/5xx. */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof UpstreamError) || error.fault === undefined) return false;
  const { kind, status } = error.fault;
  if (kind === "connection" || kind === "timeout") return true;
  if (kind === "status" && status !== undefined) return [408, 409, 425, 429].includes(status) || status >= 500;
  return false;
}

/** The rollout id NeMo Gym correlates a rollout's model calls by: `_ng_rollout_id`, else `<task>-<rollout>`, `-a<n>` for a re-dispatch. */
export function rolloutIdOf(row: Item): string | null {
  let id: string;
  if (typeof row._ng_rollout_id === "string") id = row._ng_rollout_id;
  else if (row._ng_task_index !== undefined && row._ng_task_index !== null && row._ng_rollout_index !== undefined && row._ng_rollout_index !== null) {
    id = `${String(row._ng_task_index)}-${String(row._ng_rollout_index)}`;
  } else return null;
  const attempt = Number(row._ng_attempt_index ?? 0);
  return attempt > 0 ? `${id}-a${attempt}` : id;
}

const asUsage = (value: unknown): Usage | null => (typeof value === "object" && value !== null && typeof (value as Usage).input_tokens === "number" ? (value as Usage) : null);

/** The environment routes the conversation uses; every reply is a JSON object. */
class Session {
  constructor(private readonly environment: EnvironmentClient) {}

  async post(path: string, body: Item): Promise<Item> {
    const reply = await this.environment.post(path, body);
    if (typeof reply !== "object" || reply === null || Array.isArray(reply)) {
      throw new UpstreamError("env_error", 502, `environment ${path} answered ${JSON.stringify(reply).slice(0, 200)}, not a JSON object`);
    }
    return reply as Item;
  }

  /** `should_continue` as the route reports it, with the route's default when absent. */
  static proceeds(reply: Item, fallback: boolean): boolean {
    return reply.should_continue === undefined || reply.should_continue === null ? fallback : Boolean(reply.should_continue);
  }
}

interface Conversation {
  /** Everything produced after the row's input, in order: user turns, policy outputs, tool outputs. */
  outputs: Item[];
  usage: Usage | null | undefined;
  last: ResponseObject | undefined;
}

function emptyResponse(modelName: string, output: Item[] = []): Item {
  return { id: "conversational_tool_use_no_agent_response", created_at: 0.0, model: modelName, object: "response", output, parallel_tool_calls: false, tool_choice: "auto", tools: [] };
}

async function runConversation(params: Item, config: ConversationalToolUseAgentConfig, { environment, model }: AgentUpstreams): Promise<ResponseObject> {
  const session = new Session(environment);
  const base = inputItems(params.input);
  const parallel = parallelToolCalls(params);
  const state: Conversation = { outputs: [], usage: undefined, last: undefined };

  /** The user simulator's next turn, and whether the conversation goes on after it. */
  const userTurn = async (): Promise<{ proceeds: boolean; text: string }> => {
    const reply = await session.post("/next_user_message", {});
    const text = typeof reply.message === "string" ? reply.message : "";
    return { proceeds: Session.proceeds(reply, true), text };
  };

  /** Runs the calls in order; false as soon as one says the conversation ends. */
  const executeCalls = async (calls: Item[], response: Item): Promise<boolean> => {
    for (const call of calls) {
      const reply = await session.post("/execute_agent_tool_call", { tool_name: call.name, tool_call_id: call.call_id, arguments: call.arguments, response });
      const output = reply.output === undefined ? "" : typeof reply.output === "string" ? reply.output : pythonJsonDumps(reply.output);
      state.outputs.push({ call_id: call.call_id, output, type: "function_call_output", id: null, status: null });
      if (!Session.proceeds(reply, true)) return false;
    }
    return true;
  };

  const stepLimit = (response: Item) => session.post("/record_agent_step_limit", { max_agent_steps: config.max_agent_steps, tool_calls: [], response });
  const generationError = (error: string) => session.post("/record_generation_error", { source: "agent", error });

  let ended = false;
  const resume = prefilledResumeState(params);
  if (resume === undefined ? config.seed_first_user_message : resume.next === "user") {
    const { proceeds, text } = await userTurn();
    if (text) state.outputs.push(userMessage(text));
    if (!proceeds) ended = true;
  } else if (resume?.next === "terminal") {
    ended = true;
  } else if (resume?.next === "environment") {
    if (!(await executeCalls(resume.pending, emptyResponse(config.model_server.name, resume.pending)))) ended = true;
  }

  for (let step = 1; !ended; step++) {
    const request = { ...params, input: normalizeInputItems([...base, ...state.outputs]) };
    const raw = await model.responses(request);
    const output = selectOutputs(raw.output as Item[], parallel);
    const response = { ...raw, output, ...(parallel ? {} : { parallel_tool_calls: false }) } as ResponseObject;
    state.last = response;
    state.outputs.push(...output);
    state.usage = mergePolicyUsage(state.usage, response.usage);
    const lastStep = step >= config.max_agent_steps;

    if (response.incomplete_details) {
      await generationError(`Model response was incomplete: ${incompleteDetailsRepr(response.incomplete_details)}`);
      break;
    }
    const recorded = recordedOutputs(output);
    if (recorded.length > 0 && !Session.proceeds(await session.post("/record_agent_outputs", { outputs: recorded, response: withoutUsage(response) }), true)) break;

    const calls = output.filter((item) => item.type === "function_call");
    if (calls.length > 0) {
      // On the last step the calls are recorded, not run: no tool result without a policy turn after it.
      if (lastStep) {
        await stepLimit(withoutUsage(response));
        break;
      }
      if (!(await executeCalls(calls, withoutUsage(response)))) break;
    } else if (output.some(isTextMessage)) {
      const { proceeds, text } = await userTurn();
      if (!proceeds) break;
      if (text) state.outputs.push(userMessage(text));
      if (lastStep) {
        await stepLimit(withoutUsage(response));
        break;
      }
      if (!text) break;
    } else {
      await generationError(`No text message or function call was found in the output list of a response: ${JSON.stringify(output)}`);
      break;
    }
  }

  const last = (state.last ?? emptyResponse(config.model_server.name)) as ResponseObject;
  return { ...last, output: state.outputs as ResponseObject["output"], usage: state.usage ?? null } as ResponseObject;
}

/** A policy response as the environment is shown it: NeMo Gym's agent has moved its usage into the rollout's sum by then. */
function withoutUsage(response: ResponseObject): Item {
  return { ...(response as Item), usage: null };
}

/** NeMo Gym's transient-failure reply, for the collector's failures file. */
function transientFailure(row: Item, stage: Stage, error: Error, config: ConversationalToolUseAgentConfig): Item {
  const reason = `${stage} failed: ${error.name}: ${error.message}`;
  const params = row.responses_create_params as Item;
  const response = {
    id: `conversational_tool_use_${stage}_failed`,
    created_at: Math.floor(Date.now() / 1000),
    model: typeof params.model === "string" && params.model ? params.model : config.model_server.name,
    object: "response",
    output: [
      {
        id: `conversational_tool_use_${stage}_failure_message`,
        content: [{ annotations: [], text: `Failed: ${reason}`, type: "output_text", logprobs: null }],
        role: "assistant",
        status: "completed",
        type: "message",
      },
    ],
    parallel_tool_calls: false,
    tool_choice: "none",
    tools: [],
  };
  return {
    ...row,
    responses_create_params: asNemoGymCreateParams(params),
    response: asNemoGymResponse(response),
    reward: 0.0,
    skipped: false,
    error_message: reason,
    error_class: TRANSIENT,
    error_stage: stage,
    _ng_failure_class: TRANSIENT,
    // Gymkit's collector puts this into the failure line's `_ng_failure_error`.
    _ng_failure_error: reason,
    instance_config: { mask_sample: true },
    result: null,
  };
}

/**
 * The verify reply, byte for byte, with `usage_by_role` added: the policy's usage beside the
 * environment's simulator roles as its `simulator_usage` reports them (see the header).
 */
export function withRoleUsage(verifyText: string, policyUsage: Usage | null | undefined): string {
  const verified = JSON.parse(verifyText) as Item;
  const reported = (typeof verified.simulator_usage === "object" && verified.simulator_usage !== null ? verified.simulator_usage : {}) as Item;
  const byRole = { policy: policyUsage ?? null, user: asUsage(reported.user), tool_simulator: asUsage(reported.tool_simulator), judge: asUsage(reported.judge) };
  const body = verifyText.trimEnd();
  if (!body.endsWith("}") || Object.hasOwn(verified, "usage_by_role")) return verifyText;
  const empty = Object.keys(verified).length === 0;
  return `${body.slice(0, -1)}${empty ? "" : ","}"usage_by_role":${JSON.stringify(byRole)}}`;
}

async function runRollout(rawRow: Item, config: ConversationalToolUseAgentConfig, upstreams: AgentUpstreams): Promise<string | Item> {
  const parsed = parseOr422(RunRequest, rawRow);
  const params = materializeInitialUserMessage(rawRow.responses_create_params as Item, parsed.initial_user_message);
  // The row as NeMo Gym's run-request model dumps it: its defaults filled in, every other field kept.
  const row: Item = {
    ...rawRow,
    domain_name: parsed.domain_name,
    profile: parsed.profile ?? null,
    customer_scenario: parsed.customer_scenario,
    source_artifacts: parsed.source_artifacts,
    initial_user_message: parsed.initial_user_message ?? null,
    responses_create_params: params,
  };
  validateMaterializedParams(params, parsed.policy, parsed.tools);

  const { environment } = upstreams;
  try {
    await environment.seedSession({ ...row, rollout_id: rolloutIdOf(rawRow) });
  } catch (error) {
    if (isTransient(error)) return transientFailure(row, "seed_session", error as Error, config);
    throw error;
  }

  let verified = false;
  try {
    let transcript: { params: Item; response: Item };
    try {
      const response = await runConversation(params, config, upstreams);
      transcript = canonicalizeTranscript(params, response as Item);
    } catch (error) {
      if (isTransient(error)) return transientFailure(row, "rollout", error as Error, config);
      throw error;
    }
    let text: string;
    try {
      text = await environment.verify({ ...row, responses_create_params: transcript.params, response: transcript.response });
    } catch (error) {
      if (isTransient(error)) return transientFailure(row, "verify", error as Error, config);
      throw error;
    }
    verified = true;
    return withRoleUsage(text, (transcript.response as ResponseObject).usage);
  } finally {
    // Whatever ended the rollout (a failure, the caller gone), the environment forgets the session.
    if (!verified) await environment.detached().post("/discard_session", {}).catch(() => undefined);
  }
}

const implementation: ServerImplementation<ConversationalToolUseAgentConfig> = {
  type: "responses_api_agents",
  id: ID,
  configSchema: ConversationalToolUseAgentConfig,
  async build(context: InstanceContext<ConversationalToolUseAgentConfig>) {
    const { config } = context;
    const wiring = { resourcesServer: config.resources_server, modelServer: config.model_server, timeoutMs: config.request_timeout_s * 1000 };
    return buildAgentServer(context, wiring, {
      run: (row, upstreams) => runRollout(row, config, upstreams),
      // The conversation alone, in the session the caller's cookies name (seeded by the caller).
      respond: (params, upstreams) => runConversation(params as Item, config, upstreams),
      returnsSessionCookies: true,
    });
  },
};

export default implementation;
