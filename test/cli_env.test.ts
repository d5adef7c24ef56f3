// `gym env start` in the background, `gym env status`, `gym eval run --no-serve` against it, and a
// clean stop on SIGTERM — in one process and with a process per server.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../src/orchestrate/start.js";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { runGym, NEMO_GYM_EXAMPLES, startGym, waitForOutput, processAlive as alive } from "./helpers/cli.js";

let engine: FakeEngine;
let dir: string;

beforeAll(async () => {
  engine = await startFakeEngine();
  dir = mkdtempSync(join(tmpdir(), "gym-cli-env-"));
});
afterAll(async () => engine.close());

/** Children of `pid` (Linux /proc), to check nothing outlives the parent. */
function childPids(pid: number): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function waitGone(pids: number[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

for (const layout of ["one process", "process per server"]) {
  describe(`gym env start (${layout})`, () => {
    it("starts, reports healthy, serves --no-serve collection, and stops on SIGTERM leaving no process", async () => {
      const headPort = await freePort();
      const headUrl = `http://127.0.0.1:${headPort}`;
      // One layout names the head as NeMo Gym configs do (`head_server`), the other with the flags.
      const head = layout === "one process" ? [`++head_server={host: 127.0.0.1, port: ${headPort}}`] : ["--head-port", String(headPort)];
      const args = ["env", "start", "--resources-server", "example_session_state_mgmt", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", ...head];
      if (layout === "process per server") args.push("--process-per-server");
      const server = startGym(args);
      const table = await waitForOutput(server, (t) => t.includes("head server:"));
      expect(table).toMatch(/example_session_state_mgmt_simple_agent\s+responses_api_agents\s+simple_agent\s+http:\/\/127\.0\.0\.1:\d+/);
      expect(table).toMatch(/policy_model\s+responses_api_models\s+vllm_model/);

      const status = await runGym(["env", "status", "--head-url", headUrl]);
      expect(status.code).toBe(0);
      expect(status.stdout.trim().split("\n").at(-1)).toBe("3 servers found (3 healthy, 0 unhealthy)");
      const json = await runGym(["env", "status", "--head-url", headUrl, "--json"]);
      const instances = JSON.parse(json.stdout) as Array<{ name: string; status: string; pid: number }>;
      expect(instances.map((i) => i.status)).toEqual(["healthy", "healthy", "healthy"]);
      const pids = [...new Set(instances.map((i) => i.pid))];
      expect(pids.length).toBe(layout === "process per server" ? 3 : 1);

      const output = join(dir, `no_serve_${headPort}.jsonl`);
      const run = await runGym([
        "eval",
        "run",
        "--no-serve",
        ...(layout === "one process" ? [`++head_server.port=${headPort}`] : ["--head-url", headUrl]),
        "--agent",
        "example_session_state_mgmt_simple_agent",
        "-i",
        join(NEMO_GYM_EXAMPLES, "example_session_state_mgmt", "example.jsonl"),
        "-o",
        output,
        "--quiet",
      ]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const rows = readFileSync(output, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { reward: number });
      expect(rows.map((r) => r.reward)).toEqual([1, 1, 1, 1, 1]);

      const children = childPids(server.pid!);
      expect(children.length).toBe(layout === "process per server" ? 3 : 0);
      const exited = new Promise<number | null>((resolve) => server.on("exit", (code) => resolve(code)));
      server.kill("SIGTERM");
      expect(await exited).toBe(0);
      await waitGone(children);
      expect(children.filter(alive)).toEqual([]);
      const after = await runGym(["env", "status", "--head-url", headUrl]);
      expect(after.code).not.toBe(0);
      expect(after.stderr).toContain(headUrl);
    });
  });
}

describe("gym env start --process-per-server", () => {
  it("children exit when the parent is killed with SIGKILL (no orphans on ports)", async () => {
    const headPort = await freePort();
    const server = startGym(["env", "start", "--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m", "--head-port", String(headPort), "--process-per-server"]);
    await waitForOutput(server, (t) => t.includes("head server:"));
    const children = childPids(server.pid!);
    expect(children.length).toBe(3);
    server.kill("SIGKILL");
    await waitGone(children);
    expect(children.filter(alive)).toEqual([]);
  });
});
