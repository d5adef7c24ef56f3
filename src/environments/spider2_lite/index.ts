// spider2_lite: Spider 2.0-Lite text-to-SQL on its local SQLite databases, scored by execution. The
// model's SQL (extract.ts) runs against the task's database and its result is compared (compare.ts)
// with the gold SQL's result, or with the row's precomputed gold result sets. Matches NeMo Gym's
// resources_servers/spider2_lite at commit 07d6b0d: row fields, config keys, extraction, comparison,
// failure reasons; metrics are NeMo Gym's defaults. SQL runs on worker threads (verifiers/sql).
import { availableParallelism } from "node:os";
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { outputText } from "../../protocol/index.js";
import { SqlitePool } from "../../verifiers/sql/sqlite_pool.js";
import { compareMultiResultSets, type Row, type Value } from "./compare.js";
import { databasePath, sqliteDir } from "./databases.js";
import { extractSql } from "./extract.js";

const Config = z.strictObject({
  spider2_lite_dir: z.string().default("resources_servers/spider2_lite/.spider2_lite"),
  /** Queries running at once (NeMo Gym's semaphore); Gymkit runs them on at most this many threads, capped at the cores. */
  max_concurrency: z.number().int().positive().default(32),
  sql_execution_timeout_s: z.number().positive().default(30.0),
});
type Config = z.infer<typeof Config>;

interface Resources {
  pool: SqlitePool;
  databases: string;
}

/** A JSON gold value as Python's json module reads it: integral numbers are ints. */
function fromJson(v: unknown): Value {
  if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
  return v as Value;
}

export default defineEnvironment({
  id: "spider2_lite",
  description: "Spider 2.0-Lite text-to-SQL: reward 1 when the model's SQL returns the gold result (column vectors, numbers within 0.01) on the task's SQLite database.",
  configSchema: Config,
  rowFields: {
    uuid: z.union([z.string(), z.number().int()]).nullable().default(null),
    instance_id: z.string().nullable().default(null),
    db_id: z.string(),
    question: z.string(),
    gold_sql: z.string().nullable().default(null),
    gold_result: z.array(z.array(z.array(z.unknown()))).nullable().default(null),
    ignore_order: z.boolean().default(true),
    condition_cols: z.array(z.unknown()).nullable().default(null),
    metadata: z.record(z.string(), z.unknown()).nullable().default(null),
  },
  verifyEchoes: "all",
  reverifyMode: "stateless",
  setup: (instance): Resources => {
    const config = instance.config as Config;
    return { pool: new SqlitePool(Math.min(config.max_concurrency, availableParallelism())), databases: sqliteDir(config.spider2_lite_dir) };
  },
  teardown: (resources) => resources.pool.close(),
  verify: async (request, ctx) => {
    const config = ctx.config as Config;
    const generated = outputText(request.response);
    const path = databasePath(ctx.resources.databases, request.db_id);
    const timeoutMs = config.sql_execution_timeout_s * 1000;
    // NeMo Gym's response drops the gold result and the comparison settings; the rest of the row stays.
    const verdict = (reward: number, extracted: string | null, match: boolean, failure: string) => ({
      reward,
      gold_result: undefined,
      ignore_order: undefined,
      condition_cols: undefined,
      model_output: generated,
      extracted_sql: extracted,
      execution_match: match,
      failure_reason: failure,
      gold_sql: request.gold_sql,
    });
    const extracted = generated === "" ? null : extractSql(generated);
    if (!extracted) return verdict(0.0, null, false, "no_sql_extracted");
    let match: boolean;
    if (request.gold_sql) {
      const gold = await ctx.resources.pool.query(path, request.gold_sql, timeoutMs);
      const pred = gold.ok ? await ctx.resources.pool.query(path, extracted, timeoutMs) : undefined;
      if (!gold.ok || !pred?.ok) return verdict(0.0, extracted, false, "execution_error");
      match = compareMultiResultSets([gold.rows as Row[]], pred.rows as Row[], request.condition_cols ?? [], request.ignore_order);
    } else if (request.gold_result && request.gold_result.length > 0) {
      const pred = await ctx.resources.pool.query(path, extracted, timeoutMs);
      if (!pred.ok) return verdict(0.0, extracted, false, "execution_error");
      const goldSets = request.gold_result.map((set) => set.map((row) => row.map(fromJson)));
      match = compareMultiResultSets(goldSets, pred.rows as Row[], request.condition_cols, request.ignore_order);
    } else {
      throw new Error("verifier_metadata must contain either 'gold_sql' or 'gold_result'");
    }
    return verdict(match ? 1.0 : 0.0, extracted, match, match ? "none" : "execution_error");
  },
});
