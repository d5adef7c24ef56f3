// example_mcp_weather: the reward rules over plain HTTP (traps included), the tools over MCP with the
// official MCP client (same session state as the HTTP door, token required, namespaced names scored
// bare), NeMo Gym's recorded rollouts replayed into fresh sessions (their get_weather calls first) to
// their recorded rewards, NeMo Gym's config resolved as far as Gymkit goes (its claude_code_agent is
// not Gymkit's), and its rows run with simple_agent through `gym eval run`, metrics checked.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import weather from "./index.js";
import { pyCasefold } from "./weather.js";
import { CookieJar } from "../../http/cookies.js";
import { assistantMessage, functionCall, replayExampleRollouts, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine } from "../../../test/doubles/fake_engine.js";
import { runGym, readJsonlFile } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, recordedRollouts, type NemoGymCheckout } from "../../../test/helpers/nemo_gym_catalog.js";
import { recordedPolicy } from "../../../test/helpers/recorded_policy.js";

let env: RunningInstance;
beforeAll(async () => {
  env = await startInstance(weather);
});
afterAll(() => env.close());

const row = (city?: string) => ({
  responses_create_params: { input: [{ role: "user", content: `Weather in ${city}?` }] },
  ...(city === undefined ? {} : { verifier_metadata: { expected_city: city } }),
});

async function rollout(city: string | undefined, calls: string[], answer: string, jar = new CookieJar()) {
  expect((await env.request("/seed_session", row(city), jar)).status).toBe(200);
  for (const c of calls) expect((await env.request("/get_weather", { city: c }, jar)).status).toBe(200);
  const output = [...calls.map((c, i) => functionCall("get_weather", { city: c }, `call_${i}`)), assistantMessage(answer)];
  const result = await env.request("/verify", { ...row(city), response: responseWith(output) }, jar);
  expect(result.status, result.text).toBe(200);
  return result.body;
}

describe("reward rules (plain HTTP)", () => {
  it("the tool called for the city and its sentence in the answer → 1, with the reply's fields", async () => {
    const body = await rollout("Tokyo", ["Tokyo"], "The weather in Tokyo is sunny and 72 F.");
    expect(body).toMatchObject({ reward: 1, expected_weather: "The weather in Tokyo is sunny and 72 F.", tool_call_seen: true, final_response_mentions_weather: true, verifier_metadata: { expected_city: "Tokyo" } });
  });
  it("trap: the right sentence without calling the tool → 0", async () => {
    expect(await rollout("Tokyo", [], "The weather in Tokyo is sunny and 72 F.")).toMatchObject({ reward: 0, tool_call_seen: false, final_response_mentions_weather: true });
  });
  it("trap: the tool called for another city → 0; the tool called right but the sentence missing → 0", async () => {
    expect((await rollout("Tokyo", ["Kyoto"], "The weather in Tokyo is sunny and 72 F.")).reward).toBe(0);
    expect(await rollout("Tokyo", ["Tokyo"], "It is sunny in Tokyo.")).toMatchObject({ reward: 0, tool_call_seen: true, final_response_mentions_weather: false });
  });
  it("case-insensitive (casefold): PARIS called, the sentence shouted → 1; ß folds to ss", async () => {
    expect((await rollout("Paris", ["PARIS"], "THE WEATHER IN PARIS IS SUNNY AND 72 F.")).reward).toBe(1);
    expect((await rollout("Straße", ["STRASSE"], "The weather in strasse is sunny and 72 F.")).reward).toBe(1);
    expect(pyCasefold("Straße ΣΑΣ")).toBe("strasse σασ");
  });
  it("no verifier_metadata: the city is Paris", async () => {
    expect((await rollout(undefined, ["Paris"], "The weather in Paris is sunny and 72 F.")).reward).toBe(1);
  });
  it("trap: a call made in another rollout's session does not count", async () => {
    const other = new CookieJar();
    await env.request("/seed_session", row("Paris"), other);
    await env.request("/get_weather", { city: "Paris" }, other);
    expect((await rollout("Paris", [], "The weather in Paris is sunny and 72 F.")).reward).toBe(0);
  });
  it("get_weather without a city → 422", async () => {
    expect((await env.request("/get_weather", {})).status).toBe(422);
  });
});

describe("tools over MCP (official MCP client)", () => {
  async function connect(token?: string) {
    const transport = new StreamableHTTPClientTransport(new URL(`${env.url}/mcp`), { requestInit: { headers: token ? { "X-NeMo-Gym-Session-Token": token } : {} } });
    const client = new Client({ name: "gymkit-test", version: "0" });
    await client.connect(transport);
    return client;
  }

  it("/seed_session hands out the MCP metadata; the MCP call lands in that session and /verify rewards it", async () => {
    const jar = new CookieJar();
    const seeded = await env.request("/seed_session", row("Nairobi"), jar);
    expect(seeded.body.mcp).toMatchObject({ server_name: "example_mcp_weather", url_path: "/mcp", transport: "http" });
    const token = seeded.body.mcp.headers["X-NeMo-Gym-Session-Token"] as string;
    const client = await connect(token);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["get_weather"]);
      expect(tools[0]!.description).toBe("Get a deterministic weather report for a city.");
      expect(tools[0]!.inputSchema).toMatchObject({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
      const result = await client.callTool({ name: "get_weather", arguments: { city: "Nairobi" } });
      expect(result.isError).toBe(false);
      expect(result.structuredContent).toEqual({ weather: "The weather in Nairobi is sunny and 72 F." });
      expect((result.content as Array<{ text: string }>)[0]!.text).toBe('{"weather":"The weather in Nairobi is sunny and 72 F."}');
    } finally {
      await client.close();
    }
    // Claude Code records MCP tool names namespaced; /verify scores them bare and echoes them as emitted.
    const output = [functionCall("mcp__example_mcp_weather__get_weather", { city: "Nairobi" }, "call_1"), assistantMessage("The weather in Nairobi is sunny and 72 F.")];
    const verified = await env.request("/verify", { ...row("Nairobi"), response: responseWith(output) }, jar);
    expect(verified.body.reward).toBe(1);
    expect(verified.body.response.output[0].name).toBe("mcp__example_mcp_weather__get_weather");
  });

  it("a tool call without a token, with a forged token, or with bad arguments is an error result; an unknown tool too", async () => {
    const bare = await connect();
    try {
      const missing = await bare.callTool({ name: "get_weather", arguments: { city: "Paris" } });
      expect(missing.isError).toBe(true);
      expect((missing.content as Array<{ text: string }>)[0]!.text).toContain("Missing X-NeMo-Gym-Session-Token");
      const unknown = await bare.callTool({ name: "get_forecast", arguments: {} });
      expect(unknown.isError).toBe(true);
      expect((unknown.content as Array<{ text: string }>)[0]!.text).toContain("Unknown tool: 'get_forecast'");
    } finally {
      await bare.close();
    }
    const forged = await connect("e30.forged");
    try {
      expect((await forged.callTool({ name: "get_weather", arguments: { city: "Paris" } })).isError).toBe(true);
    } finally {
      await forged.close();
    }
    const seeded = await env.request("/seed_session", row("Paris"), new CookieJar());
    const client = await connect(seeded.body.mcp.headers["X-NeMo-Gym-Session-Token"]);
    try {
      const bad = await client.callTool({ name: "get_weather", arguments: { town: "Paris" } });
      expect(bad.isError).toBe(true);
      expect((bad.content as Array<{ text: string }>)[0]!.text).toMatch(/^HTTP 422 from POST \/get_weather: /);
    } finally {
      await client.close();
    }
  });

  it("an MCP call made with another rollout's token lands in that rollout, not this one", async () => {
    const mine = new CookieJar();
    await env.request("/seed_session", row("Lima"), mine);
    const theirs = await env.request("/seed_session", row("Lima"), new CookieJar());
    const client = await connect(theirs.body.mcp.headers["X-NeMo-Gym-Session-Token"]);
    try {
      await client.callTool({ name: "get_weather", arguments: { city: "Lima" } });
    } finally {
      await client.close();
    }
    const verified = await env.request("/verify", { ...row("Lima"), response: responseWith([assistantMessage("The weather in Lima is sunny and 72 F.")]) }, mine);
    expect(verified.body).toMatchObject({ reward: 0, tool_call_seen: false });
  });
});

describe("NeMo Gym's recordings and config (07d6b0d)", () => {
  let dir: string;
  let checkout: NemoGymCheckout;
  let engine: FakeEngine;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gym-mcp-weather-"));
    checkout = nemoGymCheckout(["example_mcp_weather"]);
    engine = await startFakeEngine({ policy: recordedPolicy(recordedRollouts("example_mcp_weather")) });
  });
  afterAll(async () => {
    await engine.close();
    checkout.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the five recorded rollouts, their get_weather calls replayed into fresh sessions, verify to the recorded rewards and fields", async () => {
    const replayed = await replayExampleRollouts(env, new URL("./data/", import.meta.url));
    expect(replayed.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(replayed.map((r) => r.reward)).toEqual(replayed.map((r) => r.recorded));
    expect(replayed.map((r) => r.recorded)).toEqual([1, 1, 1, 1, 1]);
  });

  it("NeMo Gym's config resolves up to its agent: the environment is accepted, claude_code_agent is named as not Gymkit's", async () => {
    const result = await runGym(
      ["eval", "run", "--config", "resources_servers/example_mcp_weather/configs/example_mcp_weather.yaml", "--agent", "example_mcp_weather_claude_code_agent", "--input", "resources_servers/example_mcp_weather/data/example.jsonl", "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", join(dir, "claude.jsonl"), "+anthropic_api_key=dummy"],
      { cwd: checkout.root },
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("`claude_code_agent`, which does not exist");
    expect(result.stderr).not.toContain("example_mcp_weather`");
  });

  it("its example rows run with simple_agent (the engine replays the recorded outputs): every row back, reward 1, metrics", async () => {
    const output = join(dir, "run.jsonl");
    const result = await runGym(
      ["eval", "run", "--resources-server", "example_mcp_weather", "--input", "resources_servers/example_mcp_weather/data/example.jsonl", "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", output, "--quiet"],
      { cwd: checkout.root, timeoutMs: 180_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const rows = readJsonlFile(output).sort((a, b) => a._ng_task_index - b._ng_task_index);
    expect(rows.map((r) => r.reward)).toEqual([1, 1, 1, 1, 1]);
    expect(rows.map((r) => r.verifier_metadata.expected_city)).toEqual(["Paris", "Tokyo", "Seattle", "Nairobi", "Toronto"]);
    const [metrics] = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    // Default metrics; booleans count as 0/1.
    expect(metrics!.agent_metrics).toMatchObject({ "mean/reward": 1, "mean/tool_call_seen": 1, "mean/final_response_mentions_weather": 1, "std/reward": 0 });
  }, 200_000);
});
