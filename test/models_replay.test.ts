// record_path on live models, then replay_model serving that file: identical responses per
// rollout, misses and malformed recordings that say what is wrong.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { call, closeDispatcher, NO_RETRY } from "../src/http/client.js";
import { listen } from "../src/http/server.js";
import openaiModel from "../src/models/openai_model.js";
import { RecordingError } from "../src/models/recording.js";
import { keyHash, replayKey } from "../src/models/replay_key.js";
import replayModel from "../src/models/replay_model.js";
import { ROLLOUT_HEADER } from "../src/protocol/index.js";
import vllmModel from "../src/models/vllm_model.js";
import type { ServerImplementation } from "../src/http/implementation.js";
import { examplePolicy, startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
afterAll(closeDispatcher);

const dir = mkdtempSync(join(tmpdir(), "gymkit-replay-"));

async function serve(implementation: ServerImplementation<any>, fields: Record<string, unknown>): Promise<string> {
  const app = await implementation.build({ name: "policy_model", config: implementation.configSchema.parse(fields), urlOf: () => "" });
  const url = await listen(app);
  cleanups.push(() => app.close());
  return url;
}

async function respond(url: string, body: unknown, rollout?: string) {
  const headers: Record<string, string> = rollout ? { [ROLLOUT_HEADER]: rollout } : {};
  const result = await call(`${url}/v1/responses`, { method: "POST", body, headers, retry: NO_RETRY });
  return { status: result.status, json: JSON.parse(result.text) };
}

/** A sampling engine: the same prompt gets a different answer each time, like temperature > 0. */
async function samplingEngine(): Promise<FakeEngine> {
  let n = 0;
  const engine = await startFakeEngine({
    policy: (turns, tools, request) => {
      const action = examplePolicy(turns, tools, request);
      return action.text !== undefined ? { ...action, text: `${action.text} #${++n}` } : action;
    },
  });
  cleanups.push(() => engine.close());
  return engine;
}

const weatherTool = { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } };

/** Two model calls of one weather rollout: the tool call, then the answer after the tool output. */
async function weatherRollout(url: string, rollout: string) {
  const first = { input: [{ role: "user", content: "Weather in Tokyo?" }], tools: [weatherTool], temperature: 1 };
  const r1 = await respond(url, first, rollout);
  const call1 = r1.json.output.find((i: any) => i.type === "function_call");
  const second = {
    ...first,
    input: [...first.input, ...r1.json.output, { type: "function_call_output", call_id: call1.call_id, output: '{"weather_description":"sunny"}' }],
  };
  const r2 = await respond(url, second, rollout);
  return { requests: [first, second], responses: [r1.json, r2.json] };
}

describe.each([
  ["vllm_model", vllmModel, (e: FakeEngine, path: string) => ({ base_url: e.baseUrl, model: "policy", record_path: path })],
  ["openai_model", openaiModel, (e: FakeEngine, path: string) => ({ openai_base_url: e.baseUrl, openai_model: "policy", record_path: path })],
] as const)("record with %s, replay with replay_model", (id, implementation, fields) => {
  it("serves identical responses per rollout, even for identical requests of different rollouts", async () => {
    const path = join(dir, `${id}.jsonl`);
    const engine = await samplingEngine();
    const live = await serve(implementation, fields(engine, path));
    const recorded = [await weatherRollout(live, "0:0"), await weatherRollout(live, "0:1")];
    // Same prompts, different rollouts, different samples.
    expect(recorded[0]!.responses[1].output).not.toEqual(recorded[1]!.responses[1].output);

    const lines = readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(4);
    expect(Object.keys(lines[0])).toEqual(["key_hash", "rollout", "request", "response"]);
    expect(lines[0].rollout).toEqual({ task_index: 0, rollout_index: 0 });
    expect(lines[0].key_hash).toBe(keyHash(replayKey(lines[0].request, lines[0].rollout)));

    const replay = await serve(replayModel, { recording_path: path });
    for (const [i, rollout] of ["0:0", "0:1"].entries()) {
      const { requests, responses } = recorded[i]!;
      for (const [j, request] of requests.entries()) {
        const { status, json } = await respond(replay, request, rollout);
        expect(status).toBe(200);
        expect(json).toEqual(responses[j]);
      }
    }
    // The agent replaying drives the same conversation end to end.
    const again = await weatherRollout(replay, "0:1");
    expect(again.responses).toEqual(recorded[1]!.responses);
  });

  it("keeps the chat passthrough of the recorded model, and records only Responses calls", async () => {
    const path = join(dir, `${id}-chat.jsonl`);
    const engine = await samplingEngine();
    const live = await serve(implementation, fields(engine, path));
    const chat = await call(`${live}/v1/chat/completions`, { method: "POST", body: { model: "x", messages: [{ role: "user", content: "ping" }] }, retry: NO_RETRY });
    expect(chat.status).toBe(200);
    expect(JSON.parse(chat.text).choices[0].message.content).toContain("You said: ping");
    const { status } = await respond(live, { input: "Hello" }, "3:0");
    expect(status).toBe(200);

    const lines = readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((line) => [line.request.input, line.rollout])).toEqual([["Hello", { task_index: 3, rollout_index: 0 }]]);
  });
});

describe("replay_model", () => {
  async function recordOne(name: string) {
    const path = join(dir, name);
    const engine = await samplingEngine();
    const live = await serve(vllmModel, { base_url: engine.baseUrl, model: "policy", record_path: path });
    const request = { input: [{ id: "msg_live", type: "message", role: "user", content: "Hello" }], temperature: 0.7 };
    const { json } = await respond(live, request, "2:1");
    return { path, request, response: json };
  }

  it("ignores item ids, model and key order, and lists the recorded model", async () => {
    const { path, request, response } = await recordOne("ids.jsonl");
    const replay = await serve(replayModel, { recording_path: path });
    const reordered = { temperature: 0.7, model: "anything", input: [{ content: "Hello", role: "user", type: "message", id: "msg_other" }] };
    expect((await respond(replay, reordered, "2:1")).json).toEqual(response);
    expect((await respond(replay, request, "2:1")).json).toEqual(response);
    const models = JSON.parse((await call(`${replay}/v1/models`, { retry: NO_RETRY })).text);
    expect(models.data.map((m: any) => m.id)).toEqual(["policy"]);
  });

  it("answers a miss with a 404 naming the rollout, key hash, recording and what differs", async () => {
    const { path, request } = await recordOne("miss.jsonl");
    const replay = await serve(replayModel, { recording_path: path });
    const changed = { ...request, input: [{ ...request.input[0]!, content: "Goodbye" }] };
    const { status, json } = await respond(replay, changed, "2:1");
    expect(status).toBe(404);
    const hash = keyHash(replayKey(changed as any, { task_index: 2, rollout_index: 1 }));
    expect(json.detail).toContain("task 2 rollout 1");
    expect(json.detail).toContain(hash);
    expect(json.detail).toContain(path);
    expect(json.detail).toContain("differs at input[0].content");
    expect(json.detail).toMatch(/re-record/);
    expect(json.error.message).toBe(json.detail);

    const otherRollout = await respond(replay, request, "2:2");
    expect(otherRollout.status).toBe(404);
    expect(otherRollout.json.detail).toContain("no request for this rollout");
    const noHeader = await respond(replay, request);
    expect(noHeader.json.detail).toContain("no x-gymkit-rollout header");
  });

  it("indexes recordings whose lines are larger than the read chunk", async () => {
    const path = join(dir, "big.jsonl");
    const engine = await samplingEngine();
    const live = await serve(vllmModel, { base_url: engine.baseUrl, model: "policy", record_path: path });
    const requests = ["a", "b", "c"].map((w) => ({ input: `${w} ${"word ".repeat(150_000)}` }));
    const responses = [];
    for (const request of requests) responses.push((await respond(live, request, "0:0")).json);
    const replay = await serve(replayModel, { recording_path: path });
    for (const [i, request] of requests.entries()) expect((await respond(replay, request, "0:0")).json).toEqual(responses[i]);
  });

  it("refuses chat completions clearly", async () => {
    const { path } = await recordOne("chat.jsonl");
    const replay = await serve(replayModel, { recording_path: path });
    const result = await call(`${replay}/v1/chat/completions`, { method: "POST", body: { messages: [] }, retry: NO_RETRY });
    expect(result.status).toBe(404);
    expect(JSON.parse(result.text).detail).toContain("replay_model does not serve /v1/chat/completions");
  });

  it("names the file and line of a malformed recording", async () => {
    const { path } = await recordOne("bad.jsonl");
    const good = readFileSync(path, "utf8");
    writeFileSync(path, `${good}\n{"key_hash": "x", "rollout": null`);
    await expect(serve(replayModel, { recording_path: path })).rejects.toThrow(new RegExp(`${path}:3: not valid JSON`));
    writeFileSync(path, `${good}{"key_hash": "x", "rollout": null, "request": {"input": "x"}}\n`);
    await expect(serve(replayModel, { recording_path: path })).rejects.toThrow(new RegExp(`${path}:2: not a recording line \\(response`));
    await expect(serve(replayModel, { recording_path: join(dir, "nope.jsonl") })).rejects.toThrow(RecordingError);
    await expect(serve(replayModel, { recording_path: join(dir, "nope.jsonl") })).rejects.toThrow(/does not exist; record one by setting record_path/);
  });
});
