// The verdict on one test, decided on the host from how the sandboxed run ended and what it printed
// or returned — LiveCodeBench's codes: true pass, -2 (stdin) / false (call) wrong answer,
// -3 time limit, -4 runtime or compile error. Expected outputs never enter the sandbox.
import type { RunStatus } from "../../sandbox/types.js";
import { REPORT_MARKER } from "./harness.js";
import { isClose, parsePyJson, pyDumpsEqual, pyEquals, pyFloat, pyRepr, truncateFn, type PyValue } from "./python_values.js";
import { gradeStdio } from "./stdio.js";

export type TestVerdict = true | false | -1 | -2 | -3 | -4;

export interface TestOutcome {
  status: RunStatus;
  stdout: string;
  stderr: string;
  reason?: string;
}

export interface Judgement {
  verdict: TestVerdict;
  /** LiveCodeBench's failure metadata (absent on a pass). */
  metadata?: Record<string, unknown>;
  /** A compile error fails the whole problem as `[-4]`, whatever test it surfaced in. */
  compileError?: boolean;
  /** The candidate's own execution time, as the harness measured it. */
  seconds: number;
}

export interface Report {
  kind: "ok" | "result" | "timeout" | "runtime_error" | "compile_error";
  time?: number;
  message?: string;
  error?: string;
  json?: string | null;
  float?: number | null;
  repr?: string;
}

/** The harness's last report line on stderr, and stderr without it. */
export function parseReport(stderr: string): { report: Report | null; stderr: string } {
  const at = stderr.lastIndexOf(REPORT_MARKER);
  if (at < 0) return { report: null, stderr };
  const end = stderr.indexOf("\n", at);
  const line = stderr.slice(at + REPORT_MARKER.length, end < 0 ? undefined : end);
  try {
    const report = JSON.parse(line) as Report;
    // The harness writes "\n" before the marker so the report starts a line; take that back out.
    return { report, stderr: stderr.slice(0, at > 0 && stderr[at - 1] === "\n" ? at - 1 : at) };
  } catch {
    return { report: null, stderr };
  }
}

export function judgeTest(outcome: TestOutcome, input: string, expected: string, fnName: string | null): Judgement {
  const { report, stderr } = parseReport(outcome.stderr);
  const seconds = report?.time ?? 0;
  const where = fnName ? callContext(input, expected) : { inputs: truncateFn(input), expected: truncateFn(expected) };
  if (outcome.status === "sandbox_error") throw new Error(`the sandbox failed: ${outcome.reason ?? "unknown reason"}`);
  if (report?.kind === "compile_error") {
    return { verdict: -4, compileError: true, seconds, metadata: { error_code: -4, error_message: `Error during testing: ${report.message ?? ""}` } };
  }
  if (outcome.status === "timeout" || report?.kind === "timeout") {
    return { verdict: -3, seconds, metadata: { error: "TimeoutException()", error_code: -3, error_message: "Time Limit Exceeded", ...where } };
  }
  const runtimeError = (error: string): Judgement => ({
    verdict: -4,
    seconds,
    metadata: { error, error_code: -4, error_message: "Runtime Error", ...where, traceback: truncateFn(stderr.trim(), 2000) },
  });
  if (outcome.status === "memory") return runtimeError("MemoryError()");
  if (outcome.status === "output_limit" && !fnName) {
    return {
      verdict: -2,
      seconds,
      metadata: { output: truncateFn(outcome.stdout), ...where, error_code: -2, error_message: "Wrong answer: output limit exceeded" },
    };
  }
  if (report?.kind === "runtime_error") return runtimeError(report.error ?? "");
  if (outcome.status !== "ok") return runtimeError(outcome.reason ?? outcome.status);

  if (!fnName) {
    const grade = gradeStdio(outcome.stdout, expected);
    if (grade.pass) return { verdict: true, seconds };
    return { verdict: -2, seconds, metadata: { output: truncateFn(outcome.stdout), ...where, error_code: -2, error_message: grade.message } };
  }
  if (report?.kind !== "result") return runtimeError("the program ended without returning a result");
  let want: PyValue;
  try {
    want = parsePyJson(expected);
  } catch (error) {
    return { verdict: -4, compileError: true, seconds, metadata: { error_code: -4, error_message: `Error during testing: ${(error as Error).message}` } };
  }
  if (callResultMatches(report, want)) return { verdict: true, seconds };
  return { verdict: false, seconds, metadata: { output: truncateFn(report.repr ?? ""), ...where, error_code: -2, error_message: "Wrong Answer" } };
}

/** NeMo Gym's rule: `==`, or equal `json.dumps`, or both convert to float and are close. */
export function callResultMatches(report: Report, want: PyValue): boolean {
  let got: PyValue | null = null;
  if (typeof report.json === "string") {
    try {
      got = parsePyJson(report.json);
    } catch {
      got = null;
    }
  }
  if (got && (pyEquals(got, want) || pyDumpsEqual(got, want))) return true;
  const gotFloat = got ? pyFloat(got) : (report.float ?? null);
  const wantFloat = pyFloat(want);
  return gotFloat !== null && wantFloat !== null && isClose(gotFloat, wantFloat);
}

/** Inputs and expected value as LiveCodeBench shows them for call-based tests: Python reprs. */
function callContext(input: string, expected: string): { inputs: string; expected: string } {
  const show = (text: string, parse: () => PyValue) => {
    try {
      return truncateFn(pyRepr(parse()));
    } catch {
      return truncateFn(text);
    }
  };
  return {
    inputs: show(input, () => ({ k: "list", v: input.split("\n").map((line) => parsePyJson(line)) })),
    expected: show(expected, () => parsePyJson(expected)),
  };
}
