// Scoring code the way LiveCodeBench does: extract the last fenced block, run it against unit tests
// in the sandbox, compare on the host.
export { extractCode } from "./extract.js";
export { gradeStdio, parseDecimal, decimalEquals } from "./stdio.js";
export { judgeTest, callResultMatches, parseReport, type TestVerdict, type TestOutcome, type Judgement } from "./judge.js";
export { runUnitTests, type UnitTests, type TestMode, type TestsResult, type RunTestsOptions } from "./run_tests.js";
export { parsePyJson, pyEquals, pyDumpsEqual, pyFloat, isClose, pyRepr, truncateFn, type PyValue } from "./python_values.js";
export { LCB_IMPORTS } from "./harness.js";
