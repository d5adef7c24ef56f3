// spider2_lite over HTTP and through the CLI, on a small database the test builds (testdata/schema.sql).
// What NeMo Gym's code decides on that database is in testdata/expected.json, made by
// testdata/make_fixture.py running NeMo Gym's spider2_lite code (07d6b0d) on CPython's sqlite3: every
// case (traps included) must score the same here. NeMo Gym's recorded rewards need Spider 2.0-Lite's
// real databases: that test runs when SPIDER2_LITE_DIR names them and is skipped otherwise.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import spider2Lite from "./index.js";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine } from "../../../test/doubles/fake_engine.js";
import { runGym } from "../../../test/helpers/cli.js";
import { nemoGymCheckout, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";

interface Verdict {
  extracted_sql: string | null;
  execution_match: boolean;
  failure_reason: string;
  reward: number;
}
type Case = { name: string; text: string; gold_sql?: string; gold_result?: unknown; ignore_order: boolean; condition_cols: unknown };
const rows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const cases = JSON.parse(readFileSync(new URL("./testdata/cases.json", import.meta.url), "utf8")) as Case[];
const expected = JSON.parse(readFileSync(new URL("./testdata/expected.json", import.meta.url), "utf8")) as { cases: Verdict[] };

/** `<dir>/sqlite/<name>.sqlite` for each name, all from testdata/schema.sql. */
async function buildSpiderDir(dir: string, names: string[]): Promise<void> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.exec(readFileSync(new URL("./testdata/schema.sql", import.meta.url), "utf8"));
  mkdirSync(join(dir, "sqlite"), { recursive: true });
  const first = join(dir, "sqlite", `${names[0]}.sqlite`);
  writeFileSync(first, db.export());
  db.close();
  for (const name of names.slice(1)) copyFileSync(first, join(dir, "sqlite", `${name}.sqlite`));
}

let dir: string;
let env: RunningInstance;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gym-spider2-"));
  await buildSpiderDir(join(dir, "spider"), ["shop"]);
  env = await startInstance(spider2Lite, { config: { spider2_lite_dir: join(dir, "spider"), max_concurrency: 2 } });
});
afterAll(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

function rowOf(c: Case): Record<string, unknown> {
  return {
    responses_create_params: { input: [{ role: "user", content: c.name }] },
    instance_id: "t1",
    db_id: "shop",
    question: c.name,
    ...(c.gold_sql !== undefined ? { gold_sql: c.gold_sql } : {}),
    ...(c.gold_result !== undefined ? { gold_result: c.gold_result } : {}),
    ignore_order: c.ignore_order,
    condition_cols: c.condition_cols,
  };
}

async function verify(row: Record<string, unknown>, text: string) {
  const result = await env.request("/verify", { ...row, response: responseWith(text === "" ? [] : [assistantMessage(text)]) });
  expect(result.status, result.text).toBe(200);
  return result.body as Verdict & Record<string, unknown>;
}
const pick = (v: Verdict) => ({ extracted_sql: v.extracted_sql, execution_match: v.execution_match, failure_reason: v.failure_reason, reward: v.reward });

describe("the rules, against NeMo Gym's code on the same database (testdata/expected.json)", () => {
  cases.forEach((c, i) => {
    it(c.name, async () => {
      expect(pick(await verify(rowOf(c), c.text))).toEqual(expected.cases[i]);
    });
  });

  it("answers NeMo Gym's verify response: the gold result and comparison settings dropped, the rest kept", async () => {
    const body = await verify({ ...rowOf(cases[13]!), uuid: "u1", metadata: { k: 1 }, extra_field: "x" }, cases[13]!.text);
    for (const key of ["uuid", "instance_id", "db_id", "question", "metadata", "extra_field", "model_output", "extracted_sql", "execution_match", "failure_reason", "gold_sql"]) expect(body).toHaveProperty(key);
    for (const key of ["gold_result", "ignore_order", "condition_cols"]) expect(body).not.toHaveProperty(key);
    expect(body.gold_sql).toBeNull();
  });

  it("a row with neither gold_sql nor gold_result is an error (NeMo Gym raises)", async () => {
    const r = await env.request("/verify", { ...rowOf({ name: "x", text: "", ignore_order: true, condition_cols: null }), response: responseWith([assistantMessage("```sql\nSELECT 1\n```")]) });
    expect(r.status).toBe(500);
  });

  it("refuses to start without databases, saying how to supply them", async () => {
    await expect(startInstance(spider2Lite, { config: { spider2_lite_dir: join(dir, "missing") } })).rejects.toThrow(/Spider 2.0-Lite's SQLite databases/);
  });
});

describe("NeMo Gym's config and recorded rollouts", () => {
  let engine: FakeEngine;
  beforeAll(async () => {
    engine = await startFakeEngine({ policy: () => ({ text: "```sql\nSELECT id FROM t\n```" }) });
  });
  afterAll(() => engine.close());

  it("configs/spider2_lite.yaml runs unchanged on every example row; reverify of the recordings runs too (databases of the test's own, so the gold SQL fails: reward 0)", async () => {
    const checkout = nemoGymCheckout(["spider2_lite"]);
    try {
      await buildSpiderDir(join(checkout.root, "resources_servers", "spider2_lite", ".spider2_lite"), [...new Set(rows.map((r) => r.db_id as string))]);
      const config = "resources_servers/spider2_lite/configs/spider2_lite.yaml";
      const output = join(dir, "spider2_lite.jsonl");
      const result = await runGym(
        ["eval", "run", "--config", config, "--config", "responses_api_models/vllm_model/configs/vllm_model.yaml", "--agent", "spider2_lite_simple_agent", "--input", "resources_servers/spider2_lite/data/example.jsonl", "--model-url", engine.baseUrl, "--model", "m", "-o", output, "--quiet"],
        { cwd: checkout.root, timeoutMs: 120_000 },
      );
      expect(result.code, result.stderr + result.stdout).toBe(0);
      const out = readFileSync(output, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
      expect(out).toHaveLength(rows.length);
      expect(out.map((r) => [r.reward, r.failure_reason, r.extracted_sql])).toEqual(rows.map(() => [0, "execution_error", "SELECT id FROM t"]));
      const metrics = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
      expect(metrics[0]!.agent_metrics["mean/reward"]).toBe(0);
      expect(metrics[0]!.agent_metrics["mean/execution_match"]).toBe(0);
      expect(Object.keys(metrics[0]!.key_metrics).every((k) => k.startsWith("mean/"))).toBe(true);

      const { result: rv, reverified } = await reverifyRecorded("spider2_lite", ["--config", config], { cwd: checkout.root });
      expect(rv.code, rv.stderr + rv.stdout).toBe(0);
      expect(reverified).toEqual([0, 0, 0, 0, 0]);
    } finally {
      checkout.remove();
    }
  }, 180_000);

  const realDir = process.env.SPIDER2_LITE_DIR;
  it.skipIf(!realDir)("NeMo Gym's recorded rollouts re-verify to their rewards on the real databases (set SPIDER2_LITE_DIR)", async () => {
    const { result, recorded, reverified } = await reverifyRecorded("spider2_lite", ["--resources-server", "spider2_lite", `++spider2_lite.resources_servers.spider2_lite.spider2_lite_dir=${realDir}`]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(recorded).toEqual([1, 1, 1, 0, 0]);
    expect(reverified).toEqual(recorded);
  }, 180_000);
});
