// remote_agent: drives an agent service the user hosts elsewhere (NeMo Gym 07d6b0d
// responses_api_agents/remote_agent). The service answers `POST {agent_base_url}/v1/responses` with a
// Responses object; each `function_call` it returns without a matching `function_call_output` is
// a request for one of the environment's tools, which this agent runs against the resources server
// (on the rollout's session) and appends as a `function_call_output` before calling the service
// again with the grown conversation. Calls the service answered itself (paired call and output) pass
// through untouched. The loop ends on an assistant message with no unpaired call, on
// `incomplete_details`, or after `max_steps` calls; the environment's `/verify` then scores the whole
// conversation. The service never sees the resources server, its cookies or the row's other fields.
//
// `/run` never fails with an HTTP error for a rollout's own trouble: a service that is down, slow or
// answers nonsense, or a seed or verify that fails, comes back as a 200 with reward 0,
// `_ng_failure_class: "remote_agent_error"` and `error` saying what went wrong (and
// `_ng_failure_terminal: true` for a reply that is not a Responses object, which a retry would not
// mend), so the collector writes it to the failures file and `--resume` tries it again.
// At most `concurrency` rollouts run at once; `run_timeout_secs` bounds one rollout from the moment
// it gets its slot, `remote_responses_timeout_secs` one call to the service.
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { CookieJar, parseCookies, sessionCookie } from "../http/cookies.js";
import { HttpError, parseOr422 } from "../http/errors.js";
import type { InstanceContext, ServerImplementation } from "../http/implementation.js";
import { abortOnHangUp, sendJson } from "../http/reply.js";
import { asHttpApp, createServer, rolloutBodyLimit, sessionCookieName } from "../http/server.js";
import { Limiter } from "../judge/limiter.js";
import { asNemoGymCreateParams, asNemoGymResponse } from "../protocol/nemo_gym_models.js";
import { DataRow, ResponsesCreateParams, ServerRef, type ResponseObject } from "../protocol/index.js";
import { ROLLOUT_FLOATS } from "../protocol/python_json.js";
import { REMOTE_AGENT_FAILURE_CLASS, RemoteAgentError, RemoteAgentTerminalError, RemoteService, normalizeRemoteUrl } from "./remote_service.js";
import { EnvironmentClient } from "./upstream.js";
import { accumulateUsage } from "./usage.js";

export const RemoteAgentConfig = z.strictObject({
  /** The service's base URL; the agent posts to `<agent_base_url>/v1/responses`. */
  agent_base_url: z.string().transform((value, ctx) => {
    const result = normalizeRemoteUrl(value);
    if ("url" in result) return result.url;
    ctx.addIssue({ code: "custom", message: `agent_base_url ${result.error}` });
    return z.NEVER;
  }),
  resources_server: ServerRef.extend({ type: z.literal("resources_servers") }),
  /** Rollouts in flight against the service at once. */
  concurrency: z.number().int().min(1).default(32),
  /** Deadline of one call to the service, in seconds. */
  remote_responses_timeout_secs: z.number().positive().default(1800),
  /** Deadline of one whole rollout (seed, every loop step, verify), counted from when it gets its slot. */
  run_timeout_secs: z.number().positive().default(2100),
  /** Calls to the service per rollout; null (or 0) leaves run_timeout_secs as the only bound. */
  max_steps: z.number().int().nonnegative().nullable().default(null),
});
export type RemoteAgentConfig = z.infer<typeof RemoteAgentConfig>;

type Item = Record<string, unknown>;

/** NeMo Gym's bound on the `/aggregate_metrics` hop: a resources server that hangs at the end of a run must not hang the collector. */
const AGGREGATE_TIMEOUT_MS = 600_000;

/** Keys this agent writes itself: a row that carries them (a rollouts or failures file fed back as input) loses them first. */
const RESERVED_RESULT_KEYS = ["reward", "response", "error", "_ng_failure_class", "_ng_no_persist", "_ng_failure_terminal"];

export interface RemoteLoopIO {
  /** One call to the service's `/v1/responses`. */
  remote(body: Record<string, unknown>): Promise<ResponseObject>;
  /** The environment's `/<name>` with the parsed arguments; the reply body whatever its status. */
  tool(name: string, args: unknown): Promise<string>;
}

/** What the service gets back for arguments that are not JSON, laid out as Python's `json.dumps` would. */
function invalidArgumentsOutput(error: unknown): string {
  const reason = error instanceof Error ? `${error.name}(${JSON.stringify(error.message)})` : String(error);
  return `{"error": ${JSON.stringify(`Invalid tool call arguments: ${reason}`)}}`;
}

/**
 * The calls of one reply the service wants run: `function_call` items with no `function_call_output`
 * of the same `call_id` in the same reply. A repeated `call_id` is run once, with its last arguments,
 * in the place of its first occurrence.
 */
export function unpairedCalls(output: readonly Item[]): Item[] {
  const pending = new Map<unknown, Item>();
  const answered = new Set<unknown>();
  for (const item of output) {
    if (item.type === "function_call_output") {
      answered.add(item.call_id);
      pending.delete(item.call_id);
    } else if (item.type === "function_call" && !answered.has(item.call_id)) {
      pending.set(item.call_id, item);
    }
  }
  return [...pending.values()];
}

/**
 * The loop of one rollout. Returns the service's last reply with `output` = every item of the
 * conversation after the row's input (the service's items and the tool outputs, in order) and
 * `usage` summed over every call (null when the service reported none).
 */
export async function driveRemote(params: ResponsesCreateParams, io: RemoteLoopIO, maxSteps: number | null): Promise<ResponseObject> {
  // A string input becomes one user message, as NeMo Gym sends it (role and content only).
  const input: unknown[] = typeof params.input === "string" ? [{ role: "user", content: params.input }] : params.input;
  const produced: Item[] = [];
  let usage: ResponseObject["usage"] = null;
  let last: ResponseObject | undefined;
  for (let step = 1; ; step++) {
    const response = await io.remote({ ...params, input: [...input, ...produced] });
    last = response;
    const output = response.output as Item[];
    produced.push(...output);
    usage = accumulateUsage(usage, response.usage) ?? null;
    if (response.incomplete_details) break;

    const calls = unpairedCalls(output);
    const answered = output.some((item) => item.type === "message" && item.role === "assistant");
    if (calls.length === 0 && answered) break;
    // Not in NeMo Gym, which calls again: with nothing new, the next request would be this one again.
    if (output.length === 0) break;

    // In order: a later call may depend on the state an earlier one left behind.
    for (const call of calls) {
      let args: unknown;
      try {
        args = JSON.parse(String(call.arguments));
      } catch (error) {
        produced.push({ type: "function_call_output", call_id: call.call_id, output: invalidArgumentsOutput(error) });
        continue;
      }
      // An unknown tool or invalid arguments is an answer (the environment's 404 or 422 text) the service can react to.
      produced.push({ type: "function_call_output", call_id: call.call_id, output: await io.tool(String(call.name), args) });
    }
    if (maxSteps && step >= maxSteps) break;
  }
  return { ...last, output: produced as ResponseObject["output"], usage };
}

/** The response of a failed rollout: one empty assistant message, every field NeMo Gym's model dumps. */
const EMPTY_RESPONSE = asNemoGymResponse({
  id: "remote_agent_failure",
  created_at: 0.0,
  model: "remote_agent",
  object: "response",
  output: [{ type: "message", role: "assistant", status: "completed", id: "msg_0", content: [{ type: "output_text", text: "", annotations: [] }] }],
  parallel_tool_calls: false,
  tools: [],
  tool_choice: "auto",
});

class RunTimeout extends Error {
  constructor(seconds: number) {
    super(`/run exceeded run_timeout_secs=${seconds}s (seed + agent/tool loop + verify)`);
    this.name = "RunTimeout";
  }
}

function describe(error: unknown): string {
  if (error instanceof RemoteAgentError) return error.message;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function sanitized(row: Record<string, unknown>): Record<string, unknown> {
  const record = { ...row };
  for (const key of RESERVED_RESULT_KEYS) delete record[key];
  return record;
}

/**
 * A failed rollout as `/run` answers it: the row (its create params dumped as NeMo Gym's model dumps
 * them), reward 0, an empty response, the class and the reason.
 */
function failure(record: Record<string, unknown>, error: string, terminal = false): Record<string, unknown> {
  return {
    ...record,
    responses_create_params: asNemoGymCreateParams(record.responses_create_params),
    reward: 0.0,
    response: structuredClone(EMPTY_RESPONSE),
    _ng_failure_class: REMOTE_AGENT_FAILURE_CLASS,
    error,
    ...(terminal ? { _ng_failure_terminal: true } : {}),
  };
}

const implementation: ServerImplementation<RemoteAgentConfig> = {
  type: "responses_api_agents",
  id: "remote_agent",
  configSchema: RemoteAgentConfig,
  async build(context: InstanceContext<RemoteAgentConfig>) {
    const { config } = context;
    const app = createServer({ name: context.name });
    const carriesRollouts = { bodyLimit: rolloutBodyLimit() };
    const ownCookie = sessionCookieName(context.name);
    const slots = new Limiter(config.concurrency);
    const runTimeoutMs = config.run_timeout_secs * 1000;

    const environmentOf = (cookies: CookieJar, signal: AbortSignal, timeoutMs = runTimeoutMs) =>
      new EnvironmentClient({ name: config.resources_server.name, url: context.urlOf(config.resources_server), cookies, timeoutMs, signal });
    /** One conversation with the service; its cookies are this rollout's alone. */
    const loop = (params: ResponsesCreateParams, environment: EnvironmentClient, signal: AbortSignal) => {
      const service = new RemoteService({ baseUrl: config.agent_base_url, timeoutMs: config.remote_responses_timeout_secs * 1000, signal });
      return driveRemote(params, { remote: (body) => service.responses(body), tool: (name, args) => environment.tool(name, args) }, config.max_steps);
    };
    // The caller's cookies start the environment's jar, as NeMo Gym's agent forwards them.
    const jarOf = (request: FastifyRequest) => new CookieJar(parseCookies(request.headers.cookie));

    /** Seed, loop, verify; any failure comes back as a failure row, never thrown (unless the rollout was aborted). */
    const runOnce = async (record: Record<string, unknown>, cookies: CookieJar, signal: AbortSignal): Promise<string | Record<string, unknown>> => {
      const environment = environmentOf(cookies, signal);
      try {
        await environment.seedSession(record);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        return failure(record, `/seed_session on the resources server failed: ${describe(error)}`);
      }
      let response: ResponseObject;
      try {
        response = await loop(record.responses_create_params as ResponsesCreateParams, environment, signal);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        return failure(record, `agent loop failed: ${describe(error).slice(0, 500)}`, error instanceof RemoteAgentTerminalError);
      }
      try {
        // The environment's reply byte for byte: extras we do not know about reach the collector untouched.
        return await environment.verify({ ...record, response });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        return failure(record, `/verify on the resources server failed: ${describe(error)}`);
      }
    };

    app.post("/run", carriesRollouts, async (request, reply) => {
      parseOr422(DataRow, request.body);
      const record = sanitized(request.body as Record<string, unknown>);
      const hangUp = abortOnHangUp(reply.raw);
      const cookies = jarOf(request);
      const result = await slots.run(async () => {
        // The deadline starts with the slot: waiting for one does not count against it.
        const controller = new AbortController();
        const forward = () => controller.abort(hangUp.reason);
        if (hangUp.aborted) forward();
        else hangUp.addEventListener("abort", forward, { once: true });
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => {
            const error = new RunTimeout(config.run_timeout_secs);
            controller.abort(error);
            reject(error);
          }, runTimeoutMs);
        });
        const work = runOnce(record, cookies, controller.signal);
        // The race may settle first; the work's own end must not become an unhandled rejection.
        work.catch(() => undefined);
        try {
          return await Promise.race([work, deadline]);
        } catch (error) {
          if (error instanceof RunTimeout) return failure(record, error.message);
          return failure(record, `unexpected error: ${describe(error)}`);
        } finally {
          clearTimeout(timer);
          hangUp.removeEventListener("abort", forward);
        }
      });
      return typeof result === "string" ? reply.type("application/json").send(result) : sendJson(reply, result, ROLLOUT_FLOATS);
    });

    // The loop alone, for callers that seed and verify themselves; the environment's cookies come back.
    app.post("/v1/responses", carriesRollouts, async (request, reply) => {
      parseOr422(ResponsesCreateParams, request.body);
      const jar = jarOf(request);
      const hangUp = abortOnHangUp(reply.raw);
      let response: ResponseObject;
      try {
        response = await loop(request.body as ResponsesCreateParams, environmentOf(jar, hangUp), hangUp);
      } catch (error) {
        if (!(error instanceof RemoteAgentError)) throw error;
        throw new HttpError(502, error.message, { detail: error.message, failure_class: REMOTE_AGENT_FAILURE_CLASS });
      }
      for (const [name, value] of Object.entries(jar.toJSON())) {
        if (name !== ownCookie) reply.header("set-cookie", sessionCookie(name, value));
      }
      return sendJson(reply, response);
    });

    app.post("/aggregate_metrics", carriesRollouts, async (request, reply) => {
      const result = await environmentOf(jarOf(request), abortOnHangUp(reply.raw), AGGREGATE_TIMEOUT_MS).aggregateMetrics(request.body ?? {});
      return reply.code(result.status).type("application/json").send(result.text);
    });

    // The collector knows only this agent's URL, so the agent passes the question on.
    app.get("/aggregate_metrics_scope", async (request, reply) => {
      const result = await environmentOf(jarOf(request), abortOnHangUp(reply.raw), AGGREGATE_TIMEOUT_MS).aggregateMetricsScope();
      return reply.code(result.status).type("application/json").send(result.text);
    });

    return asHttpApp(app);
  },
};

export default implementation;
