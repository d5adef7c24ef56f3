// The calendar grader of NVIDIA-NeMo/Gym 07d6b0d resources_servers/calendar (utils.py), reproduced:
// the first JSON list of objects in the answer (NeMo Gym's regular expression, then Python's
// json.loads) is the calendar; it must hold exactly the expected events (by `event_id` as Python's
// str() writes it), none overlapping another, each with the expected duration, inside its time window
// and meeting its constraint (`before X`, `after X`, `between X and Y`, `at X`; X in 24-hour or
// am/pm time). Any error while grading (a missing key, a value of the wrong type) scores 0, as the
// Python's bare `except` does.
import { parsePyJson, pyEquals, type PyValue } from "../../verifiers/code/python_values.js";
import { pyStrip } from "../../verifiers/text/pystr.js";

export type Verdict = "think_found" | "pass" | "no_json_list" | "different_number_of_events" | "conflicting_events" | "constraint_violated" | "error_in_grading";

/** A Python exception inside the grader (caught there as error_in_grading). */
class GradingError extends Error {}

/** Python's int(str): optional sign, ASCII digits with single underscores between them, surrounding whitespace. */
function pyInt(text: string): number {
  const s = pyStrip(text);
  if (!/^[+-]?\d+(?:_\d+)*$/.test(s)) throw new GradingError(`invalid literal for int() with base 10: '${text}'`);
  return Number(s.replace(/_/g, ""));
}

/** `map(int, s.split(":"))` unpacked into exactly two. */
function twoInts(text: string): [number, number] {
  const parts = text.split(":");
  if (parts.length !== 2) throw new GradingError(`expected 2 values to unpack, got ${parts.length}`);
  return [pyInt(parts[0]!), pyInt(parts[1]!)];
}

export function timeToMinutes(value: unknown): number {
  if (typeof value !== "string") throw new GradingError("'strip' needs a str");
  const time = pyStrip(value);
  const am = time.includes("am");
  if (am || time.includes("pm")) {
    const hourOf = (h: number) => (h !== 12 ? h * 60 : 0);
    if (!time.includes(":")) {
      return am ? hourOf(pyInt(time.replaceAll("am", ""))) : hourOf(pyInt(time.replaceAll("pm", ""))) + 12 * 60;
    }
    const [hour, minute] = twoInts(am ? time.replaceAll("am", "") : time.replaceAll("pm", ""));
    return am ? hourOf(hour) + minute : hourOf(hour) + 12 * 60 + minute;
  }
  const [hours, minutes] = twoInts(time);
  return hours * 60 + minutes;
}

/** NeMo Gym's pattern for the first JSON list holding an object (objects inside without nested braces). */
const JSON_LIST = /\[(?:[^[\]]|\{[^}]*\})*\{(?:[^[\]]|\{[^}]*\})*\}(?:[^[\]]|\{[^}]*\})*\]/s;

export function extractJsonList(text: string): PyValue | null {
  const match = JSON_LIST.exec(text);
  if (!match) return null;
  try {
    return parsePyJson(match[0]);
  } catch {
    return null;
  }
}

/** A numeric Python value as a number (bool as 0/1); anything else cannot be added to an int. */
function num(value: PyValue | undefined): number {
  if (value?.k === "int") return Number(value.v);
  if (value?.k === "float") return value.v;
  if (value?.k === "bool") return value.v ? 1 : 0;
  throw new GradingError("unsupported operand type for +");
}

/** `event[key]` on a Python value: only a dict with that key answers. */
function item(event: PyValue, key: string): PyValue {
  if (event.k !== "dict") throw new GradingError(`${event.k} indices must be integers`);
  const value = event.v.get(key);
  if (value === undefined) throw new GradingError(`KeyError: '${key}'`);
  return value;
}

/** A value of the request body as Python holds it after json.loads. */
function pyValueOf(value: unknown): PyValue {
  if (value === null || value === undefined) return { k: "none" };
  if (typeof value === "boolean") return { k: "bool", v: value };
  if (typeof value === "number") return Number.isSafeInteger(value) ? { k: "int", v: BigInt(value) } : { k: "float", v: value };
  if (typeof value === "string") return { k: "str", v: value };
  if (Array.isArray(value)) return { k: "list", v: value.map(pyValueOf) };
  return { k: "dict", v: new Map(Object.entries(value as Record<string, unknown>).map(([key, v]) => [key, pyValueOf(v)])) };
}

const text = (value: PyValue): unknown => (value.k === "str" ? value.v : value);

/** Python's str() of a JSON value used as a dict key. */
function pyStr(value: PyValue): string {
  switch (value.k) {
    case "str":
      return value.v;
    case "int":
      return value.v.toString();
    case "bool":
      return value.v ? "True" : "False";
    case "none":
      return "None";
    case "float":
      if (Number.isNaN(value.v)) return "nan";
      if (!Number.isFinite(value.v)) return value.v > 0 ? "inf" : "-inf";
      if (Number.isInteger(value.v) && Math.abs(value.v) < 1e16) return `${value.v}.0`;
      return String(value.v).replace(/e([+-])(\d)$/, "e$10$2");
    default:
      // Lists and dicts as keys only come from malformed answers; their repr never matches an expected id.
      return JSON.stringify(value);
  }
}

function conflicting(events: PyValue[], check: PyValue, exclude: PyValue): boolean {
  const start = timeToMinutes(text(item(check, "start_time")));
  const end = start + num(item(check, "duration"));
  const excludeTruthy = exclude.k === "dict" && exclude.v.size > 0;
  for (const existing of events) {
    if (excludeTruthy && pyEquals(existing, exclude)) continue;
    const existingStart = timeToMinutes(text(item(existing, "start_time")));
    const existingEnd = existingStart + num(item(existing, "duration"));
    if (!(end <= existingStart || start >= existingEnd)) return true;
  }
  return false;
}

function satisfied(event: PyValue, expected: Record<string, unknown>): boolean {
  if (!("duration" in expected)) throw new GradingError("KeyError: 'duration'");
  if (!pyEquals(item(event, "duration"), pyValueOf(expected.duration))) return false;
  const minTime = timeToMinutes(expected.min_time);
  const maxTime = timeToMinutes(expected.max_time);
  const start = timeToMinutes(text(item(event, "start_time")));
  const end = start + num(item(event, "duration"));
  if (start < minTime || end > maxTime) return false;
  if (!("constraint" in expected)) throw new GradingError("KeyError: 'constraint'");
  const constraint = expected.constraint;
  if (constraint === null) return true;
  if (typeof constraint !== "string") throw new GradingError("'startswith' needs a str");
  if (constraint.startsWith("before ")) return end <= timeToMinutes(constraint.replaceAll("before ", ""));
  if (constraint.startsWith("after ")) return start >= timeToMinutes(constraint.replaceAll("after ", ""));
  if (constraint.startsWith("between ")) {
    const parts = constraint.replaceAll("between ", "").split(" and ");
    if (parts.length !== 2) throw new GradingError(`Invalid 'between' constraint format: ${constraint}`);
    return start >= timeToMinutes(parts[0]) && end <= timeToMinutes(parts[1]);
  }
  if (constraint.startsWith("at ")) return start === timeToMinutes(constraint.replaceAll("at ", ""));
  return true;
}

/** NeMo Gym's grade_assistant_response (allow_no_json_list false): 1 or 0, and why. */
export function gradeAssistantResponse(answer: string, expected: Record<string, unknown>): [number, Verdict] {
  if (answer.includes("<think>")) return [0, "think_found"];
  const expectedIds = Object.keys(expected);
  if (expectedIds.length === 0) return [1, "pass"];
  try {
    const calendar = extractJsonList(answer);
    if (calendar === null || (calendar.k === "list" && calendar.v.length === 0)) return [0, "no_json_list"];
    if (calendar.k !== "list") throw new GradingError("not a list");
    const byId = new Map<string, PyValue>();
    for (const event of calendar.v) byId.set(pyStr(item(event, "event_id")), event);
    if (byId.size !== expectedIds.length) return [0, "different_number_of_events"];
    for (const event of calendar.v) if (conflicting(calendar.v, event, event)) return [0, "conflicting_events"];
    for (const id of expectedIds) {
      const event = byId.get(id);
      if (event === undefined) throw new GradingError(`KeyError: '${id}'`);
      const want = expected[id];
      if (want === null || typeof want !== "object" || Array.isArray(want)) throw new GradingError("expected event is not a dict");
      if (!satisfied(event, want as Record<string, unknown>)) return [0, "constraint_violated"];
    }
  } catch (error) {
    if (error instanceof GradingError || error instanceof RangeError || error instanceof TypeError) return [0, "error_in_grading"];
    throw error;
  }
  return [1, "pass"];
}
