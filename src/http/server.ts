// The one HTTP server factory every Gymkit server (head, environment, agent, model) is built with:
// health at `GET /`, a body limit large enough for rollouts carrying token ids, FastAPI-compatible
// 422s, error handling that answers 500 and never takes the process down, and session cookies.
import { randomUUID } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { HttpError, RequestValidationError } from "./errors.js";
import { parseCookies, sessionCookie } from "./cookies.js";

/** Rollouts with token ids for long multi-turn conversations run to tens of MiB; Fastify's default is 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024 * 1024;

declare module "fastify" {
  interface FastifyRequest {
    /** Per-rollout session id, from this server's session cookie or freshly minted. */
    sessionId: string;
  }
}

export interface ServerOptions {
  /** Instance name; names the session cookie so servers sharing a host do not clobber each other. */
  name: string;
  bodyLimit?: number;
}

export interface ListenOptions {
  host?: string;
  /** 0 (or omitted) picks a free port. */
  port?: number;
}

export function sessionCookieName(serverName: string): string {
  return `gymkit___${serverName.replace(/[^A-Za-z0-9_.-]/g, "_")}`;
}

export function createServer(options: ServerOptions): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    // Keep-alive clients (our own pool) reuse sockets; do not let idle ones pile up forever.
    keepAliveTimeout: 65_000,
    forceCloseConnections: true,
  });
  const cookieName = sessionCookieName(options.name);

  // Plain JSON.parse: Fastify's default parser scans for prototype poisoning, which costs a few percent
  // per hop; we never merge request bodies into prototypes (spread and JSON.parse make own properties).
  // An empty body parses as undefined (NeMo Gym's argument-less tools accept one); routes decide.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    if (typeof body !== "string" || body.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch (error) {
      const bad = new Error(`request body is not valid JSON: ${(error as Error).message}`) as Error & { statusCode: number };
      bad.statusCode = 400;
      done(bad, undefined);
    }
  });
  app.decorateRequest("sessionId", "");
  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    const existing = parseCookies(request.headers.cookie)[cookieName];
    request.sessionId = existing || randomUUID();
    // Set on every response, as NeMo Gym's session middleware does.
    reply.header("set-cookie", sessionCookie(cookieName, request.sessionId));
  });

  app.get("/", async () => ({ status: "ok" }));

  app.setErrorHandler((error: unknown, _request, reply) => {
    if (error instanceof RequestValidationError) return reply.code(422).send({ detail: error.detail });
    if (error instanceof HttpError) return reply.code(error.statusCode).send(error.body ?? { detail: error.message });
    const fastifyError = error as { statusCode?: number; message?: string; code?: string };
    if (fastifyError.statusCode && fastifyError.statusCode < 500) {
      // Body parse errors, too-large bodies: the client's fault, say so.
      return reply.code(fastifyError.statusCode).send({ detail: fastifyError.message ?? String(error) });
    }
    // Like NeMo Gym: a 500 whose JSON body is the error as a string.
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return reply.code(500).type("application/json").send(JSON.stringify(message));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ detail: `Not Found: ${request.method} ${request.url}` });
  });

  return app;
}

/** Starts listening and returns the base URL (`http://host:port`). Binds 127.0.0.1 unless told otherwise. */
export async function listen(app: FastifyInstance, options: ListenOptions = {}): Promise<string> {
  const host = options.host ?? "127.0.0.1";
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("server did not bind a TCP port");
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return `http://${shownHost}:${address.port}`;
}
