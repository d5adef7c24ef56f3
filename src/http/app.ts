// A built server as Gymkit's public types describe it. Every implementation's `build()` returns one,
// so the published declarations name no web framework: Fastify stays an implementation detail that
// only Gymkit's own code reaches (through `fastifyOf` in server.ts), and can change without breaking
// anyone's environment.

export interface ListenOptions {
  host?: string;
  /** 0 (or omitted) picks a free port. */
  port?: number;
}

/** What a built server can do, supplied by the factory that made it (see `asHttpApp` in server.ts). */
export interface HttpAppParts {
  listen(options: ListenOptions): Promise<string>;
  close(): Promise<void>;
  onClose(hook: () => void | Promise<void>): void;
}

/** A built server, not listening yet. Gymkit's builders make these (`defineEnvironment` for yours). */
export class HttpApp {
  readonly #parts: HttpAppParts;

  constructor(parts: HttpAppParts) {
    this.#parts = parts;
  }

  /** Starts listening and returns the base URL (`http://host:port`); binds 127.0.0.1 unless told otherwise. */
  listen(options: ListenOptions = {}): Promise<string> {
    return this.#parts.listen(options);
  }

  /** Stops listening, closes open connections and runs the `onClose` hooks. */
  close(): Promise<void> {
    return this.#parts.close();
  }

  /** Runs `hook` when the server closes. Register before `listen`. */
  onClose(hook: () => void | Promise<void>): void {
    this.#parts.onClose(hook);
  }
}
