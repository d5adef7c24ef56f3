// evalplus: function completion judged by EvalPlus' base and plus tests (HumanEval+, MBPP+), as NeMo
// Gym's evalplus server at commit 07d6b0d: the last fenced block of the answer (extract.ts), with the
// task's prompt put in front unless it already starts with it, is checked by evalplus 0.3.1's rules
// (harness.ts) in Gymkit's sandbox; reward 1.0 only when both the base and the plus inputs pass.
// The task comes from the row's `verifier_metadata.task_id`; the tasks from a local EvalPlus file
// (dataset.ts). Metrics: pass@k of both verdicts (metrics.ts).
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { outputText } from "../../protocol/responses.js";
import { PYTHON } from "../../sandbox/languages.js";
import { sharedSandbox } from "../../sandbox/shared.js";
import { datasetOf, readTaskFile, taskFilePath, type EvalPlusDataset } from "./dataset.js";
import { extractCodeStrict } from "./extract.js";
import { EVALPLUS_HARNESS } from "./harness.js";
import { passMajorityAggregate } from "../../metrics/pass_majority_aggregate.js";

const Config = z.strictObject({
  /** NeMo Gym's: checks at once. */
  num_processes: z.number().int().positive().default(8),
  /** NeMo Gym's time knobs: each input may run max(min_time_limit, factor · canonical time) seconds. */
  min_time_limit: z.number().positive().default(1.0),
  gt_time_limit_factor: z.number().positive().default(4.0),
  /** NeMo Gym's; as evalplus 0.3.1 (which ignores it when loading), only "default" is read. */
  evalplus_version: z.string().default("default"),
  /** Gymkit's: the HumanEval+ / MBPP+ task files (JSON lines, maybe gzipped); null = evalplus' override variable or cache path. */
  humaneval_file: z.string().nullable().default(null),
  mbpp_file: z.string().nullable().default(null),
  /** Gymkit's: memory of one check. */
  memory_limit_mb: z.number().int().positive().default(4096),
});
type Config = z.infer<typeof Config>;

/** One instance's task files (read on first use) and its limit of checks at once. */
class Resources {
  private readonly files = new Map<EvalPlusDataset, Map<string, string>>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly config: Config) {}

  task(taskId: string): { dataset: EvalPlusDataset; line: string | undefined } {
    const dataset = datasetOf(taskId);
    let tasks = this.files.get(dataset);
    if (!tasks) {
      tasks = readTaskFile(taskFilePath(dataset, dataset === "mbpp" ? this.config.mbpp_file : this.config.humaneval_file));
      this.files.set(dataset, tasks);
    }
    return { dataset, line: tasks.get(taskId) };
  }

  async limited<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.config.num_processes) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}

export interface EvalPlusVerdict {
  base_status: string | null;
  plus_status: string | null;
  base_details: number[] | null;
  plus_details: number[] | null;
}

/** Runs evalplus' check of `solution` for the task (its raw JSON line) in the sandbox. */
export async function checkSolution(taskLine: string, dataset: EvalPlusDataset, solution: string, config: Config): Promise<EvalPlusVerdict> {
  const sandbox = await sharedSandbox();
  const params = { dataset, min_time_limit: config.min_time_limit, gt_time_limit_factor: config.gt_time_limit_factor };
  const run = await sandbox.run({
    argv: [PYTHON, "harness.py"],
    files: { "harness.py": EVALPLUS_HARNESS, "task.json": taskLine, "solution.py": solution, "params.json": JSON.stringify(params) },
    env: { OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1", MKL_NUM_THREADS: "1" },
    limits: {
      // Two input sets of at most 63 s each, plus the canonical solution's own runs.
      wallMs: 300_000,
      memoryBytes: config.memory_limit_mb * 1024 * 1024,
    },
  });
  if (run.status !== "ok") throw new Error(`the evalplus check did not complete (${run.status}${run.reason ? `: ${run.reason}` : ""}): ${run.stderr.slice(-2000)}`);
  return JSON.parse(run.stdout) as EvalPlusVerdict;
}

const scores = (row: Record<string, unknown>) => ({
  passing_base_tests: row.is_correct === true ? 1 : 0,
  passing_plus_tests: row.is_correct_plus === true ? 1 : 0,
});

export default defineEnvironment({
  id: "evalplus",
  description: "Function completion judged by EvalPlus base + plus tests (HumanEval+, MBPP+) in the sandbox.",
  configSchema: Config as z.ZodType<Config>,
  rowFields: {
    verifier_metadata: z.record(z.string(), z.unknown()).nullable().default(null),
  },
  reverifyMode: "stateless",
  setup: ({ config }) => new Resources(config),
  aggregateMetrics: (rows, ctx) => passMajorityAggregate(rows, ctx.defaults(rows), scores, "extracted_model_code"),
  verify: async (request, ctx) => {
    const none = { extracted_model_output: null, extracted_model_code: null, base_status: null, plus_status: null, is_correct: false, is_correct_plus: false, metadata: null };
    const taskId = (request.verifier_metadata ?? {}).task_id;
    if (taskId === undefined || taskId === null) return { reward: 0.0, ...none, metadata: { error: "missing task_id in verifier_metadata" } };
    const { dataset, line } = ctx.resources.task(String(taskId));
    if (line === undefined) return { reward: 0.0, ...none, metadata: { error: `unknown task_id '${String(taskId)}' for dataset '${dataset}'` } };
    const text = outputText(request.response);
    if (text.trim() === "") return { reward: 0.0, ...none };
    const code = extractCodeStrict(text);
    if (code === "") return { reward: 0.0, ...none, extracted_model_output: text };
    const prompt = (JSON.parse(line) as { prompt: string }).prompt;
    const solution = code.startsWith(prompt) ? code : prompt + code;
    const verdict = await ctx.resources.limited(() => checkSolution(line, dataset, solution, ctx.config));
    const isCorrect = verdict.base_status === "pass";
    const isCorrectPlus = isCorrect && verdict.plus_status === "pass";
    return {
      reward: isCorrectPlus ? 1.0 : 0.0,
      extracted_model_output: text,
      extracted_model_code: code,
      base_status: verdict.base_status,
      plus_status: verdict.plus_status,
      is_correct: isCorrect,
      is_correct_plus: isCorrectPlus,
      metadata: { base_details: verdict.base_details, plus_details: verdict.plus_details },
    };
  },
});
