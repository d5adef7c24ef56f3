// math_advanced_calculations' reward: 1.0 when every value of the row's ground truth (a JSON list held
// in a string) is among the solutions the tools returned in this rollout (each function_call_output's
// JSON `solution`, as Python's float() reads it), else 0.0. Equality is Python's `in`: numbers by value
// (a JSON true equals 1.0), and a null in the ground truth matches a tool output that could not be read.
// Behaviour matched to NeMo Gym's resources_servers/math_advanced_calculations/app.py at commit 07d6b0d.
// `strictRewardOf` (Gymkit's `strict: true`) counts only solutions computed from the question: see there.
import { pyFloatFromString } from "../../verifiers/text/pyfloat.js";

/** A tool output's solution as `float(json.loads(output)["solution"])`, or null where that raises. */
export function solutionOf(output: unknown): number | null {
  if (typeof output !== "string") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const solution = (parsed as Record<string, unknown>).solution;
  if (typeof solution === "number") return solution;
  if (typeof solution === "boolean") return solution ? 1 : 0;
  if (typeof solution === "string") return pyFloatFromString(solution) ?? null;
  return null;
}

/** The items `for gt in json.loads(ground_truth)` visits; throws where Python's iteration would. */
function groundTruthItems(groundTruth: unknown): unknown[] {
  if (typeof groundTruth !== "string") throw new TypeError("the JSON object must be str, bytes or bytearray, not list");
  const parsed: unknown = JSON.parse(groundTruth);
  if (Array.isArray(parsed)) return parsed;
  if (typeof parsed === "string") return Array.from(parsed);
  if (parsed !== null && typeof parsed === "object") return Object.keys(parsed);
  throw new TypeError(`'${typeof parsed}' object is not iterable`);
}

function contains(predicted: Array<number | null>, gt: unknown): boolean {
  if (gt === null) return predicted.includes(null);
  const value = typeof gt === "boolean" ? (gt ? 1 : 0) : gt;
  if (typeof value !== "number") return false;
  return predicted.some((p) => p !== null && p === value);
}

export function rewardOf(groundTruth: unknown, output: ReadonlyArray<Record<string, unknown>>): number {
  const items = groundTruthItems(groundTruth);
  const predicted = output.filter((item) => item.type === "function_call_output").map((item) => solutionOf(item.output));
  return items.every((gt) => contains(predicted, gt)) ? 1.0 : 0.0;
}

/** A tool argument as a number (numbers, numeric strings, booleans, as the tools read them), else undefined. */
function argumentNumber(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "string") return pyFloatFromString(value);
  return undefined;
}

/** Every number written in the text, with either sign ("-(5.0)" names 5.0; a model may pass -5.0). */
export function numbersIn(text: string): Set<number> {
  const found = new Set<number>();
  for (const m of text.matchAll(/\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g)) {
    const n = Number(m[0]);
    found.add(n);
    found.add(-n);
  }
  return found;
}

/**
 * Gymkit's `strict: true`. NeMo Gym's reward accepts any solution a tool returned, and return_constant
 * (or negate, or add with a shifted argument) returns whatever value the model passes it, so a model
 * can write candidate values into the tool outputs without computing anything: every candidate that
 * is the gold is rewarded (audit probe guess.tool_values). Strict counts a tool's solution only when
 * each number it was called with is written in the question or is a solution counted earlier in the
 * rollout, i.e. when it was computed from the question through the tools.
 */
export function strictRewardOf(groundTruth: unknown, output: ReadonlyArray<Record<string, unknown>>, question: string): number {
  const items = groundTruthItems(groundTruth);
  const known = numbersIn(question);
  const calls = new Map<string, unknown>();
  const counted: Array<number | null> = [];
  for (const item of output) {
    if (item.type === "function_call" && typeof item.call_id === "string") calls.set(item.call_id, item.arguments);
    if (item.type !== "function_call_output") continue;
    const raw = calls.get(String(item.call_id));
    if (typeof raw !== "string") continue;
    let args: unknown;
    try {
      args = JSON.parse(raw);
    } catch {
      continue;
    }
    if (args === null || typeof args !== "object" || Array.isArray(args)) continue;
    const values = Object.values(args as Record<string, unknown>).filter((v) => v !== null).map(argumentNumber);
    if (!values.every((v) => v !== undefined && known.has(v))) continue;
    const solution = solutionOf(item.output);
    if (solution === null) continue;
    counted.push(solution);
    known.add(solution);
  }
  return items.every((gt) => contains(counted, gt)) ? 1.0 : 0.0;
}
