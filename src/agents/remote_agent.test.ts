// remote_agent over HTTP. The "user's agent service" is a small HTTP server written here (the
// external party remote_agent talks to); the environments are Gymkit's own
// (example_session_state_mgmt's per-session counter, example_single_tool_call's get_weather), real
// servers on 127.0.0.1. Covered: the tool round trip on one session, paired records passed through,
// the service's cookies, usage summed and token fields kept, a missing tool and bad arguments fed
// back, max_steps, both deadlines, the concurrency bound, every malformed reply and a service that is
// down as NeMo Gym's failure rows, config checks, and NeMo Gym's remote_agent.yaml run unchanged by
// `gym eval run`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInstance, type RunningInstance } from "../environment_kit/testing.js";
import { closeDispatcher } from "../http/client.js";
import { CookieJar } from "../http/cookies.js";
import { validateConfig } from "../config/validate.js";
import { ConfigError } from "../config/errors.js";
import { builtinIds, loadImplementation } from "../orchestrate/registry.js";
import counterEnvironment from "../environments/example_session_state_mgmt/index.js";
import weatherEnvironment from "../environments/example_single_tool_call/index.js";
import { readJsonlFile, REPO_ROOT, runGym } from "../../test/helpers/cli.js";
import remoteAgent, { RemoteAgentConfig, unpairedCalls } from "./remote_agent.js";

type Json = Record<string, any>;

const usage = (n: number) => ({ input_tokens: 10 * n, output_tokens: n, total_tokens: 11 * n, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
const message = (text: string, extra: Json = {}) => ({ type: "message", role: "assistant", status: "completed", id: "msg_1", content: [{ type: "output_text", text, annotations: [] }], ...extra });
const call = (callId: string, name: string, args: string) => ({ type: "function_call", call_id: callId, name, arguments: args, id: `fc_${callId}` });
const callOutput = (callId: string, output: string) => ({ type: "function_call_output", call_id: callId, output });
const reply = (output: Json[], extra: Json = {}) => ({ id: "svc", created_at: 1.0, model: "their-model", object: "response", output, parallel_tool_calls: false, tools: [], tool_choice: "auto", usage: usage(1), ...extra });

interface Received {
  body: Json;
  cookie: string | undefined;
}

/** What the service does with one call: a JSON reply, or full control of the raw response. */
type Behaviour = (body: Json, received: Received[]) => Json | ((res: ServerResponse, req: IncomingMessage) => void);

/** The user's agent service: answers `POST /v1/responses` by `behaviour`, counting calls in flight. */
class AgentService {
  readonly received: Received[] = [];
  inFlight = 0;
  maxInFlight = 0;
  /** Requests whose connection closed before they were answered. */
  abandoned = 0;
  private onAbandoned: Array<() => void> = [];
  private server!: Server;
  url = "";

  constructor(private readonly behaviour: Behaviour) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let text = "";
      req.on("data", (chunk: Buffer) => (text += chunk.toString()));
      req.on("end", () => {
        const body = JSON.parse(text) as Json;
        const received = { body, cookie: req.headers.cookie };
        this.received.push(received);
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        res.on("close", () => {
          this.inFlight--;
          if (!res.writableFinished) {
            this.abandoned++;
            for (const notify of this.onAbandoned.splice(0)) notify();
          }
        });
        const answer = this.behaviour(body, this.received);
        if (typeof answer === "function") answer(res, req);
        else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Resolves once some held request has been given up by its caller. */
  abandonedOnce(): Promise<void> {
    return this.abandoned > 0 ? Promise.resolve() : new Promise((resolve) => this.onAbandoned.push(resolve));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The text of the last user message of a request. */
function prompt(body: Json): string {
  const input = body.input as Json[];
  const user = input.findLast((item) => item.role === "user");
  return typeof user?.content === "string" ? user.content : "";
}

const toolOutputs = (body: Json) => (body.input as Json[]).filter((item) => item.type === "function_call_output");

// A brain for the counter tasks ("add 1 then add 2 then get the count"): ask for both increments
// (beside a record of its own internal tool, already answered), then for the count, then answer it.
const counterBrain: Behaviour = (body) => {
  const outputs = toolOutputs(body);
  const adds = [...prompt(body).matchAll(/add (\d+)/g)].map((m) => Number(m[1]));
  if (outputs.length === 0) {
    return {
      ...reply([
        call("own_1", "web_search", '{"q": "counters"}'),
        callOutput("own_1", '{"results": []}'),
        ...adds.map((n, i) => call(`add_${i}`, "increment_counter", JSON.stringify({ count: n }))),
      ]),
      __cookie: true,
    };
  }
  if (!outputs.some((o) => o.call_id === "count")) return reply([call("count", "get_counter_value", "{}")]);
  const count = JSON.parse(outputs.find((o) => o.call_id === "count")!.output).count;
  return reply([message(`final count is ${count}`, { generation_token_ids: [7, 8, 9], prompt_token_ids: [1, 2] })], { usage: usage(5) });
};

/** The counter brain, setting a cookie on its first reply (its per-rollout state). */
const statefulCounterBrain: Behaviour = (body, received) => {
  const answer = counterBrain(body, received) as Json;
  if (!answer.__cookie) return answer;
  delete answer.__cookie;
  return (res) => res.writeHead(200, { "content-type": "application/json", "set-cookie": "svc_session=s-42; Path=/" }).end(JSON.stringify(answer));
};

const COUNTER_ROW = JSON.parse(readFileSync(new URL("../environments/example_session_state_mgmt/data/example.jsonl", import.meta.url), "utf8").split("\n")[0]!) as Json;
const WEATHER_ROW = JSON.parse(readFileSync(new URL("../environments/example_single_tool_call/data/example.jsonl", import.meta.url), "utf8").split("\n")[0]!) as Json;

let counter: RunningInstance;
let weather: RunningInstance;
const started: Array<{ close(): Promise<void> }> = [];

async function service(behaviour: Behaviour): Promise<AgentService> {
  const svc = await new AgentService(behaviour).start();
  started.push(svc);
  return svc;
}

async function agent(svc: AgentService | string, env: "counter" | "weather", fields: Json = {}): Promise<RunningInstance> {
  const instance = await startInstance(remoteAgent, {
    config: { agent_base_url: typeof svc === "string" ? svc : svc.url, resources_server: { type: "resources_servers", name: env }, ...fields },
    servers: { counter: counter.url, weather: weather.url },
  });
  started.push(instance);
  return instance;
}

beforeAll(async () => {
  counter = await startInstance(counterEnvironment, { name: "counter" });
  weather = await startInstance(weatherEnvironment, { name: "weather" });
});

afterAll(async () => {
  await Promise.all([...started, counter, weather].map((s) => s.close()));
  await closeDispatcher();
});

describe("the tool loop", () => {
  it("runs the service's unpaired calls on the rollout's session, passes paired records through, and verifies", async () => {
    const svc = await service(statefulCounterBrain);
    const run = await (await agent(svc, "counter")).request("/run", COUNTER_ROW);
    expect(run.status).toBe(200);
    // Reward 1 only if the seed, both increments and verify shared one session: 3 + 1 + 2 = 6.
    expect(run.body.reward).toBe(1);
    expect(run.body._ng_failure_class).toBeUndefined();
    const output = run.body.response.output as Json[];
    expect(output.map((item) => [item.type, item.name ?? item.call_id ?? item.role])).toEqual([
      ["function_call", "web_search"],
      ["function_call_output", "own_1"],
      ["function_call", "increment_counter"],
      ["function_call", "increment_counter"],
      ["function_call_output", "add_0"],
      ["function_call_output", "add_1"],
      ["function_call", "get_counter_value"],
      ["function_call_output", "count"],
      ["message", "assistant"],
    ]);
    expect(output[7]!.output).toBe('{"count":6}');
    expect(output.at(-1)!.content[0].text).toBe("final count is 6");
    // Token fields of the service's items are kept as given.
    expect(output.at(-1)).toMatchObject({ generation_token_ids: [7, 8, 9], prompt_token_ids: [1, 2] });
    // Usage summed over the three calls (1 + 1 + 5).
    expect(run.body.response.usage).toEqual(usage(7));

    // The service saw the row's create params only (never expected_count or the seed), the conversation
    // growing call by call, and its own cookie back from the second call on.
    expect(svc.received).toHaveLength(3);
    expect(svc.received[0]!.body).toEqual(COUNTER_ROW.responses_create_params);
    expect(JSON.stringify(svc.received.map((r) => r.body))).not.toContain("expected_count");
    expect(svc.received[1]!.body.input.slice(1).map((item: Json) => item.type)).toEqual(["function_call", "function_call_output", "function_call", "function_call", "function_call_output", "function_call_output"]);
    expect(svc.received.map((r) => r.cookie)).toEqual([undefined, "svc_session=s-42", "svc_session=s-42"]);
    expect(svc.received[2]!.body.tools).toEqual(COUNTER_ROW.responses_create_params.tools);
  });

  it("feeds a missing tool's error and unparsable arguments back to the service, and the rollout goes on", async () => {
    const svc = await service((body) => {
      const outputs = toolOutputs(body);
      if (outputs.length === 0) return reply([call("c1", "web_search", '{"q": "sf"}'), call("c2", "get_weather", "not json"), call("c3", "get_weather", '{"city": "SF"}')]);
      return reply([message("done")]);
    });
    const run = await (await agent(svc, "weather")).request("/run", WEATHER_ROW);
    expect(run.body).toMatchObject({ reward: 1 });
    const fedBack = toolOutputs(svc.received[1]!.body);
    expect(fedBack.map((o) => o.call_id)).toEqual(["c1", "c2", "c3"]);
    expect(fedBack[0]!.output).toContain("Not Found");
    expect(fedBack[0]!.output).toContain("/web_search");
    expect(fedBack[1]!.output).toMatch(/^\{"error": "Invalid tool call arguments: SyntaxError\(/);
    expect(JSON.parse(fedBack[2]!.output)).toEqual({ city: "SF", weather_description: "The weather in SF is cold." });
  });

  it("stops after max_steps calls, and a string input goes out as one user message", async () => {
    const svc = await service((_body, received) => reply([call(`c${received.length}`, "get_weather", '{"city": "SF"}')]));
    const run = await (await agent(svc, "weather", { max_steps: 2 })).request("/run", { responses_create_params: { input: "weather in sf?" } });
    expect(run.body).toMatchObject({ reward: 1 });
    expect(svc.received).toHaveLength(2);
    expect(svc.received[0]!.body.input).toEqual([{ role: "user", content: "weather in sf?" }]);
    expect(run.body.response.output.map((item: Json) => item.type)).toEqual(["function_call", "function_call_output", "function_call", "function_call_output"]);
  });

  it("strips a reused row's old results, so they neither reach the environment nor mark the new result", async () => {
    const svc = await service(() => reply([message("hi")], { usage: null }));
    const stale = { reward: 0.25, response: { stale: true }, error: "old", _ng_failure_class: "stale", _ng_failure_terminal: true, _ng_no_persist: true };
    const run = await (await agent(svc, "weather")).request("/run", { ...WEATHER_ROW, ...stale });
    expect(run.body.reward).toBe(1);
    for (const key of ["error", "_ng_failure_class", "_ng_failure_terminal", "_ng_no_persist"]) expect(run.body[key], key).toBeUndefined();
    // No usage reported by the service: none in the rollout.
    expect(run.body.response.usage).toBeNull();
  });

  it("`/v1/responses` runs the loop alone and hands the environment's session cookies back", async () => {
    const svc = await service(counterBrain);
    const remote = await agent(svc, "counter");
    // No seed: the counter starts from 0 on the session the environment opens during the loop, and
    // only that session's cookie, handed back, lets the caller verify it (1 + 2 = 3).
    const jar = new CookieJar();
    const loop = await remote.request("/v1/responses", COUNTER_ROW.responses_create_params, jar);
    expect(loop.status).toBe(200);
    expect(loop.body.output.at(-1).content[0].text).toBe("final count is 3");
    expect(Object.keys(jar.toJSON())).toContain("gymkit___counter");
    const verify = await counter.request("/verify", { ...COUNTER_ROW, expected_count: 3, response: loop.body }, jar);
    expect(verify.body.reward).toBe(1);
  });

  it("finds the unpaired calls of a reply", () => {
    const out = unpairedCalls([callOutput("a", "x"), call("a", "t", "{}"), call("b", "t", '{"n": 1}'), call("c", "t", "{}"), callOutput("c", "y"), call("b", "t", '{"n": 2}')]);
    expect(out.map((c) => [c.call_id, c.arguments])).toEqual([["b", '{"n": 2}']]);
  });
});

describe("failures, as NeMo Gym reports them", () => {
  it("a call that outlives remote_responses_timeout_secs fails the rollout once, naming the knob", async () => {
    const svc = await service(() => () => undefined); // never answers
    const run = await (await agent(svc, "weather", { remote_responses_timeout_secs: 0.3 })).request("/run", WEATHER_ROW);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ reward: 0, _ng_failure_class: "remote_agent_error" });
    expect(run.body.error).toContain("timed out after 0.3s (remote_responses_timeout_secs");
    expect(run.body._ng_failure_terminal).toBeUndefined();
    expect(run.text).toContain('"reward":0.0');
    // Not retried, and the row comes back with the failure.
    expect(svc.received).toHaveLength(1);
    expect(run.body.responses_create_params).toMatchObject(WEATHER_ROW.responses_create_params);
    // Dumped as NeMo Gym's model dumps the row: unset fields as their defaults.
    expect(run.body.responses_create_params).toMatchObject({ temperature: null, tool_choice: "auto", parallel_tool_calls: true });
    expect(run.body.response.output[0]).toMatchObject({ type: "message", role: "assistant" });
  });

  it("a rollout that outlives run_timeout_secs fails, and its call to the service is given up", async () => {
    const svc = await service(() => () => undefined);
    const run = await (await agent(svc, "weather", { run_timeout_secs: 0.3 })).request("/run", WEATHER_ROW);
    expect(run.body).toMatchObject({ reward: 0, _ng_failure_class: "remote_agent_error" });
    expect(run.body.error).toBe("/run exceeded run_timeout_secs=0.3s (seed + agent/tool loop + verify)");
    await svc.abandonedOnce();
    expect(svc.abandoned).toBe(1);
  });

  it("malformed replies: not a Responses object (final), not JSON, not an object, an HTTP error, a redirect", async () => {
    const cases: Array<[string, (res: ServerResponse) => void, RegExp, boolean]> = [
      ["shape", (res) => res.writeHead(200).end(JSON.stringify({ id: "x", object: "response" })), /^agent loop failed: remote service returned an invalid Responses API object: created_at: /, true],
      ["partial usage", (res) => res.writeHead(200).end(JSON.stringify(reply([message("hi")], { usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } }))), /invalid Responses API object: usage\.input_tokens_details/, true],
      ["not json", (res) => res.writeHead(200).end("<html>oops</html>"), /^agent loop failed: response is not valid JSON: /, false],
      ["list", (res) => res.writeHead(200).end("[1, 2]"), /^agent loop failed: expected a JSON object from \/v1\/responses, got list$/, false],
      ["500", (res) => res.writeHead(500).end("kaboom"), /^agent loop failed: HTTP 500: kaboom$/, false],
      ["redirect", (res) => res.writeHead(302, { location: "https://elsewhere.example/v1/responses" }).end(), /^agent loop failed: HTTP 302 \(redirect to https:\/\/elsewhere\.example\/v1\/responses; fix agent_base_url/, false],
    ];
    const svc = await service((body) => (res) => cases.find(([name]) => prompt(body) === name)![1](res));
    const remote = await agent(svc, "weather");
    for (const [name, , error, terminal] of cases) {
      const run = await remote.request("/run", { responses_create_params: { input: [{ role: "user", content: name }] } });
      expect(run.status, name).toBe(200);
      expect(run.body, name).toMatchObject({ reward: 0, _ng_failure_class: "remote_agent_error" });
      expect(run.body.error, name).toMatch(error);
      expect(run.body._ng_failure_terminal === true, name).toBe(terminal);
    }
    // Each was one call: nothing but connection failures is tried again.
    expect(svc.received).toHaveLength(cases.length);
  });

  it("a service that is down is tried three times, then the rollout fails asking whether it runs", async () => {
    const svc = await service(() => reply([]));
    const url = svc.url;
    await svc.close();
    const run = await (await agent(url, "weather")).request("/run", WEATHER_ROW);
    expect(run.body).toMatchObject({ reward: 0, _ng_failure_class: "remote_agent_error" });
    expect(run.body.error).toMatch(new RegExp(`^agent loop failed: could not reach the remote service after 3 tries \\(.*\\)\\. Is your service running at ${url}\\?$`));
  });

  it("a failed seed fails the rollout before the service is called; a failed turn midway fails it too", async () => {
    const svc = await service((body, received) => (received.length === 1 && prompt(body).startsWith("add") ? reply([call("c1", "increment_counter", '{"count": 1}')]) : (res: ServerResponse) => res.writeHead(503).end("died mid-rollout")));
    const remote = await agent(svc, "counter");
    const { initial_count: _seed, ...unseedable } = COUNTER_ROW;
    const seedless = await remote.request("/run", unseedable);
    expect(seedless.body).toMatchObject({ reward: 0, _ng_failure_class: "remote_agent_error" });
    expect(seedless.body.error).toMatch(/^\/seed_session on the resources server failed: UpstreamError: environment "counter" \/seed_session answered 422: .*initial_count/);
    expect(svc.received).toHaveLength(0);
    const midway = await remote.request("/run", COUNTER_ROW);
    expect(midway.body.error).toBe("agent loop failed: HTTP 503: died mid-rollout");
    expect(svc.received).toHaveLength(2);
  });

  it("counts run_timeout_secs from when a rollout gets its slot, not from when it arrived", async () => {
    // One slot. The first rollout's call is never answered, so it holds the slot until its deadline;
    // the second waits that long for the slot, then is answered at once.
    const svc = await service((body) => (prompt(body) === "hold" ? () => undefined : reply([message("ok")])));
    const remote = await agent(svc, "weather", { concurrency: 1, run_timeout_secs: 1 });
    const first = remote.request("/run", { responses_create_params: { input: [{ role: "user", content: "hold" }] } });
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (svc.received.length > 0) {
          clearInterval(poll);
          resolve();
        }
      }, 10);
    });
    const second = remote.request("/run", { responses_create_params: { input: [{ role: "user", content: "answer" }] } });
    const [held, waited] = await Promise.all([first, second]);
    expect(held.body.error).toBe("/run exceeded run_timeout_secs=1s (seed + agent/tool loop + verify)");
    expect(waited.body).toMatchObject({ reward: 1 });
    expect(waited.body._ng_failure_class).toBeUndefined();
  });

  it("holds at most `concurrency` rollouts against the service, and frees the slots of failed ones", async () => {
    // Each call is held until no new call has come for a moment; a broken bound lets all six in at once.
    let held: Array<() => void> = [];
    let quiet: NodeJS.Timeout | undefined;
    const svc = await service((body) => (res) => {
      const fail = prompt(body).endsWith("fail");
      held.push(() => (fail ? res.writeHead(500).end("no") : res.writeHead(200).end(JSON.stringify(reply([message("ok")])))));
      clearTimeout(quiet);
      quiet = setTimeout(() => {
        const release = held;
        held = [];
        for (const answer of release) answer();
      }, 150);
    });
    const remote = await agent(svc, "weather", { concurrency: 2 });
    const rows = Array.from({ length: 6 }, (_, i) => ({ responses_create_params: { input: [{ role: "user", content: `task ${i}${i % 2 ? " fail" : ""}` }] } }));
    const runs = await Promise.all(rows.map((row) => remote.request("/run", row)));
    expect(runs.map((r) => r.body._ng_failure_class ?? r.body.reward)).toEqual([1, "remote_agent_error", 1, "remote_agent_error", 1, "remote_agent_error"]);
    expect(svc.received).toHaveLength(6);
    expect(svc.maxInFlight).toBe(2);
  });
});

describe("configuration", () => {
  it("checks agent_base_url as NeMo Gym does, never echoing credentials", () => {
    const base = { resources_server: { type: "resources_servers", name: "weather" } };
    expect(RemoteAgentConfig.parse({ ...base, agent_base_url: " http://h:9000/ " }).agent_base_url).toBe("http://h:9000");
    const message = (url: string) => {
      const parsed = RemoteAgentConfig.safeParse({ ...base, agent_base_url: url });
      return parsed.success ? "" : parsed.error.issues[0]!.message;
    };
    expect(message("ftp://h:1")).toContain("must be an absolute http:// or https:// URL");
    expect(message("localhost:9000")).toContain("must be an absolute http:// or https:// URL");
    expect(message("http://h:1?token=abc")).toContain("must not carry a query string or fragment");
    expect(message("http://h:1#frag")).toContain("must not carry a query string or fragment");
    expect(message("http://user:hunter2@h:1")).toContain("must not embed credentials");
    expect(message("http://user:hunter2@h:1")).not.toContain("hunter2");
    expect(message("???")).toContain("NeMo Gym's placeholder `???`");
  });

  it("an unknown key is named with a suggestion, beside NeMo Gym's keys", async () => {
    const config = {
      weather: { resources_servers: { example_single_tool_call: {} } },
      remote: { responses_api_agents: { remote_agent: { agent_base_url: "http://127.0.0.1:9", resources_server: { type: "resources_servers", name: "weather" }, max_step: 3 } } },
    };
    const error = await validateConfig(config, { registry: { loadImplementation, builtinIds } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(String((error as Error).message)).toContain("unrecognised field `max_step`. Did you mean `max_steps`?");
    expect(String((error as Error).message)).toMatch(/Valid fields: .*agent_base_url.*concurrency.*max_steps.*remote_responses_timeout_secs.*resources_server.*run_timeout_secs/);
  });

  it("NeMo Gym's `???` placeholders, left unset, are named with how to set them", async () => {
    const config = {
      weather: { resources_servers: { example_single_tool_call: {} } },
      remote_agent: { responses_api_agents: { remote_agent: { entrypoint: "app.py", agent_base_url: "???", resources_server: { type: "resources_servers", name: "???" } } } },
    };
    const error = await validateConfig(config, { registry: { loadImplementation, builtinIds } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const text = String((error as Error).message);
    expect(text).toContain("`resources_server` is NeMo Gym's placeholder `???`, a value the config leaves to you: set it, e.g. `++remote_agent.responses_api_agents.remote_agent.resources_server.name=<instance>`. Defined resources_servers instances: `weather`.");
    expect(text).toContain("`agent_base_url` is invalid: agent_base_url is NeMo Gym's placeholder `???`");
  });
});

describe("NeMo Gym's remote_agent.yaml, unchanged, through gym eval run", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gym-remote-agent-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("collects the counter tasks through the service; a reply that is not a Responses object is a final failure line", async () => {
    const svc = await service((body, received) => (prompt(body) === "break" ? { id: "x", object: "response" } : counterBrain(body, received)));
    const input = join(dir, "input.jsonl");
    const rows = readFileSync(join(REPO_ROOT, "src/environments/example_session_state_mgmt/data/example.jsonl"), "utf8").trim().split("\n");
    writeFileSync(input, [...rows, JSON.stringify({ ...COUNTER_ROW, responses_create_params: { input: [{ role: "user", content: "break" }] } })].join("\n") + "\n");
    const environment = join(dir, "counter.yaml");
    writeFileSync(environment, "example_session_state_mgmt:\n  resources_servers:\n    example_session_state_mgmt:\n      domain: agent\n");
    const out = join(dir, "rollouts.jsonl");
    const at = "++remote_agent.responses_api_agents.remote_agent";
    const result = await runGym(
      ["eval", "run", "--config", environment, "--config", "test/fixtures/nemo_gym/responses_api_agents/remote_agent/configs/remote_agent.yaml",
        `${at}.agent_base_url=${svc.url}`, `${at}.resources_server.name=example_session_state_mgmt`, "+agent_name=remote_agent",
        "-i", input, "-o", out, "--max-failures", "1", "--quiet"],
      { timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rollouts = readJsonlFile(out);
    expect(rollouts).toHaveLength(rows.length);
    expect(rollouts.map((r) => r.reward)).toEqual(rows.map(() => 1));
    expect(rollouts.every((r) => r.response.output.at(-1).type === "message")).toBe(true);
    const failures = readJsonlFile(join(dir, "rollouts_failures.jsonl"));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ _ng_task_index: rows.length, _ng_failure_class: "remote_agent_error", _ng_failure_terminal: true });
    expect(failures[0]!.error).toContain("remote service returned an invalid Responses API object");
    expect(failures[0]!._ng_failure_error).toContain("the agent reported remote_agent_error: agent loop failed: remote service returned an invalid Responses API object");
  }, 150_000);
});
