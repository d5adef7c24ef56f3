// Any Gymkit-served environment as an OpenEnv server (matched against huggingface/OpenEnv 385de5eb,
// src/openenv/core/env_server/http_server.py `HTTPEnvServer.register_routes`), mounted under the
// gateway's `/openenv` prefix, so OpenEnv's clients take `<gateway>/openenv` as their base URL:
//
//  - `/ws` (WebSocket): one episode per connection; `reset` / `step` / `state` / `close` / `mcp`
//    messages answered with `observation` / `state` / `mcp` / `error` messages, errors with OpenEnv's
//    codes (INVALID_JSON, UNKNOWN_TYPE, VALIDATION_ERROR, EXECUTION_ERROR, CAPACITY_REACHED), never a
//    dropped connection. Past the concurrency cap a new connection gets CAPACITY_REACHED (with
//    active_sessions and max_sessions) and is closed, as OpenEnv does.
//  - HTTP `/reset`, `/step`, `/state` stateless as OpenEnv's are (each request its own episode, closed
//    after: a `/step` plays the row named by `row_index` / `seed` from its start), `/metadata`,
//    `/schema`, `/health`.
//  - `/mcp`: tools over MCP JSON-RPC (POST, and a WebSocket at the same path), with OpenEnv's session
//    methods `openenv/session/create` / `openenv/session/close` for state across HTTP calls.
//  - `/capacity` (Gymkit's): OpenEnv's ServerCapacityStatus, which OpenEnv keeps in-process only.
//  - Idle sessions (`session_timeout`, ProtocolSettings.sessionTimeout): as OpenEnv's reaper, every
//    quarter of the timeout (at least 5 s) a session whose last activity (a reset, a step or an MCP
//    request in it; not `state`) is older than the timeout is closed and its slot freed. Its connection
//    stays open, as OpenEnv's does: a later reset or step there is an EXECUTION_ERROR (OpenEnv runs it
//    on the closed environment), `state` still answers; an MCP HTTP session reaped is an unknown
//    session_id. Unlike OpenEnv, a session is not reaped while a request in it is still running. The
//    bookkeeping is the MCP and ORS layers' (IdleSessions, keyed by session id).
//
// Mapping onto the episode bridge: `reset` seeds an episode from a dataset row; a `step` takes OpenEnv's
// own MCP actions (`list_tools`, `call_tool`) or `submit_answer`, which runs /verify (or the
// Gymnasium step) and returns its reward with `done`. An unknown tool or refused arguments is a
// CallToolObservation carrying OpenEnv's ToolError (tool_not_found / invalid_args), as OpenEnv's MCP
// environments answer it; a step before reset, after the end or on a closed episode is an
// EXECUTION_ERROR naming the problem.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { randomUUID } from "node:crypto";
import type { FastifyReply } from "fastify";
import { WebSocketServer, type WebSocket } from "ws";
import { z } from "zod";
import { zodDetails } from "../../http/errors.js";
import type { FunctionTool } from "../../protocol/index.js";
import type { Episode, EpisodeObservation, EnvironmentBridge, StepOutcome } from "../episode.js";
import { EpisodeError } from "../errors.js";
import type { ProtocolLayer, ProtocolMount } from "../gateway.js";
import { expiredText, IdleSessions } from "../idle.js";
import {
  actionJsonSchema,
  GymkitAction,
  JSON_RPC,
  JsonRpcRequest,
  OBSERVATION_JSON_SCHEMA,
  ResetData,
  STATE_JSON_SCHEMA,
  StepRequest,
  WS_ERROR,
  WsMessage,
  type GymkitObservation,
  type OpenEnvTool,
} from "./types.js";

export const OPENENV_COMMIT = "385de5eb";

/** An OpenEnv reply body: observation fields, the reward and done beside them. */
interface ObservationReply {
  observation: GymkitObservation;
  reward: number | null;
  done: boolean;
}

const EMPTY: GymkitObservation = { messages: null, instructions: null, tools: null, row_index: null, text: null, tool_name: null, result: null, error: null, verify: null };

function openEnvTools(tools: readonly FunctionTool[]): OpenEnvTool[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description ?? "", input_schema: (tool.parameters as Record<string, unknown> | null | undefined) ?? { type: "object", properties: {} } }));
}

/** A tool's output as a value: JSON when it parses, else the text. */
function outputValue(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** One session: an episode and what its reset showed (its activity is kept by the service's IdleSessions). */
class Session {
  readonly id = randomUUID();
  episodeId: string | null = null;
  tools: FunctionTool[] | undefined;
  /** Its slot was given back (connection gone, closed, or reaped). */
  released = false;
  /** The idle timeout (seconds) it was reaped after, if it was (kept here, not in IdleSessions' bounded memory of reaped ids, for as long as its connection lasts). */
  reapedAfter: number | undefined;

  constructor(readonly episode: Episode) {}

  state(): Record<string, unknown> {
    const state = this.episode.state();
    return { episode_id: this.episodeId, step_count: state.step_count, environment: state.environment, status: state.status, row_index: state.row_index, total_reward: state.total_reward, done: state.done };
  }
}

/** The concurrency cap: sessions held at once (WebSocket connections and MCP HTTP sessions). */
class Capacity {
  active = 0;
  constructor(readonly max: number) {}

  tryAcquire(): boolean {
    if (this.active >= this.max) return false;
    this.active += 1;
    return true;
  }

  release(): void {
    this.active = Math.max(0, this.active - 1);
  }

  status(): { active_sessions: number; max_sessions: number } {
    return { active_sessions: this.active, max_sessions: this.max };
  }

  message(): string {
    return `Server at capacity: ${this.active}/${this.max} sessions active. Cannot accept new connections.`;
  }
}

function rowSelection(data: ResetData, bridge: EnvironmentBridge): { index?: number; row?: Record<string, unknown> } {
  if (data.row !== undefined && data.row !== null) return { row: data.row };
  if (data.row_index !== undefined && data.row_index !== null) return { index: data.row_index };
  if (data.seed !== undefined && data.seed !== null && bridge.rows.size > 0) return { index: data.seed % bridge.rows.size };
  return {};
}

function resetObservation(observation: EpisodeObservation): ObservationReply {
  return {
    observation: { ...EMPTY, messages: observation.messages, instructions: observation.instructions, tools: openEnvTools(observation.tools), row_index: observation.row_index, text: observation.text },
    reward: null,
    done: false,
  };
}

function stepReply(outcome: StepOutcome, toolName: string | null): ObservationReply {
  return {
    observation: { ...EMPTY, text: outcome.observation, tool_name: toolName, result: toolName === null ? null : outputValue(outcome.output), verify: outcome.verify ?? null },
    reward: outcome.reward,
    done: outcome.done,
  };
}

/** The protocol's behaviour, shared by the WebSocket and HTTP faces. */
class OpenEnvService {
  readonly capacity: Capacity;
  /** MCP sessions created over HTTP (openenv/session/create), by id. */
  readonly mcpSessions = new Map<string, Session>();
  /** Every session holding a slot (WebSocket connections and MCP HTTP sessions), by id. */
  private readonly held = new Map<string, Session>();
  private allTools: FunctionTool[] | undefined;
  /** Last activity and running requests of every held session; reaps the idle ones (OpenEnv's _reap_idle_sessions). */
  private readonly idle: IdleSessions<string>;

  constructor(
    readonly bridge: EnvironmentBridge,
    maxSessions: number,
    sessionTimeout?: number,
    reapEvery?: number,
  ) {
    this.capacity = new Capacity(maxSessions);
    this.idle = new IdleSessions<string>(
      sessionTimeout,
      (id) => {
        const session = this.held.get(id);
        if (!session) return;
        session.reapedAfter = sessionTimeout;
        this.release(session);
      },
      reapEvery,
    );
  }

  /** A new session holding a slot, or undefined at the cap. */
  acquire(): Session | undefined {
    if (!this.capacity.tryAcquire()) return undefined;
    const session = this.newSession();
    this.held.set(session.id, session);
    this.idle.add(session.id);
    return session;
  }

  /** A reset, a step or an MCP request in the session went through: it is active now. */
  touch(session: Session): void {
    this.idle.touch(session.id);
  }

  /** Runs `work` as a request in the session: it is not reaped while it runs (the request's kind decides whether it counts as activity). */
  during<T>(session: Session, work: () => Promise<T>): Promise<T> {
    return this.idle.holding(session.id, work);
  }

  /** Gives the session's slot back and closes its episode (once). */
  release(session: Session): void {
    if (session.released) return;
    session.released = true;
    this.held.delete(session.id);
    this.idle.remove(session.id);
    this.mcpSessions.delete(session.id);
    this.capacity.release();
    void session.episode.close().catch(() => undefined);
  }

  /** Tools of every row (by name, first seen wins): what a session that has not been reset lists. */
  toolsOfAllRows(): FunctionTool[] {
    if (this.allTools) return this.allTools;
    const byName = new Map<string, FunctionTool>();
    for (let i = 0; i < this.bridge.rows.size; i++) {
      const params = this.bridge.rows.at(i).responses_create_params as { tools?: unknown[] } | undefined;
      for (const tool of params?.tools ?? []) {
        const t = tool as FunctionTool;
        if (t && t.type === "function" && typeof t.name === "string" && !byName.has(t.name)) byName.set(t.name, t);
      }
    }
    this.allTools = [...byName.values()];
    return this.allTools;
  }

  newSession(): Session {
    return new Session(this.bridge.episode());
  }

  async reset(session: Session, data: ResetData): Promise<ObservationReply> {
    const observation = await session.episode.reset(rowSelection(data, this.bridge));
    session.episodeId = data.episode_id ?? randomUUID();
    session.tools = observation.tools;
    return resetObservation(observation);
  }

  async step(session: Session, action: GymkitAction): Promise<ObservationReply> {
    switch (action.type) {
      case "list_tools":
        return { observation: { ...EMPTY, tools: openEnvTools(session.tools ?? this.toolsOfAllRows()) }, reward: null, done: false };
      case "call_tool":
        try {
          return stepReply(await session.episode.callTool(action.tool_name, action.arguments), action.tool_name);
        } catch (error) {
          // OpenEnv's MCP environments answer these in the observation (CallToolObservation.error).
          if (error instanceof EpisodeError && (error.code === "unknown_tool" || error.code === "invalid_args")) {
            const errorType = error.code === "unknown_tool" ? "tool_not_found" : "invalid_args";
            return { observation: { ...EMPTY, tool_name: action.tool_name, error: { error_type: errorType, message: error.message } }, reward: null, done: false };
          }
          throw error;
        }
      case "submit_answer":
        return stepReply(await session.episode.submit(action.answer), null);
    }
  }

  metadata(): Record<string, unknown> {
    return {
      name: this.bridge.name,
      description: this.bridge.options.description ?? `${this.bridge.name}, a Gymkit environment served over OpenEnv`,
      readme_content: null,
      version: null,
      author: null,
      documentation_url: null,
    };
  }

  /** One JSON-RPC request (OpenEnv's mcp_handler): tools/list, tools/call and its session methods. */
  async mcp(request: JsonRpcRequest, session?: Session): Promise<Record<string, unknown>> {
    const id = request.id ?? null;
    const ok = (result: unknown) => ({ jsonrpc: "2.0", id, result });
    const fail = (code: number, message: string, data: unknown = null) => ({ jsonrpc: "2.0", id, error: { code, message, data } });
    const params = request.params;
    if (typeof params !== "object" || params === null || Array.isArray(params)) return fail(JSON_RPC.INVALID_PARAMS, "Params must be an object");
    const p = params as Record<string, unknown>;
    try {
      switch (request.method) {
        case "openenv/session/create": {
          if (session) return ok({ session_id: session.id });
          const reset = ResetData.safeParse(p);
          if (!reset.success) return fail(JSON_RPC.INVALID_PARAMS, `Invalid params - ${reset.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
          const created = this.acquire();
          if (!created) return fail(JSON_RPC.SERVER_ERROR, this.capacity.message(), this.capacity.status());
          try {
            await this.during(created, () => this.reset(created, reset.data));
          } catch (error) {
            this.release(created);
            throw error;
          }
          this.touch(created);
          this.mcpSessions.set(created.id, created);
          return ok({ session_id: created.id });
        }
        case "openenv/session/close": {
          const target = p.session_id;
          if (typeof target !== "string" || target === "") return fail(JSON_RPC.INVALID_PARAMS, "Invalid params - 'session_id' is required");
          if (session && target === session.id) return fail(JSON_RPC.INVALID_REQUEST, "Cannot close active WebSocket-managed session via MCP method");
          const found = this.mcpSessions.get(target);
          if (!found) return fail(JSON_RPC.INVALID_PARAMS, `Unknown session_id: ${target}`);
          this.release(found);
          await found.episode.close();
          return ok({ session_id: target, closed: true });
        }
        case "tools/list": {
          const target = this.sessionFor(p, session);
          if (target === "unknown") return fail(JSON_RPC.INVALID_PARAMS, `Unknown session_id: ${String(p.session_id)}`);
          const tools = target?.tools ?? this.toolsOfAllRows();
          return ok({ tools: tools.map((t) => ({ name: t.name, description: t.description ?? "", inputSchema: t.parameters ?? { type: "object", properties: {} } })) });
        }
        case "tools/call": {
          const name = p.name;
          if (typeof name !== "string" || name === "") return fail(JSON_RPC.INVALID_PARAMS, "Missing 'name' in params");
          const target = this.sessionFor(p, session);
          if (target === "unknown") return fail(JSON_RPC.INVALID_PARAMS, `Unknown session_id: ${String(p.session_id)}`);
          const args = p.arguments ?? {};
          let outcome: StepOutcome;
          if (target) {
            outcome = await this.during(target, () => target.episode.callTool(name, args));
          } else {
            // Stateless, as OpenEnv's temporary environment: a fresh episode on the row asked for (or the next).
            const temporary = this.newSession();
            try {
              await this.reset(temporary, ResetData.parse({ row_index: typeof p.row_index === "number" ? p.row_index : undefined }));
              outcome = await temporary.episode.callTool(name, args);
            } finally {
              await temporary.episode.close();
            }
          }
          const text = outcome.output ?? "";
          const structured = outputValue(outcome.output);
          return ok({ content: [{ type: "text", text }], ...(typeof structured === "object" && structured !== null && !Array.isArray(structured) ? { structuredContent: structured } : {}), isError: false });
        }
        default:
          return fail(JSON_RPC.METHOD_NOT_FOUND, `Method not found: ${request.method}`);
      }
    } catch (error) {
      if (error instanceof EpisodeError && error.code === "unknown_tool") return fail(JSON_RPC.INVALID_PARAMS, `Tool not found: ${String(p.name)}`);
      if (error instanceof EpisodeError && (error.code === "invalid_args" || error.code === "bad_row")) return fail(JSON_RPC.INVALID_PARAMS, error.message);
      return fail(JSON_RPC.INTERNAL_ERROR, reapedMessage(session ?? this.sessionFor(p, undefined), error) ?? (error instanceof Error ? error.message : String(error)));
    } finally {
      // As OpenEnv's mcp_handler: any request in a session counts as its activity.
      const target = this.sessionFor(p, session);
      if (typeof target === "object") this.touch(target);
    }
  }

  private sessionFor(params: Record<string, unknown>, session: Session | undefined): Session | undefined | "unknown" {
    if (session) return session;
    const requested = params.session_id;
    if (typeof requested !== "string" || requested === "") return undefined;
    return this.mcpSessions.get(requested) ?? "unknown";
  }

  async closeAll(): Promise<void> {
    this.idle.stop();
    const sessions = [...this.mcpSessions.values()];
    this.mcpSessions.clear();
    await Promise.allSettled(sessions.map((s) => s.episode.close()));
  }
}

/** What a reaped session's failed request says instead of "closed" (undefined for anything else). */
function reapedMessage(session: Session | "unknown" | undefined, error: unknown): string | undefined {
  if (typeof session !== "object" || session.reapedAfter === undefined || !(error instanceof EpisodeError) || error.code !== "closed") return undefined;
  return `the session was ${expiredText(session.reapedAfter)}; open a new one`;
}

/** An EpisodeError (or anything thrown) as OpenEnv's WebSocket error data. */
function executionError(error: unknown, session?: Session): Record<string, unknown> {
  if (error instanceof EpisodeError) return { message: reapedMessage(session, error) ?? error.message, code: WS_ERROR.EXECUTION_ERROR, reason: error.code };
  return { message: error instanceof Error ? error.message : String(error), code: WS_ERROR.EXECUTION_ERROR };
}

function send(socket: WebSocket, message: unknown): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}

const validationError = (error: z.ZodError) => ({ type: "error", data: { message: "Invalid message", code: WS_ERROR.VALIDATION_ERROR, errors: zodDetails(error, []) } });

/** Runs each piece of work after the one before (a connection's messages in arrival order); a failure goes to `onError`. */
function serially(onError: (error: unknown) => void): (work: () => Promise<void>) => void {
  let queue: Promise<void> = Promise.resolve();
  return (work) => {
    queue = queue.then(work).catch(onError);
  };
}

/** A message checked by its schema, then its `data` by the payload's: the value, or the first failure. */
function payloadOf<T>(message: z.ZodType<{ data: unknown }>, payload: z.ZodType<T>, value: unknown): { ok: true; value: T } | { ok: false; error: z.ZodError } {
  const outer = message.safeParse(value);
  if (!outer.success) return { ok: false, error: outer.error };
  const inner = payload.safeParse(outer.data.data);
  return inner.success ? { ok: true, value: inner.data } : { ok: false, error: inner.error };
}

/**
 * A connection's session, counted against the cap until the socket closes; past the cap the socket
 * gets `refusal()` and is closed (OpenEnv's SessionCapacityError), and there is no session.
 */
function holdSession(service: OpenEnvService, socket: WebSocket, refusal: () => unknown): { session: Session; end(): void; ended(): boolean } | undefined {
  const session = service.acquire();
  if (!session) {
    send(socket, refusal());
    socket.close();
    return undefined;
  }
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    service.release(session);
  };
  socket.on("close", end);
  socket.on("error", end);
  return { session, end, ended: () => ended };
}

/** One `/ws` connection: its session, messages handled one at a time in arrival order. */
function serveConnection(service: OpenEnvService, socket: WebSocket): void {
  const held = holdSession(service, socket, () => ({ type: "error", data: { message: service.capacity.message(), code: WS_ERROR.CAPACITY_REACHED, ...service.capacity.status() } }));
  if (!held) return;
  const { session, end } = held;
  // Anything not answered as a message error ends the session as OpenEnv's does (SESSION_ERROR), never the process.
  const inOrder = serially((error) => {
    send(socket, { type: "error", data: { message: error instanceof Error ? error.message : String(error), code: WS_ERROR.SESSION_ERROR } });
    socket.close();
  });
  socket.on("message", (raw, isBinary) => {
    inOrder(async () => {
      if (held.ended()) return;
      const reply = await service.during(session, () => handleMessage(service, session, isBinary ? (raw as Buffer).toString("utf8") : String(raw)));
      if (reply === "close") {
        end();
        socket.close();
        return;
      }
      send(socket, reply);
    });
  });
}

async function handleMessage(service: OpenEnvService, session: Session, text: string): Promise<unknown> {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (error) {
    return { type: "error", data: { message: `Invalid JSON: ${(error as Error).message}`, code: WS_ERROR.INVALID_JSON } };
  }
  const type = typeof message === "object" && message !== null && !Array.isArray(message) ? (message as Record<string, unknown>).type : undefined;
  // A reset or step that went through is the session's activity (OpenEnv's _update_session_activity).
  const active = <T>(value: T): T => {
    service.touch(session);
    return value;
  };
  try {
    switch (type) {
      case "reset": {
        const data = payloadOf(WsMessage.reset, ResetData, message);
        return data.ok ? { type: "observation", data: active(await service.reset(session, data.value)) } : validationError(data.error);
      }
      case "step": {
        const action = payloadOf(WsMessage.step, GymkitAction, message);
        return action.ok ? { type: "observation", data: active(await service.step(session, action.value)) } : validationError(action.error);
      }
      case "state": {
        const parsed = WsMessage.state.safeParse(message);
        if (!parsed.success) return validationError(parsed.error);
        return { type: "state", data: session.state() };
      }
      case "close": {
        const parsed = WsMessage.close.safeParse(message);
        if (!parsed.success) return validationError(parsed.error);
        return "close";
      }
      case "mcp": {
        const parsed = WsMessage.mcp.safeParse(message);
        if (!parsed.success) return validationError(parsed.error);
        const request = JsonRpcRequest.safeParse(parsed.data.data);
        const reply = request.success
          ? await service.mcp(request.data, session)
          : { jsonrpc: "2.0", id: null, error: { code: JSON_RPC.INVALID_REQUEST, message: `Invalid request: ${request.error.issues.map((i) => `${i.path.join(".") || "(request)"}: ${i.message}`).join("; ")}`, data: null } };
        return { type: "mcp", data: reply };
      }
      default:
        return { type: "error", data: { message: `Unknown message type: ${typeof type === "string" ? type : ""}`, code: WS_ERROR.UNKNOWN_TYPE } };
    }
  } catch (error) {
    return { type: "error", data: executionError(error, session) };
  }
}

/** An EpisodeError over stateless HTTP: FastAPI's `{"detail": ...}` with the status that fits it. */
function httpError(reply: FastifyReply, error: unknown): FastifyReply {
  if (!(error instanceof EpisodeError)) throw error;
  const status = error.code === "environment_error" ? 502 : error.code === "bad_row" || error.code === "invalid_args" ? 422 : 409;
  return reply.code(status).send({ detail: error.message, code: error.code });
}

function mount({ app, prefix, bridge, settings, onUpgrade, onClose }: ProtocolMount): void {
  const service = new OpenEnvService(bridge, settings.maxSessions, settings.sessionTimeout, settings.reapEvery);
  const bodyError = (reply: FastifyReply, error: z.ZodError) => reply.code(422).send({ detail: zodDetails(error, ["body"]) });

  app.post(`${prefix}/reset`, async (request, reply) => {
    const data = ResetData.safeParse(request.body ?? {});
    if (!data.success) return bodyError(reply, data.error);
    const session = service.newSession();
    try {
      return await service.reset(session, data.data);
    } catch (error) {
      return httpError(reply, error);
    } finally {
      await session.episode.close();
    }
  });

  app.post(`${prefix}/step`, async (request, reply) => {
    const body = StepRequest.safeParse(request.body);
    if (!body.success) return bodyError(reply, body.error);
    const action = GymkitAction.safeParse(body.data.action);
    if (!action.success) return reply.code(422).send({ detail: zodDetails(action.error, ["body", "action"]) });
    const session = service.newSession();
    try {
      await service.reset(session, body.data);
      return await service.step(session, action.data);
    } catch (error) {
      return httpError(reply, error);
    } finally {
      await session.episode.close();
    }
  });

  // Stateless as OpenEnv's: a fresh environment's state.
  app.get(`${prefix}/state`, async () => ({ episode_id: null, step_count: 0, environment: bridge.name, status: "idle", row_index: null, total_reward: 0, done: false }));
  app.get(`${prefix}/metadata`, async () => service.metadata());
  app.get(`${prefix}/health`, async () => ({ status: "healthy" }));
  app.get(`${prefix}/capacity`, async () => service.capacity.status());
  const schema = { action: actionJsonSchema(), observation: OBSERVATION_JSON_SCHEMA, state: STATE_JSON_SCHEMA };
  app.get(`${prefix}/schema`, async () => schema);

  app.post(`${prefix}/mcp`, async (request) => {
    const parsed = JsonRpcRequest.safeParse(request.body);
    if (request.body === undefined || typeof request.body !== "object") return { jsonrpc: "2.0", id: null, error: { code: JSON_RPC.PARSE_ERROR, message: "Parse error", data: null } };
    if (!parsed.success) return { jsonrpc: "2.0", id: null, error: { code: JSON_RPC.INVALID_REQUEST, message: `Invalid request: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(request)"}: ${i.message}`).join("; ")}`, data: null } };
    return service.mcp(parsed.data);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  onUpgrade(`${prefix}/ws`, (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(request, socket, head, (ws) => serveConnection(service, ws));
  });
  onUpgrade(`${prefix}/mcp`, (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(request, socket, head, (ws) => serveMcpConnection(service, ws));
  });
  onClose(async () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
    await service.closeAll();
  });
}

/** `/mcp` over WebSocket: one session per connection, JSON-RPC in and out. */
function serveMcpConnection(service: OpenEnvService, socket: WebSocket): void {
  const held = holdSession(service, socket, () => ({ jsonrpc: "2.0", id: null, error: { code: JSON_RPC.SERVER_ERROR, message: service.capacity.message(), data: service.capacity.status() } }));
  if (!held) return;
  const { session } = held;
  let ready: Promise<unknown> | undefined;
  const inOrder = serially((error) => {
    send(socket, { jsonrpc: "2.0", id: null, error: { code: JSON_RPC.SERVER_ERROR, message: error instanceof Error ? error.message : String(error), data: null } });
    socket.close();
  });
  socket.on("message", (raw) => {
    inOrder(async () => {
      if (held.ended()) return;
      // The connection's episode starts on the next row the first time a tool needs it.
      ready ??= service.reset(session, {}).catch((error: unknown) => error);
      let request: unknown;
      try {
        request = JSON.parse(String(raw));
      } catch (error) {
        return send(socket, { jsonrpc: "2.0", id: null, error: { code: JSON_RPC.PARSE_ERROR, message: `Parse error: ${(error as Error).message}`, data: null } });
      }
      const parsed = JsonRpcRequest.safeParse(request);
      if (!parsed.success) return send(socket, { jsonrpc: "2.0", id: null, error: { code: JSON_RPC.INVALID_REQUEST, message: "Invalid request", data: null } });
      await ready;
      send(socket, await service.during(session, () => service.mcp(parsed.data, session)));
    });
  });
}

export const openEnvLayer: ProtocolLayer = {
  name: "openenv",
  summary: `OpenEnv (huggingface/OpenEnv ${OPENENV_COMMIT}): WebSocket /ws, HTTP /reset /step /state /metadata /schema /health, tools at /mcp`,
  mount,
};
