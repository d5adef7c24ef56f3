// The schema side of structured_outputs (NeMo Gym 07d6b0d): the row's schema made strict, and the
// text formats' string values coerced toward the schema's types before validation.
import { pyFloat, pyInt } from "../../verifiers/structured/index.js";

type Json = unknown;
const isDict = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Upstream's `strictify_schema`, in place: every dict that has "properties" gets all of them
 * required and no others allowed; it then descends into the dict's values — dicts only, so schemas
 * inside lists (`anyOf`, `oneOf`, `allOf`, `prefixItems` entries) are left as written.
 */
export function strictify(schema: Json): void {
  if (!isDict(schema)) return;
  if ("properties" in schema) {
    const properties = schema.properties;
    schema.required = isDict(properties) ? Object.keys(properties) : Array.isArray(properties) ? properties : typeof properties === "string" ? Array.from(properties) : [];
    schema.additionalProperties = false;
  }
  for (const value of Object.values(schema)) strictify(value);
}

/** Upstream's boolean coercion of a text value: "true"/"1" and "false"/"0", any case. */
function coerceBoolean(text: string): boolean | string {
  const lower = text.toLowerCase();
  if (lower === "true" || lower === "1") return true;
  if (lower === "false" || lower === "0") return false;
  return text;
}

/**
 * Upstream's `coerce_xml_types`: walks xmltodict's output beside the schema. At an array position a
 * one-key dict is xmltodict's wrapping of repeated children and is unwrapped; a single value becomes
 * a one-element list and null an empty one. Empty string elements become "", and text becomes an
 * integer, number or boolean where the schema says so and Python's int()/float() accept it.
 */
export function coerceXml(data: Json, schema: Json): Json {
  if (!isDict(schema) || !("type" in schema)) return data;
  const type = schema.type;
  if (type === "object" && isDict(data)) {
    const properties = isDict(schema.properties) ? schema.properties : {};
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(data)) out[key] = key in properties ? coerceXml(value, properties[key]) : value;
    return out;
  }
  if (type === "array") {
    const items = "items" in schema ? schema.items : {};
    let list = data;
    if (isDict(list) && Object.keys(list).length === 1) list = Object.values(list)[0];
    if (!Array.isArray(list)) list = list === null || list === undefined ? [] : [list];
    return (list as Json[]).map((item) => coerceXml(item, items));
  }
  if (data === null && type === "string") return "";
  if (typeof data === "string") {
    if (type === "integer") return pyInt(data) ?? data;
    if (type === "number") return pyFloat(data) ?? data;
    if (type === "boolean") return coerceBoolean(data);
  }
  return data;
}

/** Upstream's `_coerce_csv_scalar`: one CSV cell toward a type name or a list of them. */
function coerceCsvScalar(value: Json, type: Json): Json {
  if (Array.isArray(type)) {
    if ((value === null || value === "") && type.includes("null")) return null;
    for (const t of type) {
      if (t === "null") continue;
      const result = coerceCsvScalar(value, t);
      if (typeof result !== "string" || t === "string") return result;
    }
    return value;
  }
  if (value === null || value === "") return value;
  if (typeof value !== "string") return value;
  if (type === "integer") return pyInt(value) ?? value;
  if (type === "number") return pyFloat(value) ?? value;
  if (type === "boolean") return coerceBoolean(value);
  return value;
}

/** Upstream's `coerce_csv_types`: each row's cells toward the item schema's property types (default string). */
export function coerceCsv(rows: Array<Record<string, unknown>>, schema: Json): Array<Record<string, unknown>> {
  const root = isDict(schema) ? schema : {};
  const items = "items" in root ? root.items : root;
  const properties = isDict(items) && isDict(items.properties) ? items.properties : {};
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) {
      const prop = Object.prototype.hasOwnProperty.call(properties, key) && isDict(properties[key]) ? properties[key] : {};
      out[key] = coerceCsvScalar(value, "type" in prop ? prop.type : "string");
    }
    return out;
  });
}
