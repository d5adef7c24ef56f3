// Python's `json.dumps(value)` with its defaults (", " and ": " separators, ensure_ascii: every
// non-ASCII character as \uXXXX, astral ones as surrogate pairs) for the values reasoning-gym rows hold
// (str, int as number or BigInt, bool, None, lists, dicts in insertion order), so a generated file is
// byte for byte what NeMo Gym's create_dataset.py writes. A non-integer number is refused: no ported
// generator makes one, and Python's float repr is not JavaScript's.

const ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

function pyJsonString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const code = text.charCodeAt(i);
    const escape = ESCAPES[ch];
    if (escape) out += escape;
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return out + '"';
}

export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return pyJsonString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new TypeError(`pyJsonDumps: ${value} is not an integer (Python's float repr is not ported)`);
    return BigInt(value).toString();
  }
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pyJsonString(k)}: ${pyJsonDumps(v)}`).join(", ")}}`;
  }
  throw new TypeError(`pyJsonDumps: cannot write a ${typeof value}`);
}
