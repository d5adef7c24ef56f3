// One run as the multi-run / live viewer holds it: its current index and metrics, and the single-run
// viewer app (server.ts's routes) over them. A live source looks at its files on each `refresh`:
// appended lines extend the index (growing.ts); a rewritten file (truncated, rotated) is indexed
// again from scratch; a changed metrics file is read again. Each change makes a new index and app
// and bumps `version`; the previous app is closed a little later, once requests it was answering
// are done.
import { existsSync, statSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import { siblingPaths } from "../../collect/paths.js";
import { MetricsIndex } from "../metrics_index.js";
import { RowSampleMemo } from "../plots/row_sample.js";
import { GrowingIndex } from "../run_index/growing.js";
import { RunIndex } from "../run_index/run_index.js";
import type { SearchLimits } from "../search.js";

/** How long a replaced app stays open for requests it already had. */
const RETIRE_AFTER_MS = 10_000;

export interface RunSourceOptions {
  name: string;
  path: string;
  live: boolean;
  search: SearchLimits;
  /** Builds the single-run app over an index (server.ts's buildViewerApp). */
  buildApp: (run: RunIndex, metrics: MetricsIndex, search: SearchLimits, rowSamples?: RowSampleMemo) => FastifyInstance;
}

const stampOf = (path: string) => (existsSync(path) ? `${statSync(path).size}:${statSync(path).mtimeMs}:${statSync(path).ino}` : "");

export class RunSource {
  readonly name: string;
  readonly path: string;
  version = 1;
  /** Times the files were found rewritten and indexed again from scratch. */
  reindexed = 0;
  run: RunIndex;
  metrics: MetricsIndex;
  app: FastifyInstance;
  private growing: GrowingIndex | undefined;
  /** The plots' rows read so far, for the growing index's lineage (a new one when the files are rewritten). */
  private rowSamples: RowSampleMemo | undefined;
  private metricsStamp: string;
  /** Replaced apps (and indexes) not closed yet: the timer that will, and what it runs. */
  private readonly retiring = new Map<ReturnType<typeof setTimeout>, () => Promise<void>>();
  private readonly paths: ReturnType<typeof siblingPaths>;

  constructor(private readonly options: RunSourceOptions) {
    this.name = options.name;
    this.path = options.path;
    this.paths = siblingPaths(options.path);
    if (options.live) {
      this.growing = new GrowingIndex(this.paths);
      this.growing.update();
      this.rowSamples = new RowSampleMemo();
      this.run = new RunIndex(options.path, this.growing.built);
    } else this.run = new RunIndex(options.path);
    this.metricsStamp = stampOf(this.paths.metrics);
    this.metrics = new MetricsIndex(this.paths.metrics);
    this.app = options.buildApp(this.run, this.metrics, options.search, this.rowSamples);
  }

  /** Whether the run wrote its `.done` marker (every requested pair has its final outcome). */
  get done(): boolean {
    return existsSync(this.paths.done);
  }

  /** Looks at the files (live sources only); true when the index changed. */
  refresh(): boolean {
    if (!this.growing) return false;
    let changed = false;
    let check = this.growing.update();
    if (check === "rewritten") {
      this.reindexed++;
      this.growing = new GrowingIndex(this.paths);
      this.rowSamples = new RowSampleMemo();
      check = this.growing.update();
      changed = true;
    }
    changed ||= check === "grown";
    const metricsStamp = stampOf(this.paths.metrics);
    const metricsChanged = metricsStamp !== this.metricsStamp;
    if (!changed && !metricsChanged) return false;
    const previous = { run: this.run, metrics: this.metrics, app: this.app };
    if (changed) this.run = new RunIndex(this.path, this.growing.built);
    if (metricsChanged) {
      this.metricsStamp = metricsStamp;
      this.metrics = new MetricsIndex(this.paths.metrics);
    }
    this.app = this.options.buildApp(this.run, this.metrics, this.options.search, this.rowSamples);
    this.version++;
    this.retire(previous, changed, metricsChanged);
    return true;
  }

  /** Closes the previous app (and the index or metrics it alone held) once its requests are done. */
  private retire(previous: { run: RunIndex; metrics: MetricsIndex; app: FastifyInstance }, runReplaced: boolean, metricsReplaced: boolean): void {
    const close = async () => {
      this.retiring.delete(timer);
      await previous.app.close();
      if (runReplaced) previous.run.close();
      if (metricsReplaced) previous.metrics.close();
    };
    const timer = setTimeout(() => void close(), RETIRE_AFTER_MS);
    timer.unref();
    this.retiring.set(timer, close);
  }

  async close(): Promise<void> {
    for (const [timer, close] of [...this.retiring]) {
      clearTimeout(timer);
      await close();
    }
    await this.app.close();
    this.run.close();
    this.metrics.close();
  }
}
