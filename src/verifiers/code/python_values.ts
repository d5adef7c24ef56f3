// Python values as `json.loads` makes them, and the comparisons LiveCodeBench/NeMo Gym apply to
// call-based results: `==` (ints exact at any size, 1 == 1.0 == True, NaN never equal), equality
// of `json.dumps` output, `float()` conversion and numpy-style closeness. Ints are BigInt so a
// 20-digit answer compares exactly, as it does in Python.

export type PyValue =
  | { k: "none" }
  | { k: "bool"; v: boolean }
  | { k: "int"; v: bigint }
  | { k: "float"; v: number }
  | { k: "str"; v: string }
  | { k: "list"; v: PyValue[] }
  | { k: "dict"; v: Map<string, PyValue> };

export class PyJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PyJsonError";
  }
}

/** `json.loads`: standard JSON plus NaN, Infinity and -Infinity; ints stay exact. */
export function parsePyJson(text: string): PyValue {
  let at = 0;
  const fail = (what: string): never => {
    throw new PyJsonError(`${what} at char ${at}`);
  };
  const ws = () => {
    while (at < text.length && " \t\n\r".includes(text[at]!)) at++;
  };
  const literal = (word: string, value: PyValue): PyValue => {
    if (!text.startsWith(word, at)) fail("Expecting value");
    at += word.length;
    return value;
  };
  const string = (): string => {
    at++; // opening quote
    let out = "";
    for (;;) {
      const c = text[at];
      if (c === undefined) fail("Unterminated string");
      if (c === '"') {
        at++;
        return out;
      }
      if (c === "\\") {
        const e = text[at + 1];
        const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
        if (e !== undefined && e in simple) {
          out += simple[e];
          at += 2;
        } else if (e === "u") {
          const hex = text.slice(at + 2, at + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("Invalid \\uXXXX escape");
          out += String.fromCharCode(parseInt(hex, 16));
          at += 6;
        } else fail("Invalid \\escape");
      } else {
        out += c;
        at++;
      }
    }
  };
  const number = (): PyValue => {
    const match = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 100_000));
    if (!match) return fail("Expecting value");
    at += match[0].length;
    if (match[1] === undefined && match[2] === undefined) return { k: "int", v: BigInt(match[0]) };
    return { k: "float", v: Number(match[0]) };
  };
  const value = (depth: number): PyValue => {
    if (depth > 10_000) fail("Nesting too deep");
    ws();
    const c = text[at];
    if (c === "{") {
      at++;
      const map = new Map<string, PyValue>();
      ws();
      if (text[at] === "}") {
        at++;
        return { k: "dict", v: map };
      }
      for (;;) {
        ws();
        if (text[at] !== '"') fail("Expecting property name enclosed in double quotes");
        const key = string();
        ws();
        if (text[at] !== ":") fail("Expecting ':' delimiter");
        at++;
        map.set(key, value(depth + 1));
        ws();
        if (text[at] === ",") at++;
        else if (text[at] === "}") {
          at++;
          return { k: "dict", v: map };
        } else fail("Expecting ',' delimiter");
      }
    }
    if (c === "[") {
      at++;
      const list: PyValue[] = [];
      ws();
      if (text[at] === "]") {
        at++;
        return { k: "list", v: list };
      }
      for (;;) {
        list.push(value(depth + 1));
        ws();
        if (text[at] === ",") at++;
        else if (text[at] === "]") {
          at++;
          return { k: "list", v: list };
        } else fail("Expecting ',' delimiter");
      }
    }
    if (c === '"') return { k: "str", v: string() };
    if (c === "n") return literal("null", { k: "none" });
    if (c === "t") return literal("true", { k: "bool", v: true });
    if (c === "f") return literal("false", { k: "bool", v: false });
    if (c === "N") return literal("NaN", { k: "float", v: NaN });
    if (c === "I") return literal("Infinity", { k: "float", v: Infinity });
    if (c === "-" && text.startsWith("-Infinity", at)) return literal("-Infinity", { k: "float", v: -Infinity });
    return number();
  };
  const result = value(0);
  ws();
  if (at !== text.length) fail("Extra data");
  return result;
}

function isNumeric(v: PyValue): v is Extract<PyValue, { k: "bool" | "int" | "float" }> {
  return v.k === "bool" || v.k === "int" || v.k === "float";
}

function asBigInt(v: Extract<PyValue, { k: "bool" | "int" }>): bigint {
  return v.k === "bool" ? (v.v ? 1n : 0n) : v.v;
}

/** Python's `a == b` for JSON-made values. */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  if (isNumeric(a) && isNumeric(b)) {
    if (a.k === "float" && b.k === "float") return a.v === b.v;
    if (a.k === "float" || b.k === "float") {
      const [f, i] = a.k === "float" ? [a.v, b as Extract<PyValue, { k: "bool" | "int" }>] : [(b as { v: number }).v, a as Extract<PyValue, { k: "bool" | "int" }>];
      // Python compares an int and a float exactly (2**53 + 1 != 2.0**53).
      return Number.isInteger(f) && BigInt(f) === asBigInt(i);
    }
    return asBigInt(a) === asBigInt(b as Extract<PyValue, { k: "bool" | "int" }>);
  }
  if (a.k !== b.k) return false;
  switch (a.k) {
    case "none":
      return true;
    case "str":
      return a.v === (b as { v: string }).v;
    case "list": {
      const other = (b as { v: PyValue[] }).v;
      return a.v.length === other.length && a.v.every((x, i) => pyEquals(x, other[i]!));
    }
    case "dict": {
      const other = (b as { v: Map<string, PyValue> }).v;
      if (a.v.size !== other.size) return false;
      for (const [key, x] of a.v) {
        const y = other.get(key);
        if (y === undefined || !pyEquals(x, y)) return false;
      }
      return true;
    }
  }
  return false;
}

/** `json.dumps(a) == json.dumps(b)`: same types, same order, floats bit-for-bit (NaN equal to NaN). */
export function pyDumpsEqual(a: PyValue, b: PyValue): boolean {
  if (a.k !== b.k) return false;
  switch (a.k) {
    case "none":
      return true;
    case "bool":
    case "int":
    case "str":
      return a.v === (b as { v: unknown }).v;
    case "float":
      return Object.is(a.v, (b as { v: number }).v);
    case "list": {
      const other = (b as { v: PyValue[] }).v;
      return a.v.length === other.length && a.v.every((x, i) => pyDumpsEqual(x, other[i]!));
    }
    case "dict": {
      const other = [...(b as { v: Map<string, PyValue> }).v];
      const mine = [...a.v];
      return mine.length === other.length && mine.every(([key, x], i) => other[i]![0] === key && pyDumpsEqual(x, other[i]![1]));
    }
  }
}

const PY_FLOAT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.?\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.(?:[eE][+-]?\d(?:_?\d)*)?|inf|infinity|nan)$/i;

/** Python's `float(v)`, or null where it raises. */
export function pyFloat(v: PyValue): number | null {
  switch (v.k) {
    case "bool":
      return v.v ? 1 : 0;
    case "float":
      return v.v;
    case "int": {
      const n = Number(v.v);
      return Number.isFinite(n) ? n : null; // OverflowError
    }
    case "str": {
      const s = pyStrip(v.v);
      if (!PY_FLOAT.test(s)) return null;
      const lower = s.toLowerCase().replace(/^\+/, "");
      if (/^-?(inf|infinity)$/.test(lower)) return lower.startsWith("-") ? -Infinity : Infinity;
      if (/^-?nan$/.test(lower)) return NaN;
      return Number(s.replace(/_/g, ""));
    }
    default:
      return null;
  }
}

/** numpy.isclose(a, b) with its defaults: |a - b| <= atol + rtol * |b|. */
export function isClose(a: number, b: number, rtol = 1e-5, atol = 1e-8): boolean {
  if (a === b) return true; // equal infinities
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= atol + rtol * Math.abs(b);
}

/** Characters `str.isspace()` accepts (what `str.strip()` and `str.split()` use). */
const PY_SPACE = "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

export function isPySpace(char: string): boolean {
  return PY_SPACE.includes(char);
}

/** Python's `s.strip()`. */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isPySpace(s[start]!)) start++;
  while (end > start && isPySpace(s[end - 1]!)) end--;
  return s.slice(start, end);
}

/** Python's `s.split()` (no argument): runs of whitespace separate, no empty pieces. */
export function pySplit(s: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const char of s) {
    if (isPySpace(char)) {
      if (current) out.push(current);
      current = "";
    } else current += char;
  }
  if (current) out.push(current);
  return out;
}

/** Python's `repr(float)`: shortest round-trip digits, exponent form outside 1e-4 <= |x| < 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, exp] = Math.abs(x).toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  const decpt = Number(exp) + 1;
  const sign = x < 0 ? "-" : "";
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return `${sign}0.${"0".repeat(-decpt)}${digits}`;
    if (decpt >= digits.length) return `${sign}${digits}${"0".repeat(decpt - digits.length)}.0`;
    return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  }
  const e = decpt - 1;
  const rest = digits.slice(1);
  return `${sign}${digits[0]}${rest ? `.${rest}` : ""}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}

/** Python's `repr(str)`: single quotes unless the text has ' and no ". */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of s) {
    const code = char.codePointAt(0)!;
    if (char === quote || char === "\\") out += `\\${char}`;
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += char;
  }
  return out + quote;
}

/** Python's `repr()` (and `str()` of containers) of a JSON-made value, for messages. */
export function pyRepr(v: PyValue): string {
  switch (v.k) {
    case "none":
      return "None";
    case "bool":
      return v.v ? "True" : "False";
    case "int":
      return v.v.toString();
    case "float":
      return pyFloatRepr(v.v);
    case "str":
      return pyStrRepr(v.v);
    case "list":
      return `[${v.v.map(pyRepr).join(", ")}]`;
    case "dict":
      return `{${[...v.v].map(([key, x]) => `${pyStrRepr(key)}: ${pyRepr(x)}`).join(", ")}}`;
  }
}

/** LiveCodeBench's `truncatefn`: longer than 300 characters keeps the first and last 150. */
export function truncateFn(s: string, length = 300): string {
  const chars = Array.from(s);
  if (chars.length <= length) return s;
  const half = Math.floor(length / 2);
  return `${chars.slice(0, half).join("")}...(truncated) ...${chars.slice(-half).join("")}`;
}
