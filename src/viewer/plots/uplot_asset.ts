// uPlot (leeoniya/uPlot, MIT; the `uplot` package) as the viewer serves it: its minified browser build
// and its style sheet, read from the installed package once. The page loads them from the viewer's own
// origin (GET /assets/uplot.js, /assets/uplot.css), the static report inlines them; nothing comes from
// a CDN. uPlot draws on canvas and sets styles through the DOM, so the page's strict policy holds.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let cached: { script: string; css: string } | undefined;

export function uplotAsset(): { script: string; css: string } {
  if (cached) return cached;
  const script = readFileSync(require.resolve("uplot/dist/uPlot.iife.min.js"), "utf8");
  const css = readFileSync(require.resolve("uplot/dist/uPlot.min.css"), "utf8");
  // Inlined into the report, the script would end at the first "</script" of its text.
  if (/<\/script/i.test(script)) throw new Error('the uplot package\'s uPlot.iife.min.js contains "</script", which cannot be inlined');
  cached = { script, css };
  return cached;
}
