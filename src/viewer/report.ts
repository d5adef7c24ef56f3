// `gym view --export report.html`: one self-contained HTML file of a run — the counts and key metrics
// of each agent, the plots (uPlot and their data inlined), the first tasks with their prompts, and a
// sample of conversations (each agent's best and worst rollouts and a failure) — for sharing and CI
// artifacts. It asks the viewer's own API in-process (no port is opened), so the file shows the same
// numbers as the page. It opens offline: its Content-Security-Policy (a <meta>) allows only its own
// inline scripts and style, by hash, and nothing to be fetched.
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import { compiledScript } from "./page.js";
import { PLOT_STYLE } from "./plots/plot_style.js";
import { uplotAsset } from "./plots/uplot_asset.js";
import { buildViewer } from "./server.js";
import { VIEWER_STYLE } from "./style.js";

/** The report's scripts (compiled by `npm run build` from src/viewer/browser), in the order they run. */
const REPORT_SCRIPTS = ["readability", "plots", "report"] as const;
/** Tasks listed, and sample conversations per agent: best, worst, a failure. */
const TASKS_SHOWN = 100;
const BEST_PER_AGENT = 2;
const WORST_PER_AGENT = 2;
const FAILURES_PER_AGENT = 1;
const AGENTS_SAMPLED = 8;
/** Failure lines looked through for one whose pair has no success. */
const FAILURE_LINES_LOOKED_AT = 50;

export interface ReportOptions {
  rolloutsPath: string;
  outPath: string;
}

export interface ReportResult {
  path: string;
  bytes: number;
  conversations: number;
  tasks: number;
}

/** Long arrays of numbers (token ids, logprobs) become their length: they would swell the file. */
function compact(_key: string, value: unknown): unknown {
  return Array.isArray(value) && value.length > 24 && typeof value[0] === "number" ? `[${value.length} numbers]` : value;
}

async function get<T>(app: FastifyInstance, url: string): Promise<T> {
  const response = await app.inject({ method: "GET", url, headers: { accept: "application/json" } });
  if (response.statusCode !== 200) throw new Error(`the viewer's ${url} answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
  return response.json() as T;
}

type Listing = { task: number; rollout: number };
type Summary = { agents: Array<{ name: string }> } & Record<string, unknown>;

async function sampleConversations(app: FastifyInstance, summary: Summary): Promise<unknown[]> {
  const picked = new Map<string, Listing & { why: string }>();
  for (const agent of summary.agents.slice(0, AGENTS_SAMPLED)) {
    const name = encodeURIComponent(agent.name);
    const lists: Array<[string, string, number]> = [
      [`/api/rollouts?agent=${name}&status=success&sort=-reward&limit=${BEST_PER_AGENT}`, "highest reward", BEST_PER_AGENT],
      [`/api/rollouts?agent=${name}&status=success&sort=reward&limit=${WORST_PER_AGENT}`, "lowest reward", WORST_PER_AGENT],
      // Failure lines of pairs not shown yet (a pair that later succeeded is shown as its success).
      [`/api/rollouts?agent=${name}&status=failure&limit=${FAILURE_LINES_LOOKED_AT}`, "failure", FAILURES_PER_AGENT],
    ];
    for (const [url, why, wanted] of lists) {
      let taken = 0;
      for (const row of (await get<{ rows: Listing[] }>(app, url)).rows) {
        const key = `${row.task}/${row.rollout}`;
        if (taken >= wanted || picked.has(key)) continue;
        if (why === "failure" && (await get<{ status: string }>(app, `/api/rollouts/${row.task}/${row.rollout}`)).status !== "failure") continue;
        picked.set(key, { task: row.task, rollout: row.rollout, why });
        taken++;
      }
    }
  }
  const out: unknown[] = [];
  for (const { task, rollout, why } of picked.values()) {
    const d = await get<{ row: Record<string, unknown> | null; planned_row: Record<string, unknown> | null; status: string } & Record<string, unknown>>(app, `/api/rollouts/${task}/${rollout}`);
    const row = d.row ?? {};
    const input = d.status === "success" ? row : (d.planned_row ?? {});
    out.push({
      why,
      task,
      rollout,
      agent: d.agent,
      status: d.status,
      reward: d.reward,
      failure_class: row._ng_failure_class ?? null,
      error: row._ng_failure_error ?? null,
      params: input.responses_create_params ?? null,
      output: d.status === "success" ? ((row.response as { output?: unknown } | undefined)?.output ?? null) : null,
    });
  }
  return out;
}

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** The report's HTML for `data` (JSON-able): the scripts and style inline, allowed by their hashes. */
export function reportHtml(title: string, data: unknown): string {
  const uplot = uplotAsset();
  const style = VIEWER_STYLE + PLOT_STYLE + uplot.css;
  const script = REPORT_SCRIPTS.map(compiledScript).join("\n");
  // A JSON data block is never run; "<" escaped, no text in it can close the element.
  const json = JSON.stringify(data, compact).replace(/</g, "\\u003c");
  const policy = `default-src 'none'; script-src ${sha256(uplot.script)} ${sha256(script)}; style-src ${sha256(style)}; img-src data:; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<style>${style}</style>
</head>
<body>
<header><h1>gym report</h1><span id="run-path" class="mono muted"></span><div id="counts" class="counts"></div><div id="agents" class="agents"></div><div id="notices"></div></header>
<main id="main"><p class="muted">This report needs JavaScript to draw its plots and conversations.</p></main>
<script type="application/json" id="report-data">${json}</script>
<!-- Charts by uPlot (https://github.com/leeoniya/uPlot), MIT License, Copyright (c) 2022 Leon Sorokin. -->
<script>${uplot.script}</script>
<script>${script}</script>
</body>
</html>
`;
}

/** Indexes the run, asks the viewer's API for everything the report shows, writes the file. */
export async function writeReport(options: ReportOptions): Promise<ReportResult> {
  const { app } = buildViewer({ rolloutsPath: options.rolloutsPath });
  try {
    const summary = await get<Summary>(app, "/api/summary");
    const plots = await get<unknown>(app, "/api/plots");
    const tasks = await get<{ total: number; rows: unknown[]; pass_threshold: number }>(app, `/api/tasks?limit=${TASKS_SHOWN}`);
    const conversations = await sampleConversations(app, summary);
    const html = reportHtml(`gym report: ${options.rolloutsPath}`, {
      generated_at: new Date().toISOString(),
      summary,
      plots,
      tasks,
      conversations,
    });
    writeFileSync(options.outPath, html);
    return { path: options.outPath, bytes: Buffer.byteLength(html), conversations: conversations.length, tasks: tasks.rows.length };
  } finally {
    await app.close();
  }
}
