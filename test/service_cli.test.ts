// `gym serve` as a user runs it: the rollout service over started servers (with engine replicas whose
// counters `gym env status --json` shows) and over a running head; an agent process killed mid-batch
// (its missing pairs named, the other agent's rows all delivered); and a service killed with -9
// mid-stream, which the client must report as a failure, not a short batch.
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MissingRolloutsError, RolloutStreamError, runRollouts, streamRollouts, type RolloutRow } from "../src/client/rollouts.js";
import { engineOf, onTeardown } from "./helpers/scope.js";
import { NEMO_GYM_EXAMPLES, REPO_ROOT, runGym, startGym, stopChild, waitForOutput } from "./helpers/cli.js";


function exampleRows(id: string, count: number, agent?: string): Array<Record<string, any>> {
  const lines = readFileSync(join(NEMO_GYM_EXAMPLES, id, "example.jsonl"), "utf8").trim().split("\n");
  return Array.from({ length: count }, (_, i) => {
    const row = JSON.parse(lines[i % lines.length]!);
    // Distinct tasks: the first user message names its index.
    const user = row.responses_create_params.input.find((m: { role: string }) => m.role === "user");
    user.content = `${user.content} (question ${i})`;
    if (agent) row.agent_ref = { type: "responses_api_agents", name: agent };
    return row;
  });
}

/** Starts `gym serve`, waits until it listens, and returns its URLs, its stdout so far, and the process. */
async function gymServe(args: string[]): Promise<{ child: ChildProcess; serviceUrl: string; headUrl: string | undefined; stdout: string }> {
  const child = startGym(["serve", "--port", "0", ...args]);
  onTeardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    }
  });
  const stdout = await waitForOutput(child, (t) => t.includes("rollout service:"), 60_000);
  return {
    child,
    stdout,
    serviceUrl: /rollout service: (http:\/\/\S+)\/v1\/rollouts/.exec(stdout)![1]!,
    headUrl: /head server: (http:\/\/\S+)/.exec(stdout)?.[1],
  };
}

const pairOf = (row: { _ng_task_index: number; _ng_rollout_index: number }) => `${row._ng_task_index}:${row._ng_rollout_index}`;

describe("gym serve", () => {
  it("serves rollouts over started servers and over a running head; status shows per-replica counters", async () => {
    const engines = await Promise.all([0, 1, 2].map(() => engineOf()));
    const list = `[${engines.map((e) => e.baseUrl).join(",")}]`;
    const served = await gymServe([
      "--resources-server",
      "example_single_tool_call",
      "--model-type",
      "vllm_model",
      "--model-url",
      engines[0]!.baseUrl,
      "--model",
      "m",
      `++policy_model.responses_api_models.vllm_model.base_url=${list}`,
    ]);
    expect(served.stdout).toMatch(/example_single_tool_call_simple_agent\s+responses_api_agents\s+simple_agent/);
    const rows = exampleRows("example_single_tool_call", 6);
    const { rows: got, summary } = await runRollouts(served.serviceUrl, { rows, num_repeats: 2, concurrency: 4 });
    expect(summary).toMatchObject({ requested: 12, succeeded: 12, missing: [] });
    expect(got.every((r) => r.reward === 1)).toBe(true);

    // The head of the started servers serves the same endpoint, and so does a second `gym serve --head-url`.
    expect((await runRollouts(served.headUrl!, { rows: rows.slice(0, 2) })).summary.succeeded).toBe(2);
    const second = await gymServe(["--head-url", served.headUrl!]);
    expect((await runRollouts(second.serviceUrl, { rows: rows.slice(0, 3) })).summary.succeeded).toBe(3);

    const status = await runGym(["env", "status", "--head-url", served.headUrl!, "--json"]);
    expect(status.code).toBe(0);
    const model = (JSON.parse(status.stdout) as Array<{ name: string; replicas?: Array<Record<string, any>> }>).find((i) => i.name === "policy_model")!;
    expect(model.replicas!.map((r) => r.url)).toEqual(engines.map((e) => e.baseUrl));
    expect(model.replicas!.every((r) => r.healthy === true && r.requests > 0)).toBe(true);
    // 17 rollouts of two model calls each.
    expect(model.replicas!.reduce((n, r) => n + r.answered, 0)).toBe(34);
    expect(Object.keys(model.replicas![0]!).sort()).toEqual(
      ["answered", "down_since", "failovers", "healthy", "in_flight", "last_error", "marked_down", "pool", "rejoined", "requests", "retryable_errors", "sticky_rollouts", "timeouts", "unreachable", "url"].sort(),
    );

    expect((await stopChild(served.child)).code).toBe(0);
  });

  it("names the missing pairs of an agent stopped mid-batch and delivers every row of the other", async () => {
    const engine = await engineOf({ delayMs: 150 });
    const served = await gymServe([
      "--process-per-server",
      "--config",
      join(REPO_ROOT, "src/environments/example_single_tool_call/configs/example_single_tool_call.yaml"),
      "--config",
      join(REPO_ROOT, "src/environments/example_session_state_mgmt/configs/example_session_state_mgmt.yaml"),
      "--model-type",
      "vllm_model",
      "--model-url",
      engine.baseUrl,
      "--model",
      "m",
    ]);
    const victim = "example_single_tool_call_simple_agent";
    const survivor = "example_session_state_mgmt_simple_agent";
    const victimPid = Number(new RegExp(`${victim}\\s+\\S+\\s+\\S+\\s+\\S+\\s+(\\d+)`).exec(served.stdout)![1]);
    expect(victimPid).toBeGreaterThan(0);

    const rows = [...exampleRows("example_single_tool_call", 8, victim), ...exampleRows("example_session_state_mgmt", 8, survivor)];
    const received: RolloutRow[] = [];
    const error = await (async () => {
      for await (const row of streamRollouts(served.serviceUrl, { rows, concurrency: 4 })) {
        received.push(row);
        // SIGTERM, not SIGKILL: a child that crashes is restarted on its port (orchestrate/start.ts) and the
        // rows retried there may all succeed, while one stopped on purpose stays down, so rows are lost for sure.
        if (received.length === 2) process.kill(victimPid, "SIGTERM");
      }
    })().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(MissingRolloutsError);
    const { summary } = error as MissingRolloutsError;
    expect(summary.requested).toBe(16);
    expect(summary.succeeded).toBe(received.length);
    expect(summary.missing.length).toBeGreaterThan(0);
    expect(summary.missing.length + received.length).toBe(16);
    for (const missing of summary.missing) {
      expect(missing.agent_ref).toMatchObject({ name: victim });
      expect(missing.failure_class).toBe("agent_error");
    }
    const survivorRows = received.filter((r) => (r.agent_ref as { name: string }).name === survivor);
    expect(survivorRows.map(pairOf).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `${i + 8}:0`).sort());
    expect((error as Error).message).toContain(`of 16 requested rollouts are missing`);
  });

  it("a service killed with -9 mid-stream is a failure for the client, never a short batch", async () => {
    const engine = await engineOf({ delayMs: 300 });
    const served = await gymServe(["--resources-server", "example_single_tool_call", "--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m"]);
    let received = 0;
    const error = await (async () => {
      for await (const _ of streamRollouts(served.serviceUrl, { rows: exampleRows("example_single_tool_call", 20), concurrency: 2 })) {
        if (++received === 1) served.child.kill("SIGKILL");
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RolloutStreamError);
    expect((error as Error).message).toMatch(/the rollout stream (broke|ended without a summary line)/);
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(20);
    // The plan line the client asked for lets it name every pair that never came.
    expect((error as RolloutStreamError).missingPairs).toHaveLength(20 - received);
    expect((error as Error).message).toContain("missing (task, rollout) ");
  });
});
