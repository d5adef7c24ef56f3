// `gym view`'s server: the page at `/` for browsers (other clients get the `{"status":"ok"}` every
// Gymkit server answers there) and a JSON API over the run's index. Rows are read from disk per
// request; nothing of a row is kept between requests.
import { randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { HttpError } from "../http/errors.js";
import { createServer, listen } from "../http/server.js";
import { MetricsIndex } from "./metrics_index.js";
import { viewerPage } from "./page.js";
import { summarizeRow } from "./row_summary.js";
import { ENTRY_SORTS, FAILURE, PASS_THRESHOLD, RowReadError, RunIndex, TASK_SORTS, TERMINAL, type EntryFilter, type EntrySort } from "./run_index.js";
import { DEFAULT_SEARCH_LIMITS, searchRun, type SearchLimits, type SearchResult } from "./search.js";

export interface ViewerOptions {
  /** The rollouts file; its siblings (failures, metrics, materialized inputs) are read when present. */
  rolloutsPath: string;
  host?: string;
  /** 0 or omitted: a free port. */
  port?: number;
  search?: SearchLimits;
}

export interface Viewer {
  /** The page's URL, ending in `/`. */
  url: string;
  app: FastifyInstance;
  run: RunIndex;
  metrics: MetricsIndex;
  close(): Promise<void>;
}

const PAGE_DEFAULT = 50;
const PAGE_MAX = 200;
const TASK_PAGE_DEFAULT = 100;
const TASK_PAGE_MAX = 500;
const QUERY_MAX_CHARS = 500;
const ERROR_CHARS = 300;
const HISTOGRAM_BINS = 10;
/** Searches kept for paging through their results (each at most `maxMatches` ids). */
const SEARCHES_KEPT = 4;

type Query = Record<string, string | undefined>;

function integerParam(query: Query, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = query[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > max) throw new HttpError(400, `${name} must be a whole number from 0 to ${max}, got ${JSON.stringify(text)}`);
  return value;
}

function numberParam(query: Query, name: string): number | undefined {
  const text = query[name];
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new HttpError(400, `${name} must be a number, got ${JSON.stringify(text)}`);
  return value;
}

function choiceParam<T extends string>(query: Query, name: string, choices: readonly T[]): T {
  const text = query[name];
  if (text === undefined || text === "") return choices[0]!;
  if (!(choices as readonly string[]).includes(text)) throw new HttpError(400, `${name} must be one of ${choices.join(", ")}, got ${JSON.stringify(clip(text, 100))}`);
  return text as T;
}

function pairParams(params: Record<string, string>, names: string[]): number[] {
  return names.map((name) => {
    const value = Number(params[name]);
    if (!/^\d+$/.test(params[name] ?? "") || !Number.isSafeInteger(value)) throw new HttpError(400, `${name} must be a whole number ≥ 0, got ${JSON.stringify(params[name])}`);
    return value;
  });
}

const finite = (value: number) => (Number.isFinite(value) ? value : null);
const clip = (text: string, chars: number) => (text.length > chars ? `${text.slice(0, chars - 1)}…` : text);

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

function sendPage(reply: FastifyReply, page: (nonce: string) => string) {
  // Row text is only ever put into the page as text (never markup); the policy is a second wall:
  // only the page's own script and style run, and nothing loads from elsewhere.
  const nonce = randomBytes(16).toString("base64");
  return reply
    .header(
      "content-security-policy",
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    )
    .type("text/html; charset=utf-8")
    .send(page(nonce));
}

export function buildViewer(options: ViewerOptions): { app: FastifyInstance; run: RunIndex; metrics: MetricsIndex } {
  const run = new RunIndex(options.rolloutsPath);
  const metrics = new MetricsIndex(run.paths.metrics);
  const limits = options.search ?? DEFAULT_SEARCH_LIMITS;
  const page = viewerPage();
  const app = createServer({ name: "viewer" });

  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    // The Host check (DNS rebinding) is the server factory's, as for every Gymkit server.
    reply.headers(SECURITY_HEADERS);
    if (request.method === "GET" && request.url.split("?")[0] === "/" && /text\/html/.test(request.headers.accept ?? "")) {
      return sendPage(reply, page);
    }
  });
  app.addHook("onClose", async () => {
    run.close();
    metrics.close();
  });

  const e = run.entries;
  const agentName = (id: number) => run.agents.names[e.agent[id]!]!;
  const pairOfEntry = (id: number) => ({ task: e.task[id]!, rollout: e.rollout[id]! });

  /** One line of the rollout table (or task view): index fields plus what the row says. */
  const listing = (id: number) => {
    const failure = run.isFailure(id);
    const task = e.task[id]!;
    const rollout = e.rollout[id]!;
    const base = {
      task,
      rollout,
      agent: agentName(id),
      status: failure ? "failure" : "success",
      reward: finite(e.reward[id]!),
      attempt: e.attempt[id]!,
      failure_class: failure ? run.failureClasses.names[e.failureClass[id]!]! : null,
      terminal: failure ? (e.flags[id]! & TERMINAL) !== 0 : null,
      line: e.line[id]!,
    };
    try {
      const row = run.readRow(id);
      const error = failure && row._ng_failure_error !== undefined ? { error: clip(String(row._ng_failure_error), ERROR_CHARS) } : {};
      return { ...base, ...summarizeRow(row, failure ? run.readPlanned(task, rollout) : undefined), ...error };
    } catch (error) {
      if (error instanceof RowReadError) return { ...base, unreadable: error.message };
      throw error;
    }
  };

  let histograms: Map<number, { min: number; max: number; counts: number[] }> | undefined;
  /** Reward histograms per agent: one pass over the reward column, on first use. */
  const rewardHistograms = () => {
    if (histograms) return histograms;
    histograms = new Map();
    for (let id = 0; id < e.successes; id++) {
      const reward = e.reward[id]!;
      const stats = run.agentStats[e.agent[id]!]!;
      if (!Number.isFinite(reward)) continue;
      let histogram = histograms.get(e.agent[id]!);
      if (!histogram) histograms.set(e.agent[id]!, (histogram = { min: stats.minReward, max: stats.maxReward, counts: new Array<number>(HISTOGRAM_BINS).fill(0) }));
      const span = histogram.max - histogram.min;
      const bin = span > 0 ? Math.min(HISTOGRAM_BINS - 1, Math.floor(((reward - histogram.min) / span) * HISTOGRAM_BINS)) : 0;
      histogram.counts[bin]!++;
    }
    return histograms;
  };

  app.get("/api/summary", async () => {
    const failureClasses: Record<string, number> = {};
    for (let id = e.successes; id < e.count; id++) {
      const name = run.failureClasses.names[e.failureClass[id]!]!;
      failureClasses[name] = (failureClasses[name] ?? 0) + 1;
    }
    const byName = new Map(metrics.agents.map((agent) => [agent.name, agent.entry]));
    const names = [...new Set([...run.agentStats.filter(Boolean).map((s) => s.name), ...byName.keys()])];
    const histogramsByAgent = rewardHistograms();
    return {
      rollouts_path: run.paths.output,
      files: {
        rollouts: run.files.rollouts,
        failures: run.files.failures,
        materialized_inputs: run.files.materialized,
        metrics: { path: metrics.path, present: metrics.present, agents: metrics.agents.length, tasks_with_group_metrics: metrics.groupCount, error: metrics.error ?? null },
      },
      counts: {
        rollouts: e.successes,
        failures: e.count - e.successes,
        failed_pairs: run.failedPairs,
        duplicate_pairs: run.duplicatePairs,
        tasks: run.tasks,
        agents: names.length,
        planned: run.plannedCount ?? null,
        missing_pairs: run.plannedCount === undefined ? null : run.missingPairs,
        malformed_lines: run.malformedCount,
      },
      missing_pairs: run.missingNamed.map(([task, rollout]) => ({ task, rollout })),
      malformed_lines: run.malformed,
      failure_classes: failureClasses,
      agents: names.map((name) => {
        const id = run.agents.find(name);
        const stats = id === undefined ? undefined : run.agentStats[id];
        const entry = byName.get(name);
        return {
          name,
          rollouts: stats?.rollouts ?? 0,
          failures: stats?.failures ?? 0,
          mean_reward: stats && stats.rewarded > 0 ? stats.rewardSum / stats.rewarded : null,
          min_reward: stats && stats.rewarded > 0 ? stats.minReward : null,
          max_reward: stats && stats.rewarded > 0 ? stats.maxReward : null,
          reward_histogram: id === undefined ? null : (histogramsByAgent.get(id) ?? null),
          key_metrics: entry?.key_metrics ?? null,
          agent_metrics: entry?.agent_metrics ?? null,
        };
      }),
    };
  });

  const searches = new Map<string, SearchResult>();
  /** Matches of a search (in display order), and re-sorted per other sort key once, kept with the search. */
  const sortedMatches = new WeakMap<SearchResult, Map<EntrySort, Uint32Array>>();
  const search = async (query: string, filter: EntryFilter, sort: EntrySort) => {
    const key = JSON.stringify([query, filter]);
    let result = searches.get(key);
    if (!result) {
      result = await searchRun(run, query, filter, limits);
      searches.set(key, result);
      if (searches.size > SEARCHES_KEPT) searches.delete(searches.keys().next().value!);
    }
    if (sort === "task") return { result, ids: result.ids };
    let bySort = sortedMatches.get(result);
    if (!bySort) sortedMatches.set(result, (bySort = new Map()));
    let ids = bySort.get(sort);
    if (!ids) bySort.set(sort, (ids = result.ids.slice().sort(run.comparator(sort))));
    return { result, ids };
  };

  app.get("/api/rollouts", async (request) => {
    const query = request.query as Query;
    const offset = integerParam(query, "offset", 0);
    const limit = Math.max(1, integerParam(query, "limit", PAGE_DEFAULT, PAGE_MAX));
    const status = query.status || undefined;
    if (status !== undefined && status !== "success" && status !== "failure") throw new HttpError(400, `status must be success or failure, got ${JSON.stringify(status)}`);
    const sort = choiceParam(query, "sort", ENTRY_SORTS);
    const filter: EntryFilter = { status, minReward: numberParam(query, "min_reward"), maxReward: numberParam(query, "max_reward") };
    if (query.task) filter.task = integerParam(query, "task", 0, 2 ** 32 - 1);
    if (query.agent) {
      const agent = run.agents.find(query.agent);
      if (agent === undefined) return { total: 0, offset, limit, sort, rows: [] };
      filter.agent = agent;
    }
    const text = (query.q ?? "").trim();
    if (text.length > QUERY_MAX_CHARS) throw new HttpError(400, `q is limited to ${QUERY_MAX_CHARS} characters`);
    if (!text) {
      const page = run.page(filter, offset, limit, sort);
      return { total: page.total, offset, limit, sort, rows: page.ids.map(listing) };
    }
    const found = await search(text, filter, sort);
    const ids = Array.from(found.ids.subarray(offset, offset + limit));
    return {
      total: found.ids.length,
      offset,
      limit,
      sort,
      rows: ids.map(listing),
      search: { complete: found.result.complete, scanned_bytes: found.result.scannedBytes, max_matches: limits.maxMatches },
    };
  });

  app.get("/api/rollouts/:task/:rollout", async (request) => {
    const [task, rollout] = pairParams(request.params as Record<string, string>, ["task", "rollout"]) as [number, number];
    const [from, to] = run.range(task, rollout);
    if (from === to) throw new HttpError(404, `no rollout with task ${task} and rollout ${rollout} in ${run.paths.output} or its failures file`);
    const ids = Array.from(run.order.subarray(from, to));
    const successes = ids.filter((id) => !run.isFailure(id));
    // The success when there is one, else the latest failed attempt.
    const shown = successes[0] ?? ids[ids.length - 1]!;
    try {
      const attempts = ids
        .filter((id) => run.isFailure(id))
        .map((id) => {
          const row = run.readRow(id);
          return {
            attempt: e.attempt[id]!,
            failure_class: run.failureClasses.names[e.failureClass[id]!]!,
            terminal: (e.flags[id]! & TERMINAL) !== 0,
            status: row._ng_failure_status ?? null,
            error: row._ng_failure_error ?? null,
            file: run.fileOf(id),
            line: e.line[id]!,
          };
        });
      return {
        task,
        rollout,
        agent: agentName(shown),
        status: e.flags[shown]! & FAILURE ? "failure" : "success",
        reward: finite(e.reward[shown]!),
        source: { file: run.fileOf(shown), line: e.line[shown]! },
        // Neighbours in display order, for stepping through the run.
        previous: from > 0 ? pairOfEntry(run.order[from - 1]!) : null,
        next: to < run.order.length ? pairOfEntry(run.order[to]!) : null,
        successes: successes.length,
        row: run.readRow(shown),
        attempts,
        // A failure line holds no conversation: its planned input is what there is to show.
        planned_row: successes.length === 0 ? (run.readPlanned(task, rollout) ?? null) : null,
      };
    } catch (error) {
      if (error instanceof RowReadError) throw new HttpError(409, error.message);
      throw error;
    }
  });

  // The task list: per-task numbers from the index (no row is read), sorted and paged.
  app.get("/api/tasks", async (request) => {
    const query = request.query as Query;
    const offset = integerParam(query, "offset", 0);
    const limit = Math.max(1, integerParam(query, "limit", TASK_PAGE_DEFAULT, TASK_PAGE_MAX));
    const sort = choiceParam(query, "sort", TASK_SORTS);
    let agent: number | undefined;
    if (query.agent) {
      agent = run.agents.find(query.agent);
      if (agent === undefined) return { total: 0, offset, limit, sort, pass_threshold: PASS_THRESHOLD, rows: [] };
    }
    const table = run.taskTable(agent);
    const order = run.taskOrder(table, agent, sort);
    const rows = Array.from(order.subarray(Math.min(order.length, offset), Math.min(order.length, offset + limit)), (slot) => {
      // The task's agents, from its entries in the index.
      const agents = new Set<string>();
      for (let i = table.from[slot]!; i < table.to[slot]!; i++) {
        const id = run.order[i]!;
        if (agent === undefined || e.agent[id] === agent) agents.add(agentName(id));
      }
      const rewarded = table.rewarded[slot]!;
      return {
        task: table.task[slot]!,
        agents: [...agents].sort(),
        rollouts: table.rollouts[slot]!,
        failures: table.failures[slot]!,
        mean_reward: rewarded ? table.rewardSum[slot]! / rewarded : null,
        min_reward: rewarded ? table.minReward[slot]! : null,
        max_reward: rewarded ? table.maxReward[slot]! : null,
        passes: table.passes[slot]!,
        pass_rate: rewarded ? table.passes[slot]! / rewarded : null,
      };
    });
    return { total: table.count, offset, limit, sort, pass_threshold: PASS_THRESHOLD, rows };
  });

  app.get("/api/tasks/:task", async (request) => {
    const [task] = pairParams(request.params as Record<string, string>, ["task"]) as [number];
    const query = request.query as Query;
    const offset = integerParam(query, "offset", 0);
    const limit = Math.max(1, integerParam(query, "limit", TASK_PAGE_DEFAULT, TASK_PAGE_MAX));
    const [from, to] = run.range(task);
    const groups = metrics.groupMetrics(task);
    if (from === to && groups.length === 0) throw new HttpError(404, `no rollout of task ${task} in ${run.paths.output} or its failures file`);
    const ids = Array.from(run.order.subarray(from, to));
    let rewarded = 0;
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (const id of ids) {
      const reward = e.reward[id]!;
      if (!Number.isFinite(reward)) continue;
      rewarded++;
      sum += reward;
      min = Math.min(min, reward);
      max = Math.max(max, reward);
    }
    // The task's prompt, shown once: from its first readable row, else its plan.
    let params: unknown = null;
    for (const id of ids.slice(0, 10)) {
      try {
        params = run.readRow(id).responses_create_params ?? null;
      } catch {
        continue;
      }
      if (params) break;
    }
    if (!params && ids.length > 0) params = run.readPlanned(task, e.rollout[ids[0]!]!)?.responses_create_params ?? null;
    const failures = ids.filter((id) => run.isFailure(id)).length;
    return {
      task,
      total: ids.length,
      offset,
      limit,
      stats: {
        rollouts: ids.length - failures,
        failures,
        mean_reward: rewarded ? sum / rewarded : null,
        min_reward: rewarded ? min : null,
        max_reward: rewarded ? max : null,
      },
      group_level_metrics: groups,
      responses_create_params: params,
      rows: ids.slice(offset, offset + limit).map(listing),
    };
  });

  return { app, run, metrics };
}

export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  const { app, run, metrics } = buildViewer(options);
  let url: string;
  try {
    url = await listen(app, { host: options.host, port: options.port });
  } catch (error) {
    await app.close();
    throw error;
  }
  return { url: `${url}/`, app, run, metrics, close: () => app.close() };
}
