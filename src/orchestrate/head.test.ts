// The head's discovery answers as NeMo Gym's clients read them: `/server_instances` records with
// NeMo Gym's 13 keys in its order, `/global_config_dict_yaml` as JSON-encoded YAML whose server blocks
// carry host/port and whose `head_server` names the head's real port, and health at `GET /`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { listen } from "../http/server.js";
import { buildHeadServer, SERVER_INSTANCE_RECORD_KEYS, serverInstanceRecord, type InstanceInfo } from "./head.js";
import { startServers, type RunningServers } from "./start.js";

const agent: InstanceInfo = {
  name: "weather_simple_agent",
  server_type: "responses_api_agents",
  implementation: "simple_agent",
  host: "127.0.0.1",
  port: 40001,
  url: "http://127.0.0.1:40001",
  pid: 4242,
  start_time: 1_764_000_000.25,
};

describe("serverInstanceRecord", () => {
  it("puts the instance name in process_name and config_path and the implementation in name, in NeMo Gym's key order", () => {
    const record = serverInstanceRecord(agent);
    expect(Object.keys(record)).toEqual([...SERVER_INSTANCE_RECORD_KEYS]);
    expect(record).toEqual({
      config_path: "weather_simple_agent",
      dir_path: null,
      entrypoint: null,
      host: "127.0.0.1",
      name: "simple_agent",
      pid: 4242,
      port: 40001,
      process_name: "weather_simple_agent",
      server_type: "responses_api_agents",
      start_time: 1_764_000_000.25,
      status: null,
      uptime_seconds: null,
      url: "http://127.0.0.1:40001",
    });
  });

  it("carries where a NeMo Gym Python server runs when the instance says so", () => {
    const record = serverInstanceRecord({ ...agent, dir_path: "/checkout/resources_servers/x", entrypoint: "app.py" });
    expect([record.dir_path, record.entrypoint]).toEqual(["/checkout/resources_servers/x", "app.py"]);
  });
});

describe("the head server", () => {
  let servers: RunningServers;
  beforeAll(async () => {
    // Port 0: the head's real port is known only after it listens, and the served config must name it.
    servers = await startServers([{ name: "weather", type: "resources_servers", implementation: "example_single_tool_call", fields: {} }], {
      headPort: 0,
      globalConfig: { weather: { resources_servers: { example_single_tool_call: { domain: "agent", api_key: "***" } } }, policy_model_name: "m" },
    });
  });
  afterAll(async () => servers.stop());

  it("answers GET / with 200", async () => {
    const response = await fetch(`${servers.headUrl}/`);
    expect(response.status).toBe(200);
  });

  it("serves the config as a JSON string of YAML whose blocks hold host/port and whose head_server is the head", async () => {
    const response = await fetch(`${servers.headUrl}/global_config_dict_yaml`);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await response.text();
    const yamlText = JSON.parse(body) as unknown;
    expect(typeof yamlText).toBe("string");
    const config = parse(yamlText as string) as Record<string, any>;
    const weather = servers.instances[0]!;
    expect(config.weather.resources_servers.example_single_tool_call).toEqual({ domain: "agent", api_key: "***", host: "127.0.0.1", port: weather.port });
    expect(config.head_server).toEqual({ host: "127.0.0.1", port: Number(new URL(servers.headUrl).port) });
    expect(config.head_server.port).toBeGreaterThan(0);
    expect(config.policy_model_name).toBe("m");
  });

  it("serves one NeMo Gym record per instance, with a start time in seconds", async () => {
    const before = Date.now() / 1000;
    const records = (await (await fetch(`${servers.headUrl}/server_instances`)).json()) as Array<Record<string, unknown>>;
    expect(records).toHaveLength(1);
    expect(Object.keys(records[0]!)).toEqual([...SERVER_INSTANCE_RECORD_KEYS]);
    expect(records[0]).toMatchObject({ process_name: "weather", config_path: "weather", name: "example_single_tool_call", server_type: "resources_servers", pid: process.pid, url: servers.urlOf("weather") });
    const started = records[0]!.start_time as number;
    expect(started).toBeLessThanOrEqual(before);
    expect(started).toBeGreaterThan(before - 3600);
  });

  it("writes the config so that it reads back as it was: long strings on one line, shared objects repeated, not aliased", async () => {
    const shared = { tools: ["get_weather"] };
    const prompt = "You are a helpful assistant. ".repeat(8).trim();
    const head = buildHeadServer({ instances: () => [], globalConfig: () => ({ a: shared, b: shared, prompt }), address: () => ({ host: "127.0.0.1", port: 1 }) });
    const url = await listen(head);
    try {
      const yamlText = JSON.parse(await (await fetch(`${url}/global_config_dict_yaml`)).text()) as string;
      expect(yamlText).toContain(`prompt: ${prompt}\n`);
      expect(yamlText).not.toMatch(/[&*]a\d/);
      expect(parse(yamlText)).toEqual({ a: shared, b: shared, prompt, head_server: { host: "127.0.0.1", port: 1 } });
    } finally {
      await head.close();
    }
  });

  it("places every instance it knows and the head address its owner gives into the served config", async () => {
    const head = buildHeadServer({ instances: () => [agent], globalConfig: () => ({}), address: () => ({ host: "127.0.0.1", port: 11000 }) });
    const url = await listen(head);
    try {
      const config = parse(JSON.parse(await (await fetch(`${url}/global_config_dict_yaml`)).text()) as string) as Record<string, any>;
      expect(config).toEqual({ weather_simple_agent: { responses_api_agents: { simple_agent: { host: "127.0.0.1", port: 40001 } } }, head_server: { host: "127.0.0.1", port: 11000 } });
    } finally {
      await head.close();
    }
  });
});
