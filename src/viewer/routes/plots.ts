// GET /api/plots: the numbers behind the plots view (plots/plot_data.ts), computed on first use and
// kept (the index does not change while the viewer runs); GET /assets/uplot.js and /assets/uplot.css:
// the charting library, served from the viewer itself.
import type { FastifyInstance } from "fastify";
import { plotData, type PlotData } from "../plots/plot_data.js";
import { uplotAsset } from "../plots/uplot_asset.js";
import type { ViewerContext } from "./context.js";

export function plotRoutes(app: FastifyInstance, { run }: ViewerContext): void {
  let data: PlotData | undefined;
  const asset = uplotAsset();
  app.get("/api/plots", async () => (data ??= plotData(run)));
  app.get("/assets/uplot.js", async (_request, reply) => reply.type("text/javascript; charset=utf-8").send(asset.script));
  app.get("/assets/uplot.css", async (_request, reply) => reply.type("text/css; charset=utf-8").send(asset.css));
}
