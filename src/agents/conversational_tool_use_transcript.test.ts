// The conversational tool-use agent's bookkeeping, function by function: prompt and tool rendering
// against NeMo Gym's example rows, which rows are refused before anything runs, whose turn it is
// after a prefilled history, the trimming of a policy response, and the split of the transcript.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { agentSystemMessage, responsesApiTools } from "./conversational_tool_use_prompt.js";
import {
  canonicalizeTranscript,
  materializeInitialUserMessage,
  mergePolicyUsage,
  prefilledResumeState,
  recordedOutputs,
  RowError,
  selectOutputs,
  validateMaterializedParams,
} from "./conversational_tool_use_transcript.js";
import { rolloutIdOf, withRoleUsage } from "./conversational_tool_use_simulation.js";

const DATA = new URL("../environments/conversational_tool_use_simulation/data/", import.meta.url);
const rows = (file: string) => readFileSync(new URL(file, DATA), "utf8").trim().split("\n").map((line) => JSON.parse(line));

const system = (text: string) => ({ role: "system", content: text, type: "message" });
const user = (text: string) => ({ role: "user", content: text, type: "message" });
const assistant = (text: string) => ({ id: "msg", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const call = (id: string, name = "lookup") => ({ type: "function_call", call_id: id, name, arguments: "{}" });
const toolOutput = (id: string) => ({ type: "function_call_output", call_id: id, output: "{}" });
const refused = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RowError);
    expect((error as RowError).statusCode).toBe(400);
    return (error as Error).message;
  }
  throw new Error("not refused");
};

describe("policy prompt and tools", () => {
  it("render every NeMo Gym example row's materialised prompt and tools exactly (single and parallel tool calls)", () => {
    const all = [...rows("example.jsonl"), ...rows("example_parallel_tool_calls.jsonl")];
    expect(all.length).toBe(10);
    expect(new Set(all.map((r) => r.responses_create_params.parallel_tool_calls))).toEqual(new Set([true, false]));
    for (const row of all) {
      const params = row.responses_create_params;
      expect(params.input[0].content).toBe(agentSystemMessage(row.policy, params.parallel_tool_calls));
      expect(() => validateMaterializedParams(params, row.policy, row.tools)).not.toThrow();
    }
  });

  it("render a signature's doc/params, fall back to description/parameters, and keep a policy's `$` as text", () => {
    expect(responsesApiTools([{ name: "a", doc: "d", params: { type: "object" } }, { name: "b", description: "x", strict: false }])).toEqual([
      { type: "function", name: "a", description: "d", parameters: { type: "object" }, strict: true },
      { type: "function", name: "b", description: "x", parameters: { type: "object", properties: {} }, strict: false },
    ]);
    expect(agentSystemMessage("costs $& and $1")).toContain("<policy>\ncosts $& and $1\n</policy>");
  });

  it("refuse a row whose prompt or tools differ from its policy and tools", () => {
    const tools = [{ name: "lookup", doc: "Look up.", params: { type: "object", properties: {} } }];
    const good = { input: [system(agentSystemMessage("P", true)), user("hi")], tools: responsesApiTools(tools) };
    expect(() => validateMaterializedParams(good, "P", tools)).not.toThrow();
    expect(refused(() => validateMaterializedParams({ ...good, input: [user("hi")] }, "P", tools))).toMatch(/must include the materialized policy system prompt/);
    expect(refused(() => validateMaterializedParams(good, "other policy", tools))).toMatch(/policy prompt does not match the top-level policy/);
    // The prompt for one tool call per turn does not pass for a row with parallel calls on.
    expect(refused(() => validateMaterializedParams({ ...good, input: [system(agentSystemMessage("P", false))] }, "P", tools))).toMatch(/does not match/);
    expect(refused(() => validateMaterializedParams({ ...good, tools: [] }, "P", tools))).toMatch(/must include materialized policy tools/);
    expect(refused(() => validateMaterializedParams(good, "P", [{ ...tools[0], doc: "Changed." }]))).toMatch(/tools do not match the top-level tool definitions/);
  });
});

describe("first user message and prefilled history", () => {
  it("materialises initial_user_message into an input with no conversation, and checks it against one that has it", () => {
    const params = { input: [system("S")] };
    expect(materializeInitialUserMessage(params, "Hello").input).toEqual([system("S"), user("Hello")]);
    expect(params.input).toHaveLength(1);
    expect(materializeInitialUserMessage({ input: [system("S"), user("Hello")] }, "Hello").input).toHaveLength(2);
    expect(refused(() => materializeInitialUserMessage({ input: [system("S"), user("Hi")] }, "Hello"))).toMatch(/must match the first user message/);
    expect(refused(() => materializeInitialUserMessage({ input: [system("S"), assistant("A")] }, "Hello"))).toMatch(/without a user message/);
  });

  it("resumes with the next actor: environment for unanswered calls, user after the assistant, nobody after a stop", () => {
    expect(prefilledResumeState({ input: [system("S")] })).toBeUndefined();
    expect(prefilledResumeState({ input: [system("S"), user("hi"), call("c1"), toolOutput("c1"), call("c2")] })).toEqual({ next: "environment", pending: [call("c2")] });
    expect(prefilledResumeState({ input: [user("hi"), call("c1"), toolOutput("c1")] })?.next).toBe("agent");
    expect(prefilledResumeState({ input: [user("hi"), assistant("Anything else?")] })?.next).toBe("user");
    expect(prefilledResumeState({ input: [user("hi")] })?.next).toBe("agent");
    expect(prefilledResumeState({ input: [user("hi"), assistant("Done."), user("###STOP###")] })?.next).toBe("terminal");
    expect(prefilledResumeState({ input: "hi" })?.next).toBe("agent");
    expect(refused(() => prefilledResumeState({ input: [{ role: "user", content: [{ type: "input_image", image_url: "x" }] }] }))).toMatch(/must contain only text/);
  });
});

describe("a policy response", () => {
  it("keeps only the first function call when parallel calls are off, and drops blank messages", () => {
    const output = [assistant("  "), call("c1"), { type: "reasoning", summary: [] }, call("c2")];
    expect(selectOutputs(output, false).map((o: any) => o.call_id ?? o.type)).toEqual(["c1", "reasoning"]);
    expect(selectOutputs(output, true).map((o: any) => o.call_id ?? o.type)).toEqual(["c1", "reasoning", "c2"]);
  });

  it("is recorded as its text messages and calls, each with its index in the response", () => {
    const output = [{ type: "reasoning", summary: [] }, assistant("Checking."), call("c1", "find")];
    expect(recordedOutputs(output)).toEqual([
      { type: "message", content: "Checking.", response_output_index: 1 },
      { type: "function_call", tool_name: "find", tool_call_id: "c1", arguments: "{}", response_output_index: 2 },
    ]);
  });

  it("usage: totals summed over the policy's responses, details reset once two are summed", () => {
    const u = (n: number, cached: number) => ({ input_tokens: n, output_tokens: 1, total_tokens: n + 1, input_tokens_details: { cached_tokens: cached }, output_tokens_details: { reasoning_tokens: 2 } });
    expect(mergePolicyUsage(undefined, u(10, 3))).toEqual(u(10, 3));
    expect(mergePolicyUsage(u(10, 3), u(5, 3))).toEqual({ input_tokens: 15, output_tokens: 2, total_tokens: 17, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
  });
});

describe("the rollout", () => {
  it("moves the user's opening turns into the input; the output starts where the policy starts", () => {
    const params = { input: [system("S")] };
    const split = canonicalizeTranscript(params, { output: [user("hi"), { type: "reasoning", summary: [] }, assistant("Hello"), user("bye")] });
    expect(split.params.input).toEqual([system("S"), user("hi")]);
    expect((split.response.output as any[]).map((o) => o.type)).toEqual(["reasoning", "message", "message"]);
    // The user ended before the policy spoke: everything is input.
    expect(canonicalizeTranscript(params, { output: [user("###STOP###")] }).response.output).toEqual([]);
    // Nothing to move: unchanged.
    const asIs = { output: [call("c1")] };
    expect(canonicalizeTranscript(params, asIs).response).toBe(asIs);
  });

  it("rollout id as NeMo Gym correlates it, and usage_by_role spliced into the verify reply without touching its bytes", () => {
    expect(rolloutIdOf({ _ng_task_index: 3, _ng_rollout_index: 1 })).toBe("3-1");
    expect(rolloutIdOf({ _ng_task_index: 3, _ng_rollout_index: 1, _ng_attempt_index: 2 })).toBe("3-1-a2");
    expect(rolloutIdOf({ _ng_rollout_id: "r7", _ng_task_index: 3, _ng_rollout_index: 1 })).toBe("r7");
    expect(rolloutIdOf({})).toBeNull();
    const usage = { input_tokens: 1, output_tokens: 2, total_tokens: 3 };
    const text = '{"reward": 1.0, "simulator_usage": {"user": {"input_tokens": 4, "output_tokens": 5, "total_tokens": 9}, "tool_simulator": null, "judge": null}}';
    const out = withRoleUsage(text, usage);
    expect(out.startsWith(text.slice(0, -1))).toBe(true);
    expect(JSON.parse(out).usage_by_role).toEqual({ policy: usage, user: { input_tokens: 4, output_tokens: 5, total_tokens: 9 }, tool_simulator: null, judge: null });
  });
});
