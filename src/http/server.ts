// The one HTTP server factory every Gymkit server (head, environment, agent, model, sandbox, viewer)
// is built with: health at `GET /`, per-route body limits (limits.ts) answered with a 413 naming the
// limit, a deadline for receiving each request (slow clients are cut; slow answers are not), the
// DNS-rebinding Host check (host_check.ts), a 400 for JSON nested too deep, FastAPI-compatible 422s,
// error handling that answers 500 and never takes the process down, and session cookies.
import { randomUUID } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { jsonDepthBeyond, tooDeepMessage } from "../protocol/json_depth.js";
import { HttpApp, type ListenOptions } from "./app.js";
import { HttpError, RequestValidationError } from "./errors.js";
import { cookieOf, sessionCookie } from "./cookies.js";
import { hostAllowed, hostRefusedMessage } from "./host_check.js";
import { inProcessBodyText, prepareInProcess, registerInProcess } from "./inprocess.js";
import { BODY_LIMIT_ENV, formatBytes, requestTimeoutMs, rolloutBodyLimit, SMALL_BODY_LIMIT } from "./limits.js";
import { sendJson } from "./reply.js";

export { rolloutBodyLimit, SMALL_BODY_LIMIT } from "./limits.js";
export type { ListenOptions } from "./app.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Per-rollout session id, from this server's session cookie or freshly minted. */
    sessionId: string;
  }
}

export interface ServerOptions {
  /** Instance name; names the session cookie so servers sharing a host do not clobber each other. */
  name: string;
  /** Default body limit of this server's routes (a route may set its own); SMALL_BODY_LIMIT if omitted. */
  bodyLimit?: number;
  /** Milliseconds to receive a whole request; `GYM_REQUEST_TIMEOUT_S` (60 s) if omitted. */
  requestTimeoutMs?: number;
}

export function sessionCookieName(serverName: string): string {
  return `gymkit___${serverName.replace(/[^A-Za-z0-9_.-]/g, "_")}`;
}

/** Node checks request deadlines on a timer, so a slow client is cut between timeout and timeout + this. */
function deadlineCheckInterval(timeoutMs: number): number {
  return Math.min(30_000, Math.max(250, Math.floor(timeoutMs / 4)));
}

/** Compiler factory for route schemas, which Gymkit's servers do not use: a route that declares one fails at registration. */
function noRouteSchemas(): () => never {
  return () => {
    throw new Error("Gymkit's servers validate request bodies with zod (parseOr422); Fastify route schemas are not compiled");
  };
}

export function createServer(options: ServerOptions): FastifyInstance {
  const timeoutMs = options.requestTimeoutMs ?? requestTimeoutMs();
  // Read once here, so a bad GYM_MAX_BODY_MB fails at start-up, not on the first large request.
  const rolloutLimit = rolloutBodyLimit();
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? SMALL_BODY_LIMIT,
    // Keep-alive clients (our own pool) reuse sockets; do not let idle ones pile up forever.
    keepAliveTimeout: 65_000,
    forceCloseConnections: true,
    // Deadlines for *receiving* a request (headers, then the whole body): a client that never finishes
    // sending is cut with a 408. Once a request has arrived, answering it may take as long as it takes
    // (a rollout, an NDJSON stream); idle sockets are not timed out for the same reason.
    requestTimeout: timeoutMs,
    http: { headersTimeout: timeoutMs, requestTimeout: timeoutMs, connectionsCheckingInterval: deadlineCheckInterval(timeoutMs) },
    // Gymkit's routes validate with zod and declare no Fastify schemas. Left to its defaults, Fastify
    // loads ajv and fast-json-stringify for every app anyway (about 100 ms of CPU at every start-up).
    schemaController: { compilersFactory: { buildValidator: noRouteSchemas, buildSerializer: noRouteSchemas } },
  });
  const cookieName = sessionCookieName(options.name);
  // Calls from this same process reach the app without a socket once it listens (inprocess.ts).
  prepareInProcess(app);

  // Plain JSON.parse: Fastify's default parser scans for prototype poisoning, which costs a few percent
  // per hop; we never merge request bodies into prototypes (spread and JSON.parse make own properties).
  // An empty body parses as undefined (NeMo Gym's argument-less tools accept one); routes decide.
  // The body arrives as bytes and becomes text here, inside the try: no body can throw where nobody catches.
  app.removeContentTypeParser("application/json");
  // An in-process request hands over the text its bytes were made from (inprocess.ts): no decoding.
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    const fail = (statusCode: number, message: string) => done(Object.assign(new Error(message), { statusCode }), undefined);
    let text: string;
    try {
      text = inProcessBodyText(request.raw, body as Buffer) ?? (body as Buffer).toString("utf8");
    } catch (error) {
      return fail(413, `request body cannot be read as text: ${(error as Error).message}`);
    }
    if (text.trim() === "") return done(null, undefined);
    // Deep nesting parses fine and then overflows the stack of every recursive walk after it (a 500).
    if (jsonDepthBeyond(text) !== undefined) return fail(400, `request body is not acceptable: ${tooDeepMessage()}`);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      fail(400, `request body is not valid JSON: ${(error as Error).message}`);
    }
  });
  app.decorateRequest("sessionId", "");

  // First hook of every request, before any route or parser runs: the Host check (host_check.ts),
  // then the session. One callback hook, not two async ones: an async hook costs a promise and a
  // microtask turn per request, on every hop.
  let boundAddress: string | undefined;
  app.addHook("onRequest", (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    if (boundAddress === undefined) {
      const address = app.server.address();
      if (address && typeof address !== "string") boundAddress = address.address;
    }
    if (boundAddress !== undefined && !hostAllowed(boundAddress, request.headers.host)) return done(new HttpError(403, hostRefusedMessage(request.headers.host)));
    const existing = cookieOf(request.headers.cookie, cookieName);
    request.sessionId = existing || randomUUID();
    // Set on every response, as NeMo Gym's session middleware does.
    reply.header("set-cookie", sessionCookie(cookieName, request.sessionId));
    done();
  });

  app.get("/", async () => ({ status: "ok" }));

  app.setErrorHandler((error: unknown, request, reply) => {
    if (error instanceof RequestValidationError) return reply.code(422).send({ detail: error.detail });
    if (error instanceof HttpError) return reply.code(error.statusCode).send(error.body ?? { detail: error.message });
    const fastifyError = error as { statusCode?: number; message?: string; code?: string };
    if (fastifyError.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      const limit = request.routeOptions.bodyLimit ?? SMALL_BODY_LIMIT;
      const knob = limit === rolloutLimit ? `; set ${BODY_LIMIT_ENV} (MiB) to raise it` : "";
      // The connection stays open and the rest of the body is read and dropped (memory stays flat; the
      // request deadline still bounds it): closing with unread data would reset the connection, and
      // the client would lose this answer.
      return reply.code(413).send({ detail: `request body is larger than the ${formatBytes(limit)} limit of ${request.method} ${request.routeOptions.url ?? request.url}${knob}` });
    }
    if (fastifyError.statusCode && fastifyError.statusCode < 500) {
      // Body parse errors, too-large bodies: the client's fault, say so.
      return reply.code(fastifyError.statusCode).send({ detail: fastifyError.message ?? String(error) });
    }
    // Like NeMo Gym: a 500 whose JSON body is the error as a string.
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return sendJson(reply.code(500), message);
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ detail: `Not Found: ${request.method} ${request.url}` });
  });

  return app;
}

/** Starts listening and returns the base URL (`http://host:port`). Binds 127.0.0.1 unless told otherwise. */
export async function listen(server: FastifyInstance | HttpApp, options: ListenOptions = {}): Promise<string> {
  const app = server instanceof HttpApp ? fastifyOf(server) : server;
  const host = options.host ?? "127.0.0.1";
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("server did not bind a TCP port");
  const shownHost = host.includes(":") ? `[${host}]` : host;
  const origin = `http://${shownHost}:${address.port}`;
  registerInProcess(app, origin);
  return origin;
}

/** The Fastify app behind each HttpApp this module made; a WeakMap so the public class never names Fastify. */
const fastifyApps = new WeakMap<HttpApp, FastifyInstance>();

/** Wraps a built Fastify app as the framework-free HttpApp that `ServerImplementation.build()` returns. */
export function asHttpApp(app: FastifyInstance): HttpApp {
  const wrapped = new HttpApp({
    listen: (options) => listen(app, options),
    close: () => app.close(),
    onClose: (hook) => {
      app.addHook("onClose", async () => hook());
    },
  });
  fastifyApps.set(wrapped, app);
  return wrapped;
}

/** The Fastify app behind an HttpApp, for Gymkit's own code that adds routes or hooks (e.g. orchestrate/start.ts). */
export function fastifyOf(app: HttpApp): FastifyInstance {
  const fastify = fastifyApps.get(app);
  if (!fastify) throw new Error("this server was not built by Gymkit's createServer (use defineEnvironment to make one)");
  return fastify;
}
