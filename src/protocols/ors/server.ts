// Any environment served as an Open Reward Standard server (issue 22, "Serve: ORS"), matched against
// openrewardstandard/python-sdk a399408 (src/ors/server.py, types.py, _reconnect.py), mounted under
// the gateway's `/ors` prefix and at its root (the reference client's aiohttp session takes only an
// origin: its base URL cannot carry a path), over the protocol-neutral episode (../episode.ts); the
// endpoint listed is the root. The environment is
// the one ORS environment of the server, named as its instance; its dataset rows are the tasks of one
// split, `test`. Routes as the reference server's:
//
//   GET  /health, /list_environments, /{env}/tools, /{env}/splits
//   POST /{env}/tasks, /{env}/num_tasks, /{env}/task, /{env}/task_range      ({split, …})
//   POST /create_session (server-sent events: `task_id` = the new session id, then `end`)
//   POST /create {env_name?, split+index | task_spec}, /delete, /delete_session, /ping  (X-Session-ID)
//   GET  /{env}/prompt, /{env}/task_tools                                               (X-Session-ID)
//   POST /{env}/call {name, input} → events `task_id`, then `end` (in 4096-character `chunk`s) with a
//        RunToolOutput: {ok: true, output: {blocks, metadata, reward, finished}} or {ok: false, error}
//
// The tools are the rows' function tools plus `submit_answer` {answer}, which scores the episode
// (a tool environment's /verify; a Gymnasium-style environment's step) with the reward inline and
// `finished: true`. A session's calls run one at a time (the episode serialises them). HTTP errors are
// FastAPI's `{"detail": "..."}`: 400 bad split/index or duplicate session, 404 unknown environment or
// session, 503 at capacity.
//
// Idle sessions: as the reference server's reaper (a session not pinged nor used for 900 s is deleted),
// with the timeout `--session-timeout S` gives (ProtocolSettings.sessionTimeout; 900 s when not given).
// A create, ping or any request naming the session counts as activity, and a session is not reaped
// while one of its requests runs. A request naming a reaped session gets the reference's 404 "Active
// environment not found", saying it timed out.
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { EnvironmentBridge, Episode, StepOutcome } from "../episode.js";
import { EpisodeError } from "../errors.js";
import type { ProtocolLayer, ProtocolMount } from "../gateway.js";
import { expiredText, IdleSessions } from "../idle.js";

export const ORS_COMMIT = "a399408";
export const ORS_SPLIT = "test";
export const SUBMIT_TOOL = "submit_answer";
const CHUNK = 4096;
/** The reference server's stale-session threshold (its reaper's `stale_threshold`), seconds. */
export const ORS_SESSION_TIMEOUT = 900;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown> | null;
}

const SUBMIT: ToolSpec = {
  name: SUBMIT_TOOL,
  description: "Give the final answer; the reward comes back with it and the episode finishes.",
  input_schema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
};

function toolSpecs(tools: unknown): ToolSpec[] {
  const specs: ToolSpec[] = [];
  for (const tool of Array.isArray(tools) ? tools : []) {
    if (!isRecord(tool) || tool.type !== "function" || typeof tool.name !== "string" || tool.name === SUBMIT_TOOL) continue;
    specs.push({ name: tool.name, description: typeof tool.description === "string" ? tool.description : "", input_schema: isRecord(tool.parameters) ? tool.parameters : null });
  }
  return specs;
}

/** Every tool of every row, once by name, then submit_answer. */
function allTools(bridge: EnvironmentBridge): ToolSpec[] {
  const byName = new Map<string, ToolSpec>();
  for (let i = 0; i < bridge.rows.size; i++) {
    const params = bridge.rows.at(i).responses_create_params;
    for (const spec of toolSpecs(isRecord(params) ? params.tools : undefined)) if (!byName.has(spec.name)) byName.set(spec.name, spec);
  }
  return [...byName.values(), SUBMIT];
}

/** A message's content as text: a string, or the text of its parts. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return JSON.stringify(content ?? "");
  return content.map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : "")).join("");
}

/** Python's slice of `size` items: start/stop may be negative or absent. */
export function sliceBounds(size: number, start: number | null | undefined, stop: number | null | undefined): [number, number] {
  const clamp = (value: number | null | undefined, fallback: number) => {
    if (value === null || value === undefined) return fallback;
    const v = value < 0 ? value + size : value;
    return Math.min(Math.max(v, 0), size);
  };
  return [clamp(start, 0), clamp(stop, size)];
}

interface Session {
  episode?: Episode;
  tools: ToolSpec[];
  /** A Gymnasium-style environment's observation at reset. */
  first?: string | null;
}

function sendEvents(reply: FastifyReply, events: Array<[string, string]>): FastifyReply {
  const body = events.map(([event, data]) => `event: ${event}\r\ndata: ${data}\r\n\r\n`).join("");
  return reply.code(200).header("cache-control", "no-cache").type("text/event-stream").send(body);
}

/** A result streamed as the reference server does: `task_id`, then `chunk`s, the last one `end`. */
function streamResult(reply: FastifyReply, taskId: string, result: string): FastifyReply {
  const events: Array<[string, string]> = [["task_id", taskId]];
  for (let i = 0; i < result.length; i += CHUNK) events.push([i + CHUNK >= result.length ? "end" : "chunk", result.slice(i, i + CHUNK)]);
  if (result.length === 0) events.push(["end", ""]);
  return sendEvents(reply, events);
}

function outcomeBlocks(outcome: StepOutcome): Array<Record<string, unknown>> {
  const texts = outcome.action === "answer" ? [outcome.observation ?? `reward: ${outcome.reward}`] : [outcome.output ?? "", ...(outcome.observation ? [outcome.observation] : [])];
  return texts.map((text) => ({ text, detail: null, type: "text" }));
}

function mount({ app, prefix, bridge, settings, onClose }: ProtocolMount): void {
  const sessions = new Map<string, Session>();
  const idle = IdleSessions.from<string>(
    settings,
    async (sid) => {
      const session = sessions.get(sid);
      sessions.delete(sid);
      await session?.episode?.close();
    },
    ORS_SESSION_TIMEOUT,
  );
  const detail = (reply: FastifyReply, status: number, message: string) => reply.code(status).send({ detail: message });
  const sidOf = (request: FastifyRequest) => {
    const header = request.headers["x-session-id"];
    return typeof header === "string" && header.trim() !== "" ? header.trim() : undefined;
  };
  /** The environment in the path, or a 404 as the reference server's. */
  const envOk = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const { env } = request.params as { env: string };
    if (env.toLowerCase() === bridge.name.toLowerCase()) return true;
    void detail(reply, 404, `unknown environment '${env}'`);
    return false;
  };
  const splitOk = (body: unknown, reply: FastifyReply): body is Record<string, unknown> => {
    if (!isRecord(body) || typeof body.split !== "string") {
      void reply.code(422).send({ detail: [{ type: "missing", loc: ["body", "split"], msg: "Field required" }] });
      return false;
    }
    if (body.split !== ORS_SPLIT) {
      void detail(reply, 400, "Invalid split");
      return false;
    }
    return true;
  };
  /** The reference server's 404 for a session it does not hold, saying so when it timed out. */
  const notFound = (reply: FastifyReply, sid: string) =>
    detail(reply, 404, idle.wasReaped(sid) && idle.timeout !== undefined ? `Active environment not found: session ${sid} was ${expiredText(idle.timeout)}; create a new one` : "Active environment not found");
  /** The live episode of the request's session (now active), or the reference server's 400/404. */
  const live = (request: FastifyRequest, reply: FastifyReply): Episode | undefined => {
    const sid = sidOf(request);
    if (!sid) return void detail(reply, 400, "X-Session-ID header is required"), undefined;
    const session = sessions.get(sid);
    if (!session?.episode) return void notFound(reply, sid), undefined;
    idle.touch(sid);
    return session.episode;
  };

  // The reference client (aiohttp with `base_url`) takes only an origin and asks for absolute paths,
  // so the same routes, over the same sessions, are served at the gateway's root as well as under the
  // prefix ("" and `/ors`).
  const routes = (app: FastifyInstance, base: string) => {
    app.get(`${base}/health`, async () => ({ status: "ok" }));
    app.get(`${base}/list_environments`, async () => [bridge.name.toLowerCase()]);
    app.get(`${base}/:env/tools`, async (request, reply) => (envOk(request, reply) ? { tools: allTools(bridge) } : reply));
    app.get(`${base}/:env/splits`, async (request, reply) => (envOk(request, reply) ? [{ name: ORS_SPLIT, type: ORS_SPLIT }] : reply));
    app.post(`${base}/:env/tasks`, async (request, reply) => {
      if (!envOk(request, reply) || !splitOk(request.body, reply)) return reply;
      return { tasks: Array.from({ length: bridge.rows.size }, (_, i) => bridge.rows.at(i)), env_name: (request.params as { env: string }).env };
    });
    app.post(`${base}/:env/num_tasks`, async (request, reply) => (envOk(request, reply) && splitOk(request.body, reply) ? { num_tasks: bridge.rows.size } : reply));
    app.post(`${base}/:env/task`, async (request, reply) => {
      if (!envOk(request, reply) || !splitOk(request.body, reply)) return reply;
      const index = (request.body as Record<string, unknown>).index;
      if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= bridge.rows.size) return detail(reply, 400, "Invalid index");
      return { task: bridge.rows.at(index as number) };
    });
    app.post(`${base}/:env/task_range`, async (request, reply) => {
      if (!envOk(request, reply) || !splitOk(request.body, reply)) return reply;
      const { start, stop } = request.body as { start?: number | null; stop?: number | null };
      if ((start != null && !Number.isInteger(start)) || (stop != null && !Number.isInteger(stop))) return detail(reply, 400, "Invalid index range");
      const [from, to] = sliceBounds(bridge.rows.size, start, stop);
      return { tasks: Array.from({ length: Math.max(0, to - from) }, (_, i) => bridge.rows.at(from + i)) };
    });

    app.post(`${base}/create_session`, async (_request, reply) => sendEvents(reply, [["task_id", randomUUID()], ["end", ""]]));
    app.post(`${base}/ping`, async (request, reply) => {
      const sid = sidOf(request);
      if (!sid) return detail(reply, 400, "X-Session-ID header is required");
      if (!sessions.has(sid)) return notFound(reply, sid);
      idle.touch(sid);
      return { status: "ok" };
    });
    app.post(`${base}/create`, async (request, reply) => {
      const sid = sidOf(request);
      if (!sid) return detail(reply, 400, "X-Session-ID header is required");
      if (sessions.has(sid)) return detail(reply, 400, "Session already exists");
      const body = isRecord(request.body) ? request.body : {};
      if (typeof body.env_name === "string" && body.env_name.toLowerCase() !== bridge.name.toLowerCase()) return detail(reply, 404, `unknown environment '${body.env_name}'`);
      const hasSpec = body.task_spec !== undefined && body.task_spec !== null;
      const hasIndex = body.split !== undefined && body.split !== null && body.index !== undefined && body.index !== null;
      if (hasSpec === hasIndex) return reply.code(422).send({ detail: [{ type: "value_error", loc: ["body"], msg: "Value error, Provide either task_spec or both split and index, not both/neither" }] });
      if (hasIndex && body.split !== ORS_SPLIT) return detail(reply, 400, "Invalid split");
      if (hasIndex && (!Number.isInteger(body.index) || (body.index as number) < 0 || (body.index as number) >= bridge.rows.size)) return detail(reply, 400, "Invalid index");
      if (hasSpec && !isRecord(body.task_spec)) return reply.code(422).send({ detail: [{ type: "dict_type", loc: ["body", "task_spec"], msg: "Input should be a valid dictionary" }] });
      if (sessions.size >= settings.maxSessions) return detail(reply, 503, `Server at capacity (${sessions.size}/${settings.maxSessions} sessions)`);
      const session: Session = { tools: [] };
      sessions.set(sid, session);
      idle.add(sid);
      const episode = bridge.episode();
      try {
        const observation = await idle.during(sid, () => episode.reset(hasSpec ? { row: body.task_spec as Record<string, unknown> } : { index: body.index as number }));
        session.episode = episode;
        session.tools = [...toolSpecs(observation.tools), SUBMIT];
        session.first = observation.text;
      } catch (error) {
        sessions.delete(sid);
        idle.remove(sid);
        await episode.close();
        if (error instanceof EpisodeError) return detail(reply, error.code === "environment_error" ? 502 : 400, error.message);
        throw error;
      }
      return { sid };
    });
    const remove = async (request: FastifyRequest) => {
      const sid = sidOf(request);
      const session = sid === undefined ? undefined : sessions.get(sid);
      if (sid !== undefined) {
        sessions.delete(sid);
        idle.remove(sid);
      }
      await session?.episode?.close();
      return { sid: sid ?? null };
    };
    app.post(`${base}/delete`, remove);
    app.post(`${base}/delete_session`, remove);

    app.get(`${base}/:env/task_tools`, async (request, reply) => {
      if (!envOk(request, reply) || !live(request, reply)) return reply;
      return { tools: sessions.get(sidOf(request)!)!.tools };
    });
    app.get(`${base}/:env/prompt`, async (request, reply) => {
      if (!envOk(request, reply)) return reply;
      const episode = live(request, reply);
      if (!episode) return reply;
      const row = episode.currentRow ?? {};
      const params = isRecord(row.responses_create_params) ? row.responses_create_params : {};
      const blocks: Array<Record<string, unknown>> = [];
      if (typeof params.instructions === "string") blocks.push({ text: params.instructions, detail: { role: "system" }, type: "text" });
      const input = typeof params.input === "string" ? [{ role: "user", content: params.input }] : Array.isArray(params.input) ? params.input : [];
      for (const item of input) if (isRecord(item) && typeof item.role === "string") blocks.push({ text: contentText(item.content), detail: { role: item.role }, type: "text" });
      // A Gymnasium-style environment's first observation follows the row's prompt.
      const first = sessions.get(sidOf(request)!)!.first;
      if (first) blocks.push({ text: first, detail: { role: "user" }, type: "text" });
      return blocks;
    });
    app.post(`${base}/:env/call`, async (request, reply) => {
      if (!envOk(request, reply)) return reply;
      const episode = live(request, reply);
      if (!episode) return reply;
      const body = isRecord(request.body) ? request.body : {};
      if (typeof body.name !== "string" || !isRecord(body.input)) {
        return reply.code(422).send({ detail: [{ type: "missing", loc: ["body", typeof body.name !== "string" ? "name" : "input"], msg: "Field required" }] });
      }
      const taskId = typeof body.task_id === "string" ? body.task_id : randomUUID().replaceAll("-", "");
      let result: Record<string, unknown>;
      try {
        if (body.name === SUBMIT_TOOL) {
          if (typeof body.input.answer !== "string") throw new EpisodeError("invalid_args", "submit_answer takes {answer: string}");
          const answer = body.input.answer;
          const outcome = await idle.during(sidOf(request)!, () => episode.submit(answer));
          result = { ok: true, output: { blocks: outcomeBlocks(outcome), metadata: outcome.verify ?? null, reward: outcome.reward, finished: outcome.done } };
        } else {
          const { name, input } = body;
          const outcome = await idle.during(sidOf(request)!, () => episode.callTool(name, input));
          const reward = bridge.kind === "gymnasium" ? outcome.reward : null;
          result = { ok: true, output: { blocks: outcomeBlocks(outcome), metadata: null, reward, finished: outcome.done } };
        }
      } catch (error) {
        if (!(error instanceof EpisodeError)) throw error;
        result = { ok: false, error: `${error.code}: ${error.message}` };
      }
      return streamResult(reply, taskId, JSON.stringify(result));
    });
  };
  // The reference client's aiohttp sends its body-less POSTs (/create_session, /delete, /ping, ...)
  // with `Content-Type: application/octet-stream`, which FastAPI ignores: in the ORS routes' own scope,
  // an empty body of any type is no body (a non-empty one of a type other than JSON is still a 415).
  void app.register(async (scope) => {
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => {
      if ((body as Buffer).length === 0) return done(null, undefined);
      done(Object.assign(new Error("Unsupported Media Type"), { statusCode: 415 }), undefined);
    });
    routes(scope, prefix);
    routes(scope, "");
  });

  onClose(async () => {
    idle.stop();
    await Promise.allSettled([...sessions.values()].map((s) => s.episode?.close()));
    sessions.clear();
  });
}

export const orsLayer: ProtocolLayer = {
  name: "ors",
  endpointPath: "",
  summary: `Open Reward Standard (openrewardstandard/python-sdk ${ORS_COMMIT}): sessions, tasks, prompt, tools, call with inline reward`,
  mount,
};
