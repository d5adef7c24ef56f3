// GET /api/plots: the numbers behind the plots view (plots/plot_data.ts), computed on first use and
// kept for this app's index (a live run gets a new app per index: its plots follow the run, and the
// rows already read are carried over by the run's RowSampleMemo); GET /assets/uplot.js and
// /assets/uplot.css: the charting library, served from the viewer itself.
import type { FastifyInstance } from "fastify";
import { plotData, type PlotData } from "../plots/plot_data.js";
import { readRowSample } from "../plots/row_sample.js";
import { uplotAsset } from "../plots/uplot_asset.js";
import type { ViewerContext } from "./context.js";

export function plotRoutes(app: FastifyInstance, { run, rowSamples }: ViewerContext): void {
  let data: PlotData | undefined;
  const asset = uplotAsset();
  app.get("/api/plots", async () => (data ??= plotData(run, rowSamples ? rowSamples.sampleOf(run) : readRowSample(run))));
  app.get("/assets/uplot.js", async (_request, reply) => reply.type("text/javascript; charset=utf-8").send(asset.script));
  app.get("/assets/uplot.css", async (_request, reply) => reply.type("text/css; charset=utf-8").send(asset.css));
}
