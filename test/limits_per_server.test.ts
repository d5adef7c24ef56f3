// `--concurrency auto` with `--process-per-server`: the engine gate lives in the model server's own
// process, so the collector's live line learns its limit from that process (`GET /retries` carries the
// limits next to the retry counters). Real servers, each in its own child process (dist/ must be
// built, as for the CLI tests), and the fake engine. No `gym` CLI is spawned.
import { afterAll, describe, expect, it } from "vitest";
import { describeRunLimits } from "../src/cli/progress.js";
import { runRollouts } from "../src/client/rollouts.js";
import { adaptiveLimits, setAutoConcurrency } from "../src/http/adaptive_limit.js";
import { RunRetries } from "../src/orchestrate/retry_totals.js";
import { engineOf, onTeardown } from "./helpers/scope.js";
import { singleToolCallServers, weatherRows } from "./helpers/single_tool_servers.js";

afterAll(() => setAutoConcurrency(undefined));


describe("--concurrency auto with a process per server", () => {
  it("the live line shows the model server's engine limit, read from its process", async () => {
    const engine = await engineOf();
    // What `gym eval run --concurrency auto:3-40` sets before it starts any server; the children inherit it.
    setAutoConcurrency({ min: 3, max: 40 });
    const servers = await singleToolCallServers(engine.baseUrl, [], { processPerServer: true });
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
