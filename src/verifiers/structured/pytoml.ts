// TOML as NeMo Gym's environments read it: `tomllib.loads` (structured_outputs) and the `toml`
// package's `toml.loads` (structeval), both through smol-toml, a TOML 1.0 parser as tomllib is
// (NeMo Gym 07d6b0d). Dates and times become values no JSON Schema type accepts, as Python's
// `datetime` objects are to jsonschema. Where `toml` 0.10.2 (a pre-1.0 parser) differs from
// tomllib, the fixtures in test/fixtures/structured_parsers/ list it.
import { parse, TomlDate } from "smol-toml";
import { pyTemporal } from "./python_values.js";

function fromToml(value: unknown): unknown {
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
