// `routing_proxy`: a model server whose routes map a synthetic `model` name to a real endpoint
// `{base_url, api_key, model}`, so a trainer can point each rollout at whichever engine is active for
// it — and move it — without restarting anything (the pattern of the verifiers integration). Routes
// come from config or over HTTP (`POST /routes`, `DELETE /routes/<name>`, `GET /routes`). Every
// `/v1/*` request is forwarded to its route with `model` rewritten, the key swapped, Gymkit's cookies
// and hop-by-hop headers dropped, and the reply streamed back untouched (status, headers, body — SSE
// included). A route's `base_url` may be a list: replicas, sticky per rollout (see replicas.ts).
import type { IncomingHttpHeaders } from "node:http";
import type { FastifyRequest } from "fastify";
import { request as httpRequest, type Dispatcher } from "../http/undici_lite.js";
import { z } from "zod";
import { CallError, describeError, dispatcher, joinUrl } from "../http/client.js";
import { HttpError, parseOr422 } from "../http/errors.js";
import { abortOnHangUp } from "../http/reply.js";
import { redactUrl, urlCredentials } from "../config/url_secrets.js";
import { asHttpApp, createServer, rolloutBodyLimit } from "../http/server.js";
import type { ServerImplementation } from "../http/implementation.js";
import { retryPolicy } from "./engine_config.js";
import { addOpenAIErrorBodies } from "./openai_errors.js";
import { opensRollout, ReplicaPool, ReplicasExhaustedError, serveReplicaStats } from "./replicas.js";
import { ROLLOUT_HEADER } from "../protocol/index.js";
import { parseRolloutHeader } from "./rollout_header.js";

const ID = "routing_proxy";

const HttpUrl = z.url({ protocol: /^https?$/ });

export const RouteTarget = z.strictObject({
  /** Base URL including `/v1`; a list spreads the route's rollouts over replicas. */
  base_url: z.union([HttpUrl, z.array(HttpUrl).min(1)]),
  /** Sent as `Authorization: Bearer …` instead of whatever the caller sent; none if unset. */
  api_key: z.string().nullish(),
  /** Replaces the synthetic name in the forwarded body. */
  model: z.string().min(1),
});
export type RouteTarget = z.infer<typeof RouteTarget>;

const RouteRegistration = RouteTarget.extend({ name: z.string().min(1) });

export const RoutingProxyConfig = z.strictObject({
  /** Routes present at start: synthetic name → target. More are registered over HTTP. */
  routes: z.record(z.string().min(1), RouteTarget).default({}),
  /** If set, `POST /routes` and `DELETE /routes/…` need `Authorization: Bearer <this>`. */
  routes_api_key: z.string().min(1).nullish(),
  /** Deadline for the engine's reply headers, and for each pause between body chunks, in seconds. */
  request_timeout_s: z.number().positive().default(600),
  /** Retries (per replica) of connection errors, 429 and 5xx before the reply starts. */
  max_retries: z.number().int().nonnegative().default(3),
  retry_backoff_s: z.number().nonnegative().default(0.5),
});
export type RoutingProxyConfig = z.infer<typeof RoutingProxyConfig>;

/** RFC 9110 §7.6.1 connection-specific headers, never forwarded by a proxy. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te", "trailer", "trailers", "transfer-encoding", "upgrade"]);
/** Also not forwarded: recomputed (host, length), replaced (authorization), or Gymkit's own (cookies). */
const NOT_FORWARDED = new Set([...HOP_BY_HOP, "host", "content-length", "authorization", "cookie", "expect"]);

/** Headers minus hop-by-hop ones, including any the `Connection` header names. */
function forwardable(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>, drop: ReadonlySet<string>): Record<string, string | string[]> {
  const named = String(headers.connection ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(headers)) {
    const lower = key.toLowerCase();
    if (value === undefined || drop.has(lower) || named.includes(lower)) continue;
    out[lower] = value;
  }
  return out;
}

interface Route {
  name: string;
  target: RouteTarget;
  pool: ReplicaPool;
}

/** How many deleted route names are remembered (oldest forgotten first), so late calls to them are refused. */
export const DELETED_ROUTES_REMEMBERED = 100_000;

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value) && !Buffer.isBuffer(value);

export async function buildRoutingProxy(name: string, config: RoutingProxyConfig) {
  const app = createServer({ name });
  addOpenAIErrorBodies(app);
  // Bodies that are not JSON (e.g. multipart audio) are forwarded as bytes, routed without a name.
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

  const retry = retryPolicy(config);
  const timeoutMs = config.request_timeout_s * 1000;
  const routes = new Map<string, Route>();
  // Names deleted and not registered again: a late call of a finished rollout must not fall
  // through to whichever route is left, i.e. to another rollout's engine.
  const deleted = new Set<string>();

  const setRoute = (routeName: string, target: RouteTarget): boolean => {
    const urls = Array.isArray(target.base_url) ? target.base_url : [target.base_url];
    const pool = new ReplicaPool(urls, { label: `route ${routeName}`, probeHeaders: target.api_key ? { authorization: `Bearer ${target.api_key}` } : {} });
    const previous = routes.get(routeName);
    previous?.pool.close();
    // Calls already in flight finish where they started; new ones go to the new target.
    routes.set(routeName, { name: routeName, target, pool });
    deleted.delete(routeName);
    return previous !== undefined;
  };
  for (const [routeName, target] of Object.entries(config.routes)) setRoute(routeName, target);
  app.addHook("onClose", async () => routes.forEach((route) => route.pool.close()));

  const describe = (route: Route) => ({ name: route.name, base_url: shownBaseUrl(route.target.base_url), model: route.target.model, has_api_key: Boolean(route.target.api_key) });
  const active = () => [...routes.keys()].map((n) => JSON.stringify(n)).join(", ");

  const requireAdmin = (request: FastifyRequest) => {
    if (!config.routes_api_key) return;
    if (request.headers.authorization !== `Bearer ${config.routes_api_key}`) throw new HttpError(401, "changing routes needs `Authorization: Bearer <routes_api_key>`");
  };

  /**
   * The route a request names in `model`; a deleted name is a 410; without a match, the only
   * route; else a 409 naming them.
   */
  const routeFor = (requested: string | undefined): Route => {
    const named = requested === undefined ? undefined : routes.get(requested);
    if (named) return named;
    if (requested !== undefined && deleted.has(requested)) {
      throw new HttpError(410, `route "${requested}" was deleted; its calls are not sent to any other route (register it again with POST /routes to use the name)`);
    }
    if (routes.size === 1) return routes.values().next().value!;
    const what = requested === undefined ? "the request names no model" : `model "${requested}" matches no route`;
    if (routes.size === 0) throw new HttpError(503, `${what}, and no route is registered: POST /routes {"name", "base_url", "model", "api_key"} first`);
    throw new HttpError(409, `${what}, and ${routes.size} routes are active (${active()}): name one of them in "model"`);
  };

  app.get("/routes", async () => ({ routes: [...routes.values()].map(describe) }));

  app.post("/routes", async (request) => {
    requireAdmin(request);
    const registration = parseOr422(RouteRegistration, request.body);
    const { name: routeName, ...target } = registration;
    const replaced = setRoute(routeName, target);
    return { ...describe(routes.get(routeName)!), replaced };
  });

  app.delete("/routes/*", async (request) => {
    requireAdmin(request);
    const routeName = (request.params as { "*": string })["*"];
    const route = routes.get(routeName);
    if (!route) throw new HttpError(404, `no route named "${routeName}"; active routes: ${active() || "(none)"}`);
    routes.delete(routeName);
    deleted.add(routeName);
    if (deleted.size > DELETED_ROUTES_REMEMBERED) deleted.delete(deleted.values().next().value!);
    route.pool.close();
    return { removed: routeName, routes: [...routes.keys()] };
  });

  app.get("/v1/models", async () => ({
    object: "list",
    data: [...routes.values()].map((route) => ({ id: route.name, object: "model", created: 0, owned_by: "gymkit", root: route.target.model })),
  }));

  serveReplicaStats(app, () => [...routes.values()].map((route) => route.pool));

  app.route({
    method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    url: "/v1/*",
    // Forwards model calls: conversations with token ids, as the model server takes them.
    bodyLimit: rolloutBodyLimit(),
    handler: async (request, reply) => {
      const body = request.body;
      const requested = isObject(body) && typeof body.model === "string" ? body.model : undefined;
      const route = routeFor(requested);
      const rollout = parseRolloutHeader(request.headers[ROLLOUT_HEADER]);
      let payload: string | Buffer | undefined;
      if (isObject(body)) payload = JSON.stringify({ ...body, model: route.target.model });
      else if (Buffer.isBuffer(body)) payload = body;
      else if (body !== undefined) payload = JSON.stringify(body);
      const headers = forwardable(request.headers, NOT_FORWARDED);
      if (route.target.api_key) headers.authorization = `Bearer ${route.target.api_key}`;
      const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "";
      const rest = `/${(request.params as { "*": string })["*"]}${query}`;
      const signal = abortOnHangUp(reply.raw);

      let upstream: Dispatcher.ResponseData;
      try {
        upstream = await route.pool.call(
          { rollout, retry, signal, opensRollout: opensRollout(body) },
          async (baseUrl) => {
            const url = redactUrl(joinUrl(baseUrl, rest));
            // A route's `user:pass@` base URL is Basic auth, as for every other call (http/client.ts).
            const target = urlCredentials(joinUrl(baseUrl, rest));
            let response: Dispatcher.ResponseData;
            try {
              response = await httpRequest(target.url, {
                method: request.method as Dispatcher.HttpMethod,
                headers: target.authorization ? { ...headers, authorization: target.authorization } : headers,
                body: payload,
                dispatcher: dispatcher(),
                signal,
                headersTimeout: timeoutMs,
                bodyTimeout: timeoutMs,
              });
            } catch (error) {
              if (signal.aborted) throw error;
              const code = (error as { code?: string }).code;
              const kind = code === "UND_ERR_HEADERS_TIMEOUT" ? "timeout" : "connection";
              throw new CallError(`${kind === "timeout" ? `${url} did not answer within ${config.request_timeout_s} s` : `could not reach ${url}`}: ${describeError(error)}`, url, kind);
            }
            const retryable = response.statusCode === 429 || response.statusCode >= 500;
            return { value: response, retryable, status: response.statusCode, detail: `${url} answered ${response.statusCode}` };
          },
          (response) => response.body.dump(),
        );
      } catch (error) {
        if (error instanceof ReplicasExhaustedError) throw new HttpError(502, `${ID}: route "${route.name}": ${error.message}`);
        throw error;
      }
      reply.code(upstream.statusCode);
      for (const [key, value] of Object.entries(forwardable(upstream.headers, HOP_BY_HOP))) reply.header(key, value);
      return reply.send(upstream.body);
    },
  });

  return app;
}

const implementation: ServerImplementation<RoutingProxyConfig> = {
  type: "responses_api_models",
  id: ID,
  configSchema: RoutingProxyConfig,
  build: async ({ name, config }) => asHttpApp(await buildRoutingProxy(name, config)),
};

export default implementation;

/** A route's base URL(s) as `GET /routes` shows them: without credentials. */
function shownBaseUrl(baseUrl: string | string[]): string | string[] {
  return Array.isArray(baseUrl) ? baseUrl.map(redactUrl) : redactUrl(baseUrl);
}
