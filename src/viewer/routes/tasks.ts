// GET /api/tasks: the task list — per-task numbers from the index (no row is read), sorted and paged;
// GET /api/tasks/:task: one task's rollouts side by side, its reward stats, prompt and group metrics.
import type { FastifyInstance } from "fastify";
import { HttpError } from "../../http/errors.js";
import { taskPromptLine } from "../prompt_line.js";
import { PASS_THRESHOLD, TASK_SORTS } from "../run_index/task_table.js";
import type { ViewerContext } from "./context.js";
import { agentName, listing } from "./listing.js";
import { choiceParam, pageParams, pairParams, type Query } from "./params.js";

const TASK_PAGE_DEFAULT = 100;
const TASK_PAGE_MAX = 500;
/** Rows tried for the task's prompt before falling back to its plan. */
const PROMPT_ROWS_TRIED = 10;

export function taskRoutes(app: FastifyInstance, { run, metrics }: ViewerContext): void {
  const e = run.entries;

  app.get("/api/tasks", async (request) => {
    const query = request.query as Query;
    const { offset, limit } = pageParams(query, TASK_PAGE_DEFAULT, TASK_PAGE_MAX);
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
        if (agent === undefined || e.agent[id] === agent) agents.add(agentName(run, id));
      }
      const rewarded = table.rewarded[slot]!;
      return {
        task: table.task[slot]!,
        prompt: taskPromptLine(run, table.task[slot]!, run.order.subarray(table.from[slot]!, table.to[slot]!)),
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
    const { offset, limit } = pageParams(request.query as Query, TASK_PAGE_DEFAULT, TASK_PAGE_MAX);
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
    for (const id of ids.slice(0, PROMPT_ROWS_TRIED)) {
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
      rows: ids.slice(offset, offset + limit).map((id) => listing(run, id)),
    };
  });
}
