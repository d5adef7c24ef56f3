// bird_sql over HTTP and through the CLI, on a small database the test builds from the example rows'
// own schema and sample rows (`sql_context`). What NeMo Gym's code decides on that database is in
// testdata/expected.json, made by testdata/make_fixture.py running NeMo Gym's bird_sql code (07d6b0d)
// on CPython's sqlite3: our cases (with traps) and the five recorded answers must score the same here.
// NeMo Gym's recorded rewards themselves need BIRD's real databases: that test runs when
// BIRD_SQL_DIR names them and is skipped otherwise.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import birdSql from "./index.js";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { startFakeEngine, type FakeEngine, type Turn } from "../../../test/doubles/fake_engine.js";
import { runGym } from "../../../test/helpers/cli.js";
import { environmentFolder, nemoGymCheckout, recordedRollouts, reverifyRecorded } from "../../../test/helpers/nemo_gym_catalog.js";

interface Verdict {
  extracted_sql: string;
  had_codeblock: boolean;
  execution_match: boolean;
  failure_reason: string;
  reward: number;
}
const rows = readJsonlFile(new URL("./data/example.jsonl", import.meta.url));
const cases = JSON.parse(readFileSync(new URL("./testdata/cases.json", import.meta.url), "utf8")) as Array<{ name: string; gt_sql: string; text: string }>;
const expected = JSON.parse(readFileSync(new URL("./testdata/expected.json", import.meta.url), "utf8")) as { recorded: Verdict[]; cases: Verdict[] };
const recordings = recordedRollouts("bird_sql");
const recordedText = (i: number) => recordings[i]!.response.output.at(-1).content[0].text as string;

/** `<base>/dev_20240627/dev_databases/california_schools/california_schools.sqlite`, from the rows' sql_context. */
async function buildBirdDir(base: string): Promise<void> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.exec(
    String(rows[0]!.sql_context)
      .split("\n")
      .filter((line) => line.trim() !== "...")
      .join("\n"),
  );
  const dir = join(base, "dev_20240627", "dev_databases", "california_schools");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "california_schools.sqlite"), db.export());
  db.close();
}

let dir: string;
let env: RunningInstance;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gym-bird-sql-"));
  await buildBirdDir(join(dir, "bird"));
  env = await startInstance(birdSql, { config: { bird_sql_dir: join(dir, "bird"), max_concurrency: 2 } });
});
afterAll(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

async function verify(row: Record<string, unknown>, text: string) {
  const result = await env.request("/verify", { ...row, response: responseWith([assistantMessage(text)]) });
  expect(result.status, result.text).toBe(200);
  return result.body as Verdict & Record<string, unknown>;
}
const pick = (v: Verdict) => ({ extracted_sql: v.extracted_sql, had_codeblock: v.had_codeblock, execution_match: v.execution_match, failure_reason: v.failure_reason, reward: v.reward });

describe("the rules, against NeMo Gym's code on the same database (testdata/expected.json)", () => {
  cases.forEach((c, i) => {
    it(c.name, async () => {
      const body = await verify({ ...rows[0], gt_sql: c.gt_sql }, c.text);
      expect(pick(body)).toEqual(expected.cases[i]);
    });
  });

  it("the five recorded answers score as NeMo Gym's code scores them on this database", async () => {
    for (const [i, verdict] of expected.recorded.entries()) {
      expect(pick(await verify(rows[i]!, recordedText(i))), `line ${i + 1}`).toEqual(verdict);
    }
  });

  it("answers NeMo Gym's verify response fields, the row's other fields kept", async () => {
    const body = await verify(rows[0]!, "```sql\nSELECT 1\n```");
    for (const key of ["question", "gt_sql", "db_id", "difficulty", "id", "sql_context", "model_output", "extracted_sql", "had_codeblock", "execution_match", "failure_reason"]) expect(body).toHaveProperty(key);
    expect(body.model_output).toBe("```sql\nSELECT 1\n```");
  });

  it("a write never reaches the database file", async () => {
    const path = join(dir, "bird", "dev_20240627", "dev_databases", "california_schools", "california_schools.sqlite");
    const before = readFileSync(path);
    await verify({ ...rows[0], gt_sql: "SELECT 1" }, "```sql\nDROP TABLE frpm\n```");
    expect((await verify(rows[0]!, `\`\`\`sql\n${rows[0]!.gt_sql}\n\`\`\``)).reward).toBe(1);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it("a query past sql_execution_timeout_s fails (its worker is replaced) and the next one runs", async () => {
    const slow = await startInstance(birdSql, { config: { bird_sql_dir: join(dir, "bird"), sql_execution_timeout_s: 0.2 } });
    try {
      const endless = "```sql\nWITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c\n```";
      const r = await slow.request("/verify", { ...rows[0], gt_sql: "SELECT 1", response: responseWith([assistantMessage(endless)]) });
      expect(r.body).toMatchObject({ reward: 0, failure_reason: "execution_error" });
      const ok = await slow.request("/verify", { ...rows[0], gt_sql: "SELECT 1", response: responseWith([assistantMessage("```sql\nSELECT 1\n```")]) });
      expect(ok.body).toMatchObject({ reward: 1, failure_reason: "none" });
    } finally {
      await slow.close();
    }
  });

  it("an unknown db_id is an empty database, as Python's sqlite3.connect makes one: the gold fails", async () => {
    expect(await verify({ ...rows[0], db_id: "no_such_db" }, "```sql\nSELECT 1\n```")).toMatchObject({ failure_reason: "gold_execution_error", reward: 0 });
  });

  it("refuses to start without databases, saying how to supply them", async () => {
    await expect(startInstance(birdSql, { config: { bird_sql_dir: join(dir, "missing") } })).rejects.toThrow(/BIRD's dev archive/);
  });

  it("says verification is stateless", async () => {
    expect((await env.request("/reverify_mode")).body).toBe("stateless");
  });
});

describe("NeMo Gym's recorded rollouts (data/example_rollouts.jsonl, 07d6b0d)", () => {
  it("`gym eval reverify --inputs data/example.jsonl` joins each rollout to its row and scores it (on the test's database)", async () => {
    const checkout = nemoGymCheckout(["bird_sql"]);
    try {
      await buildBirdDir(join(checkout.root, "resources_servers", "bird_sql", ".bird_sql"));
      const config = "resources_servers/bird_sql/configs/bird_sql.yaml";
      const { result, reverified, rows: out } = await reverifyRecorded("bird_sql", ["--config", config, "--inputs", "resources_servers/bird_sql/data/example.jsonl"], { cwd: checkout.root });
      expect(result.code, result.stderr + result.stdout).toBe(0);
      expect(reverified).toEqual(expected.recorded.map((v) => v.reward));
      expect(out.map((r) => r?.gt_sql)).toEqual(rows.map((r) => r.gt_sql));
    } finally {
      checkout.remove();
    }
  }, 180_000);

  const realDir = process.env.BIRD_SQL_DIR;
  it.skipIf(!realDir)("re-verify to NeMo Gym's recorded rewards on BIRD's real databases (set BIRD_SQL_DIR)", async () => {
    const { result, recorded, reverified } = await reverifyRecorded("bird_sql", [
      "--resources-server",
      "bird_sql",
      `++bird_sql.resources_servers.bird_sql.bird_sql_dir=${realDir}`,
      "--inputs",
      join(environmentFolder("bird_sql"), "data", "example.jsonl"),
    ]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(recorded).toEqual([1, 0, 0, 1, 0]);
    expect(reverified).toEqual(recorded);
  }, 180_000);
});

describe("NeMo Gym's config, unchanged (resources_servers/bird_sql/configs/bird_sql.yaml)", () => {
  let engine: FakeEngine;
  const answers = new Map(rows.map((row, i) => [row.responses_create_params.input.at(-1).content as string, recordedText(i)]));
  beforeAll(async () => {
    engine = await startFakeEngine({ policy: (turns: Turn[]) => ({ text: answers.get(turns.findLast((t) => t.role === "user")?.content ?? "") ?? "?" }) });
  });
  afterAll(() => engine.close());

  it("runs every example row (the recorded answers replayed); rewards and NeMo Gym's bird_sql metrics", async () => {
    const checkout = nemoGymCheckout(["bird_sql"]);
    try {
      await buildBirdDir(join(checkout.root, "resources_servers", "bird_sql", ".bird_sql"));
      const output = join(dir, "bird_sql.jsonl");
      const result = await runGym(
        [
          "eval",
          "run",
          "--config",
          "resources_servers/bird_sql/configs/bird_sql.yaml",
          "--config",
          "responses_api_models/vllm_model/configs/vllm_model.yaml",
          "--agent",
          "bird_sql_simple_agent",
          "--input",
          "resources_servers/bird_sql/data/example.jsonl",
          "--model-url",
          engine.baseUrl,
          "--model",
          "m",
          "-o",
          output,
          "--quiet",
        ],
        { cwd: checkout.root, timeoutMs: 120_000 },
      );
      expect(result.code, result.stderr + result.stdout).toBe(0);
      const out = readFileSync(output, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
      out.sort((a, b) => a._ng_task_index - b._ng_task_index);
      expect(out.map((r) => r.reward)).toEqual(expected.recorded.map((v) => v.reward));
      const metrics = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8")) as Array<Record<string, any>>;
      const m = metrics[0]!.agent_metrics;
      // Rewards 0,1,0,1,1; difficulties simple, moderate, simple, simple, moderate.
      expect(m["mean/reward"]).toBeCloseTo(0.6, 12);
      expect(m["pass@1/accuracy"]).toBeCloseTo(60, 10);
      expect(m["pass@1[avg-of-1]/accuracy"]).toBeCloseTo(60, 10);
      expect(m["simple/pass@1/accuracy"]).toBeCloseTo(100 / 3, 10);
      expect(m["moderate/pass@1/accuracy"]).toBeCloseTo(100, 10);
      expect(m["pass@1[avg-of-1]/no_answer"]).toBe(0);
      const keys = Object.keys(metrics[0]!.key_metrics);
      expect(keys).toEqual(expect.arrayContaining(["pass@1[avg-of-1]/accuracy", "pass@1/accuracy", "simple/pass@1[avg-of-1]/accuracy", "moderate/pass@1[avg-of-1]/accuracy"]));
      expect(keys.every((k) => k.endsWith("/accuracy") || k.startsWith("mean/"))).toBe(true);
    } finally {
      checkout.remove();
    }
  }, 180_000);
});
