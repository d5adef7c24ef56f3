// The viewer's single page: an HTML shell with the style sheet (style.ts) and the compiled browser
// script (browser/app.ts) inline, both under the nonce the server's Content-Security-Policy names.
//
// The script is read from the package's dist/, where `npm run build` compiles it
// (tsconfig.browser.json): `../../dist` is that directory both from src/viewer (tests, tsx) and from
// dist/viewer (the built CLI, an installed package). Running from src/ therefore needs a build, and a
// build older than the script's source is refused rather than served.
import { existsSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { VIEWER_STYLE } from "./style.js";

const COMPILED_SCRIPT = fileURLToPath(new URL("../../dist/viewer/browser/app.js", import.meta.url));
const SCRIPT_SOURCE = fileURLToPath(new URL("./browser/app.ts", import.meta.url));
const RUNNING_FROM_SOURCE = import.meta.url.endsWith(".ts");

/** The page's script as compiled by `npm run build`. */
export function viewerScript(): string {
  if (!existsSync(COMPILED_SCRIPT)) throw new Error(`the viewer page's script is not built (no ${COMPILED_SCRIPT}): run npm run build`);
  if (RUNNING_FROM_SOURCE && statSync(SCRIPT_SOURCE).mtimeMs > statSync(COMPILED_SCRIPT).mtimeMs) {
    throw new Error(`the viewer page's script ${COMPILED_SCRIPT} is older than its source ${SCRIPT_SOURCE}: run npm run build`);
  }
  const script = readFileSync(COMPILED_SCRIPT, "utf8");
  // Inline, the script would end at the first "</script" in its text.
  if (/<\/script/i.test(script)) throw new Error(`${COMPILED_SCRIPT} contains "</script", which would cut the inline script short`);
  return script;
}

/** The page renderer: reads the script once, then gives the page with `nonce` on its script and style. */
export function viewerPage(): (nonce: string) => string {
  const script = viewerScript();
  return (nonce) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gym view</title>
<link rel="icon" href="data:,">
<style nonce="${nonce}">${VIEWER_STYLE}</style>
</head>
<body>
<header>
  <h1><a href="#/">gym view</a></h1><nav><a id="rollouts-link" href="#/">rollouts</a><a id="tasks-link" href="#/tasks">tasks</a></nav><span id="run-path" class="mono muted"></span>
  <div id="counts" class="counts"></div>
  <div id="agents" class="agents"></div>
  <div id="notices"></div>
</header>
<main id="main"><p class="muted">Loading…</p></main>
<script nonce="${nonce}">${script}</script>
</body>
</html>
`;
}
