// Discovery interop with NeMo Gym (07d6b0d), both ways, with real processes:
// - NeMo Gym's collector and ng_status, played by Python stand-ins written from its documented
//   contract (test/fixtures/nemo_gym_standins), against `gym env start`;
// - Gymkit's `gym env status` and `gym eval run --no-serve` against a stand-in NeMo Gym head that
//   points at the same Gymkit servers under instance names of its own.
// One `gym env start` (fake engine as the model endpoint) serves every case.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../src/orchestrate/start.js";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { readJsonlFile, REPO_ROOT, runGym, startGym, waitForOutput } from "./helpers/cli.js";

const STANDINS = join(REPO_ROOT, "test", "fixtures", "nemo_gym_standins");
const INPUT = join(REPO_ROOT, "src", "environments", "example_single_tool_call", "data", "example.jsonl");
const INPUT_ROWS = readJsonlFile(INPUT).length;
const AGENT = "example_single_tool_call_simple_agent";
/** NeMo Gym's ServerInstanceDisplayConfig fields, in its order. */
const RECORD_KEYS = ["config_path", "dir_path", "entrypoint", "host", "name", "pid", "port", "process_name", "server_type", "start_time", "status", "uptime_seconds", "url"];

const pythonWithYaml = (() => {
  try {
    execFileSync("python3", ["-c", "import yaml"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runPython(script: string, args: string[]): Promise<Ran> {
  const child = spawn("python3", [join(STANDINS, script), ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("exit", () => resolve()));
}

describe("NeMo Gym discovery interop (needs python3 with PyYAML)", () => {
  let engine: FakeEngine;
  let dir: string;
  let headPort: number;
  let gymEnv: ChildProcess;

  beforeAll(async () => {
    // Never skipped: a missing PyYAML must fail loudly, not hide the interop cases.
    if (!pythonWithYaml) throw new Error("the NeMo Gym stand-ins need python3 with PyYAML (Debian: apt-get install python3-yaml; .ci/run installs it)");
    engine = await startFakeEngine();
    dir = mkdtempSync(join(tmpdir(), "gym-nemo-gym-discovery-"));
    headPort = await freePort();
    gymEnv = startGym(["env", "start", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "--head-port", String(headPort)]);
    await waitForOutput(gymEnv, (t) => t.includes("head server:"), 60_000);
  }, 90_000);

  afterAll(async () => {
    gymEnv?.kill("SIGTERM");
    if (gymEnv) await exited(gymEnv);
    await engine?.close();
  });

  describe("NeMo Gym's collector and ng_status against gym env start", () => {
    it("collect every row by agent_ref.name from the config's host/port, and get the agent's aggregate metrics", async () => {
      const output = join(dir, "nemo_gym_collected.jsonl");
      const run = await runPython("collector.py", ["--head-port", String(headPort), "--agent", AGENT, "--input", INPUT, "--output", output]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);

      const rollouts = readJsonlFile(output);
      expect(rollouts).toHaveLength(INPUT_ROWS);
      expect(rollouts.map((r) => r._ng_task_index).sort()).toEqual([...Array(INPUT_ROWS).keys()]);
      for (const r of rollouts) {
        expect(typeof r.reward).toBe("number");
        expect(r.agent_ref.name).toBe(AGENT);
      }
      // The fake engine's default policy calls get_weather, which this environment rewards with 1.
      expect(rollouts.map((r) => r.reward)).toEqual(Array(INPUT_ROWS).fill(1));

      const metrics = JSON.parse(readFileSync(join(dir, "nemo_gym_collected_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
      expect(metrics.map((m) => m.agent_ref.name)).toEqual([AGENT]);
      expect(Object.keys(metrics[0]!.key_metrics).length).toBeGreaterThan(0);
      expect(metrics[0]!.agent_metrics["mean/reward"]).toBe(1);
      expect(Array.isArray(metrics[0]!.group_level_metrics)).toBe(true);
    });

    it("ng_status: every record has NeMo Gym's 13 keys in order, types it accepts, and a url that answers", async () => {
      const run = await runPython("status.py", ["--head-port", String(headPort)]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const servers = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as { record: Record<string, unknown>; process_name: string; name: string; server_type: string; uptime_seconds: number; health: string });
      expect(servers.map((s) => [s.process_name, s.server_type, s.name]).sort()).toEqual([
        ["example_single_tool_call", "resources_servers", "example_single_tool_call"],
        [AGENT, "responses_api_agents", "simple_agent"],
        ["policy_model", "responses_api_models", "vllm_model"],
      ]);
      for (const s of servers) {
        expect(Object.keys(s.record)).toEqual(RECORD_KEYS);
        expect(s.record.config_path).toBe(s.process_name);
        expect(s.record.url).toBe(`http://${s.record.host as string}:${s.record.port as number}`);
        expect(s.health).toBe("success");
        expect(s.uptime_seconds).toBeGreaterThanOrEqual(0);
      }
    });
  });

  describe("Gymkit's clients against a NeMo Gym head", () => {
    let standin: ChildProcess;
    let standinUrl: string;
    /** The stand-in head's instance names for the servers `gym env start` runs. */
    const RENAMED: Record<string, string> = { policy_model: "policy", example_single_tool_call: "weather_env", [AGENT]: "weather_agent" };

    beforeAll(async () => {
      const records = (await (await fetch(`http://127.0.0.1:${headPort}/server_instances`)).json()) as Array<Record<string, any>>;
      // The agent's pid is left out, as a head may leave it null.
      const spec = records.map((r) => ({ process_name: RENAMED[r.process_name as string], server_type: r.server_type, name: r.name, url: r.url, pid: r.server_type === "responses_api_agents" ? null : r.pid }));
      const specPath = join(dir, "standin_head.json");
      writeFileSync(specPath, JSON.stringify(spec));
      standin = spawn("python3", [join(STANDINS, "head.py"), "--spec", specPath], { stdio: ["ignore", "pipe", "pipe"] });
      standinUrl = (await waitForOutput(standin, (t) => t.includes("\n"))).trim();
    });

    afterAll(async () => {
      standin?.kill("SIGTERM");
      if (standin) await exited(standin);
    });

    it("gym env status shows the head's instance names with their implementations, all healthy", async () => {
      const status = await runGym(["env", "status", "--head-url", standinUrl]);
      expect(status.stderr).toBe("");
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(/weather_agent\s+responses_api_agents\s+simple_agent\s+http:\/\/127\.0\.0\.1:\d+\s+-\s+\S+/);
      expect(status.stdout).toMatch(/weather_env\s+resources_servers\s+example_single_tool_call\s+http:\/\/127\.0\.0\.1:\d+\s+\d+/);
      expect(status.stdout).toMatch(/policy\s+responses_api_models\s+vllm_model\s+/);
      expect(status.stdout.trim().split("\n").at(-1)).toBe("3 servers found (3 healthy, 0 unhealthy)");

      const json = await runGym(["env", "status", "--head-url", standinUrl, "--json"]);
      const instances = JSON.parse(json.stdout) as Array<{ name: string; implementation: string; pid: number | null; entrypoint: string | null }>;
      const agent = instances.find((i) => i.name === "weather_agent")!;
      expect([agent.implementation, agent.pid, agent.entrypoint]).toEqual(["simple_agent", null, "/opt/nemo-gym/responses_api_agents/simple_agent/app.py"]);
    });

    it("gym eval run --no-serve -a <instance name> answers every row under that name", async () => {
      const output = join(dir, "gymkit_collected.jsonl");
      const run = await runGym(["eval", "run", "--no-serve", "--head-url", standinUrl, "-a", "weather_agent", "-i", INPUT, "-o", output, "--quiet"]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const rollouts = readJsonlFile(output);
      expect(rollouts).toHaveLength(INPUT_ROWS);
      expect(new Set(rollouts.map((r) => r.agent_ref.name))).toEqual(new Set(["weather_agent"]));
      expect(rollouts.map((r) => r.reward)).toEqual(Array(INPUT_ROWS).fill(1));
      const metrics = JSON.parse(readFileSync(join(dir, "gymkit_collected_aggregate_metrics.json"), "utf8")) as Array<{ agent_ref: { name: string } }>;
      expect(metrics.map((m) => m.agent_ref.name)).toEqual(["weather_agent"]);
    });

    it("an unknown -a is refused, naming the agents the head runs", async () => {
      const run = await runGym(["eval", "run", "--no-serve", "--head-url", standinUrl, "-a", AGENT, "-i", INPUT, "-o", join(dir, "never.jsonl"), "--quiet"]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`--agent ${AGENT}: the head server at ${standinUrl} runs no agent of that name; its agents: weather_agent`);
    });
  });
});
