// `--concurrency auto` with `--process-per-server`: the engine gate lives in the model server's own
// process, so the collector's live line learns its limit from that process (`GET /retries` carries the
// limits next to the retry counters). Real servers, each in its own child process (dist/ must be
// built, as for the CLI tests), and the fake engine. No `gym` CLI is spawned.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeRunLimits } from "../src/cli/progress.js";
import { runRollouts } from "../src/client/rollouts.js";
import { adaptiveLimits, describeSettled, setAutoConcurrency, settledLimits } from "../src/http/adaptive_limit.js";
import { RunRetries } from "../src/orchestrate/retry_totals.js";
import { runGym } from "./helpers/cli.js";
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

    // The end-of-run summary: where the model server's limit settled, as its process reports it.
    expect(retries.settled).toHaveLength(1);
    const [settled] = retries.settled;
    expect(settled!.name).toBe("model");
    expect(settled!.low).toBeGreaterThanOrEqual(3);
    expect(settled!.high).toBeLessThanOrEqual(40);
    expect(settled!.mean).toBeGreaterThanOrEqual(settled!.low);
    expect(settled!.mean).toBeLessThanOrEqual(settled!.high + 1);
    expect(settledLimits()).toEqual([]);
    expect(describeSettled([...settledLimits(), ...retries.settled])).toBe(`model ${settled!.mean.toFixed(0)} (${settled!.low}-${settled!.high})`);
  }, 120_000);

  it("gym eval run prints where the model server's limit settled at the end of the run", async () => {
    const engine = await engineOf();
    const dir = mkdtempSync(join(tmpdir(), "gym-settled-"));
    onTeardown(async () => rmSync(dir, { recursive: true, force: true }));
    const input = join(dir, "rows.jsonl");
    writeFileSync(input, weatherRows(4).map((row) => JSON.stringify(row)).join("\n") + "\n");
    const model = ["--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m"];
    const result = await runGym(["eval", "run", "--resources-server", "example_single_tool_call", ...model, "-i", input, "-o", join(dir, "out.jsonl"), "--process-per-server", "--concurrency", "auto:3-40", "--quiet"]);
    expect(result.code, result.stderr).toBe(0);
    // The collector makes no gate of its own here: without the server's, there would be no line at all.
    expect(result.stderr + result.stdout).toMatch(/--concurrency auto: the limits settled at model \d+ \(\d+-\d+\) \(mean over the last half of the run/);
  }, 120_000);

  it("the summary numbers limits that share a name, as the live line does", () => {
    expect(describeSettled([])).toBe("");
    expect(describeSettled([{ name: "model", mean: 62.6, low: 57, high: 71 }, { name: "judge", mean: 12, low: 10, high: 14 }])).toBe("model 63 (57-71), judge 12 (10-14)");
    expect(describeSettled([{ name: "model", mean: 5, low: 5, high: 5 }, { name: "model", mean: 7.2, low: 6, high: 8 }])).toBe("model#1 5 (5-5), model#2 7 (6-8)");
  });

  it("without limits anywhere the line names the rollouts alone", () => {
    expect(describeRunLimits(12, [])).toBe("rollouts 12");
    expect(describeRunLimits(12, [{ name: "model", limit: 5 }, { name: "model", limit: 7 }, { name: "judge", limit: 2 }])).toBe("rollouts 12, model#1 5, model#2 7, judge 2");
  });
});
