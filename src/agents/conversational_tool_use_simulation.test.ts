// conversational_tool_use/simulation over HTTP against the real conversational_tool_use_simulation
// environment, on NeMo Gym's example rows. One engine double plays all four models, told apart by
// their system prompts: the policy (a customer-service agent), the user simulator (a customer), the
// tool-result simulator and the judge. Between the agent and the environment, in one test, sits a
// plain HTTP relay that drops one connection, as a network would. Last, NeMo Gym's five recorded
// rollouts are replayed (each model answering what it answered in NeMo Gym's run) and the agent's
// transcript must be NeMo Gym's, item for item.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type Action, type FakeEngine, type Turn } from "../../test/doubles/fake_engine.js";
import { startInstance, type RunningInstance } from "../environment_kit/testing.js";
import { resolveConfig } from "../config/index.js";
import { closeDispatcher } from "../http/client.js";
import * as registry from "../orchestrate/registry.js";
import ctusEnvironment from "../environments/conversational_tool_use_simulation/index.js";
import agentImplementation from "./conversational_tool_use_simulation.js";

const DATA = new URL("../environments/conversational_tool_use_simulation/data/example.jsonl", import.meta.url);
const ROWS: Array<Record<string, any>> = readFileSync(DATA, "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line));
const ENV = "conversational_tool_use_simulation";

/** A value that a JSON schema accepts (the engine's stand-in for a model that fills arguments and results in). */
function sample(schema: any): unknown {
  if (!schema || typeof schema !== "object") return "x";
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return true;
  if (type === "array") return [];
  if (type === "object" || schema.properties) {
    const out: Record<string, unknown> = {};
    for (const key of schema.required ?? []) out[key] = sample(schema.properties?.[key]);
    return out;
  }
  return "x";
}

/** What the policy does in a scenario: `plan(turns)` after the user's opening turn. */
type PolicyPlan = (turns: Turn[], row: Record<string, any>) => Action;

/** Calls the row's first tool once, then answers in text. */
const callThenAnswer: PolicyPlan = (turns, row) => {
  if (!turns.some((t) => t.role === "tool")) {
    const tool = row.tools[0];
    return { reasoning: "Look it up first.", toolCalls: [{ name: tool.name, arguments: sample(tool.params ?? tool.parameters) as Record<string, unknown> }] };
  }
  return { text: "All done: your request is handled." };
};

let engine: FakeEngine;
let environment: RunningInstance;
const started: RunningInstance[] = [];
/** What the policy does in the test that runs now (the example rows share one domain's policy). */
let plan: PolicyPlan = callThenAnswer;

function roleOf(turns: Turn[]): "policy" | "user" | "tool" | "judge" {
  const system = turns.find((t) => t.role === "system")?.content ?? "";
  if (system.startsWith("You are a customer service agent")) return "policy";
  if (system.includes("You are playing the role of a customer")) return "user";
  if (system.includes("Your task is to generate the result of executing a tool")) return "tool";
  return "judge";
}

function rowOfPolicyPrompt(system: string): Record<string, any> {
  return ROWS.find((row) => system.includes(row.policy))!;
}

beforeAll(async () => {
  engine = await startFakeEngine({
    model: "fake",
    policy: (turns) => {
      const role = roleOf(turns);
      if (role === "policy") {
        const system = turns[0]!.content;
        const row = rowOfPolicyPrompt(system);
        return plan(turns, row);
      }
      if (role === "user") {
        // The customer opens, and ends once the representative has answered in text.
        const answered = turns.some((t) => t.role === "user" && t.content.startsWith("Representative:"));
        return { text: answered ? "###STOP###" : "Customer: Hello, I need help with my booking." };
      }
      if (role === "tool") {
        const name = /Tool to execute: (\S+)/.exec(turns.at(-1)!.content)?.[1];
        const system = turns[0]!.content;
        const row = ROWS.find((r) => system.includes(r.policy))!;
        const tool = row.tools.find((t: any) => t.name === name);
        return { text: JSON.stringify(sample(tool?.returns ?? { type: "object" })) };
      }
      return { text: JSON.stringify({ success: true, explanation: "Consistent with the scenario and the policy." }) };
    },
  });
  const simulator = { type: "responses_api_models", name: "simulator_model" };
  environment = await startInstance(ctusEnvironment, {
    name: ENV,
    config: {
      simulator_model_server: simulator,
      user_model_server: simulator,
      tool_simulator_model_server: simulator,
      judge_model_server: simulator,
      judge_provider_retry_initial_backoff_seconds: 0,
      judge_provider_retry_max_backoff_seconds: 0,
    },
    servers: { simulator_model: engine.url },
  });
});

afterAll(async () => {
  await Promise.all([...started, environment].map((instance) => instance.close()));
  await engine.close();
  await closeDispatcher();
});

async function agent(config: Record<string, unknown> = {}, envUrl = environment.url, policyUrl = engine.url): Promise<RunningInstance> {
  const instance = await startInstance(agentImplementation, {
    name: "conversational_tool_use_agent",
    config: { resources_server: { type: "resources_servers", name: ENV }, model_server: { type: "responses_api_models", name: "policy_model" }, ...config },
    servers: { [ENV]: envUrl, policy_model: policyUrl },
  });
  started.push(instance);
  return instance;
}

/** The engine requests a rollout made, by role. */
function requestsSince(index: number) {
  const made = engine.requests.slice(index);
  const by = (role: string) => made.filter((r) => roleOf(turnsOf(r.body)) === role);
  return { policy: by("policy"), user: by("user"), tool: by("tool"), judge: by("judge") };
}

/** A request's messages and tool outputs, as the engine reads them (it counts their words as input tokens). */
function turnsOf(body: Record<string, any>): Turn[] {
  const input = Array.isArray(body.input) ? body.input : [];
  const text = (content: any) => (typeof content === "string" ? content : (content ?? []).map((p: any) => p.text ?? "").join(""));
  return input.flatMap((item: any): Turn[] => {
    const type = item.type ?? "message";
    if (type === "message") return [{ role: item.role, content: text(item.content) }];
    if (type === "function_call_output") return [{ role: "tool", content: text(item.output) }];
    return [];
  });
}

const row = (index: number, extra: Record<string, unknown> = {}): Record<string, any> => ({ ...structuredClone(ROWS[index]!), _ng_task_index: index, _ng_rollout_index: 0, ...extra });

describe("conversational_tool_use/simulation against the environment", () => {
  it("NeMo Gym's agent config loads under its slash id, and a command-line override reaches it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ctus-config-"));
    try {
      const envConfig = join(dir, "env.yaml");
      writeFileSync(envConfig, `${ENV}:\n  resources_servers:\n    ${ENV}: {}\n`);
      const fixture = new URL("../../test/fixtures/nemo_gym/responses_api_agents/conversational_tool_use/simulation/configs/conversational_tool_use_simulation.yaml", import.meta.url);
      const { instances } = await resolveConfig({
        cwd: dir,
        env: {},
        registry,
        configPaths: [fixture.pathname, envConfig, registry.modelConfigPath("vllm_model")],
        overrides: ["+policy_base_url=http://127.0.0.1:9/v1", "+policy_api_key=k", "+policy_model_name=m", "++conversational_tool_use_agent.responses_api_agents.conversational_tool_use/simulation.max_agent_steps=7"],
      });
      const agentInstance = instances.find((i) => i.name === "conversational_tool_use_agent")!;
      expect(agentInstance.implementation).toBe("conversational_tool_use/simulation");
      expect(agentInstance.fields).toMatchObject({ resources_server: { name: ENV }, model_server: { name: "policy_model" }, max_agent_steps: 7, seed_first_user_message: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs a conversation: the user opens, a tool call is simulated, the user ends, and the judge scores it", async () => {
    const runner = await agent();
    const before = engine.requests.length;
    const reply = await runner.request("/run", row(0));
    expect(reply.status, reply.text).toBe(200);
    const body = reply.body;
    expect(body.reward).toBe(1);
    expect(body.terminal_state).toBe("complete");
    expect(body.failure_labels).toEqual([]);
    // The user's opening turn is input; the output starts with the policy and ends with its answer
    // (the user's stop is not the policy's context).
    const input = body.responses_create_params.input;
    expect(input.map((i: any) => i.role)).toEqual(["system", "user"]);
    expect(input[1].content).toBe("Hello, I need help with my booking.");
    expect(body.response.output.map((o: any) => o.type)).toEqual(["reasoning", "function_call", "function_call_output", "message"]);
    expect(body.response.output[2].call_id).toBe(body.response.output[1].call_id);

    const calls = requestsSince(before);
    expect(calls.policy).toHaveLength(2);
    expect(calls.user).toHaveLength(2);
    expect(calls.tool).toHaveLength(1);
    expect(calls.judge.length).toBeGreaterThan(0);
    // The policy's calls carry the rollout; its second call saw the simulated tool result.
    expect(calls.policy.every((r) => r.headers["x-gymkit-rollout"] === "0:0")).toBe(true);
    const secondInput = calls.policy[1]!.body.input as any[];
    expect(secondInput.at(-1)).toMatchObject({ type: "function_call_output", output: body.response.output[2].output });
    expect(secondInput.at(-1)).not.toHaveProperty("id");

    // Usage: the policy's two responses summed in response.usage; every role apart in usage_by_role.
    const tokens = (requests: typeof calls.policy) => requests.reduce((sum, r) => sum + turnsOf(r.body).map((t) => t.content).join(" ").trim().split(/\s+/).length, 0);
    expect(body.response.usage.input_tokens).toBe(tokens(calls.policy));
    expect(body.usage_by_role.policy).toEqual(body.response.usage);
    expect(body.usage_by_role.user.input_tokens).toBeGreaterThan(0);
    expect(body.usage_by_role.tool_simulator.input_tokens).toBeGreaterThan(0);
    expect(body.usage_by_role.judge.input_tokens).toBeGreaterThan(0);
    expect(body.usage_by_role.user.input_tokens).not.toBe(body.usage_by_role.policy.input_tokens);
  });

  it("stops at max_agent_steps: a last response with a tool call is recorded as the step limit, the tool never run", async () => {
    const runner = await agent({ max_agent_steps: 1 });
    const before = engine.requests.length;
    const reply = await runner.request("/run", row(1));
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.terminal_state).toBe("incomplete");
    expect(reply.body.trajectory_invalid_reasons).toContain("excessive_length");
    expect(reply.body.response.output.map((o: any) => o.type)).toEqual(["reasoning", "function_call"]);
    const calls = requestsSince(before);
    expect(calls.policy).toHaveLength(1);
    expect(calls.tool).toHaveLength(0);
  });

  it("on the last step a text answer still gets the user's reply, so the user can end the conversation", async () => {
    plan = () => ({ text: "Here is what I can tell you." });
    const runner = await agent({ max_agent_steps: 1 });
    const reply = await runner.request("/run", row(1)).finally(() => (plan = callThenAnswer));
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ reward: 1, terminal_state: "complete", trajectory_invalid_reasons: [] });
  });

  it("resumes a prefilled history at its unanswered tool call: the environment answers it before the policy speaks", async () => {
    const prefilled = row(0);
    const tool = prefilled.tools[0];
    const pending = { type: "function_call", call_id: "call_prefilled", name: tool.name, arguments: JSON.stringify(sample(tool.params)) };
    prefilled.responses_create_params.input.push({ role: "user", content: "Please check my account.", type: "message" }, pending);
    const runner = await agent();
    const before = engine.requests.length;
    const reply = await runner.request("/run", prefilled);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.terminal_state).toBe("complete");
    const calls = requestsSince(before);
    // No opening turn from the user (the row has one); the tool simulator ran before the first policy call.
    expect(calls.user).toHaveLength(1);
    expect(calls.tool).toHaveLength(1);
    expect(engine.requests.indexOf(calls.tool[0]!)).toBeLessThan(engine.requests.indexOf(calls.policy[0]!));
    // The prefilled call's result leads the transcript, so it is input, not the policy's output.
    const input = reply.body.responses_create_params.input;
    expect(input.at(-1)).toMatchObject({ type: "function_call_output", call_id: "call_prefilled" });
    expect(reply.body.response.output.map((o: any) => o.type)).toEqual(["message"]);
  });

  it("a call to a tool the scenario does not have ends the conversation as the policy's failure, with no simulated result", async () => {
    plan = () => ({ toolCalls: [{ name: "no_such_tool", arguments: {} }] });
    const runner = await agent();
    const before = engine.requests.length;
    const reply = await runner.request("/run", row(2)).finally(() => (plan = callThenAnswer));
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.reward).toBe(0);
    expect(reply.body.trajectory_invalid_reasons).toContain("invalid_agent_tool_call");
    expect(reply.body.failure_labels).toContain("agent_failure");
    expect(reply.body.response.output.map((o: any) => o.type)).toEqual(["function_call"]);
    expect(requestsSince(before).tool).toHaveLength(0);
  });

  it("refuses a row whose materialised prompt is not its policy's, before seeding anything", async () => {
    const runner = await agent();
    const bad = row(3);
    bad.policy = `${bad.policy} (edited)`;
    const before = engine.requests.length;
    const reply = await runner.request("/run", bad);
    expect(reply.status).toBe(400);
    expect(reply.body.detail).toBe("responses_create_params policy prompt does not match the top-level policy.");
    expect(engine.requests.length).toBe(before);
    const missing = await runner.request("/run", { responses_create_params: { input: [] } });
    expect(missing.status).toBe(422);
    expect(missing.text).toMatch(/policy/);
  });

  it("a policy model answering 503 is a transient failure at the rollout stage, naming the model server", async () => {
    const down = await startFakeEngine({ respond: () => ({ status: 503, body: { error: { message: "overloaded" } } }) });
    try {
      const instance = await startInstance(agentImplementation, {
        name: "conversational_tool_use_agent",
        config: { resources_server: { type: "resources_servers", name: ENV }, model_server: { type: "responses_api_models", name: "policy_model" } },
        servers: { [ENV]: environment.url, policy_model: down.url },
      });
      started.push(instance);
      const reply = await instance.request("/run", row(3));
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toMatchObject({ _ng_failure_class: "transient", error_stage: "rollout", reward: 0 });
      expect(reply.body.error_message).toMatch(/^rollout failed: UpstreamError: model server "policy_model" answered 503/);
      expect(down.requests).toHaveLength(1);
    } finally {
      await down.close();
    }
  });

  it("an environment connection that drops mid-run is a transient failure, and the session is discarded", async () => {
    const relay = await startRelay(environment.url, "/execute_agent_tool_call");
    try {
      const runner = await agent({}, relay.url);
      const reply = await runner.request("/run", row(4));
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toMatchObject({ _ng_failure_class: "transient", error_class: "transient", error_stage: "rollout", reward: 0, instance_config: { mask_sample: true } });
      expect(reply.body.error_message).toMatch(/^rollout failed: UpstreamError: environment "conversational_tool_use_simulation": could not reach .*\/execute_agent_tool_call/);
      expect(reply.body.response.output[0].content[0].text).toBe(`Failed: ${reply.body.error_message}`);
      // After the drop: no /verify, and the environment forgot the session.
      const after = relay.seen.slice(relay.seen.findIndex((s) => s.path === "/execute_agent_tool_call"));
      expect(after.map((s) => s.path)).toEqual(["/execute_agent_tool_call", "/discard_session"]);
      expect(JSON.parse(after[1]!.reply)).toEqual({ discarded: true });
    } finally {
      await relay.close();
    }
  });
});

describe("NeMo Gym's recorded conversations", () => {
  const recorded: Array<Record<string, any>> = readFileSync(new URL("../environments/conversational_tool_use_simulation/data/example_rollouts.jsonl", import.meta.url), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

  /** An item as the comparison sees it: what the model or the environment said, not the ids or dump defaults. */
  const gist = (item: any) => ({
    type: item.type ?? "message",
    role: item.role,
    call_id: item.call_id,
    name: item.name,
    arguments: item.arguments,
    output: item.output,
    text: typeof item.content === "string" ? item.content : item.content?.map((part: any) => part.text).join(""),
  });

  it("replay through the agent to NeMo Gym's transcripts, item for item (5 of 5)", async () => {
    // The models answer what they answered in NeMo Gym's run: the policy its recorded responses, the
    // user simulator and the tool simulator their recorded turns, in order; the judge approves.
    let script: { policy: any[][]; user: string[]; tool: string[] } = { policy: [], user: [], tool: [] };
    const textReply = (path: string, text: string) =>
      path.endsWith("/chat/completions")
        ? { id: "c", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: text } }] }
        : { id: "r", object: "response", created_at: 0, model: "m", status: "completed", output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }] };
    const replay = await startFakeEngine({
      respond: (path, body: any) => {
        const messages = body.messages ?? body.input;
        const role = roleOf([{ role: "system", content: typeof messages[0]?.content === "string" ? messages[0].content : "" }]);
        if (role === "policy") return { status: 200, body: { id: "resp_replay", object: "response", created_at: 0, model: "m", status: "completed", output: script.policy.shift() } };
        if (role === "user") return { status: 200, body: textReply(path, script.user.shift()!) };
        if (role === "tool") return { status: 200, body: textReply(path, script.tool.shift()!) };
        return { status: 200, body: textReply(path, JSON.stringify({ success: true, explanation: "ok" })) };
      },
    });
    const simulator = { type: "responses_api_models", name: "simulator_model" };
    const env = await startInstance(ctusEnvironment, {
      name: ENV,
      config: { simulator_model_server: simulator, user_model_server: simulator, tool_simulator_model_server: simulator, judge_model_server: simulator },
      servers: { simulator_model: replay.url },
    });
    try {
      const runner = await agent({}, env.url, replay.url);
      const matched: string[] = [];
      for (const rollout of recorded) {
        // The policy's turns: the recorded output cut before each tool result and user message.
        const policy: any[][] = [[]];
        for (const item of rollout.response.output) {
          if (item.type === "function_call_output" || item.role === "user") {
            if (policy.at(-1)!.length > 0) policy.push([]);
          } else policy.at(-1)!.push(item);
        }
        const messages = rollout.result.trajectory.messages;
        script = {
          policy: policy.filter((turn) => turn.length > 0),
          user: messages.filter((m: any) => m.type === "text" && m.source === "user").map((m: any) => m.text ?? m.content),
          tool: rollout.response.output.filter((item: any) => item.type === "function_call_output").map((item: any) => item.output),
        };
        const source = ROWS.find((r) => r.id === rollout.id)!;
        const reply = await runner.request("/run", { ...structuredClone(source), _ng_task_index: rollout._ng_task_index, _ng_rollout_index: 0 });
        expect(reply.status, reply.text).toBe(200);
        expect(reply.body.responses_create_params.input.map(gist)).toEqual(rollout.responses_create_params.input.map(gist));
        expect(reply.body.response.output.map(gist)).toEqual(rollout.response.output.map(gist));
        expect(reply.body.terminal_state).toBe(rollout.terminal_state);
        // Every scripted turn was asked for, no more.
        expect(script).toEqual({ policy: [], user: [], tool: [] });
        matched.push(rollout.id);
      }
      expect(matched).toHaveLength(5);
    } finally {
      await env.close();
      await replay.close();
    }
  });
});

/** An HTTP relay to `target` that destroys the connection of the first request for `dropPath`. */
async function startRelay(target: string, dropPath: string) {
  const seen: Array<{ path: string; reply: string }> = [];
  let dropped = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      if (path === dropPath && !dropped) {
        dropped = true;
        seen.push({ path, reply: "" });
        req.socket.destroy();
        return;
      }
      const forward = http.request(`${target}${path}`, { method: req.method, headers: req.headers }, (upstream) => {
        const parts: Buffer[] = [];
        upstream.on("data", (c: Buffer) => parts.push(c));
        upstream.on("end", () => {
          const text = Buffer.concat(parts).toString("utf8");
          seen.push({ path, reply: text });
          res.writeHead(upstream.statusCode ?? 502, upstream.headers);
          res.end(text);
        });
      });
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
