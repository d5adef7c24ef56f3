// `--concurrency auto` with `--process-per-server`: the engine gate lives in the model server's own
// process, so the collector's live line learns its limit from that process (`GET /retries` carries the
// limits next to the retry counters). Real servers, each in its own child process (dist/ must be
// built, as for the CLI tests), and the fake engine. No `gym` CLI is spawned.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveCliConfig } from "../src/cli/config_args.js";
import { describeRunLimits } from "../src/cli/progress.js";
import { runRollouts } from "../src/client/rollouts.js";
import { adaptiveLimits, setAutoConcurrency } from "../src/http/adaptive_limit.js";
import { RunRetries } from "../src/orchestrate/retry_totals.js";
import { startServers } from "../src/orchestrate/start.js";
import { engineOf, onTeardown } from "./helpers/scope.js";
import { NEMO_GYM_EXAMPLES } from "./helpers/cli.js";

afterAll(() => setAutoConcurrency(undefined));

function weatherRows(count: number): Array<Record<string, any>> {
  const base = JSON.parse(readFileSync(join(NEMO_GYM_EXAMPLES, "example_single_tool_call", "example.jsonl"), "utf8").split("\n")[0]!);
  return Array.from({ length: count }, (_, i) => {
    const row = structuredClone(base);
    row.responses_create_params.input[1].content = `what's it like in sf? (question ${i})`;
    return row;
  });
}

describe("--concurrency auto with a process per server", () => {
  it("the live line shows the model server's engine limit, read from its process", async () => {
    const engine = await engineOf();
    // What `gym eval run --concurrency auto:3-40` sets before it starts any server; the children inherit it.
    setAutoConcurrency({ min: 3, max: 40 });
    const resolved = await resolveCliConfig([], { config: [], resourcesServer: "example_single_tool_call", modelType: "vllm_model", modelUrl: engine.baseUrl, model: "m" });
    const servers = await startServers(resolved.instances, { headPort: 0, processPerServer: true });
    onTeardown(() => servers.stop());
    const retries = await RunRetries.start(servers.instances);
    expect(retries.remoteProcesses).toBe(3);
    // No model call yet: no gate has been made anywhere.
    expect(retries.limits).toEqual([]);

    const { summary } = await runRollouts(servers.headUrl, { rows: weatherRows(4), concurrency: 2 });
    expect(summary.succeeded).toBe(4);
    // The gate is the model server's, not this process's.
    expect(adaptiveLimits()).toEqual([]);
    await retries.refresh();
    expect(retries.limits).toHaveLength(1);
    const [gate] = retries.limits;
    expect(gate!.name).toBe("model");
    expect(gate!.limit).toBeGreaterThanOrEqual(3);
    expect(gate!.limit).toBeLessThanOrEqual(40);
    expect(describeRunLimits(40, [...adaptiveLimits(), ...retries.limits])).toBe(`rollouts 40, model ${gate!.limit}`);
  }, 120_000);

  it("without limits anywhere the line names the rollouts alone", () => {
    expect(describeRunLimits(12, [])).toBe("rollouts 12");
    expect(describeRunLimits(12, [{ name: "model", limit: 5 }, { name: "model", limit: 7 }, { name: "judge", limit: 2 }])).toBe("rollouts 12, model#1 5, model#2 7, judge 2");
  });
});
