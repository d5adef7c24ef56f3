// The viewer of several runs and/or of a run still being written. One server (the one that listens,
// with the Host check and the page) holds a RunSource per run and answers:
// - the comparison API (compare/routes.ts);
// - GET /api/version (cheap: versions and counts) and GET /api/events, a Server-Sent Events stream
//   that sends the same whenever a run changed — the page re-reads what it shows (browser/live.ts);
// - every other /api/ (and /assets/) request by handing it to the first run's single-run app (server.ts's routes),
//   the app of the index current at that moment, so those routes need not know a run can change.
// A live hub looks at the files every POLL_MS.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createServer, listen } from "../../http/server.js";
import { compareRoutes } from "../compare/routes.js";
import { stem, type NamedRun } from "../compare/runs.js";
import type { MetricsIndex } from "../metrics_index.js";
import { viewerPage } from "../page.js";
import type { RowSampleMemo } from "../plots/row_sample.js";
import { pageRoute } from "../routes/page.js";
import type { RunIndex } from "../run_index/run_index.js";
import { DEFAULT_SEARCH_LIMITS, type SearchLimits } from "../search.js";
import { RunSource } from "./run_source.js";

export const POLL_MS = 250;
const KEEPALIVE_MS = 15_000;

export interface HubOptions {
  rolloutsPath: string;
  name?: string;
  compareWith?: NamedRun[];
  live?: boolean;
  host?: string;
  port?: number;
  search?: SearchLimits;
}

export interface Hub {
  url: string;
  app: FastifyInstance;
  readonly run: RunIndex;
  readonly metrics: MetricsIndex;
  sources: RunSource[];
  /** Looks at the files now (the timer does it every POLL_MS); true when a run changed. */
  refresh(): boolean;
  close(): Promise<void>;
}

type BuildApp = (run: RunIndex, metrics: MetricsIndex, search: SearchLimits, page: (nonce: string) => string, rowSamples?: RowSampleMemo) => FastifyInstance;

function versionOf(sources: readonly RunSource[], live: boolean) {
  return {
    version: sources.reduce((sum, s) => sum + s.version, 0),
    live,
    runs: sources.map((s) => ({
      name: s.name,
      version: s.version,
      reindexed: s.reindexed,
      rollouts: s.run.entries.successes,
      failures: s.run.entries.count - s.run.entries.successes,
      failed_pairs: s.run.failedPairs,
      planned: s.run.plannedCount ?? null,
      missing_pairs: s.run.plannedCount === undefined ? null : s.run.missingPairs,
      done: s.done,
    })),
  };
}

/** What a single-run, snapshot viewer says at /api/runs and /api/version (the hub answers these itself). */
export function singleRunRoutes(app: FastifyInstance, run: RunIndex): void {
  const name = stem(run.paths.output);
  app.get("/api/runs", async () => ({ baseline: name, runs: [{ name, path: run.paths.output, version: 1, rollouts: run.entries.successes, failures: run.entries.count - run.entries.successes }] }));
  app.get("/api/version", async () => ({ version: 1, live: false, runs: [] }));
}

/** Answers a request with the single-run app of the first run, as it is now. */
async function forward(source: RunSource, request: FastifyRequest, reply: FastifyReply) {
  const answer = await source.app.inject({ method: request.method as "GET", url: request.url, headers: { accept: request.headers.accept ?? "application/json", host: "127.0.0.1" } });
  const type = answer.headers["content-type"];
  if (type) reply.type(String(type));
  return reply.code(answer.statusCode).send(answer.rawPayload);
}

/** Listens (a free port for 0 or none) and gives the base URL; the app is closed if it cannot. */
export async function listenOrClose(app: FastifyInstance, options: { host?: string; port?: number }): Promise<string> {
  try {
    return await listen(app, { host: options.host, port: options.port });
  } catch (error) {
    await app.close();
    throw error;
  }
}

export async function startHub(options: HubOptions, buildApp: BuildApp): Promise<Hub> {
  const page = viewerPage();
  const live = options.live === true;
  const search = options.search ?? DEFAULT_SEARCH_LIMITS;
  const named = [{ name: options.name ?? stem(options.rolloutsPath), path: options.rolloutsPath }, ...(options.compareWith ?? [])];
  const sources = named.map((run) => new RunSource({ ...run, live, search, buildApp: (index, metrics, limits, rowSamples) => buildApp(index, metrics, limits, page, rowSamples) }));
  const app = createServer({ name: "viewer" });
  const streams = new Set<FastifyReply["raw"]>();
  const send = () => {
    const data = `event: version\ndata: ${JSON.stringify(versionOf(sources, live))}\n\n`;
    for (const stream of streams) stream.write(data);
  };
  pageRoute(app, page);
  compareRoutes(app, sources);
  app.get("/api/version", async () => versionOf(sources, live));
  app.get("/api/events", (request, reply) => {
    reply.hijack();
    const stream = reply.raw;
    stream.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff", connection: "keep-alive" });
    stream.write(`retry: 1000\nevent: version\ndata: ${JSON.stringify(versionOf(sources, live))}\n\n`);
    streams.add(stream);
    request.raw.on("close", () => streams.delete(stream));
  });
  for (const url of ["/api/*", "/assets/*"]) app.route({ method: ["GET", "HEAD"], url, handler: (request, reply) => forward(sources[0]!, request, reply) });

  const refresh = () => {
    let changed = false;
    for (const source of sources) changed = source.refresh() || changed;
    if (changed) send();
    return changed;
  };
  const timer = live ? setInterval(refresh, POLL_MS) : undefined;
  timer?.unref();
  const keepalive = setInterval(() => {
    for (const stream of streams) stream.write(": keepalive\n\n");
  }, KEEPALIVE_MS);
  keepalive.unref();
  // Open event streams would keep the server from closing.
  app.addHook("preClose", async () => {
    clearInterval(timer);
    clearInterval(keepalive);
    for (const stream of streams) stream.end();
    streams.clear();
  });
  app.addHook("onClose", async () => {
    for (const source of sources) await source.close();
  });

  const url = await listenOrClose(app, options);
  return {
    url: `${url}/`,
    app,
    get run() {
      return sources[0]!.run;
    },
    get metrics() {
      return sources[0]!.metrics;
    },
    sources,
    refresh,
    close: () => app.close(),
  };
}
