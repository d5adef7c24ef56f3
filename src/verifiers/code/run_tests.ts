// Runs a candidate against its unit tests in the sandbox and returns LiveCodeBench's `result` list
// and `metadata`, stopping at the first failing test. Two ways, same verdicts:
//   per_test  one sandboxed process per test (the simple, obviously tamper-proof way);
//   batched   one sandbox, the harness forks a warm child per test and streams a frame per test;
//             cheaper per test, and still tamper-proof (see harness.ts and its test).
import { PYTHON } from "../../sandbox/languages.js";
import type { Sandbox } from "../../sandbox/runner.js";
import type { RunStatus } from "../../sandbox/types.js";
import { FRAME_MARKER, HARNESS } from "./harness.js";
import { judgeTest, type Judgement, type TestOutcome, type TestVerdict } from "./judge.js";
import { truncateFn } from "./python_values.js";

export interface UnitTests {
  inputs: string[];
  outputs: string[];
  fn_name?: string | null;
}

export type TestMode = "per_test" | "batched";

export interface RunTestsOptions {
  /** Per-test time limit in seconds (LiveCodeBench's `timeout`). */
  timeoutSecs: number;
  mode?: TestMode;
  memoryBytes?: number;
}

export interface TestsResult {
  result: TestVerdict[];
  /** `{"execution time": s}` when all pass, the first failure's details otherwise; null on a global timeout. */
  metadata: Record<string, unknown> | null;
}

const STDERR_CAP = 1024 * 1024;
/** Output far beyond the expected answer cannot match it; stop reading there. */
function stdoutCap(expected: string): number {
  return Math.max(4 * 1024 * 1024, 4 * Buffer.byteLength(expected));
}

export async function runUnitTests(sandbox: Sandbox, code: string, tests: UnitTests, options: RunTestsOptions): Promise<TestsResult> {
  if (tests.inputs.length !== tests.outputs.length) {
    throw new Error(`unit_tests has ${tests.inputs.length} inputs but ${tests.outputs.length} outputs`);
  }
  if (tests.inputs.length === 0) return { result: [], metadata: { "execution time": 0 } };
  // A batch of one only adds the harness's fork and warm-up to a single run (see bench/README.md, Sandbox).
  return options.mode === "batched" && tests.inputs.length > 1 ? runBatched(sandbox, code, tests, options) : runPerTest(sandbox, code, tests, options);
}

/** Folds judgements in test order into the result list, stopping at the first failure. */
class Tally {
  readonly result: TestVerdict[] = [];
  private seconds = 0;
  failure: Record<string, unknown> | null = null;
  done = false;

  add(judgement: Judgement): void {
    if (this.done) return;
    this.seconds += judgement.seconds;
    if (judgement.compileError) {
      this.result.length = 0;
      this.result.push(-4);
    } else this.result.push(judgement.verdict);
    if (judgement.verdict !== true) {
      this.failure = judgement.metadata ?? null;
      this.done = true;
    }
  }

  finish(): TestsResult {
    return { result: this.result, metadata: this.failure ?? { "execution time": this.seconds } };
  }
}

function modeOf(tests: UnitTests): { mode: "stdin" | "call"; fnName: string | null } {
  const fnName = tests.fn_name ? tests.fn_name : null;
  return { mode: fnName ? "call" : "stdin", fnName };
}

/** One sandbox per test. */
export async function runPerTest(sandbox: Sandbox, code: string, tests: UnitTests, options: RunTestsOptions): Promise<TestsResult> {
  const { mode, fnName } = modeOf(tests);
  const tally = new Tally();
  for (let i = 0; i < tests.inputs.length && !tally.done; i++) {
    const input = tests.inputs[i]!;
    const expected = tests.outputs[i]!;
    const run = await sandbox.run({
      argv: [PYTHON, "harness.py", "single", mode, fnName ?? "", String(options.timeoutSecs)],
      files: { "harness.py": HARNESS, "solution.py": code },
      stdin: input,
      limits: {
        // The harness times the test itself; the host deadline is the backstop (startup included).
        wallMs: options.timeoutSecs * 1000 + 2000,
        cpuMs: options.timeoutSecs * 1000 + 1000,
        stdoutBytes: stdoutCap(expected),
        stderrBytes: STDERR_CAP,
        ...(options.memoryBytes ? { memoryBytes: options.memoryBytes } : {}),
      },
    });
    tally.add(judgeTest(run, input, expected, fnName));
  }
  return tally.finish();
}

interface FrameHeader {
  index: number;
  status: "exited" | "signaled" | "timeout" | "output_limit";
  code: number | null;
  signal: number | null;
  out: number;
  err: number;
}

/** Splits the batch harness's stdout into frames; anything else on it is a protocol violation. */
class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes the next step needs before it is worth looking again (a header, or a whole frame). */
  private needed = FRAME_MARKER.length;
  violation: string | null = null;

  constructor(private readonly onFrame: (header: FrameHeader, out: Buffer, err: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    // Join only when there may be something to parse: a 4 MiB frame arrives in many small chunks.
    if (this.size < this.needed && !chunk.includes(0x0a)) return;
    let buffer = Buffer.concat(this.chunks, this.size);
    const marker = Buffer.from(FRAME_MARKER);
    while (this.violation === null) {
      this.needed = marker.length;
      if (buffer.length < marker.length) break;
      if (!buffer.subarray(0, marker.length).equals(marker)) {
        this.violation = "unframed output";
        break;
      }
      const end = buffer.indexOf(0x0a);
      if (end < 0) break;
      let header: FrameHeader;
      try {
        header = JSON.parse(buffer.subarray(marker.length, end).toString()) as FrameHeader;
      } catch {
        this.violation = "a malformed frame header";
        break;
      }
      const total = end + 1 + header.out + header.err;
      if (buffer.length < total) {
        this.needed = total;
        break;
      }
      const out = buffer.subarray(end + 1, end + 1 + header.out);
      const err = buffer.subarray(end + 1 + header.out, total);
      buffer = buffer.subarray(total);
      this.onFrame(header, out, err);
    }
    this.chunks = [buffer];
    this.size = buffer.length;
  }
}

function outcomeOfFrame(header: FrameHeader, out: Buffer, err: Buffer): TestOutcome {
  const base = { stdout: out.toString("utf8"), stderr: err.toString("utf8") };
  const statusOf: Record<FrameHeader["status"], RunStatus> = { exited: "ok", signaled: "runtime_error", timeout: "timeout", output_limit: "output_limit" };
  let status = statusOf[header.status];
  let reason: string | undefined;
  if (header.status === "exited" && header.code !== 0) {
    status = "runtime_error";
    reason = `exit code ${header.code}`;
  }
  if (header.status === "signaled") {
    // 24 is SIGXCPU: the per-test CPU limit.
    if (header.signal === 24) status = "timeout";
    reason = `killed by signal ${header.signal}`;
  }
  return { status, ...base, ...(reason ? { reason } : {}) };
}

/** One sandbox for all tests (see harness.ts). */
export async function runBatched(sandbox: Sandbox, code: string, tests: UnitTests, options: RunTestsOptions): Promise<TestsResult> {
  const { mode, fnName } = modeOf(tests);
  const n = tests.inputs.length;
  const outCaps = tests.outputs.map(stdoutCap);
  const tally = new Tally();
  const controller = new AbortController();
  let next = 0;
  const reader = new FrameReader((header, out, err) => {
    if (tally.done) return;
    if (header.index !== next) {
      reader.violation = `frame ${header.index} arrived when ${next} was due`;
      return;
    }
    tally.add(judgeTest(outcomeOfFrame(header, out, err), tests.inputs[next]!, tests.outputs[next]!, fnName));
    next++;
    // First failure: the remaining tests would not count, so stop the batch now.
    if (tally.done) controller.abort();
  });
  const maxOut = Math.max(...outCaps);
  const run = await sandbox.run({
    argv: [PYTHON, "harness.py", "batch", mode, fnName ?? "", String(options.timeoutSecs), String(maxOut), String(STDERR_CAP)],
    files: { "harness.py": HARNESS, "solution.py": code, "tests.json": JSON.stringify(tests.inputs) },
    limits: {
      // NeMo Gym's global wait for one problem: (timeout + 1) per test, plus 5 s.
      wallMs: ((options.timeoutSecs + 1) * n + 5) * 1000,
      cpuMs: ((options.timeoutSecs + 1) * n + 5) * 1000,
      stdoutBytes: n * (maxOut + STDERR_CAP + 512),
      stderrBytes: STDERR_CAP,
      ...(options.memoryBytes ? { memoryBytes: options.memoryBytes } : {}),
    },
    onStdout: (chunk) => {
      reader.push(chunk);
      if (reader.violation !== null) controller.abort();
    },
    signal: controller.signal,
  });
  if (tally.done || next === n) return tally.finish();
  if (run.status === "sandbox_error") throw new Error(`the sandbox failed: ${run.reason ?? "unknown reason"}`);
  if (run.status === "timeout" && reader.violation === null) return { result: Array<TestVerdict>(n).fill(-1), metadata: null };
  // The harness stopped early (the candidate killed it, or broke the protocol): the due test fails.
  const why = reader.violation ? `protocol violation: ${reader.violation}` : `the test harness ended early (${run.reason ?? run.status})`;
  tally.add({
    verdict: -4,
    seconds: 0,
    metadata: {
      error: why,
      error_code: -4,
      error_message: "Runtime Error",
      inputs: truncateFn(tests.inputs[next]!),
      expected: truncateFn(tests.outputs[next]!),
    },
  });
  return tally.finish();
}
