// Shared by the long-context environments' tests (graphwalks, mrcr, ruler, ruler2, lc_niah): one
// `gym eval run` of a NeMo Gym config, unchanged, from a NeMo Gym-shaped checkout, with the engine
// double answering each example row by its prompt; and the expected values NeMo Gym's own code
// gives for those answers (test/fixtures/longctx/expected.json, see generate_expected.py there).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeEngine, type Action, type Turn } from "../doubles/fake_engine.js";
import { REPO_ROOT, runGym, type GymResult } from "./cli.js";
import { environmentFolder, nemoGymCheckout } from "./nemo_gym_catalog.js";

export const longctxExpected = JSON.parse(readFileSync(join(REPO_ROOT, "test", "fixtures", "longctx", "expected.json"), "utf8")) as Record<string, any>;

export const exampleRows = (id: string): Array<Record<string, any>> =>
  readFileSync(join(environmentFolder(id), "data", "example.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, any>);

const lastUser = (turns: Turn[]) => turns.findLast((t) => t.role === "user")?.content ?? "";

export interface ConfigRun {
  result: GymResult;
  /** Output rows in task order. */
  rows: Array<Record<string, any>>;
  /** The run's aggregate metrics file (one entry per agent). */
  metrics: Array<Record<string, any>>;
}

/**
 * `gym eval run --config resources_servers/<id>/configs/<file> --input resources_servers/<id>/data/example.jsonl`
 * from a NeMo Gym-shaped checkout; row i of example.jsonl is answered with `actions[i]`. `extraArgs`
 * adds CLI flags (e.g. `--agent` for rows without an `agent_ref`, as NeMo Gym's `+agent_name=`).
 */
export async function runNemoGymConfig(id: string, file: string, actions: Action[], extraArgs: string[] = []): Promise<ConfigRun> {
  const rows = exampleRows(id);
  const byPrompt = new Map<string, Action>();
  rows.forEach((row, i) => {
    const input = row.responses_create_params.input;
    const text = typeof input === "string" ? input : input.findLast((m: any) => m.role === "user").content;
    byPrompt.set(text, actions[i]!);
  });
  const engine = await startFakeEngine({ policy: (turns) => byPrompt.get(lastUser(turns)) ?? { text: "unexpected prompt" } });
  const checkout = nemoGymCheckout([id]);
  const dir = mkdtempSync(join(tmpdir(), `gym-longctx-${id}-`));
  try {
    const output = join(dir, "out.jsonl");
    const result = await runGym(
      ["eval", "run", "--config", `resources_servers/${id}/configs/${file}`, "--input", `resources_servers/${id}/data/example.jsonl`,
        "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "m", "--model-api-key", "dummy", "-o", output, "--quiet", ...extraArgs],
      { cwd: checkout.root, timeoutMs: 180_000 },
    );
    const read = (path: string) => readFileSync(path, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Record<string, any>);
    let outRows: Array<Record<string, any>> = [];
    let metrics: Array<Record<string, any>> = [];
    try {
      outRows = read(output).sort((a, b) => a._ng_task_index - b._ng_task_index);
      metrics = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
    } catch {
      // Left empty: the caller's exit-code assertion reports the run's stderr.
    }
    return { result, rows: outRows, metrics };
  } finally {
    await engine.close();
    checkout.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Expected metric values compared to ~12 significant digits (sums may associate differently). */
export function expectMetricsClose(actual: Record<string, number>, expected: Record<string, number>, expectFn: (v: unknown) => any): void {
  for (const [key, value] of Object.entries(expected)) {
    expectFn({ key, present: key in actual }).toEqual({ key, present: true });
    expectFn(actual[key]).toBeCloseTo(value, 9);
  }
}
