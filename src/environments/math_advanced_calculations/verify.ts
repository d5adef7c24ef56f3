// math_advanced_calculations' reward: 1.0 when every value of the row's ground truth (a JSON list held
// in a string) is among the solutions the tools returned in this rollout (each function_call_output's
// JSON `solution`, as Python's float() reads it), else 0.0. Equality is Python's `in`: numbers by value
// (a JSON true equals 1.0), and a null in the ground truth matches a tool output that could not be read.
// Behaviour matched to NeMo Gym's resources_servers/math_advanced_calculations/app.py at commit 07d6b0d.
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
