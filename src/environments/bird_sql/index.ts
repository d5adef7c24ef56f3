// bird_sql: BIRD text-to-SQL, scored by execution. The model's SQL (extract.ts) and the row's gold SQL
// both run against the task's SQLite database; reward 1 when their result rows are equal as unordered
// sets (Python's `set(gold) == set(pred)`). Matches NeMo Gym's resources_servers/bird_sql at commit
// 07d6b0d: row fields, config keys, extraction, failure reasons and metrics (pass@k overall and per
// difficulty). The databases come from `bird_sql_dir` (databases.ts); SQL runs on worker threads
// (verifiers/sql). `/verify` needs only the request ("stateless").
import { availableParallelism } from "node:os";
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { outputText } from "../../protocol/index.js";
import { sameRowSet } from "../../verifiers/sql/python_sqlite.js";
import { SqlitePool } from "../../verifiers/sql/sqlite_pool.js";
import { databasePath, devDatabasesDir } from "./databases.js";
import { extractSql, hasSqlCodeblock } from "./extract.js";
import { birdMetrics } from "./metrics.js";

const Config = z.strictObject({
  bird_sql_dir: z.string().default("resources_servers/bird_sql/.bird_sql"),
  /** Queries running at once (NeMo Gym's semaphore); Gymkit runs them on at most this many threads, capped at the cores. */
  max_concurrency: z.number().int().positive().default(32),
  sql_execution_timeout_s: z.number().positive().default(30.0),
});
type Config = z.infer<typeof Config>;

interface Resources {
  pool: SqlitePool;
  databases: string;
}

export default defineEnvironment({
  id: "bird_sql",
  description: "BIRD text-to-SQL: reward 1 when the model's SQL returns the same set of rows as the gold SQL on the task's SQLite database.",
  configSchema: Config,
  rowFields: {
    question: z.string(),
    gt_sql: z.string(),
    db_id: z.string(),
    difficulty: z.string().nullable().default(null),
    id: z.number().int().nullable().default(null),
  },
  verifyEchoes: "all",
  reverifyMode: "stateless",
  setup: (instance): Resources => {
    const config = instance.config as Config;
    const databases = devDatabasesDir(config.bird_sql_dir);
    return { pool: new SqlitePool(Math.min(config.max_concurrency, availableParallelism())), databases };
  },
  teardown: (resources) => resources.pool.close(),
  verify: async (request, ctx) => {
    const config = ctx.config as Config;
    const generated = outputText(request.response);
    const extracted = extractSql(generated);
    const hadCodeblock = hasSqlCodeblock(generated);
    const path = databasePath(ctx.resources.databases, request.db_id);
    const timeoutMs = config.sql_execution_timeout_s * 1000;
    const gold = await ctx.resources.pool.query(path, request.gt_sql, timeoutMs);
    const pred = gold.ok ? await ctx.resources.pool.query(path, extracted, timeoutMs) : undefined;
    const match = gold.ok && pred !== undefined && pred.ok && sameRowSet(gold.rows, pred.rows);
    const noAnswerOrWrong = hadCodeblock ? "execution_error" : "no_sql_extracted";
    const failureReason = !gold.ok ? "gold_execution_error" : match ? "none" : noAnswerOrWrong;
    return {
      reward: match ? 1.0 : 0.0,
      model_output: generated,
      extracted_sql: extracted,
      had_codeblock: hadCodeblock,
      execution_match: match,
      failure_reason: failureReason,
    };
  },
  aggregateMetrics: (rows, ctx) => birdMetrics(rows, ctx.defaults(rows)),
});
