// `gym view`'s server: the page at `/` for browsers and a JSON API over the run's index, one route
// group per module under routes/. Rows are read from disk per request; nothing of a row is kept
// between requests.
import type { FastifyInstance } from "fastify";
import { createServer } from "../http/server.js";
import type { NamedRun } from "./compare/runs.js";
import { listenOrClose, singleRunRoutes, startHub } from "./live/hub.js";
import { MetricsIndex } from "./metrics_index.js";
import { viewerPage } from "./page.js";
import type { RowSampleMemo } from "./plots/row_sample.js";
import { pageRoute } from "./routes/page.js";
import { plotRoutes } from "./routes/plots.js";
import { rolloutRoutes } from "./routes/rollouts.js";
import { summaryRoute } from "./routes/summary.js";
import { taskRoutes } from "./routes/tasks.js";
import { RunIndex } from "./run_index/run_index.js";
import { DEFAULT_SEARCH_LIMITS, type SearchLimits } from "./search.js";

export interface ViewerOptions {
  /** The rollouts file; its siblings (failures, metrics, materialized inputs) are read when present. */
  rolloutsPath: string;
  host?: string;
  /** 0 or omitted: a free port. */
  port?: number;
  search?: SearchLimits;
  /** The run's name in a comparison (default: from its file, compare/runs.ts). */
  name?: string;
  /** More runs to compare with this one (compare/); this one is the baseline. */
  compareWith?: NamedRun[];
  /** Follow the files as they grow (live/): the page updates without a restart. */
  live?: boolean;
}

export interface Viewer {
  /** The page's URL, ending in `/`. */
  url: string;
  app: FastifyInstance;
  /** The (first) run's index; for a live run, the one current when read. */
  run: RunIndex;
  metrics: MetricsIndex;
  /** Looks at the files now (live viewers only; they also do it on a timer); true when a run changed. */
  refresh?(): boolean;
  close(): Promise<void>;
}

/** The single-run app: the page and the JSON API over one run's index (closing it leaves the index open). */
export function buildViewerApp(run: RunIndex, metrics: MetricsIndex, search: SearchLimits, page: (nonce: string) => string, rowSamples?: RowSampleMemo): FastifyInstance {
  const context = { run, metrics, search, rowSamples };
  const app = createServer({ name: "viewer" });
  pageRoute(app, page);
  summaryRoute(app, context);
  rolloutRoutes(app, context);
  taskRoutes(app, context);
  plotRoutes(app, context);
  singleRunRoutes(app, run);
  return app;
}

export function buildViewer(options: ViewerOptions): { app: FastifyInstance; run: RunIndex; metrics: MetricsIndex } {
  // The page is read (and checked) first: a missing build fails `gym view` at once, before any file is opened.
  const page = viewerPage();
  const run = new RunIndex(options.rolloutsPath);
  const metrics = new MetricsIndex(run.paths.metrics);
  const app = buildViewerApp(run, metrics, options.search ?? DEFAULT_SEARCH_LIMITS, page);
  app.addHook("onClose", async () => {
    run.close();
    metrics.close();
  });
  return { app, run, metrics };
}

export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  // Several runs, or a run still being written: the hub (live/hub.ts) serves them, the single-run app within.
  if (options.live || options.compareWith?.length) return startHub(options, buildViewerApp);
  const { app, run, metrics } = buildViewer(options);
  const url = await listenOrClose(app, options);
  return { url: `${url}/`, app, run, metrics, close: () => app.close() };
}
