// Engine replicas behind vllm_model, with real servers on 127.0.0.1: three replicas, one killed
// mid-run — every rollout completes, live rollouts stay on their replica, the dead one is taken out
// (counters say so in the status `gym env status --json` prints), and it rejoins once it answers.
import { describe, expect, it } from "vitest";
import { resolveCliConfig } from "../src/cli/config_args.js";
import { runRollouts } from "../src/client/rollouts.js";
import { call, callJson, NO_RETRY } from "../src/http/client.js";
import { listen } from "../src/http/server.js";
import vllmModel from "../src/models/vllm_model.js";
import type { ReplicaStats } from "../src/models/replicas.js";
import { ROLLOUT_HEADER } from "../src/protocol/index.js";
import { buildInstance, startServers } from "../src/orchestrate/start.js";
import { serverStatus } from "../src/orchestrate/status.js";
import type { FakeEngine } from "./doubles/fake_engine.js";
import { engineOf, onTeardown } from "./helpers/scope.js";
import { weatherRows } from "./helpers/single_tool_servers.js";

/** The question (= task, one repeat each) a model call belongs to. */
const questionOf = (body: Record<string, unknown>) => Number(/\(question (\d+)\)/.exec(JSON.stringify(body.messages))?.[1]);

async function replicasOf(modelUrl: string): Promise<Array<ReplicaStats & { pool: string }>> {
  return (await callJson<{ replicas: Array<ReplicaStats & { pool: string }> }>(`${modelUrl}/replicas`, { retry: NO_RETRY })).replicas;
}

describe("three engine replicas, one killed mid-run", () => {
  it("completes every rollout; live rollouts stay on their replica; the dead one is taken out, and brought back when it answers again, gets new rollouts", async () => {
    const engines = await Promise.all([0, 1, 2].map(() => engineOf({ delayMs: 300 })));
    const resolved = await resolveCliConfig(
      [`++policy_model.responses_api_models.vllm_model.base_url=[${engines.map((e) => e.baseUrl).join(",")}]`, "++policy_model.responses_api_models.vllm_model.retry_backoff_s=0.05"],
      { config: [], resourcesServer: "example_single_tool_call", modelType: "vllm_model", modelUrl: "unused", model: "m" },
    );
    const servers = await startServers(resolved.instances, { headPort: 0 });
    onTeardown(() => servers.stop());
    const [first, victim, last] = engines as [FakeEngine, FakeEngine, FakeEngine];
    const killedPort = Number(new URL(victim.url).port);

    const running = runRollouts(servers.headUrl, { rows: weatherRows(30), concurrency: 6 });
    // Kill it while it is answering (each answer takes 300 ms), so calls in flight are cut too.
    while (victim.requests.length < 3) await new Promise((r) => setTimeout(r, 5));
    await victim.close();
    const { rows, summary } = await running;

    expect(summary).toMatchObject({ requested: 30, succeeded: 30, failed: 0, missing: [] });
    expect(rows.every((r) => r.reward === 1)).toBe(true);

    const enginesOf = new Map<number, Set<number>>();
    engines.forEach((engine, index) => {
      for (const request of engine.requests) {
        const question = questionOf(request.body);
        enginesOf.set(question, (enginesOf.get(question) ?? new Set()).add(index));
      }
    });
    expect(enginesOf.size).toBe(30);
    for (const [question, used] of enginesOf) {
      // A rollout that never met the dead replica used exactly one; one that did moved once, to a live one.
      if (!used.has(1)) expect(used.size, `question ${question}`).toBe(1);
      else expect(used.size, `question ${question}`).toBeLessThanOrEqual(2);
    }
    // New rollouts were spread over all three while they lived.
    for (const engine of [first, victim, last]) expect(engine.requests.length).toBeGreaterThan(0);

    const stats = await replicasOf(servers.urlOf("policy_model"));
    expect(stats.map((s) => s.url)).toEqual(engines.map((e) => e.baseUrl));
    expect(stats.map((s) => s.healthy)).toEqual([true, false, true]);
    const dead = stats[1]!;
    expect(dead.marked_down).toBe(1);
    expect(dead.unreachable).toBeGreaterThan(0);
    expect(dead.failovers).toBeGreaterThan(0);
    expect(dead.down_since).not.toBeNull();
    expect(dead.last_error).toBeTruthy();
    expect(stats.reduce((n, s) => n + s.in_flight, 0)).toBe(0);

    // `gym env status --json` prints exactly this status: the model carries its replica counters.
    const status = await serverStatus(servers.headUrl);
    const model = status.find((s) => s.name === "policy_model")!;
    expect(model.replicas?.map((r) => [r.pool, r.healthy])).toEqual([["vllm_model", true], ["vllm_model", false], ["vllm_model", true]]);
    expect(status.find((s) => s.name === "example_single_tool_call")?.replicas).toBeUndefined();

    // Then it is brought back (one test with the above: it needs the replica that was taken out,
    // and tests must not depend on running in order).
    {
      const revived = await engineOf({ port: killedPort, delayMs: 50 });
      const modelUrl = servers.urlOf("policy_model");
      let stats = await replicasOf(modelUrl);
      for (let i = 0; i < 200 && !stats[1]!.healthy; i++) {
        await new Promise((r) => setTimeout(r, 100));
        stats = await replicasOf(modelUrl);
      }
      expect(stats[1]).toMatchObject({ healthy: true, rejoined: 1, down_since: null });

      // The same task indices as before: opening calls are placed by load, so the rejoined replica
      // (the least busy) gets its share instead of the old pairs staying pinned elsewhere.
      const { summary } = await runRollouts(servers.headUrl, { rows: weatherRows(12), concurrency: 6 });
      expect(summary).toMatchObject({ succeeded: 12, missing: [] });
      expect(revived.requests.length).toBeGreaterThan(0);
    }
  });
});

describe("replicas: timeouts and single engines", () => {
  async function modelServer(fields: Record<string, unknown>): Promise<string> {
    const config = vllmModel.configSchema.parse({ model: "m", retry_backoff_s: 0.01, ...fields });
    const app = await buildInstance(vllmModel, { name: "policy_model", config, urlOf: () => "" });
    const url = await listen(app);
    onTeardown(() => app.close());
    return url;
  }

  const ask = (url: string, rollout: string) =>
    call(`${url}/v1/responses`, { body: { input: "q" }, headers: { [ROLLOUT_HEADER]: rollout }, retry: NO_RETRY }).then((r) => ({ status: r.status, body: JSON.parse(r.text) }));

  it("does not replay a timed-out call on the same replica, but another replica may answer it", async () => {
    const slow = await engineOf({ delayMs: 3_000 });
    const fast = await engineOf();
    const lonely = await modelServer({ base_url: slow.baseUrl, request_timeout_s: 0.3, max_retries: 3 });
    const alone = await ask(lonely, "0:0");
    expect(alone.status).toBe(502);
    expect(alone.body.detail).toContain("did not answer within");
    expect(slow.requests).toHaveLength(1);

    const pair = await modelServer({ base_url: [slow.baseUrl, fast.baseUrl], request_timeout_s: 0.3, max_retries: 3 });
    for (let i = 0; i < 4; i++) expect((await ask(pair, `${i}:0`)).status).toBe(200);
    const stats = await replicasOf(pair);
    // Each rollout tried at most once on the slow replica; all were answered by the fast one.
    expect(stats[0]!.timeouts).toBe(stats[0]!.requests);
    expect(stats[1]!.answered).toBe(4);
    // A slow replica is not a dead one: it stays in.
    expect(stats[0]!.healthy).toBe(true);
  });
});
