// judge_replay_model over HTTP: recorded judge text served through both APIs by rollout and call
// ordinal, whole recorded Responses served as recorded, and a call the file cannot answer refused
// with a message that says what is missing; the request check sees a sent request and NeMo Gym's
// dump of it (every create-params field, unset ones as their defaults) as equal.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JudgeClient, judgeMessages } from "../judge/index.js";
import { startInstance, type RunningInstance } from "../environment_kit/testing.js";
import judgeReplayModel, { comparableRequest } from "./judge_replay_model.js";
import { firstDifference } from "./first_difference.js";
import type { ResponsesCreateParams } from "../protocol/index.js";
import { closeDispatcher } from "../http/client.js";

const dir = mkdtempSync(join(tmpdir(), "gym-judge-replay-"));
const recordedResponse = {
  id: "resp_1", object: "response", created_at: 1, model: "judge", status: "completed", parallel_tool_calls: true, tool_choice: "auto", tools: [],
  output: [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Verdict [[A=B]]", annotations: [] }] }],
};
const lines = [
  // No indices: task = line number, rollout 0 (as gym eval reverify numbers such a file).
  { reward: 1, judgement_gen_base: "gen-base text", judgement_base_gen: "base-gen text" },
  { _ng_task_index: 5, _ng_rollout_index: 1, reward: 0, judgement_gen_base: "only one" },
  { _ng_task_index: 6, _ng_rollout_index: 0, reward: 1, rubric_evaluations: [{ criterion_id: "C1", judge_response: "PASS" }, { criterion_id: "C2", judge_response: "FAIL" }] },
  { _ng_task_index: 8, _ng_rollout_index: 0, reward: 1, judge_evaluations: [{ responses_create_params: { input: [{ role: "user", content: "is it?", type: "message" }] }, response: recordedResponse }] },
  // As NeMo Gym dumps a judge request: every default spelled out.
  { _ng_task_index: 9, _ng_rollout_index: 0, reward: 1, judge_evaluations: [{ responses_create_params: { background: null, input: [{ content: "dumped?", role: "user", type: "message" }], max_output_tokens: 50, parallel_tool_calls: true, tool_choice: "auto", tools: [], temperature: 0.0, stream: null }, response: recordedResponse }] },
];
let text: RunningInstance;
let rubric: RunningInstance;
let evaluations: RunningInstance;

beforeAll(async () => {
  const path = join(dir, "rollouts.jsonl");
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  text = await startInstance(judgeReplayModel, { config: { rollouts_path: path, judge_keys: ["judgement_gen_base", "judgement_base_gen"] } });
  rubric = await startInstance(judgeReplayModel, { config: { rollouts_path: path, judge_keys: ["rubric_evaluations"], text_field: "judge_response" } });
  evaluations = await startInstance(judgeReplayModel, { config: { rollouts_path: path } });
});

afterAll(async () => {
  await Promise.all([text, rubric, evaluations].map((i) => i.close()));
  await closeDispatcher();
  rmSync(dir, { recursive: true, force: true });
});

const judgeOf = (instance: RunningInstance, task: number, rollout: number) =>
  JudgeClient.for({ urlOf: () => instance.url }, "judge", { _ng_task_index: task, _ng_rollout_index: rollout }, { retry: { attempts: 1, initialDelayMs: 0, maxDelayMs: 0 } });
const ask = { input: [] };

describe("judge_replay_model", () => {
  it("answers each rollout's calls in order from the recorded keys, through /v1/responses and /v1/chat/completions", async () => {
    const judge = judgeOf(text, 0, 0);
    const first = await judge.chat({ messages: [{ role: "user", content: "anything" }] });
    const second = await judge.responses(judgeMessages(ask, [{ role: "user", content: "anything" }]));
    expect([first.text, second.text]).toEqual(["gen-base text", "base-gen text"]);
    // Two verifications of one rollout (two clients) each start at call 0.
    const twice = await Promise.all([judgeOf(rubric, 6, 0), judgeOf(rubric, 6, 0)].map((j) => j.responses(judgeMessages(ask, [{ role: "user", content: "c" }]))));
    expect(twice.map((c) => c.text)).toEqual(["PASS", "PASS"]);
    const one = judgeOf(rubric, 6, 0);
    expect((await Promise.all([one.chat({ messages: [] }), one.chat({ messages: [] })])).map((c) => c.text)).toEqual(["PASS", "FAIL"]);
  });

  it("serves a recorded Response as recorded when the request matches, and refuses a call the file has no answer for", async () => {
    const judge = judgeOf(evaluations, 8, 0);
    const call = await judge.responses(judgeMessages(ask, [{ role: "user", content: "is it?" }]));
    expect(call.response.id).toBe("resp_1");
    expect(call.text).toBe("Verdict [[A=B]]");
    await expect(judge.responses(judgeMessages(ask, [{ role: "user", content: "is it?" }]))).rejects.toThrow(/task 8 rollout 0 recorded 1 judge answer\(s\) under judge_evaluations; call 1 has none/);
    await expect(judgeOf(text, 5, 1).chat({ messages: [] }).then(() => judgeOf(text, 19, 0).chat({ messages: [] }))).rejects.toThrow(/has no rollout for task 19 rollout 0/);
    // NeMo Gym's dumped defaults (parallel_tool_calls, tool_choice, tools) are no difference; a changed field is.
    const dumped = { input: [], max_output_tokens: 50, temperature: 0 };
    expect((await judgeOf(evaluations, 9, 0).responses(judgeMessages(dumped, [{ role: "user", content: "dumped?" }]))).response.id).toBe("resp_1");
    await expect(judgeOf(evaluations, 9, 0).responses(judgeMessages({ ...dumped, tools: [{ type: "function", name: "f", parameters: {}, strict: true }] } as never, [{ role: "user", content: "dumped?" }]))).rejects.toThrow(/differs from the recorded one at tools/);
    const bare = await text.request("/v1/chat/completions", { messages: [] });
    expect(bare.status).toBe(400);
    expect(JSON.stringify(bare.body)).toMatch(/without the x-gymkit-rollout header/);
  });
});

const sent = { input: [{ type: "message", role: "user", content: "Is 4 equal to four?" }] } as ResponsesCreateParams;
// How NeMo Gym 07d6b0d writes the same request into judge_evaluations.
const recorded = {
  background: null, include: null, input: [{ content: "Is 4 equal to four?", role: "user", type: "message" }], instructions: null,
  max_output_tokens: null, max_tool_calls: null, metadata: null, model: null, parallel_tool_calls: true, previous_response_id: null,
  prompt: null, reasoning: null, service_tier: null, store: null, temperature: null, text: null, tool_choice: "auto", tools: [],
  top_logprobs: null, top_p: null, truncation: null, user: null, stream: null,
} as unknown as ResponsesCreateParams;

describe("comparableRequest", () => {
  it("a sent request equals NeMo Gym's dump of it; a changed prompt or setting differs", () => {
    expect(firstDifference(comparableRequest(sent), comparableRequest(recorded))).toBeUndefined();
    const changed = { ...sent, input: [{ type: "message", role: "user", content: "Is 4 equal to 5?" }] } as ResponsesCreateParams;
    expect(firstDifference(comparableRequest(changed), comparableRequest(recorded))).toBe("input[0].content");
    expect(firstDifference(comparableRequest({ ...sent, temperature: 0 }), comparableRequest(recorded))).toBe("temperature");
    expect(firstDifference(comparableRequest({ ...sent, parallel_tool_calls: false }), comparableRequest(recorded))).toBe("parallel_tool_calls");
  });
});
