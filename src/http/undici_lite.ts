// The two parts of undici Gymkit's HTTP client uses: the keep-alive `Agent` and the `request` API.
// `import … from "undici"` evaluates the whole package (fetch, WebSocket, cache, cookies, mock: 111
// modules), about 100 ms of CPU in every process that starts, and every `gym` command pays it; these
// two need about a third of that (bench/README.md, "CPU per rollout and start-up"). undici 7 has no
// "exports" map, so its files resolve by path; the types are the package's own.
//
// They are required on first use, not at module load: commands that make no HTTP call (`--dry-run`,
// `env resolve`, `eval aggregate`…) never load undici. The bundled CLI (scripts/bundle_cli.ts) bundles
// these requires, with undici's HTTP/2 client left to load on first use.
//
// `request(url, options)` is what undici's index makes of `api.request`: the URL parsed by undici's
// own parser into origin and path, the method defaulted, the call made on the given dispatcher (no
// global dispatcher: every caller passes one).
import { createRequire } from "node:module";
import type * as Undici from "undici";

const require = createRequire(import.meta.url);

export type Agent = Undici.Agent;
export type { Dispatcher } from "undici";

type RequestApi = (this: Undici.Dispatcher, options: Undici.Dispatcher.RequestOptions) => Promise<Undici.Dispatcher.ResponseData>;

interface UndiciParts {
  Agent: typeof Undici.Agent;
  apiRequest: RequestApi;
  parseURL: (url: string | URL) => URL;
  parseHeaders: (raw: Buffer[]) => Record<string, string | string[] | undefined>;
  RequestAbortedError: new () => Error;
}

let parts: UndiciParts | undefined;

function undici(): UndiciParts {
  parts ??= {
    Agent: require("undici/lib/dispatcher/agent.js") as typeof Undici.Agent,
    apiRequest: require("undici/lib/api/api-request.js") as RequestApi,
    ...(require("undici/lib/core/util.js") as Pick<UndiciParts, "parseURL" | "parseHeaders">),
    RequestAbortedError: (require("undici/lib/core/errors.js") as Pick<UndiciParts, "RequestAbortedError">).RequestAbortedError,
  };
  return parts;
}

/**
 * undici's own URL parser, header parser and abort error, for src/http/text_request.ts (which
 * dispatches through undici without its request API); loaded with the rest on first use.
 */
export function undiciCore(): Pick<UndiciParts, "parseURL" | "parseHeaders" | "RequestAbortedError"> {
  return undici();
}

/** A keep-alive dispatcher (undici's `Agent`). */
export function newAgent(options: Undici.Agent.Options): Agent {
  return new (undici().Agent)(options);
}

export type RequestOptions = Omit<Undici.Dispatcher.RequestOptions, "origin" | "path" | "method"> & {
  method?: Undici.Dispatcher.HttpMethod;
  dispatcher: Undici.Dispatcher;
};

export function request(url: string | URL, options: RequestOptions): Promise<Undici.Dispatcher.ResponseData> {
  const { apiRequest, parseURL } = undici();
  const parsed = parseURL(url);
  const { dispatcher, ...rest } = options;
  return apiRequest.call(dispatcher, {
    ...rest,
    origin: parsed.origin,
    path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
    method: options.method || (options.body ? "PUT" : "GET"),
  });
}
