// GBNF grammars that force a Hermes/Qwen3 tool call, so `tool_choice: "required"` (or a named
// function) holds even for a model that would never produce one by itself:
//   <tool_call>\n{"name": "NAME", "arguments": ARGS}\n</tool_call>
// ARGS follows the tool's JSON schema, written in Python's json.dumps layout (", " and ": ") —
// the spelling Qwen3's chat template uses for calls. Supported schema: object (required properties,
// in declared order; optional ones are left out), string (enum/const/maxLength), integer, number,
// boolean, null, array, enum, const, anyOf/oneOf and type lists; anything else is any JSON value.
// llama.cpp then allows only end-of-generation tokens once the grammar is complete.

type Schema = Record<string, any>;

/** A GBNF string literal. */
function literal(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Python `json.dumps` of a scalar/array/object, for enum and const values. */
function pyJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pyJson).join(", ")}]`;
  if (value && typeof value === "object") return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`).join(", ")}}`;
  return JSON.stringify(value ?? null);
}

const BASE_RULES = [
  'json-char ::= [^"\\\\\\x00-\\x1f] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])',
  'json-string ::= "\\"" json-char* "\\""',
  'json-integer ::= "-"? ("0" | [1-9] [0-9]{0,15})',
  'json-number ::= json-integer ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})?',
  'json-value ::= json-string | json-number | "true" | "false" | "null" | json-array | json-object',
  'json-array ::= "[" (json-value (", " json-value)*)? "]"',
  'json-object ::= "{" (json-string ": " json-value (", " json-string ": " json-value)*)? "}"',
];

class GrammarBuilder {
  readonly rules: string[] = [...BASE_RULES];
  private counter = 0;

  private rule(body: string): string {
    const name = `r${this.counter++}`;
    this.rules.push(`${name} ::= ${body}`);
    return name;
  }

  /** A rule (or inline expression) matching values of `schema`. */
  value(schema: Schema | boolean | undefined, depth = 0): string {
    if (!schema || schema === true || depth > 12) return "json-value";
    if (schema.const !== undefined) return literal(pyJson(schema.const));
    if (Array.isArray(schema.enum) && schema.enum.length) return `(${schema.enum.map((v: unknown) => literal(pyJson(v))).join(" | ")})`;
    const choices = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(choices) && choices.length) return this.rule(choices.map((s: Schema) => this.value(s, depth + 1)).join(" | "));
    if (Array.isArray(schema.type)) return this.rule(schema.type.map((type: string) => this.value({ ...schema, type }, depth + 1)).join(" | "));
    switch (schema.type) {
      case "string":
        return typeof schema.maxLength === "number" ? `"\\"" json-char{0,${Math.max(0, Math.floor(schema.maxLength))}} "\\""` : "json-string";
      case "integer":
        return "json-integer";
      case "number":
        return "json-number";
      case "boolean":
        return '("true" | "false")';
      case "null":
        return '"null"';
      case "array": {
        const item = this.value(schema.items, depth + 1);
        return this.rule(`"[" (${item} (", " ${item})*)? "]"`);
      }
      case "object":
        return this.object(schema, depth);
      default:
        return schema.properties ? this.object(schema, depth) : "json-value";
    }
  }

  private object(schema: Schema, depth: number): string {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set<string>(Array.isArray(schema.required) ? schema.required : []);
    const keys = Object.keys(properties).filter((key) => required.has(key));
    if (keys.length === 0) return schema.properties ? '"{}"' : "json-object";
    const parts = keys.map((key, i) => `${literal(`${i ? ", " : ""}${JSON.stringify(key)}: `)} ${this.value(properties[key], depth + 1)}`);
    return this.rule(`"{" ${parts.join(" ")} "}"`);
  }
}

export interface GrammarTool {
  name: string;
  parameters?: Schema | null;
}

/** A grammar allowing one JSON value of `schema` (null: any JSON object), for `text.format` structured output. */
export function jsonGrammar(schema: Schema | null): string {
  const builder = new GrammarBuilder();
  const value = schema ? builder.value(schema) : "json-object";
  return [`root ::= ${value}`, ...builder.rules].join("\n");
}

/** A grammar allowing exactly one call to one of `tools`. */
export function toolCallGrammar(tools: readonly GrammarTool[]): string {
  if (tools.length === 0) throw new Error("toolCallGrammar: no tools");
  const builder = new GrammarBuilder();
  const calls = tools.map((tool) => {
    const args = builder.value(tool.parameters ?? { type: "object" });
    return `${literal(`<tool_call>\n{"name": ${JSON.stringify(tool.name)}, "arguments": `)} ${args} ${literal("}\n</tool_call>")}`;
  });
  return [`root ::= ${calls.join(" | ")}`, ...builder.rules].join("\n");
}
