// The in-process call path (issue 23, part B). When `call()` targets a server that listens in this
// same process, the request is handed to that server's Node request listener (Fastify's router, hooks,
// parsers, error and not-found handlers, exactly as a socket would reach them) as a small in-memory
// request/response pair, and no socket, no HTTP parser and no undici are involved. What a caller sees
// is what a loopback hop gives it: the body goes over as JSON text (serialized by the caller, parsed by
// the server: no object is shared), the reply comes back as text with its status and headers (names in
// lower case, `set-cookie` as the session cookie), the Host header is the URL's host (the DNS-rebinding
// check runs as usual), the body limits answer 413 from the declared content length, and aborting or
// timing out closes the exchange the way a dropped connection does (the server's `abortOnHangUp`
// signals fire). Routes that stream or hijack their reply declare `config: { streams: true }` and are
// always reached over the socket. A server's own close unregisters it first (later calls go to the
// socket and meet a refused connection, as before) and fails its exchanges still in flight as a reset
// connection would. `GYM_INPROCESS_CALLS=0` switches the path off; every call then goes over HTTP (read when
// a server starts listening; `rereadInProcessSetting` for a switch in between).
// Servers in other processes (`--process-per-server`, NeMo Gym's Python servers, remote URLs) are not
// in the registry and keep real HTTP. No upstream counterpart (NeMo Gym 07d6b0d always uses aiohttp).
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";

export const INPROCESS_ENV = "GYM_INPROCESS_CALLS";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route streams or hijacks its reply: in-process calls reach it over the socket instead. */
    streams?: boolean;
  }
}

/** The reply of one in-process exchange, in the shape the HTTP client reads from undici. */
export interface LocalResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request as the HTTP client has it ready to send. */
export interface LocalRequest {
  method: string;
  /** Path and query, as sent on the request line. */
  path: string;
  /** Request headers (any case); `host`, `connection` and `content-length` are added as undici adds them. */
  headers: Record<string, string>;
  body: string | undefined;
  signal: EventEmitter & { aborted: boolean; reason: unknown };
}

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

interface LocalServer {
  origin: string;
  host: string;
  address: string;
  port: number;
  listener: RequestListener;
  /** Static route paths (method + url) that must be reached over the socket. */
  streamed: ReadonlySet<string>;
  exchanges: Set<Exchange>;
}

/** Servers listening in this process, by origin (`http://127.0.0.1:PORT`, as `listen` returns it). */
const servers = new Map<string, LocalServer>();

/** `GYM_INPROCESS_CALLS` as last read; undefined until the first in-process candidate asks. */
let enabled: boolean | undefined;

/**
 * True unless `GYM_INPROCESS_CALLS` is `0` (or `false`/`off`/`no`). Read from the environment when a
 * server starts listening and by `rereadInProcessSetting`, not per call: `process.env` is a lookup in
 * the C++ environment each time, and this is asked on every hop of every rollout.
 */
export function inProcessCallsEnabled(): boolean {
  enabled ??= readInProcessSetting();
  return enabled;
}

/** Reads `GYM_INPROCESS_CALLS` again, for code (tests, benchmarks) that switches it in a running process. */
export function rereadInProcessSetting(): boolean {
  enabled = readInProcessSetting();
  return enabled;
}

function readInProcessSetting(): boolean {
  const value = process.env[INPROCESS_ENV];
  if (value === undefined || value === "" || value === "1") return true;
  return !["0", "false", "off", "no"].includes(value.trim().toLowerCase());
}

/** Per Fastify app: the streamed routes it declared, the origins it listens on, its open exchanges. */
interface AppState {
  streamed: Set<string>;
  origins: Set<string>;
  exchanges: Set<Exchange>;
}
const apps = new WeakMap<FastifyInstance, AppState>();

/**
 * Makes `app` reachable in-process once it listens. Called by `createServer` before any route is
 * added (it records streamed routes) and before the app boots (hooks cannot be added later).
 */
export function prepareInProcess(app: FastifyInstance): void {
  const state: AppState = { streamed: new Set(), origins: new Set(), exchanges: new Set() };
  apps.set(app, state);
  app.addHook("onRoute", (route) => {
    if (route.config?.streams !== true) return;
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) state.streamed.add(`${method.toUpperCase()} ${route.url}`);
  });
  // Unregister first, so calls made while the server closes go to the (closing) socket.
  const unregister = () => {
    for (const origin of state.origins) {
      if (servers.get(origin)?.exchanges !== state.exchanges) continue;
      servers.delete(origin);
      sockets.delete(origin);
    }
    state.origins.clear();
  };
  app.addHook("preClose", (done) => {
    unregister();
    done();
  });
  // Where `forceCloseConnections` destroys the open sockets, the open exchanges fail the same way.
  app.addHook("onClose", (_instance, done) => {
    unregister();
    for (const exchange of [...state.exchanges]) exchange.reset();
    done();
  });
}

/** Registers a listening app under the origin `listen` returned. Apps not made by `createServer` are ignored. */
export function registerInProcess(app: FastifyInstance, origin: string): void {
  const state = apps.get(app);
  if (!state) return;
  const address = app.server.address();
  if (!address || typeof address === "string") return;
  const listener = app.server.listeners("request")[0] as RequestListener | undefined;
  if (!listener) return;
  rereadInProcessSetting();
  state.origins.add(origin);
  servers.set(origin, {
    origin,
    host: origin.slice(origin.indexOf("//") + 2),
    address: address.address,
    port: address.port,
    listener,
    streamed: state.streamed,
    exchanges: state.exchanges,
  });
}

/** Path and query of a URL as undici would send them (dot segments and odd characters normalized). */
const PLAIN_PATH = /^\/[A-Za-z0-9\-_~/?=&%:@!$'()*+,;]*$/;

/**
 * The local server a URL points at and the request path, or undefined when it is not one of this
 * process's servers (or the in-process path is off, or the route streams).
 */
export function localTarget(url: string, method: string): { server: LocalServer; path: string } | undefined {
  if (servers.size === 0 || !url.startsWith("http://")) return undefined;
  const slash = url.indexOf("/", 7);
  const origin = slash < 0 ? url : url.slice(0, slash);
  const server = servers.get(origin);
  if (!server || !inProcessCallsEnabled()) return undefined;
  let path = slash < 0 ? "/" : url.slice(slash);
  if (!PLAIN_PATH.test(path) || path.includes("/.")) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    path = `${parsed.pathname}${parsed.search}`;
  }
  if (server.streamed.size > 0) {
    const query = path.indexOf("?");
    if (server.streamed.has(`${method} ${query < 0 ? path : path.slice(0, query)}`)) return undefined;
  }
  return { server, path };
}

/** Stream and socket settings that mean nothing without a socket: accepted, chainable, no effect. */
class Inert extends EventEmitter {
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  setEncoding(): this {
    return this;
  }
  pause(): this {
    return this;
  }
  unpipe(): this {
    return this;
  }
}

/** The connection every in-process request claims to arrive on: loopback, never encrypted. */
class LocalSocket extends Inert {
  readonly encrypted = false;
  readonly destroyed = false;
  readonly readable = true;
  readonly writable = true;
  constructor(
    readonly remoteAddress: string,
    readonly localAddress: string,
    readonly localPort: number,
  ) {
    super();
  }
  get remoteFamily(): string {
    return this.remoteAddress.includes(":") ? "IPv6" : "IPv4";
  }
  destroy(): this {
    return this;
  }
  address(): { address: string; port: number; family: string } {
    return { address: this.localAddress, port: this.localPort, family: this.remoteFamily };
  }
}

const sockets = new Map<string, LocalSocket>();
function socketFor(server: LocalServer): LocalSocket {
  let socket = sockets.get(server.origin);
  if (!socket) {
    socket = new LocalSocket(server.address, server.address, server.port);
    sockets.set(server.origin, socket);
  }
  return socket;
}

/** The request side: what Fastify reads of an IncomingMessage (headers, url, method, body events). */
class LocalRequestMessage extends Inert {
  readonly httpVersion = "1.1";
  readonly httpVersionMajor = 1;
  readonly httpVersionMinor = 1;
  readonly complete = true;
  readonly rawHeaders: string[] = [];
  readonly trailers = {};
  aborted = false;
  destroyed = false;
  readableEnded = false;
  #body: Buffer | undefined;
  /** The body as the caller serialized it, when its bytes decode back to exactly this text. */
  readonly bodyText: string | undefined;
  /** The body's bytes as sent. */
  readonly bodyBytes: Buffer | undefined;

  constructor(
    readonly method: string,
    public url: string,
    readonly headers: Record<string, string>,
    body: Buffer | undefined,
    bodyText: string | undefined,
    readonly socket: LocalSocket,
  ) {
    super();
    this.#body = body;
    this.bodyText = bodyText;
    this.bodyBytes = body;
  }

  get connection(): LocalSocket {
    return this.socket;
  }

  /** Delivers the whole body at once: the parser's listeners are attached before it resumes the stream. */
  resume(): this {
    if (this.readableEnded) return this;
    this.readableEnded = true;
    const body = this.#body;
    this.#body = undefined;
    if (body !== undefined && body.length > 0) this.emit("data", body);
    this.emit("end");
    return this;
  }

  pipe<T>(destination: T): T {
    return destination;
  }

  destroy(): this {
    this.destroyed = true;
    return this;
  }
}

const KEEP_ALIVE = "timeout=65";
let dateText = "";
let dateSecond = -1;
/**
 * The text of an in-process request's body, for a body parser that would otherwise decode the bytes
 * it was just encoded to: undefined for a request from a socket, for a text that does not survive
 * UTF-8 unchanged (its decoded bytes are what a socket would deliver), and when the bytes the parser
 * got are not the ones sent (a payload transformed on the way, e.g. by a `preParsing` hook).
 */
export function inProcessBodyText(raw: unknown, received: Buffer): string | undefined {
  if (!(raw instanceof LocalRequestMessage) || raw.bodyText === undefined || raw.bodyBytes === undefined) return undefined;
  // A byte comparison is a memcmp, far cheaper than the UTF-8 decoding it saves.
  return received.equals(raw.bodyBytes) ? raw.bodyText : undefined;
}

/** The Date header, as Node's server caches it: recomputed at most once a second. */
function httpDate(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(second * 1000).toUTCString();
  }
  return dateText;
}

// Node 20 has both methods; the compile target's lib (ES2022) does not declare them yet.
type WellFormedText = string & { isWellFormed(): boolean; toWellFormed(): string };

/** True when `text` has no lone surrogate, so UTF-8 bytes of it decode back to exactly it. */
function wellFormed(text: string): boolean {
  return (text as WellFormedText).isWellFormed();
}

/** A lone surrogate does not survive UTF-8 on the wire; this keeps the in-process text identical. */
function asWire(text: string): string {
  return wellFormed(text) ? text : (text as WellFormedText).toWellFormed();
}

/** The response side: what Fastify and Gymkit's routes use of a ServerResponse; collects the body. */
class LocalResponseMessage extends Inert {
  statusCode = 200;
  statusMessage = "";
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  writableNeedDrain = false;
  destroyed = false;
  sendDate = true;
  readonly chunks: Array<string | Buffer> = [];
  readonly #headers: Record<string, string | string[] | number> = {};

  constructor(
    readonly req: LocalRequestMessage,
    private readonly exchange: Exchange,
  ) {
    super();
  }

  get socket(): LocalSocket | null {
    return this.destroyed ? null : this.req.socket;
  }

  get connection(): LocalSocket | null {
    return this.socket;
  }

  setHeader(name: string, value: string | string[] | number): this {
    this.#headers[name.toLowerCase()] = value;
    return this;
  }

  getHeader(name: string): string | string[] | number | undefined {
    return this.#headers[name.toLowerCase()];
  }

  getHeaders(): Record<string, string | string[] | number> {
    return { ...this.#headers };
  }

  getHeaderNames(): string[] {
    return Object.keys(this.#headers);
  }

  hasHeader(name: string): boolean {
    return name.toLowerCase() in this.#headers;
  }

  removeHeader(name: string): void {
    delete this.#headers[name.toLowerCase()];
  }

  writeHead(statusCode: number, reasonOrHeaders?: string | Record<string, unknown>, maybeHeaders?: Record<string, unknown>): this {
    if (this.headersSent) throw Object.assign(new Error("Cannot write headers after they are sent to the client"), { code: "ERR_HTTP_HEADERS_SENT" });
    this.statusCode = statusCode;
    const headers = typeof reasonOrHeaders === "string" ? maybeHeaders : reasonOrHeaders;
    if (typeof reasonOrHeaders === "string") this.statusMessage = reasonOrHeaders;
    if (headers) for (const name of Object.keys(headers)) if (headers[name] !== undefined) this.#headers[name.toLowerCase()] = headers[name] as string | string[] | number;
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {
    if (!this.headersSent) this.writeHead(this.statusCode);
  }

  writeContinue(): void {}

  writeEarlyHints(): void {}

  cork(): void {}

  uncork(): void {}

  addTrailers(): void {}

  write(chunk: string | Buffer | Uint8Array, encoding?: unknown, callback?: unknown): boolean {
    if (this.writableEnded || this.destroyed) return false;
    if (!this.headersSent) this.writeHead(this.statusCode);
    if (chunk !== undefined && chunk !== null) this.chunks.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array));
    const done = typeof encoding === "function" ? encoding : callback;
    if (typeof done === "function") process.nextTick(done as () => void);
    return true;
  }

  end(chunk?: unknown, encoding?: unknown, callback?: unknown): this {
    if (typeof chunk === "function") {
      callback = chunk;
      chunk = undefined;
    }
    if (this.writableEnded || this.destroyed) return this;
    if (chunk !== undefined && chunk !== null) this.write(chunk as string | Buffer);
    if (!this.headersSent) this.writeHead(this.statusCode);
    this.writableEnded = true;
    this.writableFinished = true;
    const done = typeof encoding === "function" ? encoding : callback;
    this.exchange.finish(this);
    this.emit("prefinish");
    this.emit("finish");
    if (typeof done === "function") process.nextTick(done as () => void);
    process.nextTick(() => {
      this.req.emit("close");
      this.emit("close");
    });
    return this;
  }

  destroy(error?: Error): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.exchange.fail(error ?? resetError());
    process.nextTick(() => {
      this.req.aborted = !this.writableFinished;
      this.req.destroyed = true;
      this.req.emit("close");
      this.emit("close");
    });
    return this;
  }

  /** What the client received: header names in lower case, as undici hands them over. */
  responseHeaders(): Record<string, string | string[] | undefined> {
    const out: Record<string, string | string[] | undefined> = {};
    for (const name of Object.keys(this.#headers)) {
      const value = this.#headers[name]!;
      if (Array.isArray(value)) out[name] = value.length === 1 ? String(value[0]) : value.map(String);
      else out[name] = String(value);
    }
    if (this.sendDate && out.date === undefined) out.date = httpDate();
    out.connection ??= "keep-alive";
    if (out.connection === "keep-alive") out["keep-alive"] ??= KEEP_ALIVE;
    const bodyless = this.statusCode === 204 || this.statusCode === 304 || (this.statusCode >= 100 && this.statusCode < 200);
    if (!bodyless && out["content-length"] === undefined && out["transfer-encoding"] === undefined) out["transfer-encoding"] = "chunked";
    return out;
  }
}

function resetError(): Error {
  return Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
}

/** One request/response in flight: settles the caller's promise once, on finish, abort or reset. */
class Exchange {
  #resolve!: (response: LocalResponse) => void;
  #reject!: (error: unknown) => void;
  readonly promise: Promise<LocalResponse>;
  res: LocalResponseMessage | undefined;
  /** Runs once the exchange settles (detaches the caller's abort listener). */
  cleanup: (() => void) | undefined;
  #settled = false;

  constructor(private readonly set: Set<Exchange>) {
    this.promise = new Promise<LocalResponse>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    set.add(this);
  }

  finish(res: LocalResponseMessage): void {
    if (this.#settled) return;
    this.#settled = true;
    this.set.delete(this);
    this.cleanup?.();
    const bodyless = res.statusCode === 204 || res.statusCode === 304 || res.req.method === "HEAD";
    let text = "";
    if (!bodyless) {
      const { chunks } = res;
      if (chunks.length === 1 && typeof chunks[0] === "string") text = asWire(chunks[0]);
      else if (chunks.length > 0) text = Buffer.concat(chunks.map((c) => (typeof c === "string" ? Buffer.from(c, "utf8") : c))).toString("utf8");
    }
    this.#resolve({ statusCode: res.statusCode, headers: res.responseHeaders(), text });
  }

  fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.set.delete(this);
    this.cleanup?.();
    this.#reject(error);
  }

  /** The server went away under the exchange: the server side sees a hang-up, the caller a reset. */
  reset(): void {
    if (this.res) this.res.destroy(resetError());
    else this.fail(resetError());
  }
}

/**
 * Delivers one request to a server of this process and resolves with its complete reply. Rejects with
 * the signal's reason when the signal aborts first (the server's handler sees the connection close),
 * and with an `UND_ERR_SOCKET` error when the server closes under it.
 */
export function dispatchInProcess(server: LocalServer, request: LocalRequest): Promise<LocalResponse> {
  if (eventLoopStarved()) return new Promise<void>((resolve) => setImmediate(resolve)).then(() => dispatchNow(server, request));
  return dispatchNow(server, request);
}

/**
 * How long calls between servers of this process may go on without the event loop turning. A socket
 * hop always returns to the loop; an in-process one settles in promise jobs and ticks, so a run whose
 * every hop is in-process (a scripted or replayed model, the end-of-run `/aggregate_metrics` chunks)
 * would never reach it: no timers (the live line, deadlines), no signal handlers, and none of V8's
 * garbage-collection tasks, which Node runs from the loop — 20,000 scripted rollouts went 8 s without a
 * turn and peaked at 784 MB, and a 200,000-rollout run's end of run grew to 623 MB (bench/README.md).
 */
const MAX_MS_WITHOUT_A_TURN = 10;
let lastTurnAt = performance.now();
let turnAwaited = false;

function markTurn(): void {
  turnAwaited = false;
  lastTurnAt = performance.now();
}

/** True when the loop has not turned for a while; watches for the next turn either way. */
function eventLoopStarved(): boolean {
  if (!turnAwaited) {
    turnAwaited = true;
    setImmediate(markTurn);
  }
  return performance.now() - lastTurnAt > MAX_MS_WITHOUT_A_TURN;
}

function dispatchNow(server: LocalServer, request: LocalRequest): Promise<LocalResponse> {
  const exchange = new Exchange(server.exchanges);
  if (request.signal.aborted) {
    exchange.fail(request.signal.reason);
    return exchange.promise;
  }
  // In undici's order on the wire: host, connection, the caller's headers, content-length.
  const headers: Record<string, string> = { host: server.host, connection: "keep-alive" };
  for (const name of Object.keys(request.headers)) headers[name.toLowerCase()] = request.headers[name]!;
  // Encoded once: its length is the content length, and it is what the server's body reader counts.
  const bytes = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
  if (bytes !== undefined) headers["content-length"] = String(bytes.length);
  else if (request.method === "POST" || request.method === "PUT" || request.method === "PATCH") headers["content-length"] = "0";
  const text = request.body !== undefined && wellFormed(request.body) ? request.body : undefined;
  const req = new LocalRequestMessage(request.method, request.path, headers, bytes, text, socketFor(server));
  const res = new LocalResponseMessage(req, exchange);
  exchange.res = res;
  const onAbort = () => {
    exchange.fail(request.signal.reason);
    res.destroy();
  };
  request.signal.once("abort", onAbort);
  exchange.cleanup = () => request.signal.removeListener("abort", onAbort);
  try {
    server.listener(req as unknown as IncomingMessage, res as unknown as ServerResponse);
  } catch (error) {
    // Node's server would not let a listener's throw reach the client either; the connection drops.
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  }
  return exchange.promise;
}
