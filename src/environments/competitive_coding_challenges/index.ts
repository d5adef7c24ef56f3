// competitive_coding_challenges: contest problems (USACO, IOI, …) solved in C++17 and graded by the
// problem's own compile and run scripts, as NeMo Gym's competitive_coding_challenges server at commit
// 07d6b0d (its ccc_eval.py evaluator): the problem comes from the test file (metadata.ts) by the row's
// `competition_id` and `problem_id`; the answer's last C++ block (solution.ts) is compiled and run on
// the subtask's tests in Gymkit's sandbox (grader.ts, driver.ts); the reward is binary (the subtask,
// or the whole problem, got full marks) or the fraction of tests passed (reward.ts). Metrics: pass@k
// of accuracy and the competition-style total score (metrics.ts).
import { resolve } from "node:path";
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { gradeEntry, type EntryResult } from "./grader.js";
import { CccMetadata } from "./metadata.js";
import { cccAggregate } from "./metrics.js";
import { binaryReward, fractionReward } from "./reward.js";
import { submissionFor } from "./solution.js";
import { lastAssistantText } from "./text.js";

const Config = z.strictObject({
  /** NeMo Gym's: the problems and their tests (JSON lines; NeMo Gym's config reads CCC_TEST_FILE). Relative paths are from the working directory. */
  test_file: z.string().default("data/test_metadata.jsonl"),
  /** NeMo Gym's: tests graded together (one sandbox run per batch here). */
  test_batch_size: z.number().int().positive().default(32),
  /** NeMo Gym's; its evaluator takes it but never limits by it, nor does Gymkit (the sandbox's slots do). */
  num_parallel_requests: z.number().int().positive().default(16),
  /** NeMo Gym's: factor on each problem's time limit (TIME_LIMIT_SCALE for run.sh) and on the 30 s per-test deadline. */
  time_scale: z.number().positive().default(2.0),
  /** NeMo Gym's folder for compilation files shared between machines; the sandbox's scratch folder plays that part here, so it is unused. */
  shared_dir: z.string().default("/tmp"),
  reward_mode: z.enum(["binary", "fraction"]).default("binary"),
  /** Gymkit's: memory of one batch's run (compiler and programs), and the size of its scratch folder. */
  memory_limit_mb: z.number().int().positive().default(4096),
  scratch_limit_mb: z.number().int().positive().default(1024),
  /** Gymkit's: memory for compiled submissions kept by program and problem (build_cache.ts); 0 keeps none. */
  compile_cache_mb: z.number().int().nonnegative().default(256),
  /** Gymkit's: a folder where compiled submissions are also kept, shared by processes and runs; null: memory only. */
  compile_cache_dir: z.string().nullable().default(null),
});
type Config = z.infer<typeof Config>;

/** Test files by path, read once per process (they can be large). */
const loaded = new Map<string, Promise<CccMetadata>>();
export function metadataFor(config: Config): Promise<CccMetadata> {
  const path = resolve(config.test_file);
  let md = loaded.get(path);
  if (!md) {
    md = Promise.resolve().then(() => CccMetadata.fromFile(path));
    md.catch(() => loaded.delete(path));
    loaded.set(path, md);
  }
  return md;
}

const optionalText = z.string().nullable().default(null);

export default defineEnvironment({
  id: "competitive_coding_challenges",
  description: "Contest problems solved in C++17, graded by each problem's compile/run scripts on its tests in the sandbox.",
  configSchema: Config as z.ZodType<Config>,
  rowFields: {
    competition_id: optionalText,
    problem_id: z.string(),
    subtask: optionalText,
    name: optionalText,
    subtask_score: z.number().nullable().default(null),
  },
  verifyEchoes: "all",
  reverifyMode: "stateless",
  aggregateMetrics: async (rows, ctx) => {
    const md = await metadataFor(ctx.config).catch(() => null);
    return cccAggregate(rows, ctx.defaults(rows), md);
  },
  verify: async (request, ctx) => {
    const name = request.name || request.problem_id;
    const row = request as unknown as Record<string, unknown>;
    let reward = 0.0;
    let details: Record<string, unknown>;
    try {
      const metadata = await metadataFor(ctx.config);
      const problem = metadata.problem(request.problem_id, request.competition_id || null);
      const generation = lastAssistantText(request.response);
      const submission = submissionFor(problem, request.problem_id, generation);
      const totalTime = row.total_time === null || row.total_time === undefined ? 0 : Number(row.total_time) || 0;
      const result: EntryResult = await gradeEntry(problem, submission, request.subtask, totalTime, {
        testBatchSize: ctx.config.test_batch_size,
        timeScale: ctx.config.time_scale,
        runAllTests: ctx.config.reward_mode === "fraction",
        memoryLimitMb: ctx.config.memory_limit_mb,
        scratchLimitMb: ctx.config.scratch_limit_mb,
        buildCacheMb: ctx.config.compile_cache_mb,
        buildCacheDir: ctx.config.compile_cache_dir === null ? null : resolve(ctx.config.compile_cache_dir),
      });
      details = { name, subtask: request.subtask, ...result };
      reward = ctx.config.reward_mode === "fraction" ? fractionReward(request, result) : binaryReward(request, result, metadata);
    } catch (error) {
      details = { error: error instanceof Error ? error.message : String(error) };
    }
    return {
      name,
      reward,
      details,
      num_tests_run: (details.num_tests_run as number | undefined) ?? 0,
      total_test_execution_time_s: (details.total_test_execution_time_s as number | undefined) ?? 0.0,
      mean_test_execution_time_s: (details.mean_test_execution_time_s as number | undefined) ?? 0.0,
    };
  },
});
