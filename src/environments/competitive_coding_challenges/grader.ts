// Grades a submission against a problem's tests, as NeMo Gym's ccc_eval.py `_evaluate_entry` at commit
// 07d6b0d: only the row's subtask's tests when it names one the problem has; tests go in batches of
// `test_batch_size`, and a test is run only if one of its subtasks still needs it (a "sum_tests"
// subtask always does; a "min" subtask stops needing tests once one scored below 1), unless every test
// must run (fraction reward). A test's score is run.sh's standard output read as a Python float (0
// when it is not one); a compilation that writes anything to standard error fails every test.
// Subtask score: "min" = round(min test score · subtask score, score_precision) (0 once failed);
// "sum_tests" = the number of tests that scored above 0.
// Gymkit's addition: the submission is compiled once per row (not per batch), in a run of its own,
// and a clean build is kept by what went into it (build_cache.ts), so rows and batches with the same
// program and problem share it; every batch then runs on an unpacked copy of that build.
import { sharedSandbox } from "../../sandbox/shared.js";
import { buildFor, buildKey, type Build } from "./build_cache.js";
import { DRIVER } from "./driver.js";
import type { ProblemMeta, SubtaskMeta } from "./metadata.js";
import type { Submission } from "./solution.js";
import { pyFloat, pyRound } from "./pyfloat.js";

export interface GradeOptions {
  testBatchSize: number;
  timeScale: number;
  runAllTests: boolean;
  memoryLimitMb: number;
  scratchLimitMb: number;
  /** Memory for kept builds, in MiB (0: none kept, each row compiles its own). */
  buildCacheMb: number;
  /** Folder where builds are also kept, shared by processes; null: memory only. */
  buildCacheDir: string | null;
}

export type TestOutput = Record<string, unknown> & { score: number };

export interface EntryResult {
  test_case_results: Record<string, { score: number; outputs: TestOutput[] }>;
  num_tests_run: number;
  total_test_execution_time_s: number;
  mean_test_execution_time_s: number;
}

/** Python's `float(x)` of a number. */
const scoreOf = (out: Record<string, unknown>) => Number(out.score ?? 0) || 0;

/** The largest build (tar bytes) carried from the compiling run to the batches' runs. */
const BUILD_CARRY_BYTES = 32 * 1024 * 1024;
const COMPILE_TIMEOUT_S = 120;

/** The problem folder and the submission, as the driver takes them. */
function folderFiles(problem: ProblemMeta, submission: Submission): Record<string, string | Uint8Array> {
  const files: Record<string, string | Uint8Array> = {
    "driver.sh": DRIVER,
    submission: submission.code,
    "pre/compile.sh": problem.compile ?? "",
    "pre/run.sh": patchRunScript(problem.run ?? ""),
  };
  for (const [path, content] of problem.grader_files ?? []) files[`pre/${path}`] = content;
  return files;
}

const decode = (b64: string | undefined) => Buffer.from(b64 ?? "", "base64").toString("utf8");

/** Compiles the submission with the problem folder in a run without tests; null when that run did not complete. */
async function compileSubmission(problem: ProblemMeta, submission: Submission, options: GradeOptions): Promise<Build | null> {
  const sandbox = await sharedSandbox();
  const run = await sandbox.run({
    argv: ["/bin/bash", "driver.sh"],
    files: folderFiles(problem, submission),
    env: { SOLUTION_PATH: submission.path, COMPILE_TIMEOUT: String(COMPILE_TIMEOUT_S), RUN_TIMEOUT: "1", TIME_SCALE: "1", KEEP_BUILD: String(BUILD_CARRY_BYTES), PATH: "/usr/local/bin:/usr/bin:/bin" },
    limits: {
      wallMs: (2 * COMPILE_TIMEOUT_S + 30) * 1000,
      memoryBytes: options.memoryLimitMb * 1024 * 1024,
      scratchBytes: options.scratchLimitMb * 1024 * 1024,
      fileBytes: options.scratchLimitMb * 1024 * 1024,
      pids: 256,
      stdoutBytes: 64 * 1024 * 1024,
    },
  });
  let tar: Buffer | null = null;
  for (const line of run.stdout.split("\n")) {
    if (line.startsWith("B|")) tar = Buffer.from(line.slice(2), "base64");
    else if (line.startsWith("C|")) {
      const parts = line.split("|");
      return { tar, stdout: decode(parts[1]), stderr: decode(parts[2]) };
    }
  }
  return null;
}

/** The key a build of `submission` for `problem` is kept by: everything that goes into the compiled folder. */
export function buildKeyOf(problem: ProblemMeta, submission: Submission): string {
  return buildKey([DRIVER, problem.compile ?? "", problem.run ?? "", problem.grader_files ?? [], submission.path, submission.code]);
}

/** The compiler step's result as every test of a failed compilation reports it. */
function compileFields(build: { stdout: string; stderr: string }): TestOutput {
  return { compile_success: build.stderr === "", compile_stdout: build.stdout, compile_stderr: build.stderr, run_stdout: "", run_stderr: "", error: "", score: 0.0 };
}

/**
 * Runs one batch of tests (all sharing the submission) in one sandbox run: on the unpacked `build`
 * when there is one, else compiling in the run itself. A build whose compilation failed runs nothing.
 */
async function runBatch(problem: ProblemMeta, submission: Submission, tests: Array<[string, { input: string; output: string }]>, timeScale: number, options: GradeOptions, build: Build | null): Promise<TestOutput[]> {
  const files = folderFiles(problem, submission);
  if (build?.tar) {
    files["base.tar"] = build.tar;
    files["compile.out"] = build.stdout;
    files["compile.err"] = build.stderr;
  }
  const encodingErrors = new Map<number, string>();
  tests.forEach(([, data], i) => {
    for (const [name, text] of [["input.txt", data.input], ["correct_output.txt", data.output]] as const) {
      // ccc_eval.py writes tests as latin-1; a character beyond it fails that test.
      if ([...text].some((c) => c.codePointAt(0)! > 0xff)) encodingErrors.set(i, `'latin-1' codec can't encode character in ${name}`);
      files[`tests/${i}/${name}`] = Buffer.from(text, "latin1");
    }
  });
  if (build && build.stderr !== "") {
    const failed = compileFields(build);
    return tests.map((_, i) => {
      const encodingError = encodingErrors.get(i);
      return encodingError ? { score: 0.0, output: "", error: encodingError } : { ...failed };
    });
  }
  const compileTimeout = COMPILE_TIMEOUT_S;
  const runTimeout = Math.max(30, Math.trunc(30 * timeScale));
  const sandbox = await sharedSandbox();
  const run = await sandbox.run({
    argv: ["/bin/bash", "driver.sh"],
    files,
    env: {
      SOLUTION_PATH: submission.path,
      COMPILE_TIMEOUT: String(compileTimeout),
      RUN_TIMEOUT: String(runTimeout),
      TIME_SCALE: String(timeScale),
      KEEP_BUILD: "0",
      PATH: "/usr/local/bin:/usr/bin:/bin",
    },
    limits: {
      wallMs: (2 * compileTimeout + tests.length * (runTimeout + 5) + 30) * 1000,
      memoryBytes: options.memoryLimitMb * 1024 * 1024,
      scratchBytes: options.scratchLimitMb * 1024 * 1024,
      fileBytes: options.scratchLimitMb * 1024 * 1024,
      pids: 256,
      stdoutBytes: 64 * 1024 * 1024,
    },
  });
  let compile: { stdout: string; stderr: string } | null = null;
  const ran = new Map<number, { ns: number; stdout: string; stderr: string; timedOut: boolean }>();
  for (const line of run.stdout.split("\n")) {
    const parts = line.split("|");
    if (parts[0] === "C") compile = { stdout: decode(parts[1]), stderr: decode(parts[2]) };
    else if (parts[0] === "T") ran.set(Number(parts[1]), { ns: Number(parts[2]), stdout: decode(parts[3]), stderr: decode(parts[4]), timedOut: parts[5] === "1" });
  }
  if (!compile) {
    const error = `the grading run did not complete (${run.status}${run.reason ? `: ${run.reason}` : ""}): ${run.stderr.slice(-2000)}`;
    return tests.map(() => ({ score: 0.0, output: "", error }));
  }
  const compiled = compile;
  return tests.map((_, i) => {
    const encodingError = encodingErrors.get(i);
    if (encodingError) return { score: 0.0, output: "", error: encodingError };
    const result = compileFields(compiled);
    if (!result.compile_success) return result;
    const r = ran.get(i);
    if (!r) return { ...result, error: `the test did not run (${run.status}${run.reason ? `: ${run.reason}` : ""})` };
    result.run_time_s = r.ns / 1e9;
    result.run_stdout = r.timedOut ? "" : r.stdout;
    result.run_stderr = r.timedOut ? `${r.stderr}Timed out\n` : r.stderr;
    result.score = pyFloat((result.run_stdout as string).trim()) ?? 0.0;
    return result;
  });
}

/** ccc_eval.py's fix for run.sh scripts that keep FIFOs open: kill the user's process before waiting on it. */
export function patchRunScript(script: string): string {
  return script.replace(/([ \t]*)wait "\$user_pid"/g, (match: string, indent: string, offset: number) => {
    const preceding = script.slice(Math.max(0, offset - 60), offset);
    if (preceding.includes("kill")) return match;
    return `${indent}kill "$user_pid" 2>/dev/null || true\n${match}`;
  });
}

export function aggregateSubtask(meta: SubtaskMeta, outputs: TestOutput[], failed: boolean): number {
  if (meta.aggregation === "min") {
    if (failed) return 0.0;
    const scores = outputs.map(scoreOf);
    const precision = Math.max(0, Math.trunc(Number(meta.score_precision ?? 0)));
    return pyRound((scores.length ? Math.min(...scores) : 0.0) * Number(meta.score), precision);
  }
  if (meta.aggregation === "sum_tests") return outputs.filter((o) => scoreOf(o) > 0).length;
  throw new Error(`Unsupported aggregation: ${meta.aggregation}`);
}

export async function gradeEntry(problem: ProblemMeta, submission: Submission, subtask: string | null | undefined, totalTime: number, options: GradeOptions): Promise<EntryResult> {
  const timeScale = options.timeScale * (totalTime > 300.0 ? 0.5 : 1.0);
  const state = new Map<string, { aggregation: string; outputs: TestOutput[]; failed: boolean }>();
  for (const [name, meta] of Object.entries(problem.subtasks)) state.set(name, { aggregation: meta.aggregation, outputs: [], failed: false });
  const subtasksOf = new Map<string, string[]>();
  for (const [name, meta] of Object.entries(problem.subtasks)) {
    for (const test of meta.test_names) {
      let list = subtasksOf.get(test);
      if (!list) subtasksOf.set(test, (list = []));
      list.push(name);
    }
  }
  let items = Object.entries(problem.all_tests);
  if (subtask && subtask in problem.subtasks) {
    const wanted = new Set(problem.subtasks[subtask]!.test_names);
    items = items.filter(([name]) => wanted.has(name));
  }
  const runTimes: number[] = [];
  // Compiled when the first batch needs it, once for the row (and kept for rows with the same program).
  let build: Promise<Build | null> | undefined;
  const key = buildKeyOf(problem, submission);
  const cache = { memoryCapBytes: options.buildCacheMb * 1024 * 1024, dir: options.buildCacheDir };
  for (let i = 0; i < items.length; i += options.testBatchSize) {
    const batch = items.slice(i, i + options.testBatchSize).filter(([name]) => options.runAllTests || (subtasksOf.get(name) ?? []).some((s) => {
      const st = state.get(s)!;
      return st.aggregation === "sum_tests" || !st.failed;
    }));
    if (batch.length === 0) continue;
    build ??= buildFor(key, cache, () => compileSubmission(problem, submission, options));
    const results = await runBatch(problem, submission, batch, timeScale, options, await build);
    batch.forEach(([testName], j) => {
      const result = results[j]!;
      if (typeof result.run_time_s === "number") runTimes.push(result.run_time_s);
      result.test_name = testName;
      const group = problem.all_tests[testName]!.group;
      if (group !== undefined && group !== null) result.test_group = group;
      for (const s of subtasksOf.get(testName) ?? []) {
        const st = state.get(s)!;
        if (!options.runAllTests && st.aggregation === "min" && st.failed) continue;
        st.outputs.push({ ...result });
        if (st.aggregation === "min" && scoreOf(result) < 1.0) st.failed = true;
      }
    });
  }
  const test_case_results: EntryResult["test_case_results"] = {};
  for (const [name, meta] of Object.entries(problem.subtasks)) {
    const st = state.get(name)!;
    test_case_results[name] = { score: aggregateSubtask(meta, st.outputs, st.failed), outputs: st.outputs };
  }
  const total = runTimes.reduce((a, b) => a + b, 0);
  return {
    test_case_results,
    num_tests_run: runTimes.length,
    total_test_execution_time_s: total,
    mean_test_execution_time_s: runTimes.length ? total / runTimes.length : 0.0,
  };
}
