// Reading `/server_instances` records from either kind of head into one shape, and probing them.
import { describe, expect, it } from "vitest";
import { agentUrlsOf, discoveredInstance, probeHealth } from "./status.js";

/** A record as NeMo Gym's head (07d6b0d) serves it for an agent started by ng_run. */
const nemoGymRecord = {
  config_path: "example_single_tool_call_simple_agent",
  dir_path: "/gym/responses_api_agents/simple_agent",
  entrypoint: "app.py",
  host: "127.0.0.1",
  name: "simple_agent",
  pid: 1234,
  port: 8001,
  process_name: "example_single_tool_call_simple_agent",
  server_type: "responses_api_agents",
  start_time: 1_764_000_000.5,
  status: null,
  uptime_seconds: null,
  url: "http://127.0.0.1:8001",
};

describe("discoveredInstance", () => {
  it("reads a NeMo Gym record: instance from process_name, implementation from name", () => {
    expect(discoveredInstance(nemoGymRecord)).toEqual({
      name: "example_single_tool_call_simple_agent",
      server_type: "responses_api_agents",
      implementation: "simple_agent",
      host: "127.0.0.1",
      port: 8001,
      url: "http://127.0.0.1:8001",
      pid: 1234,
      start_time: 1_764_000_000.5,
      dir_path: "/gym/responses_api_agents/simple_agent",
      entrypoint: "app.py",
    });
  });

  it("falls back to config_path for the instance and to host/port for the url; a null pid stays null", () => {
    const { process_name: _p, url: _u, ...rest } = nemoGymRecord;
    const read = discoveredInstance({ ...rest, pid: null, host: "::1" });
    expect([read.name, read.implementation, read.url, read.pid]).toEqual(["example_single_tool_call_simple_agent", "simple_agent", "http://[::1]:8001", null]);
  });

  it("reads a record of an older Gymkit head: instance in name, implementation in implementation", () => {
    const read = discoveredInstance({ name: "policy_model", server_type: "responses_api_models", implementation: "vllm_model", host: "127.0.0.1", port: 9000, url: "http://127.0.0.1:9000", pid: 7 });
    expect([read.name, read.implementation, read.url, read.pid, read.start_time, read.dir_path]).toEqual(["policy_model", "vllm_model", "http://127.0.0.1:9000", 7, null, null]);
  });

  it("never throws on missing or mistyped fields: what is not said is null", () => {
    expect(discoveredInstance({ process_name: "x" })).toEqual({ name: "x", server_type: null, implementation: null, host: null, port: null, url: null, pid: null, start_time: null, dir_path: null, entrypoint: null });
    expect(discoveredInstance({ process_name: 5, name: ["a"], port: "80", host: "h", pid: "12" })).toMatchObject({ name: null, implementation: null, port: null, url: null, pid: null });
    for (const junk of [null, "text", 3, []]) expect(discoveredInstance(junk).name).toBeNull();
  });
});

describe("agentUrlsOf", () => {
  it("maps agents' instance names to URLs, leaving out other types and agents without a name or url", () => {
    const agents = agentUrlsOf([
      discoveredInstance(nemoGymRecord),
      discoveredInstance({ ...nemoGymRecord, process_name: "m", config_path: "m", server_type: "responses_api_models" }),
      discoveredInstance({ server_type: "responses_api_agents", process_name: "nowhere" }),
    ]);
    expect([...agents]).toEqual([["example_single_tool_call_simple_agent", "http://127.0.0.1:8001"]]);
  });
});

describe("probeHealth", () => {
  it("says unhealthy, with why, for a record the head gave no address for, and computes uptime from start_time", async () => {
    const status = await probeHealth(discoveredInstance({ process_name: "ghost", start_time: Date.now() / 1000 - 90 }));
    expect(status.status).toBe("unhealthy");
    expect(status.error).toMatch(/no url/);
    expect(status.uptime_seconds).toBeGreaterThanOrEqual(90);
  });
});
