// conversational_tool_use_simulation over HTTP: the real environment server on 127.0.0.1, its three
// model roles (user simulator, tool-result simulator, judge) played by the fake engine double, scripted
// from the system prompt NeMo Gym's server sends each role. Covers the session routes with NeMo Gym's
// example rows (example.jsonl, example_parallel_tool_calls.jsonl), a call to a tool the scenario does
// not have, simulator output that stays malformed, judge failures, and NeMo Gym's recorded rollouts
// (data/example_rollouts.jsonl, trimmed: see README) re-verified by replaying each recorded trajectory
// through the routes and the recorded judge verdicts through judge_replay_model (by rollout + call ordinal).
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import environment from "./index.js";
import digests from "./testdata/nemo_gym_prompt_digests.json" with { type: "json" };
import trajectoryDigests from "./testdata/nemo_gym_trajectory_digests.json" with { type: "json" };
import { stepsText, stepText } from "./format.js";
import { fill, CONVERSATION_JUDGE_USER, MESSAGE_JUDGE_USER } from "./prompts.js";
import type { Config, ConversationMessage, SessionState } from "./model.js";
import { seedSession } from "./session.js";
import { toolSimulatorMessagesForPending, toolSimulatorSystem, userSimulatorMessages } from "./simulators.js";
import { combinedSystemMessage, systemMessage } from "./verification.js";
import judgeReplayModel from "../../models/judge_replay_model.js";
import { CookieJar } from "../../http/cookies.js";
import { METADATA_KEYS } from "../../http/implementation.js";
import { readJsonlFile, responseWith, assistantMessage, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { engineOf } from "../../../test/helpers/scope.js";
import type { FakeEngine, Turn } from "../../../test/doubles/fake_engine.js";

const ROWS = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const PARALLEL_ROWS = readJsonlFile(new URL("./data/example_parallel_tool_calls.jsonl", import.meta.url));
const ROLLOUTS = readJsonlFile(new URL("./data/example_rollouts.jsonl", import.meta.url));

/** NeMo Gym's config of the environment (its fixture copy), metadata keys left out. */
const NEMO_CONFIG = (() => {
  const yaml = parseYaml(readFileSync(new URL("../../../test/fixtures/nemo_gym/resources_servers/conversational_tool_use_simulation/configs/conversational_tool_use_simulation.yaml", import.meta.url), "utf8"));
  const fields = yaml.conversational_tool_use_simulation.resources_servers.conversational_tool_use_simulation as Record<string, unknown>;
  return Object.fromEntries(Object.entries(fields).filter(([key]) => !(METADATA_KEYS as readonly string[]).includes(key)));
})();

type Role = "user" | "tool" | "judge";
const roleOf = (turns: Turn[]): Role => {
  const system = turns.find((t) => t.role === "system")?.content ?? "";
  if (system.startsWith("# Instructions\n- You are playing the role of a customer")) return "user";
  if (system.startsWith("# Instructions\n- Your task is to generate the result of executing a tool")) return "tool";
  if (system.startsWith("# Instructions\n- Your task is to evaluate")) return "judge";
  throw new Error(`unexpected system prompt: ${system.slice(0, 80)}`);
};
const verdict = (success: boolean, explanation = "ok") => JSON.stringify({ success, explanation });

/** What each role answers next; tests set these. */
let script: Record<Role, (turns: Turn[]) => string>;
const calls: Array<{ role: Role; turns: Turn[]; headers: Record<string, unknown> }> = [];
let engine: FakeEngine;
const instances: RunningInstance[] = [];

const defaultScript = (): Record<Role, (turns: Turn[]) => string> => ({
  user: () => "Hello, I'd like to book two tickets.",
  tool: () => JSON.stringify({ auth_status: "verified", loyalty_tier: "Voyager" }),
  judge: () => verdict(true),
});

beforeAll(async () => {
  engine = await engineOf({
    model: "simulator",
    policy: (turns) => {
      const role = roleOf(turns);
      calls.push({ role, turns, headers: {} });
      return { text: script[role](turns) };
    },
  });
});
beforeEach(() => {
  script = defaultScript();
  calls.length = 0;
});
afterAll(() => Promise.all(instances.map((i) => i.close())));

const BASE_CONFIG = {
  ...NEMO_CONFIG,
  judge_provider_retry_initial_backoff_seconds: 0,
  judge_provider_retry_max_backoff_seconds: 0,
};

async function env(config: Record<string, unknown> = {}, servers: Record<string, string> = {}): Promise<RunningInstance> {
  const instance = await startInstance(environment, { config: { ...BASE_CONFIG, ...config }, servers: { simulator_model: engine.url, ...servers } });
  instances.push(instance);
  return instance;
}

/** One rollout's session: a cookie jar and the routes it posts to. */
function session(instance: RunningInstance) {
  const jar = new CookieJar();
  const post = async (path: string, body: unknown = {}) => {
    const reply = await instance.request(path, body, jar);
    return reply;
  };
  const ok = async (path: string, body: unknown = {}) => {
    const reply = await post(path, body);
    if (reply.status !== 200) throw new Error(`${path} answered ${reply.status}: ${reply.text}`);
    return reply.body;
  };
  return { post, ok };
}

const toolCallOutput = (name: string, args: unknown, id: string, index: number | null = null) => ({ type: "function_call", tool_name: name, tool_call_id: id, arguments: typeof args === "string" ? args : JSON.stringify(args), response_output_index: index });
const AUTH_ARGS = { user_id: "U1", verification_method: "loyalty_id", verification_value: "L-9" };
const verifyBody = (row: Record<string, unknown>) => ({ ...row, response: responseWith([assistantMessage("done")]) });

describe("the session routes with NeMo Gym's example rows", () => {
  it("seeds, lists the scenario's tools, alternates user, agent and tool, and ends on the customer's ###STOP###", async () => {
    const instance = await env();
    const row = ROWS[0]!;
    const s = session(instance);
    expect(await s.ok("/seed_session", row)).toEqual({});
    const { tools } = await s.ok("/session_tools");
    expect(tools.map((t: any) => t.name)).toEqual(row.tools.map((t: any) => t.name));
    expect(tools[0]).toEqual({ type: "function", name: "authenticate_user", description: row.tools[0].doc, parameters: row.tools[0].params, strict: true });
    expect(await s.ok("/session_resume")).toEqual({ next_actor: "user", pending_tool_calls: [], is_initial: true, terminal_state: null });

    script.user = () => "Customer: Hi, I need to book tickets for the Sci-Fi panel.";
    expect(await s.ok("/next_user_message")).toEqual({ message: "Hi, I need to book tickets for the Sci-Fi panel.", should_continue: true, terminal_state: null });
    expect((await s.ok("/session_resume")).next_actor).toBe("agent");

    const response = { id: "resp_1", object: "response", output: [] };
    expect(await s.ok("/record_agent_outputs", { outputs: [toolCallOutput("authenticate_user", AUTH_ARGS, "call_1", 0)], response })).toEqual({ should_continue: true, terminal_state: null });
    expect(await s.ok("/session_resume")).toEqual({ next_actor: "environment", pending_tool_calls: [{ tool_name: "authenticate_user", tool_call_id: "call_1", arguments: JSON.stringify(AUTH_ARGS) }], is_initial: false, terminal_state: null });
    const executed = await s.ok("/execute_agent_tool_call", { tool_name: "authenticate_user", tool_call_id: "call_1", arguments: JSON.stringify(AUTH_ARGS), response });
    expect(executed).toEqual({ output: JSON.stringify({ auth_status: "verified", loyalty_tier: "Voyager" }), schema_valid: true, error: null, should_continue: true, terminal_state: null });
    // The tool simulator saw the customer's message and the call to answer.
    const toolCall = calls.find((c) => c.role === "tool")!;
    expect(toolCall.turns.at(-1)!.content).toBe(
      "<conversation>\n<customer>\nHi, I need to book tickets for the Sci-Fi panel.\n</customer>\n</conversation>\n\nTool to execute: authenticate_user\nArguments for tool execution: " + JSON.stringify(AUTH_ARGS),
    );

    expect(await s.ok("/record_agent_message", { content: "You are verified. Which session?" })).toEqual({ should_continue: true, terminal_state: null });
    expect((await s.ok("/session_resume")).next_actor).toBe("user");
    script.user = () => "###STOP###";
    expect(await s.ok("/next_user_message")).toEqual({ message: "###STOP###", should_continue: false, terminal_state: "complete" });
    expect(await s.ok("/session_resume")).toEqual({ next_actor: "terminal", pending_tool_calls: [], is_initial: false, terminal_state: "complete" });

    // The user simulator sees its own messages as the assistant's and the representative's as the user's.
    const userTurns = calls.filter((c) => c.role === "user").at(-1)!.turns;
    expect(userTurns.slice(1).map((t) => [t.role, t.content])).toEqual([
      ["assistant", "Customer: Hi, I need to book tickets for the Sci-Fi panel."],
      ["user", "Representative: You are verified. Which session?"],
    ]);

    // Simulator calls carry the row's rollout and their ordinal within the session, per role.
    const header = (i: number, name: string) => engine.requests.at(i)!.headers[name];
    const simulatorRequests = engine.requests.length;
    expect(header(-1, "x-gymkit-rollout")).toBe(`${row._ng_task_index}:${row._ng_rollout_index}`);
    expect(header(-1, "x-gymkit-judge-call")).toBe("1");

    calls.length = 0;
    const verified = await s.ok("/verify", verifyBody(row));
    // The judge's calls are numbered 0… within this verification.
    expect(engine.requests.slice(simulatorRequests).map((r) => r.headers["x-gymkit-judge-call"])).toEqual(["0", "1", "2", "3", "4", "5"]);
    expect(verified.reward).toBe(1);
    expect(verified.terminal_state).toBe("complete");
    expect(verified.failure_labels).toEqual([]);
    expect(verified.instance_config).toEqual({ mask_sample: false });
    expect([verified.num_user_messages, verified.num_agent_messages, verified.num_tool_calls, verified.num_tool_results]).toEqual([2, 2, 1, 1]);
    // Judged in NeMo Gym's order: customer and tool messages, then the representative's, then the conversation.
    const judged = calls.map((c) => c.turns.find((t) => t.role === "user")!.content);
    expect(judged).toHaveLength(6);
    expect(judged.map((text) => (text.startsWith("<steps>") ? "conversation" : /<current_step>\n<(\w+)>/.exec(text)![1]))).toEqual(["message", "tool_result", "message", "execute_tool", "message", "conversation"]);
    expect(verified.result.trajectory.messages.map((m: any) => [m.source, m.verification_result?.reward])).toEqual([
      ["user", 1],
      ["agent", 1],
      ["environment", 1],
      ["agent", 1],
      ["user", 1],
    ]);
    expect(verified.result.trajectory.messages[1].responses).toEqual([response]);
    expect(verified.result.trajectory.messages[2].deserialized_execution_result).toEqual({ auth_status: "verified", loyalty_tier: "Voyager" });
    // Usage is kept per role: two user-simulator calls, one tool-simulator call, six judge calls.
    expect(verified.simulator_usage.user.total_tokens).toBeGreaterThan(0);
    expect(verified.simulator_usage.tool_simulator.total_tokens).toBeGreaterThan(0);
    expect(verified.simulator_usage.judge.total_tokens).toBeGreaterThan(verified.simulator_usage.tool_simulator.total_tokens);
    // The row comes back whole (NeMo Gym's verify response allows extra fields).
    expect(verified.id).toBe(row.id);
    // /verify drops the session.
    expect((await s.post("/session_resume")).status).toBe(400);
  });

  it("answers parallel tool calls recorded from one response one by one, each with the results so far", async () => {
    const instance = await env();
    const row = PARALLEL_ROWS[0]!;
    const s = session(instance);
    await s.ok("/seed_session", row);
    script.user = () => "I want to check two events.";
    await s.ok("/next_user_message");
    const [first, second] = [row.tools[2].name, row.tools[2].name];
    const argsOf = (id: string) => JSON.stringify(Object.fromEntries((row.tools[2].params.required as string[]).map((k: string) => [k, id])));
    script.tool = () => JSON.stringify({ general_seats: 4, vip_seats: 0 });
    const recorded = await s.ok("/record_agent_outputs", { outputs: [toolCallOutput(first, argsOf("A"), "c1", 0), toolCallOutput(second, argsOf("B"), "c2", 1)], response: { id: "resp_p" } });
    expect(recorded.should_continue).toBe(true);
    expect((await s.ok("/session_resume")).pending_tool_calls.map((c: any) => c.tool_call_id)).toEqual(["c1", "c2"]);
    await s.ok("/execute_agent_tool_call", { tool_name: first, tool_call_id: "c1", arguments: argsOf("A") });
    await s.ok("/execute_agent_tool_call", { tool_name: second, tool_call_id: "c2", arguments: argsOf("B") });
    const toolTurns = calls.filter((c) => c.role === "tool").map((c) => c.turns.slice(1).map((t) => t.role));
    // The second call sees the first call and its result before its own request.
    expect(toolTurns).toEqual([["user"], ["user", "assistant", "user"]]);
    expect((await s.ok("/session_resume")).next_actor).toBe("agent");
    // A pending call replayed with other arguments is refused; a reused id ends the trajectory.
    const reused = await s.ok("/record_agent_outputs", { outputs: [toolCallOutput(first, argsOf("A"), "c1")], response: null });
    expect(reused).toEqual({ should_continue: false, terminal_state: "incomplete" });
    const verified = await s.ok("/verify", verifyBody(row));
    expect(verified.trajectory_invalid_reasons).toEqual(["invalid_agent_tool_call"]);
    expect(verified.failure_labels).toEqual(["agent_failure"]);
    expect(verified.result.trajectory.messages[1].responses).toEqual([{ id: "resp_p" }]);
    expect(verified.result.trajectory.messages[2].responses).toBeUndefined();
  });

  it("a call to a tool the scenario does not have ends the trajectory as NeMo Gym defines it, never a 500", async () => {
    const instance = await env();
    const s = session(instance);
    await s.ok("/seed_session", ROWS[1]);
    await s.ok("/next_user_message");
    const direct = await s.post("/launch_rocket", { target: "moon", _tool_call_id: "x1" });
    expect(direct.status).toBe(200);
    expect(direct.body).toEqual({
      output: { error: "The tool launch_rocket in the tool call with the ID x1 is unknown" },
      schema_valid: false,
      error: "The tool launch_rocket in the tool call with the ID x1 is unknown",
      should_continue: false,
      terminal_state: "incomplete",
    });
    expect(calls.filter((c) => c.role === "tool")).toEqual([]);
    const verified = await s.ok("/verify", verifyBody(ROWS[1]!));
    expect(verified.reward).toBe(0);
    expect(verified.trajectory_invalid_reasons).toEqual(["invalid_agent_tool_call"]);
    expect(verified.failure_labels).toEqual(["agent_failure"]);
    expect(verified.num_agent_failures).toBe(1);
    expect(verified.instance_config).toEqual({ mask_sample: false });
    expect(verified.result.trajectory.messages[1]).toMatchObject({ type: "tool_call", tool_name: "launch_rocket", arguments: '{"target": "moon"}' });
    expect(verified.result.trajectory.terminal_error).toBe("The tool launch_rocket in the tool call with the ID x1 is unknown");
  });

  it("arguments that break the tool's schema are the agent's failure", async () => {
    const instance = await env();
    const s = session(instance);
    await s.ok("/seed_session", ROWS[0]);
    await s.ok("/next_user_message");
    const reply = await s.ok("/execute_agent_tool_call", { tool_name: "authenticate_user", tool_call_id: "c1", arguments: '{"user_id": "U1"}' });
    expect(reply.schema_valid).toBe(false);
    expect(reply.error).toBe("The arguments object in the tool call with the ID c1 is not valid under the authenticate_user tool parameters JSON Schema: 'verification_method' is a required property");
    const notJson = session(instance);
    await notJson.ok("/seed_session", ROWS[0]);
    const bad = await notJson.ok("/execute_agent_tool_call", { tool_name: "authenticate_user", tool_call_id: "c1", arguments: "{not json" });
    expect(bad.error).toMatch(/^The arguments string in the tool call with the ID c1 could not be converted to a JSON object: /);
    const badEnum = session(instance);
    await badEnum.ok("/seed_session", ROWS[0]);
    const wrongMethod = await badEnum.ok("/execute_agent_tool_call", { tool_name: "authenticate_user", tool_call_id: "c1", arguments: JSON.stringify({ ...AUTH_ARGS, verification_method: "sms" }) });
    expect(wrongMethod.error).toBe("The arguments object in the tool call with the ID c1 is not valid under the authenticate_user tool parameters JSON Schema: 'sms' is not one of ['email_code', 'loyalty_id']");
  });
});

describe("malformed simulator output and unreachable simulators", () => {
  it("a tool result that stays invalid after generation_attempts tries is a tool failure (masked)", async () => {
    const instance = await env({ generation_attempts: 2 });
    const s = session(instance);
    await s.ok("/seed_session", ROWS[0]);
    await s.ok("/next_user_message");
    let n = 0;
    script.tool = () => (n++ === 0 ? "no json here" : '```json\n{"auth_status": "maybe"}\n```');
    const reply = await s.ok("/execute_agent_tool_call", { tool_name: "authenticate_user", tool_call_id: "c1", arguments: JSON.stringify(AUTH_ARGS) });
    expect(calls.filter((c) => c.role === "tool")).toHaveLength(2);
    expect(reply.schema_valid).toBe(false);
    expect(reply.should_continue).toBe(false);
    expect(reply.output).toBe('```json\n{"auth_status": "maybe"}\n```');
    expect(reply.error).toMatch(/^The execution result for the tool call with the ID c1 is not valid under the authenticate_user tool return type JSON Schema: /);
    const verified = await s.ok("/verify", verifyBody(ROWS[0]!));
    expect(verified.trajectory_invalid_reasons).toEqual(["invalid_environment_tool_execution"]);
    expect(verified.failure_labels).toEqual(["tool_failure"]);
    expect(verified.num_tool_schema_failures).toBe(1);
    expect(verified.instance_config).toEqual({ mask_sample: true });
  });

  it("a first customer message that ends the conversation is retried, then a user failure", async () => {
    const instance = await env({ generation_attempts: 3 });
    const s = session(instance);
    await s.ok("/seed_session", ROWS[0]);
    script.user = () => "###STOP###";
    const reply = await s.ok("/next_user_message");
    expect(calls.filter((c) => c.role === "user")).toHaveLength(3);
    expect(reply).toEqual({ message: "###STOP###", should_continue: false, terminal_state: "incomplete" });
    const verified = await s.ok("/verify", verifyBody(ROWS[0]!));
    expect(verified.trajectory_invalid_reasons).toEqual(["invalid_user_message"]);
    expect(verified.failure_labels).toEqual(["user_failure"]);
    expect(verified.instance_config).toEqual({ mask_sample: true });
  });

  it("a user simulator that cannot be reached is a message_generation_error (user failure)", async () => {
    const instance = await env({ user_model_server: { type: "responses_api_models", name: "nowhere" } }, { nowhere: "http://127.0.0.1:9" });
    const s = session(instance);
    await s.ok("/seed_session", ROWS[0]);
    const reply = await s.ok("/next_user_message");
    expect(reply).toEqual({ message: "", should_continue: false, terminal_state: "incomplete" });
    const verified = await s.ok("/verify", verifyBody(ROWS[0]!));
    expect(verified.trajectory_invalid_reasons).toEqual(["message_generation_error"]);
    expect(verified.failure_labels).toEqual(["user_failure"]);
    expect(verified.instance_config).toEqual({ mask_sample: true });
  });

  it("the agent's generation error and step limit end the trajectory with NeMo Gym's labels", async () => {
    const instance = await env();
    const a = session(instance);
    await a.ok("/seed_session", ROWS[0]);
    await a.ok("/next_user_message");
    expect(await a.ok("/record_generation_error", { source: "agent", error: "Model response was incomplete" })).toEqual({ should_continue: false, terminal_state: "incomplete" });
    const va = await a.ok("/verify", verifyBody(ROWS[0]!));
    expect([va.trajectory_invalid_reasons, va.failure_labels, va.instance_config.mask_sample]).toEqual([["message_generation_error"], ["agent_failure"], false]);

    const b = session(instance);
    await b.ok("/seed_session", ROWS[0]);
    await b.ok("/next_user_message");
    expect(await b.ok("/record_agent_step_limit", { max_agent_steps: 50, tool_calls: [] })).toEqual({ should_continue: false, terminal_state: "incomplete" });
    const vb = await b.ok("/verify", verifyBody(ROWS[0]!));
    expect([vb.trajectory_invalid_reasons, vb.failure_labels, vb.instance_config.mask_sample, vb.result.trajectory.terminal_error]).toEqual([
      ["excessive_length"],
      ["trajectory_failure"],
      false,
      "The maximum number of agent steps of 50 has been reached",
    ]);

    // A trajectory verified before it ended is a trajectory failure, masked.
    const c = session(instance);
    await c.ok("/seed_session", ROWS[0]);
    const vc = await c.ok("/verify", verifyBody(ROWS[0]!));
    expect([vc.reward, vc.trajectory_invalid_reasons, vc.failure_labels, vc.instance_config.mask_sample]).toEqual([0, ["message_generation_error"], ["trajectory_failure"], true]);
  });
});

/** A finished conversation: customer, representative, customer ###STOP###. */
async function finished(instance: RunningInstance, row: Record<string, unknown> = ROWS[0]!, last = "###STOP###") {
  const s = session(instance);
  await s.ok("/seed_session", row);
  script.user = () => "Hello, I need help.";
  await s.ok("/next_user_message");
  await s.ok("/record_agent_message", { content: "Sure." });
  script.user = () => last;
  await s.ok("/next_user_message");
  return s;
}

describe("judging", () => {
  it("a judge reply that is never the JSON verdict is a verification_generation_error (masked)", async () => {
    const instance = await env({ generation_attempts: 2 });
    const s = await finished(instance);
    script.judge = () => "I think it went fine.";
    const verified = await s.ok("/verify", verifyBody(ROWS[0]!));
    expect(calls.filter((c) => c.role === "judge")).toHaveLength(2);
    expect(verified.reward).toBe(0);
    expect(verified.trajectory_invalid_reasons).toEqual(["verification_generation_error"]);
    expect(verified.failure_labels).toEqual(["verification_generation_error"]);
    expect(verified.instance_config).toEqual({ mask_sample: true });
    expect(verified.result.trajectory.messages[0].verification_result.generation_error).toMatch(/not JSON/);
  });

  it("a judge that cannot be reached is a judge_failed rollout after judge_provider_attempts, not a zero; 408, 409 and 425 are retried too, as NeMo Gym's judge_provider retry does", async () => {
    // Each attempt's status, in order: the last one is what the failure names.
    for (const statuses of [[503, 503, 503], [408, 409, 425]]) {
      const failing = await engineOf({ respond: () => ({ status: statuses[failing.requests.length - 1] ?? 503, body: { error: "try again" } }) });
      const instance = await env({ judge_model_server: { type: "responses_api_models", name: "judge" }, judge_provider_attempts: 3 }, { judge: failing.url });
      const s = await finished(instance);
      const verified = await s.ok("/verify", verifyBody(ROWS[0]!));
      expect(failing.requests, String(statuses)).toHaveLength(3);
      expect(verified._ng_failure_class).toBe("judge_failed");
      expect(verified._ng_failure_judge_error).toMatch(new RegExp(`^HTTPStatusError: .*${statuses[2]}`));
    }
  });

  it("a failing customer message stops judging: user failure, masked; a failing representative step: agent failure", async () => {
    const instance = await env();
    const s = await finished(instance);
    script.judge = (turns) => verdict(!turns.at(-1)!.content.includes("###STOP###"), "ended too early");
    const verified = await s.ok("/verify", verifyBody(ROWS[0]!));
    expect([verified.reward, verified.failure_labels, verified.instance_config.mask_sample]).toEqual([0, ["user_failure"], true]);
    expect(calls.filter((c) => c.role === "judge")).toHaveLength(2);

    calls.length = 0;
    script.judge = (turns) => verdict(!turns.at(-1)!.content.includes("<current_step>\n<message>\nSender: Representative"));
    const t = await finished(instance);
    const agentFails = await t.ok("/verify", verifyBody(ROWS[0]!));
    expect([agentFails.reward, agentFails.failure_labels, agentFails.trajectory_invalid_reasons, agentFails.instance_config.mask_sample]).toEqual([0, ["agent_failure"], [], false]);
    expect(agentFails.result.trajectory.agent_verification_result).toEqual({ conversation_verification_result: null, overall_reward: 0, trajectory_invalid_reasons: null });
  });

  it("enforce_transfer_ground_truth: a transfer the scenario does not call for scores 0 without the judge", async () => {
    const instance = await env();
    const s = await finished(instance, ROWS[0]!, "###TRANSFER###");
    const verified = await s.ok("/verify", verifyBody(ROWS[0]!));
    expect(calls.filter((c) => c.role === "judge")).toEqual([]);
    expect([verified.reward, verified.transferred, verified.transfer_ground_truth_mismatch, verified.judge_skipped_for_transfer_mismatch, verified.failure_labels]).toEqual([0, true, true, true, ["agent_failure"]]);
    expect(verified.judge_diagnostics.transfer_ground_truth_enforcement).toEqual({ expected_transfer: false, observed_transfer: true, mismatch: true, judge_skipped: true });
    expect(verified.result.trajectory.agent_verification_result.conversation_verification_result.explanation).toBe(
      "Deterministic transfer-ground-truth mismatch: expected transferred=False, observed transferred=True.",
    );
  });

  it("complete_trajectory_combined_evaluation asks one judge for customer, representative and tool results", async () => {
    const instance = await env({ verification_type: "complete_trajectory_combined_evaluation" });
    const s = await finished(instance);
    script.judge = () => JSON.stringify({ customer_success: true, customer_explanation: "c", representative_success: true, representative_explanation: "r", tool_results_success: false, tool_results_explanation: "t" });
    const verified = await s.ok("/verify", verifyBody(ROWS[0]!));
    expect(calls.filter((c) => c.role === "judge")).toHaveLength(1);
    expect([verified.reward, verified.trajectory_invalid_reasons, verified.failure_labels]).toEqual([0, ["no_reward_environment_message"], ["tool_failure"]]);
    expect(verified.result.trajectory.environment_verification_result).toEqual({ reward: 0, explanation: "t", judge_response: null, generation_error: null, responses: null });
  });
});

describe("seeding", () => {
  it("hydrates a prefilled history and resumes where it stopped; refuses what it cannot read, naming why", async () => {
    const instance = await env();
    const row = ROWS[0]!;
    const input = [
      ...row.responses_create_params.input,
      { role: "user", content: "Hi, I am U1." },
      { type: "function_call", call_id: "p1", name: "authenticate_user", arguments: JSON.stringify(AUTH_ARGS) },
    ];
    const s = session(instance);
    await s.ok("/seed_session", { ...row, responses_create_params: { ...row.responses_create_params, input }, initial_user_message: "Hi, I am U1." });
    expect(await s.ok("/session_resume")).toEqual({ next_actor: "environment", pending_tool_calls: [{ tool_name: "authenticate_user", tool_call_id: "p1", arguments: JSON.stringify(AUTH_ARGS) }], is_initial: false, terminal_state: null });
    await s.ok("/execute_agent_tool_call", { tool_name: "authenticate_user", tool_call_id: "p1", arguments: JSON.stringify(AUTH_ARGS) });
    expect((await s.ok("/session_resume")).next_actor).toBe("agent");
    const verified = await s.ok("/verify", verifyBody(row));
    expect([verified.result.trajectory.prefill_message_count, verified.result.trajectory.continuation_start_index]).toEqual([2, 2]);

    const mismatch = await session(instance).post("/seed_session", { ...row, responses_create_params: { ...row.responses_create_params, input }, initial_user_message: "Something else" });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.detail).toBe("initial_user_message must match the first user message in responses_create_params.input.");
    const orphan = await session(instance).post("/seed_session", { ...row, responses_create_params: { input: [{ type: "function_call_output", call_id: "zz", output: "{}" }] } });
    expect([orphan.status, orphan.body.detail]).toEqual([400, "Prefilled tool output references unknown call_id zz."]);
    const noPolicy = await session(instance).post("/seed_session", { tools: [] });
    expect(noPolicy.status).toBe(422);
    expect(JSON.stringify(noPolicy.body)).toContain("policy");
    const unseeded = await session(instance).post("/next_user_message", {});
    expect([unseeded.status, unseeded.body.detail]).toEqual([400, "Session not initialized. Call /seed_session first."]);
    // discard_session says whether there was one.
    const d = session(instance);
    await d.ok("/seed_session", row);
    expect(await d.ok("/discard_session")).toEqual({ discarded: true });
    expect(await d.ok("/discard_session")).toEqual({ discarded: false });
  });
});

// ---------------------------------------------------------------------------------------------
// NeMo Gym's recorded rollouts, re-verified.

/** The recorded judge verdicts of a rollout, in the order the environment asks for them. */
function recordedJudgeTexts(rollout: Record<string, any>): string[] {
  const messages = rollout.result.trajectory.messages as Array<Record<string, any>>;
  const judged = (m: Record<string, any>) => m.verification_result?.judge_response as string | undefined;
  const texts = [...messages.filter((m) => m.source !== "agent"), ...messages.filter((m) => m.source === "agent")].map(judged).filter((t): t is string => t !== undefined);
  const conversation = rollout.result.trajectory.agent_verification_result?.conversation_verification_result?.judge_response;
  return conversation ? [...texts, conversation] : texts;
}

/** Plays a recorded trajectory back through the session routes, the simulators answering the recorded text. */
async function replay(instance: RunningInstance, rollout: Record<string, any>) {
  const { reward: _r, result, ...row } = rollout;
  // The recorded row's input already holds the first customer message (the agent adds it); the
  // session was seeded from the example row, joined by id.
  const example = ROWS.find((candidate) => candidate.id === rollout.id);
  if (!example) throw new Error(`no example row has id ${rollout.id}`);
  const s = session(instance);
  await s.ok("/seed_session", { ...example, _ng_task_index: rollout._ng_task_index, _ng_rollout_index: rollout._ng_rollout_index });
  for (const message of result.trajectory.messages as Array<Record<string, any>>) {
    if (message.source === "user") {
      script.user = () => message.text;
      const reply = await s.ok("/next_user_message");
      expect(reply.message).toBe(message.text);
    } else if (message.source === "agent") {
      const output = message.type === "text" ? { type: "message", content: message.text } : toolCallOutput(message.tool_name, message.arguments, message.tool_call_id);
      await s.ok("/record_agent_outputs", { outputs: [output], response: null });
    } else {
      script.tool = () => message.execution_result;
      const reply = await s.ok("/execute_agent_tool_call", { tool_name: message.tool_name, tool_call_id: message.tool_call_id, arguments: message.arguments });
      expect(reply.schema_valid).toBe(message.schema_valid);
    }
  }
  return s.ok("/verify", row);
}

describe("NeMo Gym's recorded rollouts", () => {
  it("re-verify to the recorded rewards, labels and masks, the recorded judge verdicts replayed by rollout and call ordinal", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ctus-replay-"));
    const answers = join(dir, "judge_answers.jsonl");
    writeFileSync(answers, ROLLOUTS.map((r) => JSON.stringify({ _ng_task_index: r._ng_task_index, _ng_rollout_index: r._ng_rollout_index, judge_answers: recordedJudgeTexts(r) })).join("\n") + "\n");
    const judge = await startInstance(judgeReplayModel, { name: "judge_replay", config: { rollouts_path: answers, judge_keys: ["judge_answers"] } });
    instances.push(judge);
    const instance = await env({ judge_model_server: { type: "responses_api_models", name: "judge_replay" } }, { judge_replay: judge.url });
    const FIELDS = ["reward", "terminal_state", "trajectory_invalid_reasons", "failure_labels", "instance_config", "num_user_messages", "num_agent_messages", "num_tool_calls", "num_tool_results", "num_tool_schema_failures", "num_user_failures", "num_agent_failures", "num_tool_failures", "transferred", "transfer_ground_truth_mismatch", "judge_skipped_for_transfer_mismatch"];
    const pick = (o: Record<string, any>) => Object.fromEntries(FIELDS.map((f) => [f, o[f]]));
    let matched = 0;
    const verifiedAll: Array<Record<string, any>> = [];
    for (const rollout of ROLLOUTS) {
      const verified = await replay(instance, rollout);
      verifiedAll.push(verified);
      expect(pick(verified)).toEqual(pick(rollout));
      expect(verified.judge_diagnostics.message_verification_results.map((r: any) => r.reward)).toEqual(rollout.judge_diagnostics.message_verification_results.map((r: any) => r.reward));
      expect(stripResponses(verified.result.trajectory.agent_verification_result)).toEqual(stripResponses(rollout.result.trajectory.agent_verification_result));
      matched++;
    }
    expect(matched).toBe(ROLLOUTS.length);
    expect(ROLLOUTS.map((r) => r.reward)).toEqual([1, 0, 0, 1, 0]);

    // /aggregate_metrics: NeMo Gym's rates over the rollouts, and its key metrics.
    const aggregated = await instance.request("/aggregate_metrics", { verify_responses: verifiedAll });
    expect(aggregated.status).toBe(200);
    expect(aggregated.body.key_metrics).toEqual({
      "mean/reward": 0.4,
      "conversational_tool_use/transfer_rate": 0,
      "conversational_tool_use/transfer_ground_truth_mismatch_rate": 0,
      "conversational_tool_use/transfer_mismatch_judge_skip_rate": 0,
      "conversational_tool_use/tool_schema_failure_rate": 0,
      "conversational_tool_use/user_failure_rate": 0.2,
      "conversational_tool_use/agent_failure_rate": 0.2,
      "conversational_tool_use/tool_failure_rate": 0.2,
    });
  });
});

/** An agent verification result without the judge's stored responses (the trimmed fixture has none). */
function stripResponses(value: Record<string, any> | null): Record<string, any> | null {
  if (!value?.conversation_verification_result) return value;
  const { responses: _responses, ...rest } = value.conversation_verification_result;
  return { ...value, conversation_verification_result: rest };
}

describe("prompts", () => {
  it("are NeMo Gym's, byte for byte, for every example row (digests from its own classes and templates)", () => {
    const rows = [...ROWS.map((row) => ["example.jsonl", row] as const), ...PARALLEL_ROWS.map((row) => ["example_parallel_tool_calls.jsonl", row] as const)];
    expect(digests).toHaveLength(rows.length);
    const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
    for (const [index, [file, row]] of rows.entries()) {
      const sessions = new Map<string, SessionState>();
      seedSession(row, { config: environment.configSchema.parse({}) as Config, sessionId: "s", sessions, urlOf: () => "" });
      const state = sessions.get("s")!;
      const prompts = {
        user_simulator: userSimulatorMessages(state)[0]!.content,
        tool_simulator: toolSimulatorSystem(state),
        judge_user: systemMessage(state, "user"),
        judge_agent: systemMessage(state, "agent"),
        judge_environment: systemMessage(state, "environment"),
        judge_conversation: systemMessage(state, "conversation"),
        judge_combined: combinedSystemMessage(state),
      };
      const expected = digests[index]!;
      expect([expected.file, expected.id]).toEqual([file, row.id]);
      expect(Object.fromEntries(Object.entries(prompts).map(([k, v]) => [k, v.length]))).toEqual(expected.chars);
      expect(Object.fromEntries(Object.entries(prompts).map(([k, v]) => [k, sha(v)]))).toEqual(expected.sha256);
    }
  });
});

describe("judge steps and simulator inputs on NeMo Gym's recorded trajectories", () => {
  it("match, byte for byte, what NeMo Gym's own methods build from the same trajectories (digests)", () => {
    const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
    const dump = (messages: Array<{ role: string; content: string }>) => sha(messages.map((m) => `${m.role}\u0001${m.content}`).join("\u0000"));
    expect(trajectoryDigests).toHaveLength(ROLLOUTS.length);
    for (const [index, rollout] of ROLLOUTS.entries()) {
      const expected = trajectoryDigests[index]!;
      expect(expected.id).toBe(rollout.id);
      const sessions = new Map<string, SessionState>();
      seedSession(ROWS.find((row) => row.id === rollout.id)!, { config: environment.configSchema.parse({}) as Config, sessionId: "s", sessions, urlOf: () => "" });
      const state = sessions.get("s")!;
      const messages: ConversationMessage[] = (rollout.result.trajectory.messages as Array<Record<string, any>>).map((m) => ({
        type: m.type,
        source: m.source,
        content: m.type === "text" ? m.text : m.execution_result,
        tool_call_id: m.tool_call_id ?? null,
        tool_name: m.tool_name ?? null,
        arguments: m.arguments ?? null,
      }));
      const steps = messages.map((message, i) => sha(fill(MESSAGE_JUDGE_USER, { previous_steps: stepsText(messages.slice(0, i)), current_step: stepText(message) })));
      expect(steps).toEqual(expected.judge_steps);
      expect(sha(fill(CONVERSATION_JUDGE_USER, { steps: stepsText(messages) }))).toBe(expected.judge_conversation);
      const users: string[] = [];
      const tools: string[] = [];
      for (const [i, message] of messages.entries()) {
        const before = { ...state, messages: messages.slice(0, i) };
        if (message.source === "user") users.push(dump(userSimulatorMessages(before)));
        if (message.type === "tool_execution") tools.push(dump(toolSimulatorMessagesForPending(before, messages.slice(0, i).find((c) => c.type === "tool_call" && c.tool_call_id === message.tool_call_id)!)));
      }
      expect(users).toEqual(expected.user_simulator_inputs);
      expect(tools).toEqual(expected.tool_simulator_inputs);
    }
  });
});
