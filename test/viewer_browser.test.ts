// The viewer's page in a real browser (Debian's chromium driven by playwright-core) over a run on
// disk: the table, the filters, sorting by column headers, the task list, a rollout's conversation with its tool call, a failure, a task, deep
// links — and model output carrying HTML/JS payloads, which must show as text and never run.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewer, type Viewer } from "../src/viewer/server.js";
import { writeViewerRun, XSS_IMG, XSS_SCRIPT } from "./fixtures/viewer/run.js";

let viewer: Viewer;
let browser: Browser;
let page: Page;
const dialogs: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  const run = writeViewerRun(mkdtempSync(join(tmpdir(), "gym-viewer-browser-")));
  viewer = await startViewer({ rolloutsPath: run.rollouts });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  page = await browser.newPage();
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => pageErrors.push(error.message));
});

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
});

/** The (task, rollout) of every row in the rollout table. */
const tableRows = () =>
  page.$$eval("#rollouts tbody tr", (rows) => rows.map((row) => `${row.getAttribute("data-task")}/${row.getAttribute("data-rollout")}`));

/** No element, script or handler came out of row content: the payloads would have set window.__xss. */
async function expectNoInjection(): Promise<void> {
  expect(await page.locator("img").count()).toBe(0);
  // The page's own script and uPlot (from /assets/uplot.js).
  expect(await page.locator("script").count()).toBe(2);
  expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();
  expect(dialogs).toEqual([]);
}

describe("gym view in a browser", () => {
  it("shows the counts, per-agent key metrics and the rollout table", async () => {
    await page.goto(viewer.url);
    await page.locator("#rollouts tbody tr").first().waitFor();
    const counts = await page.locator("#counts").innerText();
    expect(counts).toMatch(/8 rollouts/);
    expect(counts).toMatch(/3 failure lines \(1 pair without success\)/);
    expect(counts).toMatch(/2 malformed lines/);
    expect(await page.locator("#agents-table").innerText()).toMatch(/math_agent[\s\S]*pass@1\[avg-of-2\]\s*66\.67/);
    expect(await tableRows()).toEqual(["0/0", "0/1", "1/0", "1/1", "2/0", "2/1", "2/1", "3/0", "3/0", "3/1", "4/0"]);
    // The payload in the first user message is shown as text in the table.
    await expect.poll(() => page.locator("#rollouts").innerText()).toContain(XSS_IMG);
    await page.locator("#malformed summary").click();
    expect(await page.locator("#malformed").innerText()).toMatch(/run\.jsonl:7: not valid JSON/);
    await expectNoInjection();
  });

  it("filters by agent, status and text, keeping the filters in the address", async () => {
    await page.locator("#filters select[name=agent]").selectOption("tool_agent");
    await page.locator("#filters button[type=submit]").click();
    await expect.poll(tableRows).toEqual(["1/0", "1/1", "3/0", "3/0", "3/1"]);
    expect(new URL(page.url()).hash).toBe("#/?agent=tool_agent");

    await page.locator("#filters select[name=status]").selectOption("failure");
    await page.locator("#filters button[type=submit]").click();
    await expect.poll(tableRows).toEqual(["3/0"]);
    expect(await page.locator("#rollouts tbody").innerText()).toMatch(/env_error/);

    await page.locator("#filters button", { hasText: "Reset" }).click();
    await page.locator("#filters input[name=q]").fill("paris");
    await page.locator("#filters input[name=q]").press("Enter");
    await expect.poll(tableRows).toEqual(["1/0"]);

    await page.locator("#filters input[name=q]").fill("");
    await page.locator("#filters input[name=min_reward]").fill("0.2");
    await page.locator("#filters input[name=max_reward]").fill("0.6");
    await page.locator("#filters button[type=submit]").click();
    await expect.poll(tableRows).toEqual(["1/1", "4/0"]);
  });

  it("sorts the table by clicking the reward, agent and task headers, keeping the sort in the address", async () => {
    await page.goto(`${viewer.url}#/`);
    await page.locator("#rollouts tbody tr").first().waitFor();
    await page.locator("#rollouts th a", { hasText: "reward" }).click();
    await expect.poll(tableRows).toEqual(["0/0", "1/0", "2/0", "3/0", "1/1", "4/0", "0/1", "3/1", "2/1", "2/1", "3/0"]);
    expect(new URL(page.url()).hash).toBe("#/?sort=-reward");
    expect(await page.locator("#rollouts tbody tr").first().locator("td").nth(3).innerText()).toBe("1");
    // A second click sorts ascending; filters keep the sort.
    await page.locator("#rollouts th a", { hasText: "reward" }).click();
    await expect.poll(() => new URL(page.url()).hash).toBe("#/?sort=reward");
    await expect.poll(tableRows).toEqual(["0/1", "3/1", "4/0", "1/1", "0/0", "1/0", "2/0", "3/0", "2/1", "2/1", "3/0"]);
    await page.locator("#filters select[name=agent]").selectOption("tool_agent");
    await page.locator("#filters button[type=submit]").click();
    await expect.poll(tableRows).toEqual(["3/1", "1/1", "1/0", "3/0", "3/0"]);
    expect(new URL(page.url()).hash).toBe("#/?sort=reward&agent=tool_agent");
    await page.locator("#rollouts th a", { hasText: "agent" }).click();
    await expect.poll(() => new URL(page.url()).hash).toBe("#/?sort=agent&agent=tool_agent");
    await page.locator("#rollouts th a", { hasText: "task" }).click();
    await expect.poll(() => new URL(page.url()).hash).toBe("#/?agent=tool_agent");
    await expect.poll(tableRows).toEqual(["1/0", "1/1", "3/0", "3/0", "3/1"]);
  });

  it("lists tasks, sorts them by pass rate, and opens one; deep links keep the sort", async () => {
    await page.goto(`${viewer.url}#/`);
    await page.locator("#tasks-link").click();
    const taskRows = () => page.$$eval("#tasks tbody tr", (rows) => rows.map((row) => Number(row.getAttribute("data-task"))));
    await expect.poll(taskRows).toEqual([0, 1, 2, 3, 4]);
    expect(await page.locator("#tasks tbody tr").nth(2).innerText()).toMatch(/^2\s+What is 3 \* 3\?\s+math_agent\s+1\s+2\s+1\s+1\s+1\s+100%$/);
    await page.locator("#tasks th a", { hasText: "pass rate" }).click();
    await expect.poll(taskRows).toEqual([2, 0, 1, 3, 4]);
    expect(new URL(page.url()).hash).toBe("#/tasks?sort=-pass_rate");
    await page.locator("#tasks th a", { hasText: "pass rate" }).click();
    await expect.poll(taskRows).toEqual([4, 0, 1, 3, 2]);
    await page.locator("#tasks tbody tr").first().click();
    await page.locator("#task-rollouts").waitFor();
    expect(new URL(page.url()).hash).toBe("#/task/4");
    expect(await page.locator("#task-title").innerText()).toBe("Task 4");
    await page.locator(".nav a", { hasText: "← tasks" }).click();
    await expect.poll(taskRows).toEqual([4, 0, 1, 3, 2]);

    await page.goto(`${viewer.url}#/tasks?sort=-mean_reward&agent=tool_agent`);
    await expect.poll(taskRows).toEqual([1, 3]);
    await page.locator("#tasks tbody tr", { hasText: "tool_agent" }).last().locator("a").click();
    await expect.poll(() => page.locator("#task-title").innerText()).toBe("Task 3");
    await expectNoInjection();
    expect(pageErrors).toEqual([]);
  });

  it("opens a rollout from the table: conversation, tool call with its arguments, tool output, usage, verify fields", async () => {
    await page.goto(`${viewer.url}#/`);
    await page.locator("#rollouts tbody tr", { hasText: "What's the weather in Paris?" }).click();
    await page.locator("#conversation").waitFor();
    expect(new URL(page.url()).hash).toBe("#/rollout/1/0");
    expect(await page.locator("#rollout-title").innerText()).toBe("Task 1 · rollout 0");
    const items = await page.$$eval("#conversation .item .label", (labels) => labels.map((l) => (l.firstChild?.textContent ?? "").trim()));
    expect(items).toEqual(["developer", "user", "tool call: get_weather", "tool output", "assistant"]);
    const call = page.locator("#conversation .kind-function_call pre");
    expect(await call.innerText()).toBe('{\n  "city": "Paris"\n}');
    expect(await page.locator("#conversation .kind-function_call_output").innerText()).toMatch(/"weather_description": "It is cold in Paris\."/);
    expect(await page.locator("#usage").innerText()).toMatch(/total_tokens\s+61/);
    expect(await page.locator("#extras").innerText()).toMatch(/reward_components[\s\S]*"correctness": 1/);
    await page.locator("#next").click();
    await expect.poll(() => page.locator("#rollout-title").innerText()).toBe("Task 1 · rollout 1");
  });

  it("renders model output carrying <img onerror> and <script> as text, and runs none of it", async () => {
    await page.goto(`${viewer.url}#/rollout/1/1`);
    await page.locator("#conversation").waitFor();
    const conversation = await page.locator("#conversation").innerText();
    expect(conversation).toContain(`Weather please ${XSS_IMG}`);
    expect(conversation).toContain(XSS_SCRIPT);
    expect(await page.locator("#extras").innerText()).toContain(XSS_SCRIPT);
    await page.locator("summary", { hasText: "raw row" }).click();
    await expect.poll(() => page.locator("pre.raw").innerText()).toContain("window.__xss=2");
    await expectNoInjection();
    expect(pageErrors).toEqual([]);
  });

  it("follows deep links to a failed rollout and to a task", async () => {
    await page.goto(`${viewer.url}#/rollout/2/1`);
    await page.locator("#failure").waitFor();
    const failure = await page.locator("#failure").innerText();
    expect(failure).toMatch(/model_error/);
    expect(failure).toContain("model answered 500: <b>boom</b>");
    expect(await page.locator("#attempts").innerText()).toMatch(/timeout[\s\S]*model_error/);
    // Failure lines hold no conversation: the planned input is shown.
    expect(await page.locator("#conversation").innerText()).toMatch(/What is 3 \* 3\?/);

    await page.goto(`${viewer.url}#/task/1`);
    await page.locator("#task-rollouts").waitFor();
    expect(await page.locator("#task-title").innerText()).toBe("Task 1");
    expect(await page.locator("#group-metrics").innerText()).toMatch(/mean\/reward\s+0\.75/);
    const cards = await page.locator("#task-rollouts .card").allInnerTexts();
    expect(cards).toHaveLength(2);
    expect(cards[0]).toMatch(/rollout 0 · reward 1[\s\S]*It is cold in Paris\./);
    expect(cards[1]).toContain(XSS_SCRIPT);

    await page.goto(`${viewer.url}#/rollout/9/9`);
    await expect.poll(() => page.locator(".error").innerText()).toMatch(/no rollout with task 9 and rollout 9/);
    await expectNoInjection();
  });
});
