// The viewer's plots, readability and static report over a run on disk (fixtures/viewer/plots_run.ts):
// the numbers GET /api/plots gives (worked out by hand from the fixture's tables), the same numbers on
// the charts in Chromium (each chart's element carries the arrays uPlot was given), the task list's
// prompt line, a long system prompt folded, identifiers and constants left out of the key metrics,
// and `gym view --export` writing one file that opens offline with no request beyond itself; a live
// run's plots following its file as it grows and when it is rewritten.
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plotData } from "../src/viewer/plots/plot_data.js";
import { readRowSample, ROW_BYTES_READ, ROWS_READ_ALL } from "../src/viewer/plots/row_sample.js";
import { RunIndex } from "../src/viewer/run_index/run_index.js";
import { startViewer, type Viewer } from "../src/viewer/server.js";
import { FAILURE_ORDER, writePlotsRun } from "./fixtures/viewer/plots_run.js";
import { runGym } from "./helpers/cli.js";

let dir: string;
let rollouts: string;
let viewer: Viewer;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gym-viewer-plots-"));
  rollouts = writePlotsRun(dir).rollouts;
  viewer = await startViewer({ rolloutsPath: rollouts });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  // A policy violation (a blocked script or style) is reported on the console as an error.
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
});

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
});

const api = async (path: string) => {
  const response = await fetch(new URL(path, viewer.url), { headers: { accept: "application/json" } });
  expect(response.status).toBe(200);
  return (await response.json()) as any;
};
const round = (values: Array<number | null>) => values.map((v) => (v === null ? null : Math.round(v * 100) / 100));
/** The arrays a chart was given: [x, ...series]. */
const chartData = (p: Page, id: string) => p.locator(`.chart[data-plot="${id}"]`).getAttribute("data-series").then((s) => JSON.parse(s!) as Array<Array<number | null>>);
const chartLabels = (p: Page, id: string) => p.locator(`.chart[data-plot="${id}"]`).getAttribute("data-labels").then((s) => JSON.parse(s!) as string[]);

// By hand from SOLVER (passes per task 4, 2, 0, 1, 4, 3 of 4):
// pass@1 = 3.5/6; pass@2 = (1 + 5/6 + 0 + 1/2 + 1 + 1)/6; pass@3 = (1 + 1 + 0 + 3/4 + 1 + 1)/6; pass@4 = 5/6.
const SOLVER_PASS = [58.33, 72.22, 79.17, 83.33];
// Repeats: k=1 by rollout 3/6, 3/6, 4/6, 4/6; k=2 groups {0,1} 4/6 and {2,3} 5/6; k=3 one group (rollouts 0–2) 4/6; k=4 one.
const SOLVER_PASS_MIN = [50, 66.67, 66.67, 83.33];
const SOLVER_PASS_MAX = [66.67, 83.33, 66.67, 83.33];
// Majority over the first k answers: k=1 as pass by rollout 0 (3/6); k=4: tasks 0, 1, 4, 5 vote "right" (4/6).
const SOLVER_MAJORITY_1 = 50;
const SOLVER_MAJORITY_4 = 66.67;

describe("the plots' numbers (GET /api/plots)", () => {
  it("pass@k and majority@k over k with the spread across repeats, and none for an agent without answers", async () => {
    const d = await api("/api/plots");
    const solver = d.pass_at_k.agents.find((a: any) => a.agent === "solver");
    expect(solver.k).toEqual([1, 2, 3, 4]);
    expect(round(solver.pass)).toEqual(SOLVER_PASS);
    expect(round(solver.pass_min)).toEqual(SOLVER_PASS_MIN);
    expect(round(solver.pass_max)).toEqual(SOLVER_PASS_MAX);
    expect(solver.repeats).toEqual([4, 2, 1, 1]);
    expect(round([solver.majority[0], solver.majority[3]])).toEqual([SOLVER_MAJORITY_1, SOLVER_MAJORITY_4]);
    const guesser = d.pass_at_k.agents.find((a: any) => a.agent === "guesser");
    // Passes (reward ≥ 1): task 6 has 1 of 2, tasks 7 and 8 none.
    expect(round(guesser.pass)).toEqual([16.67, 33.33]);
    expect(guesser.majority).toBeNull();
  });

  it("rewards on one shared axis, the curriculum view, usage and latency, failures in the order written", async () => {
    const d = await api("/api/plots");
    expect(round(d.rewards.edges)).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    const counts = Object.fromEntries(d.rewards.agents.map((a: any) => [a.agent, a.counts]));
    expect(counts.solver).toEqual([10, 0, 0, 0, 0, 0, 0, 0, 0, 14]);
    expect(counts.guesser).toEqual([2, 0, 1, 0, 0, 2, 0, 0, 0, 1]);
    const curriculum = Object.fromEntries(d.curriculum.agents.map((a: any) => [a.agent, [a.tasks, a.always, a.between, a.never]]));
    expect(curriculum).toEqual({ solver: [6, 2, 3, 1], guesser: [3, 0, 1, 2] });
    expect(d.usage).toMatchObject({ rows: 30, rows_read: 30, sampled: false, missing: [] });
    const latency = d.usage.fields.find((f: any) => f.name === "latency_ms").histogram;
    expect([latency.edges[0], latency.edges.at(-1)]).toEqual([200, 500]);
    expect(latency.agents).toHaveLength(1);
    expect(latency.agents[0]).toMatchObject({ agent: "solver", n: 24, mean: 350 });
    expect(d.failures.buckets.map((b: any) => b.to)).toEqual([1, 2, 3, 4, 5]);
    const byClass = Object.fromEntries(d.failures.classes.map((c: any) => [c.name, c.counts]));
    expect(byClass).toEqual(Object.fromEntries([...new Set(FAILURE_ORDER)].map((name) => [name, FAILURE_ORDER.map((c) => (c === name ? 1 : 0))])));
  });

  it("key metrics without identifiers and constants (named instead), task prompts, uPlot from the viewer itself", async () => {
    const summary = await api("/api/summary");
    const solver = summary.agents.find((a: any) => a.name === "solver");
    expect(Object.keys(solver.key_metrics)).toEqual(["mean/reward"]);
    expect(solver.hidden_key_metrics).toEqual([
      { name: "mean/id", reason: "identifier" },
      { name: "mean/max_steps", reason: "constant" },
    ]);
    const tasks = await api("/api/tasks");
    expect(tasks.rows.map((t: any) => t.prompt)).toEqual([0, 1, 2, 3, 4, 5].map((t): string | null => `Question ${t} of the solver`).concat(["Guess 6", "Guess 7", "Guess 8", null]));
    const asset = await fetch(new URL("/assets/uplot.js", viewer.url));
    expect(asset.headers.get("content-type")).toMatch(/javascript/);
    expect(await asset.text()).toMatch(/^\/\*! https:\/\/github.com\/leeoniya\/uPlot/);
  });
});

describe("the rows read for answers, usage and latency", () => {
  it("reads an even sample when the rows are many or large, and then leaves majority@k out, saying why", () => {
    const run = new RunIndex(rollouts);
    try {
      const few = readRowSample(run, 10);
      expect(few).toMatchObject({ rows: 30, read: 10, complete: false });
      expect(few.answers.size).toBe(0);
      const small = readRowSample(run, 1000, run.entries.length[0]! * 6);
      expect(small.complete).toBe(false);
      expect(small.read).toBeGreaterThanOrEqual(5);
      expect(small.read).toBeLessThanOrEqual(7);
      const d = plotData(run, few);
      expect(d.usage).toMatchObject({ rows: 30, rows_read: 10, sampled: true });
      expect(d.pass_at_k.agents.every((a) => a.majority === null)).toBe(true);
      expect(d.pass_at_k.majority_note).toBe("majority@k needs every row's answer; only 10 of 30 rows were read");
      // pass@k needs no row: the same as with every row read.
      expect(round(d.pass_at_k.agents.find((a) => a.agent === "solver")!.pass)).toEqual(SOLVER_PASS);
    } finally {
      run.close();
    }
  });
});

describe("a live run's plots", () => {
  /** The fixture's rollout lines, and a run file holding the first `n` of them. */
  const growingRun = () => {
    const file = writePlotsRun(mkdtempSync(join(tmpdir(), "gym-viewer-plots-live-")), "growing").rollouts;
    const lines = readFileSync(file, "utf8").split(/(?<=\n)/);
    return { file, lines, keep: (n: number) => writeFileSync(file, lines.slice(0, n).join("")) };
  };
  /** The plots of the file as it is now, worked out from a fresh index (JSON as the API sends it). */
  const fresh = (file: string) => {
    const run = new RunIndex(file);
    try {
      return JSON.parse(JSON.stringify(plotData(run))) as unknown;
    } finally {
      run.close();
    }
  };

  it("carries the rows already read to the grown index and reads only the appended ones", () => {
    const { file, lines, keep } = growingRun();
    keep(10);
    const before = new RunIndex(file);
    appendFileSync(file, lines.slice(10).join(""));
    const after = new RunIndex(file);
    try {
      const carried = readRowSample(after, ROWS_READ_ALL, ROW_BYTES_READ, readRowSample(before));
      expect(carried).toMatchObject({ rows: 30, read: 30, complete: true, carried: 10 });
      expect({ ...carried, carried: 0 }).toEqual(readRowSample(after));
      // A sample of a longer lineage (the file was rewritten shorter) is not carried.
      expect(readRowSample(before, ROWS_READ_ALL, ROW_BYTES_READ, carried)).toMatchObject({ rows: 10, read: 10, carried: 0 });
    } finally {
      before.close();
      after.close();
    }
  });

  it("follows the file as it grows and when it is rewritten (GET /api/plots)", async () => {
    const { file, lines, keep } = growingRun();
    keep(10);
    const live = await startViewer({ rolloutsPath: file, live: true });
    try {
      const plots = async () => (await (await fetch(new URL("/api/plots", live.url), { headers: { accept: "application/json" } })).json()) as any;
      expect((await plots()).usage).toMatchObject({ rows: 10, rows_read: 10 });
      appendFileSync(file, lines.slice(10).join(""));
      await expect.poll(async () => (await plots()).usage.rows, { timeout: 30_000 }).toBe(30);
      const grown = await plots();
      expect(grown).toEqual(fresh(file));
      // The fixture's numbers, worked out by hand above.
      const solver = grown.pass_at_k.agents.find((a: any) => a.agent === "solver");
      expect(round(solver.pass)).toEqual(SOLVER_PASS);
      expect(round([solver.majority[0], solver.majority[3]])).toEqual([SOLVER_MAJORITY_1, SOLVER_MAJORITY_4]);

      // Rewritten shorter (another run into the same file): the plots are of the new content alone.
      keep(4);
      await expect.poll(async () => (await plots()).usage.rows, { timeout: 30_000 }).toBe(4);
      expect(await plots()).toEqual(fresh(file));
    } finally {
      await live.close();
    }
  });
});

describe("plots and readability in a browser", () => {
  it("draws every plot with the API's numbers", async () => {
    await page.goto(viewer.url);
    await page.locator("#plots-link").click();
    await page.locator("#plot-failures canvas").waitFor();
    expect(await page.locator("#plots canvas").count()).toBeGreaterThanOrEqual(7);
    const rewards = await chartData(page, "rewards");
    expect(round(rewards[0]!)).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    // One stepped series per agent: the bin counts, the last repeated up to the right edge.
    expect(rewards.slice(1)).toEqual([
      [10, 0, 0, 0, 0, 0, 0, 0, 0, 14, 14],
      [2, 0, 1, 0, 0, 2, 0, 0, 0, 1, 1],
    ]);
    const pass = await chartData(page, "pass_at_k");
    const labels = await chartLabels(page, "pass_at_k");
    expect(pass[0]).toEqual([1, 2, 3, 4]);
    expect(round(pass[1 + labels.indexOf("solver pass@k")]!)).toEqual(SOLVER_PASS);
    expect(round(pass[1 + labels.indexOf("solver pass@k lowest repeat")]!)).toEqual(SOLVER_PASS_MIN);
    expect(round(pass[1 + labels.indexOf("solver pass@k highest repeat")]!)).toEqual(SOLVER_PASS_MAX);
    expect(round(pass[1 + labels.indexOf("guesser pass@k")]!)).toEqual([16.67, 33.33, null, null]);
    expect(labels).not.toContain("guesser majority@k");
    expect(await page.locator("#curriculum tbody").innerText()).toMatch(/solver\s+6\s+2\s+3\s+1\s+guesser\s+3\s+0\s+1\s+2/);
    const failures = await chartData(page, "failures");
    expect(failures[0]).toEqual([1, 2, 3, 4, 5]);
    expect(await chartLabels(page, "failures")).toEqual(["env_error", "model_error", "timeout"]);
    expect(await page.locator("#plot-usage-latency_ms canvas").count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it("shows each task's prompt line, folds a long system prompt, and leaves identifiers and constants out of the key metrics", async () => {
    const agents = await page.locator("#agents-table").innerText();
    expect(agents).toMatch(/solver[\s\S]*mean\/reward\s+0\.583333/);
    expect(agents).not.toMatch(/mean\/id\s/);
    expect(agents).toContain("2 hidden (mean/id, mean/max_steps: identifier or constant)");

    await page.locator("#tasks-link").click();
    await page.locator("#tasks tbody tr").first().waitFor();
    expect(await page.locator("#tasks tbody tr").first().locator("td.prompt").innerText()).toBe("Question 0 of the solver");

    await page.goto(`${viewer.url}#/rollout/0/0`);
    await page.locator("#conversation").waitFor();
    const system = page.locator("#conversation .role-system details.long");
    expect(await system.getAttribute("open")).toBeNull();
    expect(await system.locator("summary").innerText()).toMatch(/^Rule 1: think step by step[^\n]* \(40 lines, \d+ characters; show all\)$/);
    expect((await page.locator("#conversation .role-system").boundingBox())!.height).toBeLessThan(80);
    await system.locator("summary").click();
    await expect.poll(() => system.locator(".body").innerText()).toContain("Rule 40:");
    // A short message stays as it is.
    expect(await page.locator("#conversation .role-user details").count()).toBe(0);
    expect(await page.locator("#conversation .role-user .body").innerText()).toBe("Question 0 of the solver\nAnswer with a number.");
    expect(problems).toEqual([]);
  });
});

describe("gym view --export", () => {
  it("writes one file that opens offline: plots with the run's numbers, metrics, tasks, sample conversations", async () => {
    const out = join(dir, "reports", "report.html");
    const result = await runGym(["view", "--rollouts", rollouts, "--export", out]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^report: .*report\.html \(\d+ KB: plots, 10 tasks, \d+ sample conversations; opens offline\)\n$/);
    const html = readFileSync(out, "utf8");
    expect(html).toContain("Content-Security-Policy");
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet/);

    const context = await browser.newContext();
    const requests: string[] = [];
    context.on("request", (request) => requests.push(request.url()));
    // Anything but the file itself is refused (and recorded): the report must not need it.
    await context.route(/^(?!file:)/, (route) => route.abort());
    const offline = await context.newPage();
    const errors: string[] = [];
    offline.on("pageerror", (error) => errors.push(error.message));
    offline.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    const url = pathToFileURL(out).href;
    await offline.goto(url);
    await offline.locator("#plot-failures canvas").waitFor();
    expect(requests).toEqual([url]);
    expect(errors).toEqual([]);
    const pass = await chartData(offline, "pass_at_k");
    const labels = await chartLabels(offline, "pass_at_k");
    expect(round(pass[1 + labels.indexOf("solver pass@k")]!)).toEqual(SOLVER_PASS);
    expect((await chartData(offline, "rewards")).slice(1)).toEqual([
      [10, 0, 0, 0, 0, 0, 0, 0, 0, 14, 14],
      [2, 0, 1, 0, 0, 2, 0, 0, 0, 1, 1],
    ]);
    expect(await offline.locator("#agents-table").innerText()).toContain("2 hidden (mean/id, mean/max_steps");
    expect(await offline.locator("#tasks tbody tr").first().innerText()).toMatch(/^0\s+Question 0 of the solver\s+4\s+0\s+1\s+100%$/);
    // Each agent's best and worst rollouts and a failure: solver (2 + 2), guesser (2 + 2 + 1).
    const samples = await offline.locator("#conversations details.sample > summary").allInnerTexts();
    expect(samples).toHaveLength(9);
    expect(samples.filter((s) => /failure$/.test(s))).toHaveLength(1);
    await offline.locator("#conversations details.sample > summary").first().click();
    expect(await offline.locator("#conversations details.sample").first().locator(".role-system details.long").count()).toBe(1);
    expect(requests).toEqual([url]);
    await context.close();
  });
});
