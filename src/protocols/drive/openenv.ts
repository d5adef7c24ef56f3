// `openenv_remote`: an OpenEnv server at a URL as a Gymkit environment (driven direction of issue 22),
// matched against huggingface/OpenEnv 385de5eb (src/openenv/core/env_server/http_server.py, types.py,
// mcp_types.py, serialization.py). It is a Gymnasium-style environment, so gymnasium_agent plays it:
//
//   /reset  opens one WebSocket session (`/ws`, one environment instance per connection) and sends
//           `reset` with the row's fields (OpenEnv passes the ones its reset accepts: seed, episode_id,
//           …). The observation (without its `tools`) is the first user message; the tools the model is
//           offered are the observation's `tools`, else what a `list_tools` action answers (OpenEnv's MCP
//           environments), else none; they go back in `info.tools`, which gymnasium_agent offers the model.
//   /step   each function call of the model's response is a `call_tool` action (its result or error is
//           the call's output); a response without calls is one text action `{<text_action_field>: text}`
//           (plus `text_action_extra`) whose observation is the next user message. Rewards are summed; `done` ends the episode.
//   /close  sends `close` and drops the connection (gymnasium_agent calls it after every episode).
//
// The remote failing (connection refused, capacity reached, a reply outside the protocol) is a 502
// naming it, so the rollout fails as `env_error`, never as a zero reward.
import { z } from "zod";
import { HttpError } from "../../http/errors.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { asText, forwardedFields, functionTool, remoteFailure, stepThroughCalls, textOf, toolCallsOf } from "./actions.js";
import { OpenEnvError, OpenEnvSocket } from "./openenv_socket.js";

const Config = z.strictObject({
  /** Base URL of the OpenEnv server (its `/ws` is beneath it). */
  base_url: z.url({ protocol: /^https?$/ }),
  /** The action a text answer becomes: `{[text_action_field]: text}` (OpenEnv's echo env takes `message`). */
  text_action_field: z.string().min(1).default("message"),
  /** Fixed fields of the text action, e.g. `{type: submit_answer}` with `text_action_field: answer` for Gymkit's own OpenEnv server. */
  text_action_extra: z.record(z.string(), z.unknown()).default({}),
  /** The observation field shown to the model; default: the observation (without `tools`) as JSON, or its only string field. */
  observation_field: z.string().min(1).nullish(),
  /** Ask for tools with a `list_tools` action when the reset observation carries none. */
  list_tools: z.boolean().default(true),
  /** Deadline of each message exchanged with the server, in seconds. */
  request_timeout_s: z.number().positive().default(600),
});
type Config = z.infer<typeof Config>;

interface Session {
  socket: OpenEnvSocket;
}

const Served = z.looseObject({
  observation: z.record(z.string(), z.unknown()).default({}),
  reward: z.union([z.number(), z.boolean()]).nullish(),
  done: z.boolean().default(false),
});

/** An observation reply's data, checked: anything else is the server breaking the protocol. */
function served(data: unknown, who: string, what: string): z.infer<typeof Served> {
  const parsed = Served.safeParse(data);
  if (!parsed.success) throw remoteFailure(who, `its ${what} reply is not an OpenEnv observation: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

const rewardOf = (reward: number | boolean | null | undefined): number => (typeof reward === "boolean" ? Number(reward) : (reward ?? 0));

function shown(observation: Record<string, unknown>, config: Config): string {
  if (config.observation_field) return asText(observation[config.observation_field] ?? "");
  const { tools: _tools, ...rest } = observation;
  const values = Object.values(rest);
  return values.length === 1 && typeof values[0] === "string" ? values[0] : JSON.stringify(rest);
}

/** Runs one exchange, turning a transport failure into the environment's 502. */
async function exchange(who: string, work: () => Promise<unknown>): Promise<unknown> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HttpError || error instanceof OpenEnvError) throw error;
    throw remoteFailure(who, (error as Error).message);
  }
}

export default defineEnvironment<Config, Session>({
  id: "openenv_remote",
  description: "An OpenEnv server at a URL, played over its WebSocket session by gymnasium_agent.",
  configSchema: Config,
  async reset(metadata, ctx) {
    const who = `OpenEnv server ${ctx.config.base_url}`;
    ctx.sessions.get(ctx.sessionId)?.socket.close();
    const timeoutMs = ctx.config.request_timeout_s * 1000;
    const socket = (await exchange(who, () => OpenEnvSocket.open(ctx.config.base_url, timeoutMs))) as OpenEnvSocket;
    ctx.sessions.set(ctx.sessionId, { socket });
    try {
      const reply = (await exchange(who, () => socket.request("reset", forwardedFields(metadata)))) as { data: unknown };
      const first = served(reply.data, who, "reset");
      let tools = Array.isArray(first.observation.tools) ? first.observation.tools : undefined;
      if (tools === undefined && ctx.config.list_tools) {
        try {
          const listed = (await exchange(who, () => socket.request("step", { type: "list_tools" }))) as { data: unknown };
          const observation = served(listed.data, who, "list_tools").observation;
          tools = Array.isArray(observation.tools) ? observation.tools : [];
        } catch (error) {
          // An environment without MCP tools refuses the action: it simply has none.
          if (!(error instanceof OpenEnvError)) throw error;
          tools = [];
        }
      }
      const info: Record<string, unknown> = { tools: (tools ?? []).map((t) => functionTool(t as { name: string })) };
      if (first.reward !== null && first.reward !== undefined) info.reset_reward = rewardOf(first.reward);
      return { observation: shown(first.observation, ctx.config), info };
    } catch (error) {
      if (error instanceof OpenEnvError) throw remoteFailure(who, `reset failed: ${error.message}`);
      throw error;
    }
  },
  async step(response, _metadata, ctx) {
    const who = `OpenEnv server ${ctx.config.base_url}`;
    const session = ctx.sessions.get(ctx.sessionId);
    if (!session) throw new HttpError(400, "step before reset: this session has no OpenEnv episode (POST /reset first)");
    const calls = toolCallsOf(response);
    if (calls.length === 0) {
      const action = { ...ctx.config.text_action_extra, [ctx.config.text_action_field]: textOf(response) };
      let reply: { data: unknown };
      try {
        reply = (await exchange(who, () => session.socket.request("step", action))) as { data: unknown };
      } catch (error) {
        if (error instanceof OpenEnvError) throw remoteFailure(who, `step ${JSON.stringify(Object.keys(action))} failed: ${error.message}`);
        throw error;
      }
      const step = served(reply.data, who, "step");
      return { observation: shown(step.observation, ctx.config), reward: rewardOf(step.reward), terminated: step.done, info: {} };
    }
    return stepThroughCalls(calls, async (call) => {
      try {
        const reply = (await exchange(who, () => session.socket.request("step", { type: "call_tool", tool_name: call.name, arguments: call.arguments }))) as { data: unknown };
        const step = served(reply.data, who, "call_tool");
        const { error, result } = step.observation;
        return { output: error !== undefined && error !== null ? `error: ${asText(error)}` : asText(result), reward: rewardOf(step.reward), done: step.done };
      } catch (error) {
        // The environment refused this call (unknown tool, bad arguments): the model reads why.
        if (!(error instanceof OpenEnvError)) throw error;
        return { output: `error: ${error.message}` };
      }
    });
  },
  close(ctx) {
    ctx.sessions.get(ctx.sessionId)?.socket.close();
    return {};
  },
});
