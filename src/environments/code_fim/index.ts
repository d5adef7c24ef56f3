// code_fim: code fill-in-the-middle judged by HumanEval-Infilling's tests, as NeMo Gym's code_fim at
// commit 07d6b0d: the answer's last fenced block, cleaned as NeMo-Skills does (completion.ts), is put
// between the task's prefix and suffix and the task's `check` runs on it in Gymkit's sandbox
// (harness.ts); reward 1.0 when it passes. The task comes from the row's `verifier_metadata.task_id`,
// the tasks from HumanEval-Infilling's file for the configured split (a local copy). Metrics: pass@k of
// `accuracy` = passed (answer key `completion`).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { outputText } from "../../protocol/responses.js";
import { PYTHON } from "../../sandbox/languages.js";
import { sharedSandbox } from "../../sandbox/shared.js";
import { extractFimCode, postprocessCompletion } from "./completion.js";
import { FIM_HARNESS } from "./harness.js";
import { passMajorityAggregate } from "../../metrics/pass_majority_aggregate.js";

const SPLITS = ["single_line", "multi_line", "random_span", "random_span_light"] as const;
type Split = (typeof SPLITS)[number];

/** openai/human-eval-infilling's file of each split (under its data/ folder). */
const SPLIT_FILES: Record<Split, string> = {
  single_line: "HumanEval-SingleLineInfilling",
  multi_line: "HumanEval-MultiLineInfilling",
  random_span: "HumanEval-RandomSpanInfilling",
  random_span_light: "HumanEval-RandomSpanInfillingLight",
};

const Config = z.strictObject({
  split: z.enum(SPLITS).default("random_span"),
  num_processes: z.number().int().positive().default(8),
  /** Seconds the check program may run (NeMo-Skills uses 3). */
  timeout: z.number().positive().default(3.0),
  /**
   * Gymkit's: a folder holding HumanEval-Infilling's files (`HumanEval-<Split>Infilling.jsonl[.gz]`, as in
   * openai/human-eval-infilling's data/); null = the HUMAN_EVAL_INFILLING_DATA_DIR environment variable.
   */
  data_dir: z.string().nullable().default(null),
  memory_limit_mb: z.number().int().positive().default(2048),
});
type Config = z.infer<typeof Config>;

/** The split's tasks by id, each kept as its raw JSON line. */
export function readSplit(config: Config): Map<string, string> {
  const dir = config.data_dir ?? process.env.HUMAN_EVAL_INFILLING_DATA_DIR;
  if (!dir) throw new Error("code_fim needs HumanEval-Infilling's data: set data_dir in the config (or HUMAN_EVAL_INFILLING_DATA_DIR) to a folder holding its files, e.g. a checkout of openai/human-eval-infilling's data/");
  const base = join(dir, SPLIT_FILES[config.split]);
  const path = [`${base}.jsonl`, `${base}.jsonl.gz`].find((p) => existsSync(p));
  if (!path) throw new Error(`code_fim: neither ${base}.jsonl nor ${base}.jsonl.gz exists`);
  const bytes = readFileSync(path);
  const text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8");
  const tasks = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    tasks.set((JSON.parse(line) as { task_id: string }).task_id, line);
  }
  return tasks;
}

class Resources {
  private tasks?: Map<string, string>;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly config: Config) {}

  task(taskId: string): string | undefined {
    this.tasks ??= readSplit(this.config);
    return this.tasks.get(taskId);
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

/** Runs the task's check on `completion` in the sandbox: `{passed, result}` as human_eval_infilling. */
export async function checkCompletion(taskLine: string, completion: string, config: Config): Promise<{ passed: boolean; result: string }> {
  const sandbox = await sharedSandbox();
  const run = await sandbox.run({
    argv: [PYTHON, "harness.py", String(config.timeout)],
    files: { "harness.py": FIM_HARNESS, "task.json": taskLine, "completion.txt": completion },
    limits: { wallMs: (config.timeout + 10) * 1000, memoryBytes: config.memory_limit_mb * 1024 * 1024 },
  });
  if (run.status !== "ok") throw new Error(`the code_fim check did not complete (${run.status}${run.reason ? `: ${run.reason}` : ""}): ${run.stderr.slice(-2000)}`);
  return JSON.parse(run.stdout) as { passed: boolean; result: string };
}

export default defineEnvironment({
  id: "code_fim",
  description: "Code fill-in-the-middle judged by HumanEval-Infilling's tests in the sandbox.",
  configSchema: Config as z.ZodType<Config>,
  rowFields: {
    verifier_metadata: z.record(z.string(), z.unknown()).nullable().default(null),
  },
  reverifyMode: "stateless",
  setup: ({ config }) => new Resources(config),
  aggregateMetrics: (rows, ctx) => passMajorityAggregate(rows, ctx.defaults(rows), (row) => ({ accuracy: row.passed === true ? 1 : 0 }), "completion"),
  verify: async (request, ctx) => {
    const none = { extracted_model_output: null, extracted_model_code: null, completion: null, status: null, passed: false, metadata: null };
    const taskId = (request.verifier_metadata ?? {}).task_id;
    if (taskId === undefined || taskId === null) return { reward: 0.0, ...none, metadata: { error: "missing task_id in verifier_metadata" } };
    const line = ctx.resources.task(String(taskId));
    if (line === undefined) return { reward: 0.0, ...none, metadata: { error: `unknown task_id '${String(taskId)}' for split '${ctx.config.split}'` } };
    const text = outputText(request.response);
    if (text === "") return { reward: 0.0, ...none };
    const code = extractFimCode(text);
    if (code === "") return { reward: 0.0, ...none, extracted_model_output: text };
    const task = JSON.parse(line) as { prompt: string; suffix: string };
    const completion = postprocessCompletion(code, task.prompt, task.suffix);
    const verdict = await ctx.resources.limited(() => checkCompletion(line, completion, ctx.config));
    return {
      reward: verdict.passed ? 1.0 : 0.0,
      extracted_model_output: text,
      extracted_model_code: code,
      completion,
      status: verdict.result,
      passed: verdict.passed,
      metadata: null,
    };
  },
});
