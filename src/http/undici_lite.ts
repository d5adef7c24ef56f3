// The two parts of undici Gymkit's HTTP client uses: the keep-alive `Agent` and the `request` API.
// `import … from "undici"` evaluates the whole package (fetch, WebSocket, cache, cookies, mock: 111
// modules), about 100 ms of CPU in every process that starts, and every `gym` command pays it; these
// two need about a third of that (bench/README.md, "CPU per rollout and start-up"). undici 7 has no
// "exports" map, so its files resolve by path; the types are the package's own.
//
// `request(url, options)` is what undici's index makes of `api.request`: the URL parsed by undici's
// own parser into origin and path, the method defaulted, the call made on the given dispatcher (no
// global dispatcher: every caller passes one).
import { createRequire } from "node:module";
import type * as Undici from "undici";

const require = createRequire(import.meta.url);

export const Agent = require("undici/lib/dispatcher/agent.js") as typeof Undici.Agent;
export type Agent = Undici.Agent;
export type { Dispatcher } from "undici";

type RequestApi = (this: Undici.Dispatcher, options: Undici.Dispatcher.RequestOptions) => Promise<Undici.Dispatcher.ResponseData>;
const apiRequest = require("undici/lib/api/api-request.js") as RequestApi;
const { parseURL } = require("undici/lib/core/util.js") as { parseURL: (url: string | URL) => URL };

export type RequestOptions = Omit<Undici.Dispatcher.RequestOptions, "origin" | "path" | "method"> & {
  method?: Undici.Dispatcher.HttpMethod;
  dispatcher: Undici.Dispatcher;
};

export function request(url: string | URL, options: RequestOptions): Promise<Undici.Dispatcher.ResponseData> {
  const parsed = parseURL(url);
  const { dispatcher, ...rest } = options;
  return apiRequest.call(dispatcher, {
    ...rest,
    origin: parsed.origin,
    path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
    method: options.method || (options.body ? "PUT" : "GET"),
  });
}
