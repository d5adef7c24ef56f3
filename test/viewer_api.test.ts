// The viewer's JSON API over real files on disk, served on 127.0.0.1: counts, filters, paging,
// search, sort orders (ties, failures last), the task list, full rows, per-task views, 404s and malformed lines; a NeMo Gym rollout file with no
// siblings; a broken metrics file; the bounded search; and `gym view` itself on the output of a real
// `gym eval run` (the quickstart, offline).
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInNewContext } from "node:vm";
import { beforeAll, describe, expect, it } from "vitest";
import { startViewer, type Viewer } from "../src/viewer/server.js";
import { BROWSER_SCRIPTS, viewerScript } from "../src/viewer/page.js";
import { resultLine } from "../src/collect/lines.js";
import { onTeardown } from "./helpers/scope.js";
import { NEMO_GYM_EXAMPLES, REPO_ROOT, runGym, startGym, stopChild, waitForOutput } from "./helpers/cli.js";
import { writeViewerRun, XSS_IMG, XSS_SCRIPT, type ViewerRun } from "./fixtures/viewer/run.js";

let dir: string;
let run: ViewerRun;
let viewer: Viewer;

async function open(options: Parameters<typeof startViewer>[0]): Promise<Viewer> {
  const started = await startViewer(options);
  onTeardown(() => started.close());
  return started;
}

async function get(path: string, base = viewer.url): Promise<{ status: number; body: any }> {
  const response = await fetch(new URL(path, base));
  return { status: response.status, body: await response.json() };
}

const pairs = (rows: Array<{ task: number; rollout: number; status: string; attempt: number }>) =>
  rows.map((r) => `${r.task}/${r.rollout}${r.status === "failure" ? `!${r.attempt}` : ""}`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gym-viewer-"));
  run = writeViewerRun(join(dir, "run"));
  viewer = await open({ rolloutsPath: run.rollouts });
});

describe("gym view API", () => {
  it("summarises the run: counts, agents with mean reward and key metrics, malformed lines, missing pairs", async () => {
    const { status, body } = await get("/api/summary");
    expect(status).toBe(200);
    expect(body.counts).toEqual({
      rollouts: 8,
      failures: 3,
      failed_pairs: 1,
      duplicate_pairs: 0,
      tasks: 5,
      agents: 3,
      planned: 10,
      missing_pairs: 1,
      malformed_lines: 2,
    });
    expect(body.missing_pairs).toEqual([{ task: 5, rollout: 0 }]);
    expect(body.malformed_lines).toEqual([
      { file: run.paths.output, line: 7, reason: expect.stringMatching(/not valid JSON/) },
      { file: run.paths.failures, line: 3, reason: expect.stringMatching(/not valid JSON/) },
    ]);
    expect(body.failure_classes).toEqual({ timeout: 1, env_error: 1, model_error: 1 });
    const agents = Object.fromEntries(body.agents.map((a: any) => [a.name, a]));
    expect(agents.math_agent).toMatchObject({ rollouts: 3, failures: 2, key_metrics: { "mean/reward": 0.6667, "pass@1[avg-of-2]": 66.67 } });
    expect(agents.math_agent.mean_reward).toBeCloseTo(2 / 3);
    expect(agents.math_agent.reward_histogram).toEqual({ min: 0, max: 1, counts: [1, 0, 0, 0, 0, 0, 0, 0, 0, 2] });
    expect(agents.tool_agent).toMatchObject({ rollouts: 4, failures: 1, mean_reward: 0.625 });
    expect(agents.nemo_agent).toMatchObject({ rollouts: 1, failures: 0, mean_reward: 0.25, key_metrics: null });
    expect(body.files.metrics).toMatchObject({ present: true, agents: 2, tasks_with_group_metrics: 4, error: null });
  });

  it("lists rollouts and failed attempts in (task, rollout, attempt) order, paged", async () => {
    const all = await get("/api/rollouts?limit=200");
    expect(all.body.total).toBe(11);
    expect(pairs(all.body.rows)).toEqual(["0/0", "0/1", "1/0", "1/1", "2/0", "2/1!0", "2/1!1", "3/0!0", "3/0", "3/1", "4/0"]);
    const page = await get("/api/rollouts?offset=3&limit=3");
    expect(page.body).toMatchObject({ total: 11, offset: 3, limit: 3 });
    expect(pairs(page.body.rows)).toEqual(["1/1", "2/0", "2/1!0"]);
    const first = all.body.rows[2];
    expect(first).toMatchObject({ agent: "tool_agent", reward: 1, status: "success", tool_calls: 1, snippet: "What's the weather in Paris?", answer: "It is cold in Paris." });
    const failure = all.body.rows[6];
    expect(failure).toMatchObject({ status: "failure", reward: null, failure_class: "model_error", terminal: true, tool_calls: null, snippet: "What is 3 * 3?" });
    expect(failure.error).toBe("model answered 500: <b>boom</b>");
    expect((await get("/api/rollouts?offset=50")).body).toMatchObject({ total: 11, rows: [] });
  });

  it("filters by agent, status, reward range and task", async () => {
    const tool = await get("/api/rollouts?agent=tool_agent");
    expect(pairs(tool.body.rows)).toEqual(["1/0", "1/1", "3/0!0", "3/0", "3/1"]);
    expect(pairs((await get("/api/rollouts?status=failure")).body.rows)).toEqual(["2/1!0", "2/1!1", "3/0!0"]);
    expect(pairs((await get("/api/rollouts?status=success&agent=math_agent")).body.rows)).toEqual(["0/0", "0/1", "2/0"]);
    // A reward bound leaves failures (no reward) out.
    expect(pairs((await get("/api/rollouts?min_reward=0.25&max_reward=0.5")).body.rows)).toEqual(["1/1", "4/0"]);
    expect(pairs((await get("/api/rollouts?max_reward=0")).body.rows)).toEqual(["0/1", "3/1"]);
    expect(pairs((await get("/api/rollouts?task=3")).body.rows)).toEqual(["3/0!0", "3/0", "3/1"]);
    expect((await get("/api/rollouts?agent=nobody")).body).toMatchObject({ total: 0, rows: [] });
    for (const bad of ["status=done", "min_reward=abc", "offset=-1", "limit=100000", "task=x"]) {
      const { status, body } = await get(`/api/rollouts?${bad}`);
      expect(status, bad).toBe(400);
      expect(body.detail, bad).toEqual(expect.any(String));
    }
  });

  it("sorts the table by reward (both ways), agent or task; ties in (task, rollout, attempt) order, failures last", async () => {
    const sorted = async (query: string) => pairs((await get(`/api/rollouts?limit=200&${query}`)).body.rows);
    const byTask = ["0/0", "0/1", "1/0", "1/1", "2/0", "2/1!0", "2/1!1", "3/0!0", "3/0", "3/1", "4/0"];
    expect(await sorted("sort=task")).toEqual(byTask);
    expect(await sorted("")).toEqual(byTask);
    expect(await sorted("sort=-reward")).toEqual(["0/0", "1/0", "2/0", "3/0", "1/1", "4/0", "0/1", "3/1", "2/1!0", "2/1!1", "3/0!0"]);
    expect(await sorted("sort=reward")).toEqual(["0/1", "3/1", "4/0", "1/1", "0/0", "1/0", "2/0", "3/0", "2/1!0", "2/1!1", "3/0!0"]);
    expect(await sorted("sort=agent")).toEqual(["0/0", "0/1", "2/0", "2/1!0", "2/1!1", "4/0", "1/0", "1/1", "3/0!0", "3/0", "3/1"]);
    expect((await get("/api/rollouts?sort=-reward&limit=1")).body).toMatchObject({ sort: "-reward", total: 11, rows: [{ task: 0, rollout: 0, reward: 1 }] });
  });

  it("composes sorting with filters, search and paging", async () => {
    const sorted = async (query: string) => pairs((await get(`/api/rollouts?${query}`)).body.rows);
    expect(await sorted("sort=-reward&agent=tool_agent")).toEqual(["1/0", "3/0", "1/1", "3/1", "3/0!0"]);
    expect(await sorted("sort=-reward&task=3")).toEqual(["3/0", "3/1", "3/0!0"]);
    expect(await sorted("sort=reward&min_reward=0.25")).toEqual(["4/0", "1/1", "0/0", "1/0", "2/0", "3/0"]);
    expect(await sorted("sort=agent&status=failure")).toEqual(["2/1!0", "2/1!1", "3/0!0"]);
    const page = await get("/api/rollouts?sort=reward&status=success&offset=2&limit=3");
    expect(page.body).toMatchObject({ total: 8, offset: 2, limit: 3, sort: "reward" });
    expect(pairs(page.body.rows)).toEqual(["4/0", "1/1", "0/0"]);
    expect(pairs((await get("/api/rollouts?sort=-reward&offset=4&limit=2")).body.rows)).toEqual(["1/1", "4/0"]);
    expect(pairs((await get("/api/rollouts?sort=-reward&offset=11")).body.rows)).toEqual([]);
    expect(await sorted("q=oslo&sort=reward")).toEqual(["3/1", "3/0"]);
    expect(await sorted("q=oslo")).toEqual(["3/0", "3/1"]);
    expect(await sorted("q=cold%20in&sort=-reward&offset=1&limit=2")).toEqual(["3/0", "1/1"]);
  });

  it("refuses unknown sort orders with a 400 and a detail", async () => {
    for (const path of ["/api/rollouts?sort=REWARD", "/api/rollouts?sort=foo", "/api/rollouts?sort=mean_reward", "/api/rollouts?sort=-task", "/api/tasks?sort=reward", "/api/tasks?sort=-task", "/api/tasks?sort=pass"]) {
      const { status, body } = await get(path);
      expect(status, path).toBe(400);
      expect(body.detail, path).toMatch(/^sort must be one of /);
    }
    expect((await get("/api/tasks?limit=100000")).status).toBe(400);
  });

  it("lists tasks with their agents, counts, reward stats and pass rate (reward ≥ 1), sorted and paged", async () => {
    const { status, body } = await get("/api/tasks");
    expect(status).toBe(200);
    expect(body).toMatchObject({ total: 5, offset: 0, limit: 100, sort: "task", pass_threshold: 1 });
    expect(body.rows).toEqual([
      { task: 0, prompt: "What is 2 + 2?", agents: ["math_agent"], rollouts: 2, failures: 0, mean_reward: 0.5, min_reward: 0, max_reward: 1, passes: 1, pass_rate: 0.5 },
      { task: 1, prompt: "What's the weather in Paris?", agents: ["tool_agent"], rollouts: 2, failures: 0, mean_reward: 0.75, min_reward: 0.5, max_reward: 1, passes: 1, pass_rate: 0.5 },
      { task: 2, prompt: "What is 3 * 3?", agents: ["math_agent"], rollouts: 1, failures: 2, mean_reward: 1, min_reward: 1, max_reward: 1, passes: 1, pass_rate: 1 },
      { task: 3, prompt: "Weather in Oslo?", agents: ["tool_agent"], rollouts: 2, failures: 1, mean_reward: 0.5, min_reward: 0, max_reward: 1, passes: 1, pass_rate: 0.5 },
      { task: 4, prompt: "Café au lait: how many calories?", agents: ["nemo_agent"], rollouts: 1, failures: 0, mean_reward: 0.25, min_reward: 0.25, max_reward: 0.25, passes: 0, pass_rate: 0 },
    ]);
    // The numbers agree with the per-task view.
    expect((await get("/api/tasks/3")).body.stats).toMatchObject({ rollouts: 2, failures: 1, mean_reward: 0.5, min_reward: 0, max_reward: 1 });
    const tasks = async (query: string) => (await get(`/api/tasks?${query}`)).body.rows.map((t: any) => t.task);
    expect(await tasks("sort=task")).toEqual([0, 1, 2, 3, 4]);
    expect(await tasks("sort=-pass_rate")).toEqual([2, 0, 1, 3, 4]);
    expect(await tasks("sort=pass_rate")).toEqual([4, 0, 1, 3, 2]);
    expect(await tasks("sort=-mean_reward")).toEqual([2, 1, 0, 3, 4]);
    expect(await tasks("sort=mean_reward")).toEqual([4, 0, 3, 1, 2]);
    const page = await get("/api/tasks?sort=-mean_reward&offset=1&limit=2");
    expect(page.body).toMatchObject({ total: 5, offset: 1, limit: 2 });
    expect(page.body.rows.map((t: any) => t.task)).toEqual([1, 0]);
    expect((await get("/api/tasks?offset=9")).body).toMatchObject({ total: 5, rows: [] });
    const tool = await get("/api/tasks?agent=tool_agent&sort=-mean_reward");
    expect(tool.body.total).toBe(2);
    expect(tool.body.rows.map((t: any) => [t.task, t.agents, t.failures])).toEqual([[1, ["tool_agent"], 0], [3, ["tool_agent"], 1]]);
    expect((await get("/api/tasks?agent=nobody")).body).toMatchObject({ total: 0, rows: [] });
  });

  it("keeps ties in task order whatever the file order, and puts tasks with no reward last", async () => {
    const tieDir = mkdtempSync(join(dir, "ties-"));
    const file = join(tieDir, "ties.jsonl");
    const line = (task: number, r: number, reward: number, agent: string) => resultLine(task, r, { agent_ref: { name: agent }, reward });
    // Tasks written out of order; task 5 has only a failure line, task 7 two agents.
    writeFileSync(file, [line(3, 1, 1, "b"), line(1, 0, 1, "b"), line(3, 0, 1, "a"), line(1, 1, 0, "a"), line(7, 0, 0, "b"), line(7, 1, 1, "a")].join(""));
    writeFileSync(join(tieDir, "ties_failures.jsonl"), resultLine(5, 0, { agent_ref: { name: "a" }, _ng_failure_class: "timeout" }));
    const ties = await open({ rolloutsPath: file });
    const rows = async (query: string) => pairs((await get(`/api/rollouts?${query}`, ties.url)).body.rows);
    expect(await rows("sort=-reward")).toEqual(["1/0", "3/0", "3/1", "7/1", "1/1", "7/0", "5/0!0"]);
    expect(await rows("sort=reward")).toEqual(["1/1", "7/0", "1/0", "3/0", "3/1", "7/1", "5/0!0"]);
    expect(await rows("sort=agent")).toEqual(["1/1", "3/0", "5/0!0", "7/1", "1/0", "3/1", "7/0"]);
    const tasks = async (query: string) => (await get(`/api/tasks?${query}`, ties.url)).body.rows.map((t: any) => [t.task, t.pass_rate]);
    expect(await tasks("sort=-pass_rate")).toEqual([[3, 1], [1, 0.5], [7, 0.5], [5, null]]);
    expect(await tasks("sort=pass_rate")).toEqual([[1, 0.5], [7, 0.5], [3, 1], [5, null]]);
    expect((await get("/api/tasks?sort=task", ties.url)).body.rows.find((t: any) => t.task === 7).agents).toEqual(["a", "b"]);
    expect((await get("/api/tasks?sort=task", ties.url)).body.rows.find((t: any) => t.task === 5)).toMatchObject({ rollouts: 0, failures: 1, mean_reward: null, pass_rate: null });
  });

  it("searches the text of rows, case-insensitively, with filters, in both files and in Python-escaped lines", async () => {
    const paris = await get("/api/rollouts?q=PARIS");
    expect(pairs(paris.body.rows)).toEqual(["1/0"]);
    expect(paris.body.search).toMatchObject({ complete: true });
    expect(pairs((await get("/api/rollouts?q=boom")).body.rows)).toEqual(["2/1!1"]);
    expect(pairs((await get("/api/rollouts?q=oslo")).body.rows)).toEqual(["3/0", "3/1"]);
    expect(pairs((await get("/api/rollouts?q=oslo&max_reward=0")).body.rows)).toEqual(["3/1"]);
    expect(pairs((await get("/api/rollouts?q=oslo&status=failure")).body.rows)).toEqual([]);
    // Quotes inside the text as they read, not as JSON escapes them.
    expect(pairs((await get(`/api/rollouts?q=${encodeURIComponent('alert("xss")')}`)).body.rows)).toEqual(["1/1"]);
    // "Café" is \u00e9 in the NeMo Gym line.
    expect(pairs((await get(`/api/rollouts?q=${encodeURIComponent("café au lait")}`)).body.rows)).toEqual(["4/0"]);
    const paged = await get("/api/rollouts?q=cold%20in&limit=2&offset=2");
    expect(paged.body.total).toBe(4);
    expect(pairs(paged.body.rows)).toEqual(["3/0", "3/1"]);
  });

  it("stops a search at its match limit and says so", async () => {
    const bounded = await open({ rolloutsPath: run.rollouts, search: { maxMatches: 2, maxBytes: 1 << 30 } });
    const { body } = await get("/api/rollouts?q=responses_create_params", bounded.url);
    expect(body.total).toBe(2);
    expect(body.search).toMatchObject({ complete: false, max_matches: 2 });
  });

  it("returns a whole rollout with its failed attempts, and the planned input of a failed pair", async () => {
    const tool = await get("/api/rollouts/1/0");
    expect(tool.status).toBe(200);
    expect(tool.body).toMatchObject({ task: 1, rollout: 0, agent: "tool_agent", status: "success", reward: 1, successes: 1, attempts: [], planned_row: null });
    expect(tool.body.source).toEqual({ file: run.paths.output, line: 3 });
    expect([tool.body.previous, tool.body.next]).toEqual([{ task: 0, rollout: 1 }, { task: 1, rollout: 1 }]);
    expect((await get("/api/rollouts/0/0")).body.previous).toBeNull();
    expect((await get("/api/rollouts/4/0")).body.next).toBeNull();
    expect(tool.body.row.response.output.map((i: any) => i.type)).toEqual(["function_call", "function_call_output", "message"]);
    expect(tool.body.row.reward_components).toEqual({ correctness: 1, format: 0 });

    const retried = await get("/api/rollouts/3/0");
    expect(retried.body).toMatchObject({ status: "success", attempts: [{ attempt: 0, failure_class: "env_error", terminal: false, error: "environment answered 503" }] });

    const failed = await get("/api/rollouts/2/1");
    expect(failed.body).toMatchObject({ status: "failure", reward: null, source: { file: run.paths.failures, line: 4 } });
    expect(failed.body.row).toMatchObject({ _ng_failure_class: "model_error", _ng_attempt_index: 1, _ng_failure_terminal: true });
    expect(failed.body.attempts.map((a: any) => a.failure_class)).toEqual(["timeout", "model_error"]);
    expect(failed.body.planned_row.responses_create_params.input[1].content).toBe("What is 3 * 3?");

    const xss = await get("/api/rollouts/1/1");
    expect(xss.body.row.responses_create_params.input[1].content).toContain(XSS_IMG);
    expect(xss.body.row.note).toBe(XSS_SCRIPT);

    const nemo = await get("/api/rollouts/4/0");
    expect(nemo.body).toMatchObject({ agent: "nemo_agent", reward: 0.25 });
    expect(nemo.body.row.responses_create_params.input[0].content).toBe("Café au lait: how many calories?");
  });

  it("answers 404 with a JSON error for absent rollouts and tasks, 400 for non-numbers", async () => {
    for (const path of ["/api/rollouts/9/0", "/api/rollouts/0/7", "/api/rollouts/5/0", "/api/tasks/42", "/api/nothing"]) {
      const { status, body } = await get(path);
      expect(status, path).toBe(404);
      expect(body.detail, path).toEqual(expect.any(String));
    }
    expect((await get("/api/rollouts/9/0")).body.detail).toMatch(/task 9 and rollout 0/);
    expect((await get("/api/rollouts/x/0")).status).toBe(400);
    expect((await get("/api/tasks/-1")).status).toBe(400);
  });

  it("shows one task: its rollouts, reward stats, prompt and group-level metrics", async () => {
    const { status, body } = await get("/api/tasks/2");
    expect(status).toBe(200);
    expect(body).toMatchObject({ task: 2, total: 3, stats: { rollouts: 1, failures: 2, mean_reward: 1, min_reward: 1, max_reward: 1 } });
    expect(body.group_level_metrics).toEqual([{ agent: "math_agent", metrics: { _ng_task_index: 2, num_rollouts: 2, "mean/reward": 1, "max/reward": 1, "min/reward": 0 } }]);
    expect(body.responses_create_params.input[1].content).toBe("What is 3 * 3?");
    expect(pairs(body.rows)).toEqual(["2/0", "2/1!0", "2/1!1"]);
    expect(body.rows[0].answer).toBe("9");
    const paged = await get("/api/tasks/2?offset=1&limit=1");
    expect(pairs(paged.body.rows)).toEqual(["2/1!0"]);
  });

  it("serves the page to browsers with a nonce policy, health to everyone else, and only to localhost names", async () => {
    const health = await fetch(viewer.url);
    expect(await health.json()).toEqual({ status: "ok" });
    const page = await fetch(viewer.url, { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    const policy = page.headers.get("content-security-policy")!;
    const nonce = /script-src 'nonce-([^']+)'/.exec(policy)![1]!;
    const html = await page.text();
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    // The script is plain JavaScript that parses as it is.
    expect(() => runInNewContext(`(function(){ return function(){ ${viewerScript()} }; })`)).not.toThrow();

    const port = new URL(viewer.url).port;
    const withHost = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port, path: "/api/summary", headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on("error", reject);
        req.end();
      });
    expect(await withHost(`localhost:${port}`)).toBe(200);
    expect(await withHost(`127.0.0.1:${port}`)).toBe(200);
    expect(await withHost("attacker.example")).toBe(403);
  });

  it("reads a NeMo Gym rollout file with no indices and no siblings", async () => {
    const nemoDir = mkdtempSync(join(dir, "nemo-"));
    const file = join(nemoDir, "example_rollouts.jsonl");
    copyFileSync(join(NEMO_GYM_EXAMPLES, "example_multi_step", "example_rollouts.jsonl"), file);
    const nemo = await open({ rolloutsPath: file });
    const { body } = await get("/api/summary", nemo.url);
    expect(body.counts).toMatchObject({ rollouts: 5, failures: 0, tasks: 5, agents: 1, planned: null, missing_pairs: null, malformed_lines: 0 });
    expect(body.agents).toEqual([expect.objectContaining({ name: "(none)", rollouts: 5, key_metrics: null })]);
    expect(body.files.metrics).toMatchObject({ present: false });
    const rows = (await get("/api/rollouts", nemo.url)).body.rows;
    expect(rows.map((r: any) => [r.task, r.tool_calls > 0])).toEqual([0, 1, 2, 3, 4].map((t) => [t, true]));
    const third = await get("/api/rollouts/2/0", nemo.url);
    expect(third.body.row.response.output.at(-1).type).toBe("message");
    expect(third.body.row).toHaveProperty("set_overlap");
  });

  it("reports a cut-short metrics file instead of failing, and keeps what it could read", async () => {
    const broken = writeViewerRun(join(dir, "broken"));
    const text = JSON.stringify([{ agent_ref: { name: "math_agent" }, key_metrics: { "mean/reward": 0.5 }, group_level_metrics: [{ _ng_task_index: 0, "mean/reward": 0.5 }] }, { agent_ref: { name: "tool_agent" } }], null, 2);
    writeFileSync(broken.paths.metrics, text.slice(0, text.length - 30));
    const cut = await open({ rolloutsPath: broken.rollouts });
    const { body } = await get("/api/summary", cut.url);
    expect(body.files.metrics.error).toMatch(/ends in the middle/);
    expect(body.agents.find((a: any) => a.name === "math_agent").key_metrics).toEqual({ "mean/reward": 0.5 });
    expect((await get("/api/tasks/0", cut.url)).body.group_level_metrics).toEqual([{ agent: "math_agent", metrics: { _ng_task_index: 0, "mean/reward": 0.5 } }]);
    writeFileSync(broken.paths.metrics, '{"not": "a list"}');
    const wrong = await open({ rolloutsPath: broken.rollouts });
    expect((await get("/api/summary", wrong.url)).body.files.metrics.error).toMatch(/expected a JSON list/);
  });

  it("indexes 20,000 lines without keeping rows, and pages and searches them", async () => {
    const bigDir = mkdtempSync(join(dir, "big-"));
    const padding = "x".repeat(2000);
    const writeRollouts = (name: string, tasks: number) => {
      const lines: string[] = [];
      for (let task = 0; task < tasks; task++) {
        for (let r = 0; r < 4; r++) {
          lines.push(
            resultLine(task, r, {
              responses_create_params: { input: [{ role: "user", content: `question ${task} ${padding}` }] },
              agent_ref: { name: `agent_${task % 3}` },
              response: { output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: task === 4321 && r === 2 ? "needle" : "hay" }] }] },
              reward: (task + r) % 2,
            }),
          );
        }
      }
      const file = join(bigDir, name);
      writeFileSync(file, lines.join(""));
      return file;
    };
    /** The fastest of `times` indexings of `file`: the least disturbed by other work on the machine. */
    const fastestIndexMs = async (file: string, times: number) => {
      let best = Infinity;
      let viewerOpened: Viewer | undefined;
      for (let i = 0; i < times; i++) {
        const started = performance.now();
        viewerOpened = await open({ rolloutsPath: file });
        best = Math.min(best, performance.now() - started);
      }
      return { best, viewer: viewerOpened! };
    };
    // Indexing time grows with the file, not faster: ten times the lines, measured side by side
    // with a tenth of them, takes about ten times as long (a quadratic index would take a hundred).
    const tenth = await fastestIndexMs(writeRollouts("tenth.jsonl", 500), 3);
    const { best: bigMs, viewer: big } = await fastestIndexMs(writeRollouts("big.jsonl", 5000), 2);
    expect(bigMs / tenth.best).toBeLessThan(40);
    const { body } = await get("/api/summary", big.url);
    expect(body.counts).toMatchObject({ rollouts: 20_000, tasks: 5000, agents: 3 });
    const page = await get("/api/rollouts?agent=agent_1&min_reward=1&offset=100&limit=5", big.url);
    expect(page.body.total).toBe(3334);
    expect(page.body.rows.every((r: any) => r.agent === "agent_1" && r.reward === 1)).toBe(true);
    expect(pairs((await get("/api/rollouts?q=needle", big.url)).body.rows)).toEqual(["4321/2"]);
    const top = await get("/api/rollouts?sort=-reward&agent=agent_1&offset=3&limit=3", big.url);
    expect(top.body.total).toBe(6668);
    expect(pairs(top.body.rows)).toEqual(["4/3", "7/0", "7/2"]);
    const hardest = await get("/api/tasks?sort=pass_rate&limit=1", big.url);
    expect(hardest.body).toMatchObject({ total: 5000, rows: [{ task: 0, rollouts: 4, pass_rate: 0.5 }] });
  });
});

describe("gym view (the command)", () => {
  it("views the output of a real quickstart run: prints its URL, serves it, stops on SIGTERM", async () => {
    const output = join(dir, "quickstart", "qs.jsonl");
    const collected = await runGym(["eval", "run", "--config", "examples/quickstart.yaml", "-o", output, "--quiet"]);
    expect(collected.code, collected.stderr).toBe(0);

    const child = startGym(["view", "--rollouts", output, "--port", "0"]);
    onTeardown(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
    const stdout = await waitForOutput(child, (text) => /viewer: http:\/\/127\.0\.0\.1:\d+\//.test(text));
    const url = /viewer: (http:\/\/\S+\/)/.exec(stdout)![1]!;
    const { body } = await get("/api/summary", url);
    expect(body.counts).toMatchObject({ rollouts: 20, failures: 0, tasks: 20, agents: 4, planned: 20, missing_pairs: 0, malformed_lines: 0 });
    for (const agent of body.agents) expect(agent.key_metrics["mean/reward"]).toBeCloseTo(agent.mean_reward);
    const rollout = await get("/api/rollouts/0/0", url);
    expect(rollout.body.row.response.output.some((i: any) => i.type === "function_call")).toBe(true);
    expect((await get("/api/tasks/7", url)).body.group_level_metrics).toHaveLength(1);

    expect((await stopChild(child)).code).toBe(0);
  });

  it("serves, from the built CLI, the page with the compiled browser script inline", async () => {
    const child = startGym(["view", "--rollouts", run.rollouts, "--port", "0"]);
    onTeardown(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
    const stdout = await waitForOutput(child, (text) => /viewer: http:\/\/127\.0\.0\.1:\d+\//.test(text));
    const url = /viewer: (http:\/\/\S+\/)/.exec(stdout)![1]!;
    const page = await fetch(url, { headers: { accept: "text/html" } });
    const nonce = /script-src 'nonce-([^']+)'/.exec(page.headers.get("content-security-policy")!)![1]!;
    const html = await page.text();
    const start = html.indexOf(`<script nonce="${nonce}">`) + `<script nonce="${nonce}">`.length;
    const script = html.slice(start, html.indexOf("</script>", start));
    // dist/viewer/browser/{steps,app}.js as the build wrote them: classic scripts (no module syntax), joined, that parse.
    expect(script).toBe(BROWSER_SCRIPTS.map((name) => readFileSync(join(REPO_ROOT, "dist", "viewer", "browser", `${name}.js`), "utf8")).join("\n"));
    expect(script).toContain("/api/summary");
    expect(() => runInNewContext(`(function(){ return function(){ ${script} }; })`)).not.toThrow();
    expect((await stopChild(child)).code).toBe(0);
  });

  it("refuses a missing rollouts file and a bad port with exit code 2", async () => {
    const missing = await runGym(["view", "--rollouts", join(dir, "nope.jsonl")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no such file/);
    const badPort = await runGym(["view", "--rollouts", run.rollouts, "--port", "http"]);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/--port/);
  });
});
