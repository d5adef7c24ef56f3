// gymnasium_agent: plays a Gymnasium-style environment (NeMo Gym 07d6b0d
// responses_api_agents/gymnasium_agent, for resources_servers/gymnasium's GymnasiumServer). `/run`
// resets the environment with the row, then up to `max_steps` times asks the model and hands its
// response to `/step`; the step's observation comes back as a user message and its tool outputs as
// function_call_output items, until a step ends the episode (terminated) or cuts it (truncated; also
// set when max_steps runs out). The reward is the sum of the step rewards; the rollout's response is
// the last model response carrying the whole episode's output and the usage of every model call.
// An environment whose reset info says `supports_explicit_close: true` gets `/close` once after the
// episode, succeeded or failed; a failed close is reported as `info.cleanup_warning`.
//
// Gymkit addition: `steps`, one record per step (EpisodeStep below), so that a reader (the viewer)
// can split `response.output` into steps and give each its reward. NeMo Gym's GymnasiumRunResponse
// allows extra keys, its collector writes the agent's answer as it comes, and its metrics read only
// top-level numbers and booleans, so NeMo Gym's tools pass the array through and ignore it.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { InstanceContext, ServerImplementation } from "../http/implementation.js";
import { asNemoGymCreateParams, asNemoGymResponse } from "../protocol/nemo_gym_models.js";
import { ServerRef, type ResponseObject, type ResponsesCreateParams } from "../protocol/index.js";
import { buildAgentServer, type AgentUpstreams } from "./agent_server.js";
import { UpstreamError } from "./upstream.js";
import { accumulateUsage } from "./usage.js";

export const GymnasiumAgentConfig = z.strictObject({
  resources_server: ServerRef.extend({ type: z.literal("resources_servers") }),
  model_server: ServerRef.extend({ type: z.literal("responses_api_models") }),
  /** Model calls (and steps) per episode; past it the episode is truncated. */
  max_steps: z.number().int().min(1).default(10),
  /** Deadline of each HTTP call the agent makes (model, reset, step), in seconds. */
  request_timeout_s: z.number().positive().default(600),
});
export type GymnasiumAgentConfig = z.infer<typeof GymnasiumAgentConfig>;

const ResetReply = z.looseObject({ observation: z.string().nullish(), info: z.record(z.string(), z.unknown()).nullish() });
const StepReply = z.looseObject({
  observation: z.string().nullish(),
  reward: z.number().default(0),
  terminated: z.boolean().default(false),
  truncated: z.boolean().default(false),
  info: z.record(z.string(), z.unknown()).nullish(),
});
const ToolOutputs = z.array(z.looseObject({ call_id: z.string(), output: z.string() }));

type Item = Record<string, unknown>;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const userMessage = (content: string): Item => ({ role: "user", content, type: "message" });

/** The environment answered something that is not its protocol: the rollout fails as the environment's. */
function envReply<T>(schema: z.ZodType<T>, body: unknown, who: string, route: string): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const problem = parsed.error.issues[0];
  throw new UpstreamError("env_error", 502, `environment "${who}" ${route} answered ${problem ? `${problem.path.join(".") || "(body)"}: ${problem.message}` : "an invalid body"}`);
}

/**
 * One step of an episode, as `steps` records it. `model_output` and `env_output` are half-open
 * ranges [start, end) of `response.output`: the model's response at this step (its messages,
 * reasoning, tool calls), then what the environment added after it (its tool outputs, then its
 * observation as a user message). The ranges follow each other and together cover the output. The
 * step that ends the episode adds nothing to the output (the agent stops there), so its env_output is
 * empty and the observation the environment still answered, if any, is `final_observation`.
 * reward/terminated/truncated are the environment's answer to this step (an episode cut by max_steps
 * ends with a step that is neither; the rollout's `truncated` says so).
 */
export interface EpisodeStep {
  reward: number;
  terminated: boolean;
  truncated: boolean;
  model_output: [number, number];
  env_output: [number, number];
  final_observation?: string;
}

export interface EpisodeResult {
  responses_create_params: ResponsesCreateParams;
  response: ResponseObject;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: Record<string, unknown>;
  steps: EpisodeStep[];
}

async function playEpisode(row: Record<string, unknown>, config: GymnasiumAgentConfig, { environment, model }: AgentUpstreams): Promise<EpisodeResult> {
  const who = config.resources_server.name;
  const body = await environment.post("/reset", row);
  // Read before the reply is validated: a reset that succeeded holds the environment's slot even when
  // the rest of its reply is malformed, and that slot must be released too (as NeMo Gym's agent does).
  const declared = isRecord(body) && isRecord(body.info) ? body.info.supports_explicit_close : undefined;
  const explicitClose = declared === true;
  // Closed even when the caller hung up or the deadline cut the rollout (NeMo Gym closes on cancellation too).
  const close = () => environment.detached().post("/close", {});
  try {
    const reset = envReply(ResetReply, body, who, "/reset");
    const resetInfo = reset.info ?? {};
    const episode = await stepThrough(row, reset.observation, resetInfo, config, { environment, model });
    if (explicitClose) {
      try {
        await close();
      } catch (error) {
        // The episode is scored; a failed clean-up is reported beside it, not instead of it.
        episode.info = { ...episode.info, cleanup_warning: { operation: "close", error_type: (error as Error).name, message: (error as Error).message } };
      }
    }
    return episode;
  } catch (error) {
    // Release the environment's slot, keeping the original failure.
    if (explicitClose) await close().catch(() => undefined);
    throw error;
  }
}

async function stepThrough(
  row: Record<string, unknown>,
  firstObservation: string | null | undefined,
  resetInfo: Record<string, unknown>,
  config: GymnasiumAgentConfig,
  { environment, model }: AgentUpstreams,
): Promise<EpisodeResult> {
  const who = config.resources_server.name;
  const params = structuredClone(row.responses_create_params as ResponsesCreateParams);
  const base: Item[] = typeof params.input === "string" ? [userMessage(params.input)] : [...(params.input as Item[])];
  if (firstObservation) base.push(userMessage(firstObservation));
  params.input = base as ResponsesCreateParams["input"];
  // Gymkit addition: an environment whose tools are known only once the episode starts (a driven
  // OpenEnv or ORS server, src/protocols/drive/) lists them in reset's `info.tools`; the model is
  // offered them when the row names none.
  if (Array.isArray(resetInfo.tools) && resetInfo.tools.length > 0 && !(params.tools && params.tools.length > 0)) {
    params.tools = resetInfo.tools as ResponsesCreateParams["tools"];
  }

  const episode: Item[] = [];
  let usage: ResponseObject["usage"];
  let last: ResponseObject | undefined;
  let step = { observation: null as string | null | undefined, reward: 0, terminated: false, truncated: true, info: {} as Record<string, unknown> };
  let total = 0;
  let finished = false;
  const steps: EpisodeStep[] = [];
  for (let i = 0; i < config.max_steps; i++) {
    const stepStart = episode.length;
    const response = await model.responses({ ...params, input: [...base, ...episode] });
    last = response;
    episode.push(...(response.output as Item[]));
    const modelEnd = episode.length;
    usage = accumulateUsage(usage, response.usage) ?? undefined;
    const stepBody: Record<string, unknown> = { ...row, response };
    if (resetInfo.supports_step_idempotency === true) stepBody._ng_step_request_id = randomUUID().replaceAll("-", "");
    const reply = envReply(StepReply, await environment.post("/step", stepBody), who, "/step");
    step = { observation: reply.observation, reward: reply.reward, terminated: reply.terminated, truncated: reply.truncated, info: reply.info ?? {} };
    total += step.reward;
    const record: EpisodeStep = { reward: step.reward, terminated: step.terminated, truncated: step.truncated, model_output: [stepStart, modelEnd], env_output: [modelEnd, modelEnd] };
    steps.push(record);
    if (step.terminated || step.truncated) {
      if (step.observation) record.final_observation = step.observation;
      finished = true;
      break;
    }
    const toolOutputs = step.info.tool_outputs === undefined ? [] : envReply(ToolOutputs, step.info.tool_outputs, who, "/step info.tool_outputs");
    for (const { call_id, output } of toolOutputs) episode.push({ type: "function_call_output", call_id, output });
    if (step.observation) episode.push(userMessage(step.observation));
    record.env_output[1] = episode.length;
  }
  // max_steps >= 1, so the model was asked at least once.
  const response = { ...last!, output: episode as ResponseObject["output"], usage };
  return { responses_create_params: params, response, reward: total, terminated: step.terminated, truncated: finished ? step.truncated : true, info: step.info, steps };
}

const implementation: ServerImplementation<GymnasiumAgentConfig> = {
  type: "responses_api_agents",
  id: "gymnasium_agent",
  configSchema: GymnasiumAgentConfig,
  async build(context: InstanceContext<GymnasiumAgentConfig>) {
    const { config } = context;
    const wiring = { resourcesServer: config.resources_server, modelServer: config.model_server, timeoutMs: config.request_timeout_s * 1000 };
    return buildAgentServer(context, wiring, {
      async run(row, upstreams) {
        const episode = await playEpisode(row, config, upstreams);
        // NeMo Gym's GymnasiumRunResponse, field for field, then Gymkit's per-step record.
        return {
          responses_create_params: asNemoGymCreateParams(episode.responses_create_params),
          response: asNemoGymResponse(episode.response),
          reward: episode.reward,
          terminated: episode.terminated,
          truncated: episode.truncated,
          info: episode.info,
          steps: episode.steps,
        };
      },
      // As NeMo Gym's agent: `/v1/responses` is one plain model call.
      respond: (params, { model }) => model.responses(params as Record<string, unknown>),
      returnsSessionCookies: true,
    });
  },
};

export default implementation;
