// GET /api/rollouts: the rollout table, filtered, sorted, paged, or the matches of a text search;
// GET /api/rollouts/:task/:rollout: one pair in full, with its failed attempts and neighbours, and a
// multi-turn episode's steps (episode_steps.ts).
import type { FastifyInstance } from "fastify";
import { HttpError } from "../../http/errors.js";
import { ENTRY_SORTS, FAILURE, RowReadError, TERMINAL, type EntryFilter } from "../run_index/entries.js";
import { episodeSteps } from "../episode_steps.js";
import type { ViewerContext } from "./context.js";
import { agentName, listing } from "./listing.js";
import { choiceParam, finite, integerParam, numberParam, pageParams, pairParams, type Query } from "./params.js";
import { keptSearches } from "./search_cache.js";

const PAGE_DEFAULT = 50;
const PAGE_MAX = 200;
const QUERY_MAX_CHARS = 500;

export function rolloutRoutes(app: FastifyInstance, { run, search: limits }: ViewerContext): void {
  const e = run.entries;
  const search = keptSearches(run, limits);
  const pairOfEntry = (id: number) => ({ task: e.task[id]!, rollout: e.rollout[id]! });

  app.get("/api/rollouts", async (request) => {
    const query = request.query as Query;
    const { offset, limit } = pageParams(query, PAGE_DEFAULT, PAGE_MAX);
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
      return { total: page.total, offset, limit, sort, rows: page.ids.map((id) => listing(run, id)) };
    }
    const found = await search(text, filter, sort);
    const ids = Array.from(found.ids.subarray(offset, offset + limit));
    return {
      total: found.ids.length,
      offset,
      limit,
      sort,
      rows: ids.map((id) => listing(run, id)),
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
      const row = run.readRow(shown);
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
        agent: agentName(run, shown),
        status: e.flags[shown]! & FAILURE ? "failure" : "success",
        reward: finite(e.reward[shown]!),
        source: { file: run.fileOf(shown), line: e.line[shown]! },
        // Neighbours in display order, for stepping through the run.
        previous: from > 0 ? pairOfEntry(run.order[from - 1]!) : null,
        next: to < run.order.length ? pairOfEntry(run.order[to]!) : null,
        successes: successes.length,
        row,
        // A multi-turn episode step by step (ranges into row), or null.
        episode: successes.length > 0 ? episodeSteps(row) : null,
        attempts,
        // A failure line holds no conversation: its planned input is what there is to show.
        planned_row: successes.length === 0 ? (run.readPlanned(task, rollout) ?? null) : null,
      };
    } catch (error) {
      if (error instanceof RowReadError) throw new HttpError(409, error.message);
      throw error;
    }
  });
}
