// Python's `json.loads` and `json.dumps(…, ensure_ascii=False)` for the QA ports (NeMo Gym's hotpotqa_qa
// and ragtruth at commit 07d6b0d parse model output with them): values as Python makes them (exact
// ints, NaN/Infinity), raw control characters in strings rejected as the default strict mode does.
import { parsePyJson, pyFloatRepr, type PyValue } from "../code/python_values.js";

/** `json.loads(text)`, or undefined where it raises. */
export function pyJsonLoads(text: string): PyValue | undefined {
  let value: PyValue;
  try {
    value = parsePyJson(text);
  } catch {
    return undefined;
  }
  // parsePyJson accepts raw control characters inside strings; strict json.loads does not.
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      else if (c.charCodeAt(0) < 0x20) return undefined;
    } else if (c === '"') inString = true;
  }
  return value;
}

const ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

function dumpString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const escaped = ESCAPES[ch];
    if (escaped) out += escaped;
    else if (ch.charCodeAt(0) < 0x20) out += `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return out + '"';
}

/** `json.dumps(value, ensure_ascii=False)` with the default separators. */
export function pyJsonDumps(value: PyValue): string {
  switch (value.k) {
    case "none":
      return "null";
    case "bool":
      return value.v ? "true" : "false";
    case "int":
      return value.v.toString();
    case "float":
      return Number.isNaN(value.v) ? "NaN" : !Number.isFinite(value.v) ? (value.v > 0 ? "Infinity" : "-Infinity") : pyFloatRepr(value.v);
    case "str":
      return dumpString(value.v);
    case "list":
      return `[${value.v.map(pyJsonDumps).join(", ")}]`;
    case "dict":
      return `{${[...value.v].map(([k, v]) => `${dumpString(k)}: ${pyJsonDumps(v)}`).join(", ")}}`;
  }
}
