// TOML as NeMo Gym's environments read it: `tomllib.loads` (structured_outputs) and the `toml`
// package's `toml.loads` (structeval), both through smol-toml, a TOML 1.0 parser as tomllib is
// (NeMo Gym 07d6b0d). Dates and times become values no JSON Schema type accepts, as Python's
// `datetime` objects are to jsonschema. Where `toml` 0.10.2 (a pre-1.0 parser) differs from
// tomllib, the fixtures in test/fixtures/structured_parsers/ list it; its one rule that tomllib lacks,
// "an array holds values of one Python type" (`[1, 2.0]` and `[1, "a"]` are errors), is applied.
import { parse, TomlDate } from "smol-toml";
import { pyTemporal } from "./python_values.js";

function fromToml(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (value instanceof TomlDate || value instanceof Date) return pyTemporal(value.toISOString());
  if (Array.isArray(value)) return value.map(fromToml);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = fromToml(v);
    return out;
  }
  return value;
}

/** `tomllib.loads(text)`: a table; throws where tomllib raises TOMLDecodeError. */
export function pyTomlLoads(text: string): Record<string, unknown> {
  return fromToml(parse(text)) as Record<string, unknown>;
}

/** The Python type toml 0.10.2 compares array items by. */
function pyType(value: unknown): string {
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return "float";
  if (value instanceof Date) return "datetime";
  if (Array.isArray(value)) return "list";
  return typeof value;
}

/** toml 0.10.2's "Not a homogeneous array": every array (nested ones too) holds one type. */
function checkHomogeneous(value: unknown): void {
  if (Array.isArray(value)) {
    if (new Set(value.map(pyType)).size > 1) throw new SyntaxError("Not a homogeneous array");
    value.forEach(checkHomogeneous);
  } else if (value !== null && typeof value === "object" && !(value instanceof Date)) Object.values(value).forEach(checkHomogeneous);
}

/** `toml.loads(text)` (the `toml` 0.10.2 package): tomllib's reading plus its homogeneous-array rule. */
export function pyLegacyTomlLoads(text: string): Record<string, unknown> {
  const parsed = parse(text, { integersAsBigInt: true });
  checkHomogeneous(parsed);
  return fromToml(parsed) as Record<string, unknown>;
}
