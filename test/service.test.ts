// The rollout service on a real head server (in-process servers, real sockets, only the engine faked):
// it streams every rollout then a summary, names missing pairs and ends with an error line when
// rollouts fail, refuses bad requests before streaming, cancels in-flight rollouts down to the engine
// when the client hangs up, and answers token exports (format "tokens") behind an optional plan line.
// (The Python client is tested against `gym serve` in python_client.test.ts.)
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MissingRolloutsError, runRollouts, streamRollouts, RolloutRequestError, type RolloutRow } from "../src/client/rollouts.js";
import { collect, DEFAULT_ROLLOUT_TIMEOUT_S } from "../src/collect/collect.js";
import { rolloutDeadlineMs } from "../src/collect/service.js";
import { call, callJson, closeDispatcher, NO_RETRY } from "../src/http/client.js";
import type { RunningServers } from "../src/orchestrate/start.js";
import { singleToolCallServers } from "./helpers/single_tool_servers.js";
import { startFakeEngine, type FakeEngine, type FakeEngineOptions } from "./doubles/fake_engine.js";
import { NEMO_GYM_EXAMPLES } from "./helpers/cli.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
  await closeDispatcher();
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gym-service-"));
});

/** N distinct example_single_tool_call rows (two model calls and one tool call each); `poison` marks some. */
function weatherRows(count: number, poison: ReadonlySet<number> = new Set()): Array<Record<string, any>> {
  const base = JSON.parse(readFileSync(join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl"), "utf8").split("\n")[0]!);
  return Array.from({ length: count }, (_, i) => {
    const row = structuredClone(base);
    row.responses_create_params.input[1].content = `what's it like in sf? (question ${i})${poison.has(i) ? " poison" : ""}`;
    return row;
  });
}

async function engineOf(options: FakeEngineOptions = {}): Promise<FakeEngine> {
  const engine = await startFakeEngine(options);
  cleanups.push(() => engine.close());
  return engine;
}

/** example_single_tool_call + simple_agent + vllm_model on `engine`, and their head, all in this process. */
async function serversFor(engine: FakeEngine): Promise<RunningServers> {
  const servers = await singleToolCallServers(engine.baseUrl, ["++policy_model.responses_api_models.vllm_model.retry_backoff_s=0.01", "++policy_model.responses_api_models.vllm_model.max_retries=0"]);
  cleanups.push(() => servers.stop());
  return servers;
}

/** The raw NDJSON lines of one request. */
async function rawStream(headUrl: string, body: unknown): Promise<{ status: number; headers: Record<string, unknown>; lines: string[] }> {
  const result = await call(`${headUrl}/v1/rollouts`, { body, retry: NO_RETRY });
  return { status: result.status, headers: result.headers, lines: result.text.split("\n").filter(Boolean) };
}

const pairOf = (row: { _ng_task_index: number; _ng_rollout_index: number }) => `${row._ng_task_index}:${row._ng_rollout_index}`;
const userText = (body: Record<string, any>) => JSON.stringify(body.messages ?? body.input);

describe("POST /v1/rollouts on the head server", () => {
  let engine: FakeEngine;
  let servers: RunningServers;
  beforeAll(async () => {
    // Poisoned rows make the engine answer 400, so those rollouts fail as model errors.
    engine = await engineOf({ respond: (_path, body) => (userText(body).includes("poison") ? { status: 400, body: { error: { message: "poisoned prompt" } } } : undefined) });
    servers = await serversFor(engine);
  });

  it("streams one rollout row per pair, then a summary accounting for every pair", async () => {
    const rows = weatherRows(5);
    rows.push(structuredClone(rows[0]!)); // identical rows share a task, as identical input lines do
    const { status, headers, lines } = await rawStream(servers.headUrl, { rows, num_repeats: 2, concurrency: 4, responses_create_params: { temperature: 0.25 } });
    expect(status).toBe(200);
    expect(headers["content-type"]).toBe("application/x-ndjson");
    expect(headers["x-gymkit-requested"]).toBe("12");
    expect(lines).toHaveLength(13);
    const rollouts = lines.slice(0, -1);
    // Each line is the collector's own row line: the pair first, then the verify reply and agent_ref.
    for (const line of rollouts) expect(line).toMatch(/^\{"_ng_task_index":\d+,"_ng_rollout_index":\d+,/);
    const parsed = rollouts.map((l) => JSON.parse(l) as RolloutRow & Record<string, any>);
    expect(parsed.every((r) => r.reward === 1 && r.agent_ref.name === "example_single_tool_call_simple_agent")).toBe(true);
    // Five tasks; the duplicate row is task 0's rollouts 2 and 3.
    const expected = [...[0, 1, 2, 3].map((r) => `0:${r}`), ...[1, 2, 3, 4].flatMap((t) => [`${t}:0`, `${t}:1`])];
    expect(parsed.map(pairOf).sort()).toEqual(expected.sort());
    expect(parsed.every((r) => r.responses_create_params.temperature === 0.25)).toBe(true);
    const summary = JSON.parse(lines.at(-1)!);
    expect(summary).toMatchObject({ type: "summary", requested: 12, succeeded: 12, failed: 0, missing: [], failure_classes: {}, mean_reward: { example_single_tool_call_simple_agent: 1 } });
  });

  it("returns the same rows `gym eval run` writes for the same input", async () => {
    const rows = weatherRows(3);
    const input = join(dir, "parity.jsonl");
    writeFileSync(input, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const output = join(dir, "parity_out.jsonl");
    const agentUrls = new Map(servers.instances.filter((i) => i.server_type === "responses_api_agents").map((i) => [i.name, i.url]));
    await collect({ inputPath: input, outputPath: output, agentUrls, concurrency: 2, repeats: 2, defaultAgent: "example_single_tool_call_simple_agent" });
    const fromFile = readFileSync(output, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
    const { rows: fromService } = await runRollouts(servers.headUrl, { rows, num_repeats: 2, concurrency: 2 });
    const shape = (r: Record<string, any>) => ({ pair: pairOf(r as RolloutRow), keys: Object.keys(r), params: r.responses_create_params, reward: r.reward, agent: r.agent_ref });
    const sorted = (list: Array<Record<string, any>>) => list.map(shape).sort((a, b) => a.pair.localeCompare(b.pair));
    expect(sorted(fromService)).toEqual(sorted(fromFile));
  });

  it("refuses a bad request with a 422 naming every problem, before anything runs", async () => {
    const before = engine.requests.length;
    const rows: Array<Record<string, unknown>> = weatherRows(3);
    rows[1] = { question: "no params" };
    rows[2] = { ...rows[2], agent_ref: { name: "nobody" } };
    const bad = await call(`${servers.headUrl}/v1/rollouts`, { body: { rows, responses_create_params: { max_tokens: 5 } }, retry: NO_RETRY });
    expect(bad.status).toBe(422);
    const locs = (JSON.parse(bad.text) as { detail: Array<{ loc: unknown[]; msg: string }> }).detail.map((d) => d.loc.join("."));
    expect(locs).toContain("body.responses_create_params.max_tokens");
    const rowProblems = await call(`${servers.headUrl}/v1/rollouts`, { body: { rows }, retry: NO_RETRY });
    expect(rowProblems.status).toBe(422);
    const detail = (JSON.parse(rowProblems.text) as { detail: Array<{ loc: unknown[]; msg: string }> }).detail;
    expect(detail.map((d) => d.loc.join("."))).toEqual(["body.rows.1.responses_create_params", "body.rows.2.agent_ref.name"]);
    expect(detail[1]!.msg).toContain('unknown agent "nobody"');
    const negative = await call(`${servers.headUrl}/v1/rollouts`, { body: { rows: weatherRows(1), rollout_timeout_s: -1 }, retry: NO_RETRY });
    expect(negative.status).toBe(422);
    expect(negative.text).toContain("rollout_timeout_s");
    // Absent: the same default deadline as `gym eval run`; 0: none.
    expect(rolloutDeadlineMs(undefined)).toBe(DEFAULT_ROLLOUT_TIMEOUT_S * 1000);
    expect(rolloutDeadlineMs(0)).toBeUndefined();
    expect(rolloutDeadlineMs(2)).toBe(2000);
    const client = await runRollouts(servers.headUrl, { rows, num_repeats: 0 }).catch((e: unknown) => e);
    expect(client).toBeInstanceOf(RolloutRequestError);
    expect((client as RolloutRequestError).status).toBe(422);
    expect(engine.requests.length).toBe(before);
  });

  it("names the missing pairs in the summary and ends with an error line; the client raises", async () => {
    const rows = weatherRows(6, new Set([1, 4]));
    const { lines } = await rawStream(servers.headUrl, { rows, concurrency: 3 });
    const last = JSON.parse(lines.at(-1)!);
    expect(last).toMatchObject({ type: "error", code: "rollouts_missing" });
    expect(last.message).toContain("2 of 6 requested rollouts are missing: (task, rollout) (1, 0), (4, 0)");
    const summary = JSON.parse(lines.at(-2)!);
    expect(summary).toMatchObject({ type: "summary", requested: 6, succeeded: 4, failed: 2, failure_classes: { model_error: 2 } });
    expect(summary.missing.map(pairOf)).toEqual(["1:0", "4:0"]);
    expect(summary.missing[0].error).toContain("poisoned prompt");
    expect(lines.slice(0, -2).map((l) => pairOf(JSON.parse(l))).sort()).toEqual(["0:0", "2:0", "3:0", "5:0"]);

    // The TypeScript client yields the rows that came, then raises naming what did not.
    const received: string[] = [];
    const error = await (async () => {
      for await (const row of streamRollouts(servers.headUrl, { rows, concurrency: 3 })) received.push(pairOf(row));
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingRolloutsError);
    expect((error as MissingRolloutsError).missing.map(pairOf)).toEqual(["1:0", "4:0"]);
    expect((error as Error).message).toContain("2 of 6 requested rollouts are missing: (1, 0) model_error, (4, 0) model_error");
    expect(received.sort()).toEqual(["0:0", "2:0", "3:0", "5:0"]);
  });

  it("starts with a plan line when asked, and with format tokens refuses rollouts without token ids as counted failures", async () => {
    const rows = weatherRows(2);
    rows.push(structuredClone(rows[0]!));
    const { lines } = await rawStream(servers.headUrl, { rows, num_repeats: 2, plan: true, format: "tokens" });
    // Identical rows share a task: the third row is task 0's rollouts 2 and 3.
    expect(JSON.parse(lines[0]!)).toEqual({ type: "plan", requested: 6, format: "tokens", pairs: [[0, 0, 2], [1, 0, 2], [0, 2, 2]] });
    // The fake engine returns no token ids: every rollout is a failure naming why, none is dropped silently.
    const summary = JSON.parse(lines[1]!);
    expect(summary).toMatchObject({ type: "summary", requested: 6, succeeded: 0, failed: 6, failure_classes: { tokens_unusable: 6 } });
    expect(summary.missing[0].error).toContain("the rollout carries no token ids");
    expect(JSON.parse(lines[2]!)).toMatchObject({ type: "error", code: "rollouts_missing" });
    expect(lines).toHaveLength(3);
    // Without `plan`, the stream is as before: rows, then the summary.
    const plain = await rawStream(servers.headUrl, { rows: rows.slice(0, 1) });
    expect(plain.lines.map((l) => JSON.parse(l).type ?? "row")).toEqual(["row", "summary"]);
    const bad = await rawStream(servers.headUrl, { rows, format: "parquet" });
    expect(bad.status).toBe(422);
    expect(bad.lines[0]).toContain("format");
  });
});

describe("POST /v1/rollouts: the client hanging up", () => {
  it("cancels the rollouts in flight down to the engine, and admits no more", async () => {
    // Every model call takes 4 s, so each rollout (two model calls) would run 8 s.
    const engine = await engineOf({ delayMs: 4_000 });
    const servers = await serversFor(engine);
    const controller = new AbortController();
    const consuming = (async () => {
      for await (const _ of streamRollouts(servers.headUrl, { rows: weatherRows(20), concurrency: 3 }, { signal: controller.signal })) {
        // none arrive before the hang-up
      }
    })().catch((e: unknown) => e);
    while (engine.requests.length < 3) await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    expect(await consuming).toBeDefined();

    const stats = async () => callJson<{ active_requests: number; in_flight: number; requests: { cancelled: number } }>(`${servers.headUrl}/v1/rollouts`, { retry: NO_RETRY });
    for (let i = 0; i < 200 && (await stats()).active_requests > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await stats()).toMatchObject({ active_requests: 0, in_flight: 0, requests: { cancelled: 1 } });
    // Past the moment the three first model calls would have answered: had the agents not been
    // cancelled, each would now be on its second model call.
    await new Promise((r) => setTimeout(r, 5_000));
    expect(engine.requests.length).toBe(3);
  });
});
