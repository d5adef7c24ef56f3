// The viewer's single page: an HTML shell with the style sheet (style.ts) and the compiled browser
// scripts (browser/steps.ts, readability.ts, plots.ts, compare.ts, live.ts, then browser/app.ts, which calls into them) inline, both under the nonce the
// server's Content-Security-Policy names. Each script is a classic one (no modules), so joined in
// order they run as one script sharing its global declarations.
//
// The scripts are read from the package's dist/, where `npm run build` compiles them
// (tsconfig.browser.json): `../../dist` is that directory both from src/viewer (tests, tsx) and from
// dist/viewer (the built CLI, an installed package). Running from src/ therefore needs a build, and a
// build older than a script's source is refused rather than served.
import { existsSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { COMPARE_STYLE } from "./compare/style.js";
import { PLOT_STYLE } from "./plots/plot_style.js";
import { uplotAsset } from "./plots/uplot_asset.js";
import { VIEWER_STYLE } from "./style.js";

/** The page's scripts, in the order they run. */
export const BROWSER_SCRIPTS = ["steps", "readability", "plots", "compare", "live", "app"] as const;
const RUNNING_FROM_SOURCE = import.meta.url.endsWith(".ts");

export function compiledScript(name: string): string {
  const compiled = fileURLToPath(new URL(`../../dist/viewer/browser/${name}.js`, import.meta.url));
  const source = fileURLToPath(new URL(`./browser/${name}.ts`, import.meta.url));
  if (!existsSync(compiled)) throw new Error(`the viewer page's script is not built (no ${compiled}): run npm run build`);
  if (RUNNING_FROM_SOURCE && statSync(source).mtimeMs > statSync(compiled).mtimeMs) {
    throw new Error(`the viewer page's script ${compiled} is older than its source ${source}: run npm run build`);
  }
  const script = readFileSync(compiled, "utf8");
  // Inline, the script would end at the first "</script" in its text.
  if (/<\/script/i.test(script)) throw new Error(`${compiled} contains "</script", which would cut the inline script short`);
  return script;
}

/** The page's script as compiled by `npm run build`: its parts joined in order. */
export function viewerScript(): string {
  return BROWSER_SCRIPTS.map(compiledScript).join("\n");
}

/** The page renderer: reads the script once, then gives the page with `nonce` on its script and style. */
export function viewerPage(): (nonce: string) => string {
  const script = viewerScript();
  // uPlot comes from the viewer itself (/assets/uplot.js, routes/plots.ts), under the same nonce.
  const style = VIEWER_STYLE + PLOT_STYLE + uplotAsset().css + COMPARE_STYLE;
  return (nonce) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gym view</title>
<link rel="icon" href="data:,">
<style nonce="${nonce}">${style}</style>
</head>
<body>
<header>
  <h1><a href="#/">gym view</a></h1><nav><a id="rollouts-link" href="#/">rollouts</a><a id="tasks-link" href="#/tasks">tasks</a><a id="plots-link" href="#/plots">plots</a><a id="compare-link" href="#/compare" hidden>compare</a></nav><span id="run-path" class="mono muted"></span>
  <div id="live"></div>
  <div id="counts" class="counts"></div>
  <div id="agents" class="agents"></div>
  <div id="notices"></div>
</header>
<main id="main"><p class="muted">Loading…</p></main>
<script nonce="${nonce}" src="/assets/uplot.js"></script>
<script nonce="${nonce}">${script}</script>
</body>
</html>
`;
}
