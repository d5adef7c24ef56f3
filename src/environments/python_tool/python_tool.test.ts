// python_tool: the sandboxed run_python tool (stateful per rollout), \boxed{} scoring, and a whole
// multi-turn rollout through simple_agent with only the engine faked.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import simpleAgent from "../../agents/simple_agent.js";
import pythonTool from "./index.js";
import { lastBoxed, scoreAnswer } from "./answer.js";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { CookieJar } from "../../http/cookies.js";
import { sharedSandbox } from "../../sandbox/shared.js";
import { processesOfUid } from "../../sandbox/uids.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";

const rows = readFileSync(new URL("./data/example.jsonl", import.meta.url), "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as Record<string, any>);

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(pythonTool, { config: { timeout_secs: 2, max_output_characters: 200 } });
});
afterAll(async () => {
  await env?.close();
});

describe("the \\boxed{} answer", () => {
  it("is the last box, braces balanced", () => {
    expect(lastBoxed("first \\boxed{1}, finally \\boxed{\\frac{1}{2}}.")).toBe("\\frac{1}{2}");
    expect(lastBoxed("so \\boxed 42 it is")).toBe("42");
    expect(lastBoxed("\\fbox{7}")).toBe("7");
    expect(lastBoxed("no box")).toBeNull();
    expect(lastBoxed("\\boxed{unclosed")).toBeNull();
  });

  it("is scored by the math verifier", async () => {
    expect(await scoreAnswer(" 405 ", "405")).toBe(1);
    expect(await scoreAnswer("405.0", "405")).toBe(1);
    expect(await scoreAnswer("\\frac{1}{2}", "0.5")).toBe(1);
    expect(await scoreAnswer("404", "405")).toBe(0);
    expect(await scoreAnswer(null, "405")).toBe(0);
  });
});

describe("run_python", () => {
  it("keeps state within a rollout, not across rollouts", async () => {
    const rolloutA = new CookieJar();
    const rolloutB = new CookieJar();
    const first = await env.request("/run_python", { code: "import math\nx = math.factorial(5)\nx" }, rolloutA);
    expect(first.body).toEqual({ process_status: "completed", stdout: "120\n", stderr: "" });
    const second = await env.request("/run_python", { code: "print(x + 1)" }, rolloutA);
    expect(second.body.stdout).toBe("121\n");
    const other = await env.request("/run_python", { code: "x" }, rolloutB);
    expect(other.body.process_status).toBe("error");
    expect(other.body.stderr).toContain("NameError");
  });

  it("reports timeouts and cuts long output", async () => {
    const jar = new CookieJar();
    const slow = await env.request("/run_python", { code: "while True: pass" }, jar);
    expect(slow.body).toMatchObject({ process_status: "timeout" });
    const long = await env.request("/run_python", { code: "print('z' * 1000)" }, jar);
    expect(long.body.stdout).toBe(`${"z".repeat(200)}<output cut>`);
  });

  it("has no network", async () => {
    const result = await env.request("/run_python", { code: "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=3)\n    print('online')\nexcept OSError:\n    print('offline')" }, new CookieJar());
    expect(result.body.stdout).toBe("offline\n");
  });

  it("can run stateless: every call in a fresh interpreter", async () => {
    const stateless = await startInstance(pythonTool, { name: "python_tool_stateless", config: { stateful: false } });
    try {
      const jar = new CookieJar();
      await stateless.request("/run_python", { code: "y = 1" }, jar);
      expect((await stateless.request("/run_python", { code: "y" }, jar)).body.stderr).toContain("NameError");
    } finally {
      await stateless.close();
    }
  });
});

describe("/verify", () => {
  it("scores the final boxed answer and ends the rollout's interpreter", async () => {
    const jar = new CookieJar();
    await env.request("/run_python", { code: "kept = 1" }, jar);
    const row = rows[4]!;
    const right = await env.request("/verify", { ...row, response: responseWith([assistantMessage("The answer is \\boxed{405}.")]) }, jar);
    expect(right.body).toMatchObject({ reward: 1.0, extracted_answer: "405", expected_answer: "405" });
    expect((await env.request("/run_python", { code: "kept" }, jar)).body.stderr).toContain("NameError");
    const wrong = await env.request("/verify", { ...row, response: responseWith([assistantMessage("\\boxed{404}")]) });
    expect(wrong.body).toMatchObject({ reward: 0.0, extracted_answer: "404" });
    const none = await env.request("/verify", { ...row, response: responseWith([assistantMessage("I am not sure.")]) });
    expect(none.body).toMatchObject({ reward: 0.0, extracted_answer: null });
    const missing = await env.request("/verify", { responses_create_params: { input: "x" }, response: responseWith([]) });
    expect(missing.status).toBe(422);
  });

  it("ships example rows whose tool matches the environment's", () => {
    for (const row of rows) {
      expect(row.responses_create_params.tools).toEqual(pythonTool.toolSpecs());
      expect(typeof row.expected_answer).toBe("string");
    }
  });
});

describe("a whole rollout through simple_agent", () => {
  let engine: FakeEngine;
  let agent: RunningInstance;
  beforeAll(async () => {
    // The fake model computes with the tool over two calls (the second relies on the first's state),
    // then boxes what the tool printed.
    engine = await startFakeEngine({
      policy: (turns: Turn[]) => {
        const toolTurns = turns.filter((t) => t.role === "tool");
        if (toolTurns.length === 0) {
          return { toolCalls: [{ name: "run_python", arguments: { code: "def zeros(n):\n    c = 0\n    while n:\n        n //= 5\n        c += n\n    return c" } }] };
        }
        if (toolTurns.length === 1) return { toolCalls: [{ name: "run_python", arguments: { code: "n = 1\nwhile zeros(n) < 100:\n    n += 1\nn" } }] };
        const printed = JSON.parse(toolTurns[1]!.content).stdout.trim();
        return { text: `So the answer is \\boxed{${printed}}.` };
      },
    });
    agent = await startInstance(simpleAgent, {
      name: "python_tool_simple_agent",
      config: { resources_server: { type: "resources_servers", name: "python_tool" }, model_server: { type: "responses_api_models", name: "policy_model" } },
      servers: { python_tool: env.url, policy_model: engine.url },
    });
  });
  afterAll(async () => {
    await agent?.close();
    await engine?.close();
  });

  it("calls the tool twice, keeps state between the calls, and earns the reward", async () => {
    const sandbox = await sharedSandbox();
    // Rollouts of earlier tests that never reached /verify keep their interpreters until idle expiry.
    const live = () => sandbox.uids.flatMap((uid) => processesOfUid(uid)).sort();
    const before = live();
    const result = await agent.request("/run", rows[4]);
    expect(result.status).toBe(200);
    expect(result.body.reward).toBe(1.0);
    expect(result.body.extracted_answer).toBe("405");
    const outputs = (result.body.response.output as Array<Record<string, any>>).filter((item) => item.type === "function_call_output");
    expect(outputs.map((o) => JSON.parse(o.output).process_status)).toEqual(["completed", "completed"]);
    // /verify ended this rollout's interpreter: nothing new is left running.
    expect(live()).toEqual(before);
  });
});

describe("data/example_rollouts.jsonl", () => {
  it("every line re-verifies to the reward it records (scoring reads only the final answer, not the sandbox)", async () => {
    const rollouts = readFileSync(new URL("./data/example_rollouts.jsonl", import.meta.url), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, any>);
    expect(rollouts.map((r) => r.reward)).toContain(0);
    for (const { reward, ...request } of rollouts) {
      const result = await env.request("/verify", request);
      expect(result.status).toBe(200);
      expect(result.body.reward, `task ${request._ng_task_index}`).toBe(reward);
    }
  });
});
