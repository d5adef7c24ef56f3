// `ors_remote`: an Open Reward Standard server at a URL as a Gymkit environment (driven direction of issue 22),
// matched against openrewardstandard/python-sdk a399408 (src/ors/server.py, types.py, client/session.py).
// It is a Gymnasium-style environment, so gymnasium_agent plays it:
//
//   /reset  opens an ORS session on the row's task — `split` (default: the config's) and `index`, or a
//           `task_spec` — in the config's environment (default: the server's first); the prompt's blocks
//           are the first user message and the session's tools go to the model (`info.tools`).
//   /step   each function call of the model's response is `POST /{env}/call`, one after another (ORS
//           serialises a session's calls); the call's blocks are its output, its inline `reward`s are
//           summed and `finished` ends the episode. A tool error (`ok: false`) is the call's output. A
//           response without calls ends the episode (ORS scores only through tools), reward 0.
//   /close  `POST /delete` and `POST /delete_session` (gymnasium_agent calls it after every episode).
//
// The remote failing (unreachable, a non-2xx reply, a stream without `end`) is a 502 naming it, so the
// rollout fails as `env_error`; a row without a task is a 422 naming the fields it needs.
import { z } from "zod";
import { CallError } from "../../http/client.js";
import { HttpError } from "../../http/errors.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { functionTool, remoteFailure, stepThroughCalls, toolCallsOf } from "./actions.js";
import { blocksText, OrsClient } from "./ors_client.js";

const Config = z.strictObject({
  /** Base URL of the ORS server. */
  base_url: z.url({ protocol: /^https?$/ }),
  /** The environment served there; default: the first that `/list_environments` names. */
  env_name: z.string().min(1).nullish(),
  /** The split of rows that name only an `index`. */
  split: z.string().min(1).default("test"),
  /** Sent as X-API-Key. */
  api_key: z.string().nullish(),
  /** Deadline of each request to the server, in seconds. */
  request_timeout_s: z.number().positive().default(600),
});
type Config = z.infer<typeof Config>;

interface Session {
  sid: string;
  env: string;
}

interface Resources {
  client: OrsClient;
  envName: Promise<string> | undefined;
}

/** Runs one request, turning a transport or protocol failure into the environment's 502. */
async function remote<T>(who: string, what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HttpError) throw error;
    const message = error instanceof CallError ? error.message : (error as Error).message;
    throw remoteFailure(who, `${what}: ${message}`);
  }
}

function envNameOf(resources: Resources, config: Config, who: string): Promise<string> {
  if (config.env_name) return Promise.resolve(config.env_name);
  resources.envName ??= remote(who, "list_environments", () => resources.client.listEnvironments()).then((names) => {
    if (!Array.isArray(names) || typeof names[0] !== "string") throw remoteFailure(who, "list_environments named no environment");
    return names[0];
  });
  // A failure is not remembered: the next episode asks again.
  resources.envName.catch(() => (resources.envName = undefined));
  return resources.envName;
}

export default defineEnvironment<Config, Session, Record<never, never>, Record<never, never>, Record<never, never>, Resources>({
  id: "ors_remote",
  description: "An Open Reward Standard server at a URL, played tool call by tool call by gymnasium_agent.",
  configSchema: Config,
  setup: ({ config }) => ({ client: new OrsClient(config.base_url, { apiKey: config.api_key ?? undefined, timeoutMs: config.request_timeout_s * 1000 }), envName: undefined }),
  async reset(metadata, ctx) {
    const who = `ORS server ${ctx.config.base_url}`;
    const { client } = ctx.resources;
    const env = typeof metadata.env_name === "string" ? metadata.env_name : await envNameOf(ctx.resources, ctx.config, who);
    let task: Record<string, unknown>;
    if (metadata.task_spec !== undefined && metadata.task_spec !== null) task = { env_name: env, task_spec: metadata.task_spec };
    else if (Number.isInteger(metadata.index)) task = { env_name: env, split: typeof metadata.split === "string" ? metadata.split : ctx.config.split, index: metadata.index };
    else throw new HttpError(422, `an ORS row names its task: give \`index\` (an integer, with \`split\` or the config's split "${ctx.config.split}") or \`task_spec\`; this row has ${metadata.index === undefined ? "neither" : `index ${JSON.stringify(metadata.index)}`}`);
    const previous = ctx.sessions.get(ctx.sessionId);
    if (previous) await client.closeSession(previous.sid).catch(() => undefined);
    const sid = await remote(who, "create_session", () => client.openSession(task));
    ctx.sessions.set(ctx.sessionId, { sid, env });
    const prompt = await remote(who, `/${env}/prompt`, () => client.prompt(env, sid));
    const tools = await remote(who, `/${env}/tools`, () => client.tools(env, sid));
    return { observation: blocksText(prompt), info: { tools: tools.map((t) => functionTool(t)), ors_session: sid } };
  },
  async step(response, _metadata, ctx) {
    const who = `ORS server ${ctx.config.base_url}`;
    const session = ctx.sessions.get(ctx.sessionId);
    if (!session) throw new HttpError(400, "step before reset: this session has no ORS episode (POST /reset first)");
    const calls = toolCallsOf(response);
    if (calls.length === 0) return { observation: null, reward: 0, terminated: true, info: { ended_by: "a response without tool calls" } };
    return stepThroughCalls(calls, async (call) => {
      const result = await remote(who, `/${session.env}/call ${call.name}`, () => ctx.resources.client.callTool(session.env, session.sid, call.name, call.arguments));
      if (result === null || typeof result !== "object" || typeof result.ok !== "boolean") throw remoteFailure(who, `/${session.env}/call ${call.name} answered something that is not a RunToolOutput`);
      if (!result.ok) return { output: `error: ${result.error}` };
      return { output: blocksText(result.output.blocks ?? []), reward: result.output.reward ?? 0, done: result.output.finished === true };
    });
  },
  async close(ctx) {
    const session = ctx.sessions.get(ctx.sessionId);
    if (session) await remote(`ORS server ${ctx.config.base_url}`, "delete", () => ctx.resources.client.closeSession(session.sid));
    return {};
  },
});
