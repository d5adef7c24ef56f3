// One HTTP request over an undici dispatcher with the reply collected as text: what `call()` needs
// from a socket hop (status, headers, the whole body as a string), without undici's `request` API
// around it. That API wraps every reply in a Readable stream (plus an AsyncResource and a stream
// consumer for `body.text()`), which is most of undici's own per-request cost on a small JSON reply
// (bench/README.md, "Session 12 (h/hops)"). The request itself is undici's unchanged: the same
// dispatcher, the same `Request` and connection pool, so the bytes on the wire are the same.
//
// It keeps the `request` API's contract where `call()` can see it: the promise settles when the
// status line and headers are in (1xx replies skipped), with headers parsed by undici's own
// `parseHeaders` (lower-case names, repeated ones as arrays); `body.text()` then gives the body
// decoded as UTF-8 with a leading byte-order mark dropped, as undici's `text()` does; an abort of
// `signal` before the headers rejects the request, and after them rejects `text()`, with the
// signal's reason (or undici's RequestAbortedError when it has none); a connection lost mid-body
// rejects `text()` with undici's error.
import { undiciCore, type Dispatcher } from "./undici_lite.js";

/** What `call()` passes: an EventEmitter- or EventTarget-shaped abort signal. */
export interface AbortSource {
  readonly aborted: boolean;
  readonly reason?: unknown;
  on?(event: "abort", listener: () => void): unknown;
  removeListener?(event: "abort", listener: () => void): unknown;
  addEventListener?(event: "abort", listener: () => void): unknown;
  removeEventListener?(event: "abort", listener: () => void): unknown;
}

export interface TextRequestOptions {
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: string;
  dispatcher: Dispatcher;
  signal?: AbortSource;
}

export interface TextResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: { text(): Promise<string> };
}

/** The UTF-8 text of `chunks`, without a leading byte-order mark (undici's `body.text()`). */
export function decodeChunks(chunks: Buffer[], length: number): string {
  if (chunks.length === 0 || length === 0) return "";
  const buffer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
  const start = buffer.length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  return buffer.toString("utf8", start);
}

/**
 * undici's legacy dispatch handler (the interface its HTTP/1.1 client calls directly; a handler in
 * the newer controller style would be wrapped in an adapter on every request).
 */
class TextHandler {
  private abortRequest: ((reason: unknown) => void) | undefined;
  private reason: unknown = undefined;
  private chunks: Buffer[] = [];
  private length = 0;
  private headersIn = false;
  private settled = false;
  private resolveText!: (text: string) => void;
  private rejectText!: (error: unknown) => void;
  private readonly text: Promise<string>;
  private readonly onAbort: (() => void) | undefined;

  constructor(
    private readonly signal: AbortSource | undefined,
    private readonly resolveHeaders: (response: TextResponse) => void,
    private readonly rejectHeaders: (error: unknown) => void,
  ) {
    this.text = new Promise<string>((resolve, reject) => {
      this.resolveText = resolve;
      this.rejectText = reject;
    });
    // Only read once the headers are in; an error before then must not be reported as unhandled.
    this.text.catch(() => {});
    if (signal?.aborted) {
      this.reason = signal.reason ?? new (undiciCore().RequestAbortedError)();
    } else if (signal) {
      this.onAbort = () => {
        this.reason = signal.reason ?? new (undiciCore().RequestAbortedError)();
        this.abortRequest?.(this.reason);
      };
      if (signal.on) signal.on("abort", this.onAbort);
      else signal.addEventListener?.("abort", this.onAbort);
    }
  }

  onConnect(abort: (reason: unknown) => void): void {
    if (this.reason !== undefined) {
      abort(this.reason);
      return;
    }
    this.abortRequest = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    const headers = undiciCore().parseHeaders(rawHeaders);
    if (statusCode < 200) return true;
    this.headersIn = true;
    const text = this.text;
    this.resolveHeaders({ statusCode, headers, body: { text: () => text } });
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.length += chunk.length;
    return true;
  }

  onComplete(): void {
    this.finish();
    this.resolveText(decodeChunks(this.chunks, this.length));
    this.chunks = [];
  }

  onError(error: unknown): void {
    this.finish();
    this.chunks = [];
    if (this.headersIn) this.rejectText(error);
    else this.rejectHeaders(error);
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    const { signal, onAbort } = this;
    if (!signal || !onAbort) return;
    if (signal.removeListener) signal.removeListener("abort", onAbort);
    else signal.removeEventListener?.("abort", onAbort);
  }
}

interface Target {
  origin: string;
  path: string;
}

/**
 * Origin and path of each URL called, parsed once: a run calls the same few URLs (an engine's
 * `/v1/chat/completions`, a server's routes) for every rollout, and a WHATWG parse each time is a
 * visible share of a hop. Bounded: a run that calls many distinct URLs just starts the table over.
 */
const targets = new Map<string, Target>();
const MAX_TARGETS = 256;

function targetOf(url: string): Target {
  let target = targets.get(url);
  if (target === undefined) {
    const parsed = undiciCore().parseURL(url); // throws on a URL undici would refuse; nothing is kept then
    target = { origin: parsed.origin, path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname };
    if (targets.size >= MAX_TARGETS) targets.clear();
    targets.set(url, target);
  }
  return target;
}

/** `url` requested through `dispatcher`; settles with the status and headers, the body read by `body.text()`. */
export function requestText(url: string, options: TextRequestOptions): Promise<TextResponse> {
  const { origin, path } = targetOf(url);
  return new Promise<TextResponse>((resolve, reject) => {
    const handler = new TextHandler(options.signal, resolve, reject);
    options.dispatcher.dispatch(
      {
        origin,
        path,
        method: options.method,
        headers: options.headers,
        ...(options.body !== undefined ? { body: options.body } : {}),
      },
      handler as unknown as Dispatcher.DispatchHandler,
    );
  });
}
