// Scoring one structured answer (NeMo Gym 07d6b0d structured_outputs): the row's schema (JSON text)
// is made strict, the answer is parsed as the row's format with the parser NeMo Gym uses, XML and
// CSV strings are coerced toward the schema's types, and the result is validated as
// openapi-schema-validator 0.6.3 validates (OAS 3.1 = JSON Schema 2020-12, formats not asserted).
import { pyDictReader, pyJsonLoads, pyTomlLoads, pyYamlSafeLoad, validateOpenApi31, xmlToDict } from "../../verifiers/structured/index.js";
import { pyStrip } from "../../verifiers/text/pystr.js";
import { coerceCsv, coerceXml, strictify } from "./schema.js";

export const SCHEMA_TYPES = ["json", "yaml", "xml", "toml", "csv"] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

export interface Score {
  reward: number;
  error_type: string | null;
  error_message: string | null;
}

const fail = (error_type: string, e: unknown): Score => {
  const error = e as Error;
  return { reward: 0.0, error_type, error_message: `${error.name}: ${String(error.message).slice(0, 200)}` };
};

function parseAs(type: SchemaType, text: string): unknown {
  switch (type) {
    case "json":
      return pyJsonLoads(text);
    case "yaml":
      return pyYamlSafeLoad(text);
    case "xml":
      return xmlToDict(text);
    case "toml":
      return pyTomlLoads(text);
    case "csv":
      return pyDictReader(text).rows;
  }
}

function loadSchema(schemaStr: string): { schema?: unknown; error?: Score } {
  try {
    const schema = pyJsonLoads(schemaStr);
    strictify(schema);
    return { schema };
  } catch (e) {
    return { error: { reward: 0.0, error_type: "schema_error", error_message: String((e as Error).message).slice(0, 200) } };
  }
}

function validated(value: unknown, schema: unknown): Score {
  try {
    validateOpenApi31(value, schema);
    return { reward: 1.0, error_type: null, error_message: null };
  } catch (e) {
    return fail("validation_error", e);
  }
}

/** A tool call's already-parsed arguments against the schema. */
export function scoreObject(schemaStr: string, value: unknown): Score {
  const { schema, error } = loadSchema(schemaStr);
  if (error) return error;
  return validated(value, schema);
}

/** An answer's text, parsed as `type`, against the schema. */
export function scoreText(type: SchemaType, schemaStr: string, text: string, xmlCoerceTypes: boolean): Score {
  if (pyStrip(text) === "") return { reward: 0.0, error_type: "empty_response", error_message: "No assistant response text" };
  const { schema, error } = loadSchema(schemaStr);
  if (error) return error;
  let value: unknown;
  try {
    value = parseAs(type, text);
  } catch (e) {
    return fail("parse_error", e);
  }
  try {
    if (type === "xml" && xmlCoerceTypes) value = coerceXml(value, schema);
    if (type === "csv") value = coerceCsv(value as Array<Record<string, unknown>>, schema);
  } catch (e) {
    return fail("validation_error", e);
  }
  return validated(value, schema);
}
