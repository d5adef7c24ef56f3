// Metrics that need every rollout at once. The collector calls `/aggregate_metrics` per chunk of whole
// tasks and merges the chunks; that is exact only for means over tasks. An environment whose metrics are
// one statistic over all tasks (arena_judge's Arena-Elo: a logistic-regression fit with a bootstrap)
// declares `aggregateMetricsScope: "whole_run"` and gets the whole run in one call — through its agent
// (`gym eval run`) or directly (`gym eval aggregate`, `gym eval reverify`). Any other key the merge
// cannot reproduce is named under `approximate_metrics`. Real servers on 127.0.0.1 throughout.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import simpleAgent from "../src/agents/simple_agent.js";
import { resultLine } from "../src/collect/lines.js";
import { aggregateScopeOf, computeRunMetrics } from "../src/collect/run_metrics.js";
import { defineEnvironment } from "../src/environment_kit/define.js";
import { startInstance, type RunningInstance } from "../src/environment_kit/testing.js";
import arenaJudge from "../src/environments/arena_judge/index.js";
import { arenaMetrics } from "../src/environments/arena_judge/metrics.js";
import mcqa from "../src/environments/mcqa/index.js";
import { runGym } from "./helpers/cli.js";

const AGENT = "arena_judge_simple_agent";
const VERDICTS = ["A>>B", "A>B", "A=B", "B>A", "B>>A"];

/**
 * Arena-Hard-shaped verify responses (the fields arena_judge's metrics read): `tasks` tasks × `repeats`,
 * each task with a strength that makes its verdicts lean one way, some verdicts unparsed (null), a
 * third of the tasks creative_writing. Deterministic (an LCG).
 */
function arenaRows(tasks: number, repeats: number, seed: number): Array<Record<string, unknown>> {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const rows: Array<Record<string, unknown>> = [];
  for (let t = 0; t < tasks; t++) {
    const strength = next();
    for (let r = 0; r < repeats; r++) {
      const pick = () => (next() < 0.05 ? null : VERDICTS[Math.min(4, Math.floor((1 - strength) * 4 + next() * 1.5))]!);
      const gen = pick();
      const base = pick();
      rows.push({
        _ng_task_index: t,
        _ng_rollout_index: r,
        agent_ref: { type: "responses_api_agents", name: AGENT },
        reward: gen === "A>>B" || gen === "A>B" ? 1 : 0,
        verdict_gen_base: gen,
        verdict_base_gen: base,
        category: t % 3 === 0 ? "creative_writing" : "hard_prompt",
        invalid_gen_base: gen === null,
        invalid_base_gen: base === null,
        response: { usage: { input_tokens: 100 + t, output_tokens: 10 + r, total_tokens: 110 + t + r } },
      });
    }
  }
  return rows;
}

/** arena_judge as its config sets it up; no judge is called (only metrics are asked). */
const ARENA = {
  config: { judge_model_server: { type: "responses_api_models", name: "policy_model" }, judge_chat_completions_create_params: { messages: [] } },
  servers: { policy_model: "http://127.0.0.1:9" },
};

const eloOf = (metrics: Record<string, number>) => Object.fromEntries(Object.entries(metrics).filter(([key]) => key.startsWith("arena_elo/")));

const started: Array<{ close(): Promise<void> }> = [];
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gym-whole-run-"));
});
afterAll(async () => {
  for (const server of started.reverse()) await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(...args: Parameters<typeof startInstance>): Promise<RunningInstance> {
  const instance = await startInstance(...args);
  started.push(instance);
  return instance;
}

/** A run's output file, written out of order as concurrent rollouts finish. */
function writeRun(name: string, rows: Array<Record<string, unknown>>): string {
  const path = join(dir, name);
  writeFileSync(path, [...rows].reverse().map((row) => resultLine(row._ng_task_index as number, row._ng_rollout_index as number, row)).join(""));
  return path;
}

async function metricsOf(output: string, aggregateUrl: string, chunkRollouts?: number) {
  const computed = await computeRunMetrics(output, { aggregateUrlOf: () => aggregateUrl, chunkRollouts });
  const path = `${output}.metrics.json`;
  try {
    computed.write(path);
  } finally {
    computed.dispose();
  }
  return { summary: computed.summaries[0]!, file: JSON.parse(readFileSync(path, "utf8"))[0] };
}

describe("an environment declares whether its metrics need the whole run", () => {
  it("answers GET /aggregate_metrics_scope: arena_judge whole_run, others chunked; agents forward it", async () => {
    const arena = await start(arenaJudge, ARENA);
    const choice = await start(mcqa);
    expect((await arena.request("/aggregate_metrics_scope")).body).toBe("whole_run");
    expect((await choice.request("/aggregate_metrics_scope")).body).toBe("chunked");
    // The collector only has the agent's URL (`gym eval run`): the agent passes the question on.
    const agentOf = (env: RunningInstance) =>
      start(simpleAgent, {
        name: `${env.name}_simple_agent`,
        config: { resources_server: { type: "resources_servers", name: env.name }, model_server: { type: "responses_api_models", name: "policy_model" } },
        servers: { [env.name]: env.url, policy_model: "http://127.0.0.1:9" },
      });
    expect((await (await agentOf(arena)).request("/aggregate_metrics_scope")).body).toBe("whole_run");
    expect(await aggregateScopeOf(`${(await agentOf(arena)).url}/aggregate_metrics`)).toBe("whole_run");
    expect(await aggregateScopeOf(`${(await agentOf(choice)).url}/aggregate_metrics`)).toBe("chunked");
    // `gym eval aggregate` and `gym eval reverify` ask the environment itself.
    expect(await aggregateScopeOf(`${arena.url}/aggregate_metrics`)).toBe("whole_run");
  });

  it("a server without the route (a NeMo Gym Python environment) is chunked, also behind an agent", async () => {
    const python = http.createServer((_request, response) => {
      response.writeHead(404, { "content-type": "application/json" }).end('{"detail":"Not Found"}');
    });
    await new Promise<void>((resolve) => python.listen(0, "127.0.0.1", resolve));
    started.push({ close: () => new Promise<void>((resolve) => python.close(() => resolve())) });
    const url = `http://127.0.0.1:${(python.address() as AddressInfo).port}`;
    expect(await aggregateScopeOf(`${url}/aggregate_metrics`)).toBe("chunked");
    const agent = await start(simpleAgent, {
      name: "python_env_agent",
      config: { resources_server: { type: "resources_servers", name: "python_env" }, model_server: { type: "responses_api_models", name: "policy_model" } },
      servers: { python_env: url, policy_model: "http://127.0.0.1:9" },
    });
    expect((await agent.request("/aggregate_metrics_scope")).status).toBe(404);
    expect(await aggregateScopeOf(`${agent.url}/aggregate_metrics`)).toBe("chunked");
  });

  it("refuses a scope that is neither", () => {
    expect(() => defineEnvironment({ id: "odd", description: "x", verify: () => ({ reward: 0 }), aggregateMetricsScope: "per_task" as never })).toThrow(/aggregateMetricsScope/);
  });
});

describe("arena_judge's Arena-Elo over a run larger than a chunk", () => {
  // 60 tasks × 3 = 180 rollouts; chunks of 30 would be six calls.
  const rows = arenaRows(60, 3, 5);
  let output: string;
  let arena: RunningInstance;
  let oneCall: Record<string, number>;
  beforeAll(async () => {
    output = writeRun("arena.jsonl", rows);
    arena = await start(arenaJudge, ARENA);
    const direct = await arena.request("/aggregate_metrics", { verify_responses: rows });
    expect(direct.status).toBe(200);
    oneCall = direct.body.agent_metrics;
  });

  it("is the one-call value however small the chunks, directly and through the agent", async () => {
    const agent = await start(simpleAgent, {
      name: AGENT,
      config: { resources_server: { type: "resources_servers", name: "arena_judge" }, model_server: { type: "responses_api_models", name: "policy_model" } },
      servers: { arena_judge: arena.url, policy_model: "http://127.0.0.1:9" },
    });
    for (const url of [`${arena.url}/aggregate_metrics`, `${agent.url}/aggregate_metrics`]) {
      const { summary, file } = await metricsOf(output, url, 30);
      expect(summary.scope).toBe("whole_run");
      expect(eloOf(summary.agent_metrics)).toEqual(eloOf(oneCall));
      expect(summary.approximated).toBeUndefined();
      expect(file.approximate_metrics).toBeUndefined();
      // One call: whatever else the environment returned is in the file as returned.
      expect(file.per_sample_aggregate).toBeDefined();
      expect(file.group_level_metrics).toHaveLength(60);
      expect(file.key_metrics["arena_elo/score"]).toBe(oneCall["arena_elo/score"]);
    }
    // The numbers are real: every task counted, categories split, a CI around a score off the middle.
    expect(oneCall["arena_elo/n"]).toBe(60);
    expect(oneCall["arena_elo/creative_writing/n"]).toBe(20);
    expect(oneCall["arena_elo/ci_lower"]).toBeLessThan(0);
    expect(oneCall["arena_elo/score"]).not.toBe(50);
  });

  it("merged from chunks (the same metrics, scope not declared), it is wrong — and named as approximate", async () => {
    const chunked = await start(
      defineEnvironment({
        id: "arena_chunked",
        description: "arena_judge's metrics without the whole-run declaration",
        verify: () => ({ reward: 0 }),
        aggregateMetrics: (verifyResponses, ctx) => arenaMetrics(verifyResponses, ctx.defaults(verifyResponses), { rounds: 100, seed: 42 }),
      }),
    );
    const { summary, file } = await metricsOf(output, `${chunked.url}/aggregate_metrics`, 30);
    expect(summary.scope).toBe("chunked");
    const elo = Object.keys(eloOf(oneCall));
    expect(elo.length).toBe(15);
    for (const key of elo) expect(summary.approximated).toContain(key);
    expect(file.approximate_metrics).toEqual(summary.approximated);
    // A count averaged over six chunks of 10 tasks is 10, not 60: the merge cannot know.
    expect(summary.agent_metrics["arena_elo/n"]).toBe(10);
    // The pass@k family merges exactly (its weights are stated): none of it is approximate,
    // but for the per-category across-runs spreads, which per_sample_aggregate does not cover.
    for (const key of summary.approximated!) expect(key.startsWith("arena_elo/") || /^(creative_writing|hard_prompt)\/.*_across_runs$/.test(key), key).toBe(true);
    expect(summary.agent_metrics["pass@3/wins"]).toBeCloseTo(oneCall["pass@3/wins"]!, 9);
    expect(summary.agent_metrics["hard_prompt/majority@3/wins"]).toBeCloseTo(oneCall["hard_prompt/majority@3/wins"]!, 9);
  });
});

describe("a whole run too large for the server's body limit", () => {
  it("fails saying why and how to allow it", async () => {
    const previous = process.env.GYM_MAX_BODY_MB;
    process.env.GYM_MAX_BODY_MB = "0.01"; // about 10 KiB, read when the server is built
    let small: RunningInstance;
    try {
      small = await start(arenaJudge, ARENA);
    } finally {
      if (previous === undefined) delete process.env.GYM_MAX_BODY_MB;
      else process.env.GYM_MAX_BODY_MB = previous;
    }
    const output = writeRun("too_large.jsonl", arenaRows(60, 3, 5));
    await expect(computeRunMetrics(output, { aggregateUrlOf: () => `${small.url}/aggregate_metrics` })).rejects.toThrow(
      /refused 180 rollouts as too large \(413; the environment's metrics need the whole run in one call\); raise GYM_MAX_BODY_MB/,
    );
  });
});

describe("an unknown key over several chunks is named as approximate", () => {
  it("in the summary and the metrics file; one chunk is exact and names nothing", async () => {
    const rows = arenaRows(24, 2, 9);
    const output = writeRun("custom.jsonl", rows);
    const custom = await start(
      defineEnvironment({
        id: "custom_metrics",
        description: "a median next to a stated count and a stated mean",
        verify: () => ({ reward: 0 }),
        aggregateMetrics: (verifyResponses, ctx) => {
          const defaults = ctx.defaults(verifyResponses);
          const tasks = new Set(verifyResponses.map((row) => row._ng_task_index)).size;
          const tokens = verifyResponses.map((row) => (row.response as { usage: { input_tokens: number } }).usage.input_tokens).sort((a, b) => a - b);
          const wins = verifyResponses.filter((row) => row.reward === 1).length / verifyResponses.length;
          return {
            ...defaults,
            agent_metrics: { ...defaults.agent_metrics, tasks_seen: tasks, median_input_tokens: tokens[Math.floor(tokens.length / 2)]!, win_share: wins },
            // win_share is a mean over rollouts and tasks_seen a count, and they say so.
            metric_weights: { metrics: { win_share: verifyResponses.length }, per_sample: {}, sums: ["tasks_seen"] },
          };
        },
      }),
    );
    const many = await metricsOf(output, `${custom.url}/aggregate_metrics`, 10);
    expect(many.summary.scope).toBe("chunked");
    expect(many.summary.approximated).toEqual(["median_input_tokens"]);
    expect(many.file.approximate_metrics).toEqual(["median_input_tokens"]);
    expect(many.summary.agent_metrics.tasks_seen).toBe(24);
    expect(many.summary.agent_metrics.win_share).toBeCloseTo(rows.filter((row) => row.reward === 1).length / rows.length, 12);
    // The collector's own statistics are exact whatever the chunks.
    expect(many.summary.agent_metrics["median/input_tokens"]).toBe(111.5);
    const one = await metricsOf(output, `${custom.url}/aggregate_metrics`, 1_000);
    expect(one.summary.approximated).toBeUndefined();
    expect(one.summary.agent_metrics.tasks_seen).toBe(24);
  });
});

describe("gym eval aggregate on an Arena Hard sized run (750 prompts × 3 repeats, above the 2,000-rollout chunk)", () => {
  it("writes the Arena-Elo of one call over every rollout", async () => {
    const rows = arenaRows(750, 3, 11);
    const shard = join(dir, "arena_hard.jsonl");
    writeFileSync(shard, rows.map((row) => resultLine(row._ng_task_index as number, row._ng_rollout_index as number, row)).join(""));
    writeFileSync(join(dir, "arena_hard_materialized_inputs.jsonl"), rows.map((row) => `${JSON.stringify({ _ng_task_index: row._ng_task_index, _ng_rollout_index: row._ng_rollout_index, agent_ref: row.agent_ref })}\n`).join(""));
    writeFileSync(`${shard}.done`, "{}\n");
    const merged = join(dir, "arena_hard_merged.jsonl");
    const result = await runGym(["eval", "aggregate", "--resources-server", "arena_judge", "--input-glob", shard, "-o", merged]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("2250/2250 rollouts succeeded");
    const file = JSON.parse(readFileSync(join(dir, "arena_hard_merged_aggregate_metrics.json"), "utf8"))[0];
    const arena = await start(arenaJudge, ARENA);
    const oneCall = (await arena.request("/aggregate_metrics", { verify_responses: rows })).body.agent_metrics;
    expect(oneCall["arena_elo/n"]).toBe(750);
    expect(eloOf(file.agent_metrics)).toEqual(eloOf(oneCall));
    expect(file.approximate_metrics).toBeUndefined();
    expect(file.group_level_metrics).toHaveLength(750);
  });
});
