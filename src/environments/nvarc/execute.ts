// Runs a model's transform() on the test input in Gymkit's sandbox (harness.ts) and turns what it
// printed into a grid, as NeMo Gym's nvarc does at 07d6b0d: a failed, timed-out or non-zero exit run, an
// output that is not one JSON object, an unsuccessful or null result, or a result that is not a
// rectangular, non-empty grid of integers gives no grid. Cells are read as pydantic reads
// `list[list[int]]` leniently: integral numbers, booleans, and integer text (e.g. " 7 ", "1_0").
import { PYTHON } from "../../sandbox/languages.js";
import { sharedSandbox } from "../../sandbox/shared.js";
import { PY_SPACE_CHARS } from "../../verifiers/text/pystr.js";
import { HARNESS } from "./harness.js";
import { isValidGrid, type Grid } from "./parse.js";

const TRIM = new RegExp(`^[${PY_SPACE_CHARS}]+|[${PY_SPACE_CHARS}]+$`, "gu");

function laxInt(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) ? value : undefined;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "string") {
    const s = value.replace(TRIM, "");
    return /^[+-]?[0-9](?:_?[0-9])*$/.test(s) ? Number(s.replace(/_/g, "")) : undefined;
  }
  return undefined;
}

/** The result as pydantic's `list[list[int]]` (lax), or undefined when it does not validate. */
export function asGrid(result: unknown): Grid | undefined {
  if (!Array.isArray(result)) return undefined;
  const grid: Grid = [];
  for (const row of result) {
    if (!Array.isArray(row)) return undefined;
    const cells = row.map(laxInt);
    if (cells.some((c) => c === undefined)) return undefined;
    grid.push(cells as number[]);
  }
  return grid;
}

export async function runTransform(code: string, input: Grid, timeoutSeconds: number): Promise<Grid | null> {
  const sandbox = await sharedSandbox();
  const run = await sandbox.run({
    argv: [PYTHON, "harness.py"],
    files: { "harness.py": HARNESS, "solution.py": code, "input.json": JSON.stringify(input), "timeout.txt": String(timeoutSeconds) },
    limits: { wallMs: (timeoutSeconds + 5) * 1000 },
  });
  if (run.status !== "ok" || run.exitCode !== 0) return null;
  const output = run.stdout.trim();
  if (output === "") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const { success, result } = parsed as { success?: unknown; result?: unknown };
  if (!success || result === null || result === undefined) return null;
  const grid = asGrid(result);
  return grid && isValidGrid(grid) ? grid : null;
}
