// `--concurrency auto` against an engine with a ceiling (test/doubles/degrading_engine.ts: slower past
// `knee` calls in flight, 503 past 1.25 × knee here). Real servers in this process (head, simple_agent,
// example_single_tool_call, vllm_model), only the engine faked. The engine gate's recorded limit
// must settle within 20% of the knee, and no rollout may fail although the engine refused calls
// while the limit was being found (the model server is given no retries of its own).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatProgress } from "../src/cli/progress.js";
import { autoAdmission } from "../src/collect/auto_admission.js";
import { collect } from "../src/collect/collect.js";
import { mountRolloutService } from "../src/collect/service.js";
import { runRollouts } from "../src/client/rollouts.js";
import { createServer, listen } from "../src/http/server.js";
import { AdaptiveLimit, adaptiveLimits, describeLimits, parseAutoConcurrency, setAutoConcurrency } from "../src/http/adaptive_limit.js";
import { closeDispatcher } from "../src/http/client.js";
import { JudgeClient } from "../src/judge/client.js";
import { agentUrlsOf } from "../src/orchestrate/status.js";
import type { RunningServers } from "../src/orchestrate/start.js";
import { singleToolCallServers } from "./helpers/single_tool_servers.js";
import { startDegradingEngine, type DegradingEngine } from "./doubles/degrading_engine.js";
import { NEMO_GYM_EXAMPLES } from "./helpers/cli.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  setAutoConcurrency(undefined);
  while (cleanups.length) await cleanups.pop()!();
  await closeDispatcher();
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gym-auto-"));
});

/** example_single_tool_call + simple_agent + vllm_model (no retries of its own) on `engine`, in this process. */
async function serversOn(engine: DegradingEngine): Promise<RunningServers> {
  const servers = await singleToolCallServers(engine.baseUrl, ["++policy_model.responses_api_models.vllm_model.max_retries=0"]);
  cleanups.push(() => servers.stop());
  return servers;
}

function exampleRow(): Record<string, any> {
  return JSON.parse(readFileSync(join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl"), "utf8").split("\n")[0]!);
}

function writeRows(path: string, count: number): void {
  const base = exampleRow();
  const lines = Array.from({ length: count }, (_, i) => {
    const row = structuredClone(base);
    row.responses_create_params.input[1].content = `what's it like in sf? (question ${i})`;
    return JSON.stringify(row);
  });
  writeFileSync(path, `${lines.join("\n")}\n`);
}

describe("--concurrency auto", () => {
  const KNEE = 16;
  let engine: DegradingEngine;

  beforeAll(async () => {
    engine = await startDegradingEngine({ knee: KNEE, latencyMs: 400, rejectAbove: 20 });
    cleanups.push(() => engine.close());
  });

  it("settles the engine gate within 20% of the engine's knee, and no rollout fails on the refusals", async () => {
    const bounds = { min: 4, max: 256 };
    // Every rule on, the lag rule too: this process also runs every server of the run, and on a busy
    // machine (load 20 on 2 cores) its event loop lags for reasons of its own, which cuts once per spell
    // of lag only (src/http/adaptive_limit.test.ts), so the engine's signals still steer.
    setAutoConcurrency(bounds);
    const servers = await serversOn(engine);
    const input = join(dir, "in.jsonl");
    const output = join(dir, "out.jsonl");
    writeRows(input, 200);
    const admission = autoAdmission(bounds, { localGates: true });
    const summary = await collect({
      inputPath: input,
      outputPath: output,
      agentUrls: agentUrlsOf(servers.instances),
      concurrency: bounds.max,
      admit: (inFlight) => admission.admit(inFlight),
      repeats: 1,
      defaultAgent: "example_single_tool_call_simple_agent",
    });

    expect(summary.accounting.failed).toBe(0);
    expect(summary.accounting.succeeded).toBe(200);
    const gates = adaptiveLimits().filter((l) => l.name === "model");
    expect(gates).toHaveLength(1);
    const gate = gates[0]!;
    // It went looking past the knee (the engine pushed back), and came back to it.
    expect(gate.trajectory.some((p) => p.limit > KNEE)).toBe(true);
    expect(gate.trajectory.some((p) => p.reason === "overload" || p.reason === "latency")).toBe(true);
    const end = gate.trajectory.at(-1)!.atMs;
    const settled = gate.meanLimitSince(end / 2);
    const trace = gate.trajectory.map((p) => `${p.atMs}ms ${p.limit.toFixed(1)} ${p.reason}`).join(", ");
    expect(settled, trace).toBeGreaterThanOrEqual(KNEE * 0.8);
    expect(settled, trace).toBeLessThanOrEqual(KNEE * 1.2);
    // Every refusal was tried again behind the gate rather than failing its rollout.
    expect(gate.counts.ok).toBe(400);
    expect(gate.counts.overload).toBe(engine.stats.refused);
    // The rollouts in flight followed the gate, far below the ceiling of 256.
    expect(admission.limit).toBeLessThan(8 * KNEE);
    expect(describeLimits()).toMatch(/^limits model \d+$/);
  }, 120_000);
});

describe("gym serve --concurrency auto: the rollout service's admission", () => {
  it("holds requests that name no concurrency to the admission, and a request's own concurrency as given", async () => {
    setAutoConcurrency(undefined);
    // Fast and never degrading: its peak in flight is what the service let through at once.
    const engine = await startDegradingEngine({ knee: 1000, latencyMs: 20 });
    cleanups.push(() => engine.close());
    const servers = await serversOn(engine);
    const app = createServer({ name: "rollout_service" });
    const agents = agentUrlsOf(servers.instances);
    // The admission `gym serve --concurrency auto` passes, held at 3 here to see it obeyed.
    mountRolloutService(app, { agents: () => agents, defaultConcurrency: 256, admit: () => 3 });
    const url = await listen(app, { port: 0 });
    cleanups.push(() => app.close());
    const rows = Array.from({ length: 24 }, (_, i) => {
      const row = exampleRow();
      row.responses_create_params.input[1].content = `what's it like in sf? (question ${i})`;
      return row;
    });
    const admitted = await runRollouts(url, { rows });
    expect(admitted.summary.succeeded).toBe(24);
    expect(engine.stats.peakInFlight).toBeLessThanOrEqual(3);
    const own = await runRollouts(url, { rows, concurrency: 12 });
    expect(own.summary.succeeded).toBe(24);
    expect(engine.stats.peakInFlight).toBeGreaterThan(3);
  });
});

describe("--concurrency auto for judge calls", () => {
  it("gates an environment's judge calls: a burst of 60 never reaches the judge at once, and every call succeeds", async () => {
    // The judge is the engine itself here (a model server stands between them in a run); it slows
    // down past 8 in flight and refuses nothing, so its peak in flight is what reached it at once.
    const judge = await startDegradingEngine({ knee: 8, latencyMs: 50, rejectAbove: 1000 });
    cleanups.push(() => judge.close());
    setAutoConcurrency({ min: 2, max: 64 });
    const ctx = { urlOf: () => judge.url };
    const calls = Array.from({ length: 60 }, (_, i) =>
      JudgeClient.for(ctx, "judge_model", { _ng_task_index: i, _ng_rollout_index: 0 }).responses({ input: [{ role: "user", content: `judge ${i}` }] }),
    );
    const replies = await Promise.all(calls);
    expect(replies.every((r) => r.response.object === "response")).toBe(true);
    const gate = adaptiveLimits().find((l) => l.name === "judge")!;
    expect(gate.counts.ok).toBe(60);
    // Without the gate all 60 would be in flight at once (and most refused).
    expect(judge.stats.peakInFlight).toBeLessThanOrEqual(Math.max(...gate.trajectory.map((p) => Math.floor(p.limit))));
    expect(judge.stats.peakInFlight).toBeLessThan(60);
  });
});

describe("the AIMD limit on its own", () => {
  it("reads auto, auto:MAX and auto:MIN-MAX, and names a bad spec", () => {
    expect(parseAutoConcurrency("auto")).toEqual({ min: 4, max: 512 });
    expect(parseAutoConcurrency("auto:64")).toEqual({ min: 4, max: 64 });
    expect(parseAutoConcurrency("auto:2")).toEqual({ min: 2, max: 2 });
    expect(parseAutoConcurrency("AUTO:8-256")).toEqual({ min: 8, max: 256 });
    expect(parseAutoConcurrency("16")).toBeUndefined();
    expect(parseAutoConcurrency(16)).toBeUndefined();
    expect(() => parseAutoConcurrency("auto:9-3")).toThrow(/auto:MIN-MAX with 1 ≤ MIN ≤ MAX/);
    expect(() => parseAutoConcurrency("auto:lots")).toThrow(/--concurrency auto:lots/);
  });

  it("cuts on overload and on event-loop lag, never below its floor, and grows only while full", async () => {
    let lag = 0;
    const limit = new AdaptiveLimit({ name: "t", min: 2, max: 10, initial: 8, lag: () => lag });
    const releases = await Promise.all(Array.from({ length: 8 }, () => limit.acquire()));
    expect(limit.inFlight).toBe(8);
    releases[0]!("overload");
    expect(limit.limit).toBe(5); // 8 × 0.7
    releases[1]!("overload"); // the same round: one cut only
    expect(limit.limit).toBe(5);
    for (const release of releases.slice(2)) release("ok", 10);
    // Rounds under lag: cut.
    lag = 500;
    for (let i = 0; i < 3; i++) {
      const round = await Promise.all(Array.from({ length: limit.limit }, () => limit.acquire()));
      for (const release of round) release("ok", 10);
    }
    expect(limit.trajectory.at(-1)!.reason).toBe("lag");
    // Rounds that never fill the gate do not grow it (after the round begun full has ended).
    lag = 0;
    for (let i = 0; i < 8; i++) (await limit.acquire())("ok", 10);
    const before = limit.limit;
    for (let i = 0; i < 30; i++) (await limit.acquire())("ok", 10);
    expect(limit.limit).toBe(before);
    // Sustained refusals: one cut per window of calls, down to the floor and no further.
    for (let i = 0; i < 10; i++) {
      const many = await Promise.all(Array.from({ length: limit.limit }, () => limit.acquire()));
      for (const release of many) release("overload");
    }
    expect(limit.limit).toBe(2);
    expect(limit.trajectory.filter((p) => p.reason === "overload").length).toBeLessThanOrEqual(4);
  });

  it("shows the limits on the progress line", () => {
    const line = formatProgress({ done: 5, total: 10, alreadyDone: 0, failed: 0, elapsedMs: 1000, meanReward: {} }, undefined, "rollouts 40, model 18");
    expect(line).toContain("limits rollouts 40, model 18");
  });
});
