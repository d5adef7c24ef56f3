// Re-takes the viewer screenshots the README shows (docs/img/viewer-*.png) over the plots test's run
// (test/fixtures/viewer/plots_run.ts): the plots view, and a rollout with its long system prompt folded.
// Run with: npm run build && node --import tsx scripts/viewer_screenshots.ts
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startViewer } from "../src/viewer/server.js";
import { writePlotsRun } from "../test/fixtures/viewer/plots_run.js";
import { REPO_ROOT } from "../test/helpers/cli.js";

const out = join(REPO_ROOT, "docs", "img");
mkdirSync(out, { recursive: true });
const run = writePlotsRun(mkdtempSync(join(tmpdir(), "gym-viewer-shots-")));
const viewer = await startViewer({ rolloutsPath: run.rollouts });
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ viewport: { width: 1240, height: 1000 }, deviceScaleFactor: 1 });
  await page.goto(`${viewer.url}#/plots`);
  await page.locator("#plot-failures canvas").waitFor();
  await page.screenshot({ path: join(out, "viewer-plots.png"), clip: { x: 0, y: 0, width: 1240, height: 1000 } });
  await page.goto(`${viewer.url}#/rollout/1/1`);
  await page.locator("#conversation").waitFor();
  await page.screenshot({ path: join(out, "viewer-rollout.png"), clip: { x: 0, y: 0, width: 1240, height: 760 } });
} finally {
  await browser.close();
  await viewer.close();
}
